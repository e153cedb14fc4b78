"""Message catalogs: every text shown to people, per language (N25).

Catalogs are JSON files in `bot/i18n/<lang>.json` mapping keys to `str.format` templates. The
Norwegian calls ("Jeg står", "Hest forbi!"...) stay in Norwegian in every language.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from string import Formatter
from typing import Any

#: Languages a table may choose: English, Norwegian bokmål, Russian, Portuguese.
LANGUAGES: tuple[str, ...] = ("en", "nb", "ru", "pt")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "nb": "Norsk bokmål",
    "ru": "Русский",
    "pt": "Português",
}


class Catalog:
    """One language's messages, falling back to English for a missing key.

    `bind` gives a view that also fills fixed parameters (the platform's command prefix...).
    """

    def __init__(
        self,
        language: str,
        messages: dict[str, str],
        fallback: Catalog | None,
        defaults: dict[str, Any] | None = None,
    ) -> None:
        self.language = language
        self.messages = messages
        self.fallback = fallback
        self.defaults = defaults or {}

    def template(self, key: str) -> str:
        """The raw template of `key` (KeyError when no catalog has it)."""
        template = self.messages.get(key)
        if template is None:
            if self.fallback is None:
                raise KeyError(f"no message {key!r}")
            return self.fallback.template(key)
        return template

    def t(self, key: str, /, **params: Any) -> str:
        """The message `key` filled with `params` (and the bound parameters)."""
        template = self.messages.get(key)
        if template is None:
            template = self.template(key)
        if self.defaults:
            return template.format_map({**self.defaults, **params})
        return template.format_map(params)

    def bind(self, **defaults: Any) -> Catalog:
        """This catalog with parameters every message may use (e.g. the command prefix)."""
        return Catalog(self.language, self.messages, self.fallback, {**self.defaults, **defaults})

    def has(self, key: str) -> bool:
        """True when this catalog (or its fallback) has `key`."""
        return key in self.messages or (self.fallback is not None and self.fallback.has(key))


#: Packages of games' own catalogs (`<package>/<lang>.json`), merged over the service's.
_GAME_TEXTS: list[str] = []


def add_texts(package: str) -> None:
    """Merge a game's own catalogs (package `package`, files `<lang>.json`) into every
    catalog: a game's keys are its own (`<game>.*`)."""
    if package not in _GAME_TEXTS:
        _GAME_TEXTS.append(package)
        catalog.cache_clear()


def _load_file(package: str, language: str) -> dict[str, str]:
    path = resources.files(package).joinpath(f"{language}.json")
    if not path.is_file():
        return {}  # every message then comes from the English fallback
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def _load(language: str) -> dict[str, str]:
    messages = _load_file("bot.i18n", language)
    for package in _GAME_TEXTS:
        messages.update(_load_file(package, language))
    return messages


@cache
def catalog(language: str) -> Catalog:
    """The catalog of `language` (English when the language is not known)."""
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    english = None if language == DEFAULT_LANGUAGE else catalog(DEFAULT_LANGUAGE)
    return Catalog(language, _load(language), english)


def placeholders(template: str) -> set[str]:
    """The named fields of a template (for checking translations)."""
    return {name for _, name, _, _ in Formatter().parse(template) if name}
