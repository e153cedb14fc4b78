"""Where the rules vectors live and how to run `gnav-bot`, shared by the engine tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).resolve().parent.parent / "vectors"


def vector_records() -> list[Path]:
    """Every Gnav record in tests/vectors/public and own, sorted; outcomes are beside them.

    Other games keep their vectors in their own folders (tests/vectors/gnavspiel/...).
    """
    return sorted(
        p
        for folder in ("public", "own")
        for p in (VECTORS / folder).glob("*.json")
        if not p.name.endswith(".outcome.json")
    )


def outcome_path(record: Path) -> Path:
    """The expected outcome of a record: `NAME.outcome.json` next to `NAME.json`."""
    return record.with_name(record.stem + ".outcome.json")


def load_json(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def gnav_bot_command() -> list[str]:
    """The `gnav-bot` console script of this interpreter's environment (or `python -m bot`)."""
    script = Path(sys.executable).with_name("gnav-bot")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "bot"]


def run_gnav_bot(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """Run `gnav-bot ARGS...` and capture its text output."""
    return subprocess.run(
        [*gnav_bot_command(), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
