"""The page's own files (HTML, CSS, JavaScript modules), shipped as package data."""

from __future__ import annotations

from importlib import resources

#: The folder of the page's files, served as they are.
STATIC = resources.files("adapters.web").joinpath("static")


def static_text(name: str) -> str:
    """One of the page's files as text."""
    return STATIC.joinpath(name).read_text(encoding="utf-8")
