"""`gnav-bot replay`: read a record, hand it to its game's rules, give back the outcome.

Replaying is each game's own fold over its record; this module only reads the text and picks the
game. A record that names a `game` other than "gnav" is a Karnaval record (KARNAVAL_RECORD.md);
any other is a Gnav record (MATCH_RECORD.md), of the `gnavspiel` profile when it says so. Faults
of the file itself (unreadable, not UTF-8) are reported as `file: …` whatever game was meant, as
KARNAVAL_RECORD.md asks; a game's own faults in that game's words.
"""

from __future__ import annotations

import sys
from typing import Any


class ReplayError(Exception):
    """An invalid record: `line` is the one line `gnav-bot replay` prints on stderr."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


#: How Gnav's own error lines begin (MATCH_RECORD.md).
GNAV_PREFIX = "gnav-bot replay: "


def read_text(path: str) -> str:
    """The record's text from `path` (`-`: standard input); ReplayError `file: …` when it
    cannot be read or is not UTF-8 text."""
    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise ReplayError(f"file: cannot read {name}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ReplayError(f"file: {name} is not UTF-8 text") from None


def replay_text(text: str, name: str = "the record") -> dict[str, Any]:
    """The outcome of the record in `text`, or ReplayError with the line to print."""
    if '"game"' in text:
        karnaval = _karnaval(text)
        if karnaval is not None:
            return karnaval
    return _gnav(text, name)


def _karnaval(text: str) -> dict[str, Any] | None:
    """Replay a record naming a game other than Gnav; None when it names Gnav after all."""
    from bot.games.gnav.engine import safejson
    from bot.games.karnaval.engine.record import RecordError, parse_record, replay_record

    try:
        record = parse_record(text)
        safejson.check(record)  # nesting and lone surrogates, as for every record
    except RecordError as exc:
        raise ReplayError(exc.line) from None
    except safejson.JsonError as exc:
        raise ReplayError(f"file: not valid JSON ({exc})") from None
    if not (isinstance(record, dict) and "game" in record and record["game"] != "gnav"):
        return None
    try:
        _, result = replay_record(record)
    except RecordError as exc:
        raise ReplayError(exc.line) from None
    return result


def _gnav(text: str, name: str) -> dict[str, Any]:
    """Replay a Gnav record (profiles norsk and tradisjonell, and gnavspiel's own engine)."""
    from bot.games.gnav.engine.record import RecordError, parse_record, replay_record

    try:
        if not text.strip():
            raise RecordError(f"{name}: empty file, no match record in it")
        record = parse_record(text)
        if looks_like_an_outcome(record):
            raise RecordError(
                f"{name} looks like an outcome (what gnav-bot replay prints), not a match record "
                "(MATCH_RECORD.md)"
            )
        if isinstance(record, dict) and record.get("profile") == "gnavspiel":
            from bot.games.gnavspiel.engine.record import replay_record as replay_gnavspiel

            _, result = replay_gnavspiel(record)  # its RecordError is Gnav's (one wording)
        else:
            _, result = replay_record(record)
    except RecordError as exc:
        raise ReplayError(f"{GNAV_PREFIX}{exc}") from None
    return result


def looks_like_an_outcome(data: Any) -> bool:
    """The JSON `gnav-bot replay` prints: winners, and rounds of events instead of actions."""
    if not isinstance(data, dict) or "winners" not in data or "seats" in data:
        return False
    rounds = data.get("rounds")
    return isinstance(rounds, list) and all(
        isinstance(r, dict) and "events" in r and "actions" not in r for r in rounds
    )
