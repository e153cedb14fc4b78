"""Where the Karnaval vectors live (tests/vectors/karnaval/public and own)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "karnaval"


def valid_records() -> list[Path]:
    """Records with an expected outcome beside them (`NAME.outcome.json`), sorted."""
    return sorted(
        p
        for p in VECTORS.rglob("*.json")
        if not p.name.endswith(".outcome.json") and not p.name.startswith("invalid_")
    )


def invalid_records() -> list[Path]:
    """Invalid records (`invalid_NAME.json`) with their checked words (`invalid_NAME.expect`)."""
    return sorted(VECTORS.rglob("invalid_*.json"))


def outcome_path(record: Path) -> Path:
    """The expected outcome of a record."""
    return record.with_name(record.stem + ".outcome.json")


def expect_words(record: Path) -> list[str]:
    """The checked strings of an invalid record, the location first."""
    lines = record.with_suffix(".expect").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line]


def load_json(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))
