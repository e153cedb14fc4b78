"""`gnav-bot replay`: read a record, hand it to its game's rules, give back the outcome.

Replaying is each game's own fold over its record; this module only reads the text and picks the
game. Faults of the file itself (unreadable, not UTF-8, empty, not RFC 8259 JSON, too deep, a
number or string Python cannot hold) are `file: …` whatever game was meant
(KARNAVAL_RECORD.md's `file:` location, the same for every game). A record's `"game"` names its
game among the registry's (`bot/games/registry.py`); an unknown one is one `game: …` line naming
the games there are. A record without `"game"` (or with `"game": "gnav"`) is a Gnav record
(MATCH_RECORD.md), of the Gnavspiel engine when its `profile` is "gnavspiel". A game's own faults
are worded by its record module: Gnav's and Gnavspiel's after `gnav-bot replay: `, Karnaval's
starting with their location.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any

from bot.games.common.engine import safejson
from bot.games.registry import GAME_NAMES


class ReplayError(Exception):
    """An invalid record: `line` is the one line `gnav-bot replay` prints on stderr."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


#: How Gnav's and Gnavspiel's own error lines begin (MATCH_RECORD.md).
GNAV_PREFIX = "gnav-bot replay: "
#: How faults of the file itself begin, for every game (KARNAVAL_RECORD.md, "Errors").
FILE_PREFIX = "file: "


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
        raise ReplayError(f"{FILE_PREFIX}cannot read {name}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ReplayError(f"{FILE_PREFIX}{name} is not UTF-8 text") from None


def replay_text(text: str, name: str = "the record") -> dict[str, Any]:
    """The outcome of the record in `text`, or ReplayError with the line to print.

    The garbage collector is paused meanwhile: the parsed record makes no reference cycles
    and is dropped (freed by its counts) on the way out, and collections during the replay
    would scan its whole tree again and again (on a 46 MB record more than the parse itself).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        record = parse_text(text, name)
        return _REPLAY[game_of(record)](record, name)
    finally:
        if collecting:
            gc.enable()


def parse_text(text: str, name: str = "the record") -> Any:
    """The JSON value of a record's text; ReplayError `file: …` when there is none."""
    if not text.strip():
        raise ReplayError(f"{FILE_PREFIX}{safejson.cut(name)}: empty file, no match record in it")
    try:
        return safejson.loads(text)
    except safejson.JsonError as exc:
        raise ReplayError(f"{FILE_PREFIX}{exc}") from None


def game_of(record: Any) -> str:
    """The registered game a parsed record belongs to; ReplayError `game: …` naming the games
    when its `"game"` is none of them."""
    game = record.get("game", "gnav") if isinstance(record, dict) else "gnav"
    if not isinstance(game, str) or game not in GAME_NAMES:
        raise ReplayError(
            f"game: {safejson.shown(game)} is not a known game (games: {', '.join(GAME_NAMES)})"
        )
    if game == "gnav" and isinstance(record, dict) and record.get("profile") == "gnavspiel":
        return "gnavspiel"  # MATCH_RECORD.md: the profile picks Gnavspiel's rules
    return game


def _karnaval(record: Any, name: str) -> dict[str, Any]:
    """Replay a Karnaval record (KARNAVAL_RECORD.md)."""
    from bot.games.karnaval.engine.record import RecordError, replay_record

    try:
        _, result = replay_record(record)
    except RecordError as exc:
        raise ReplayError(exc.line) from None
    return result


def _gnavspiel(record: Any, name: str) -> dict[str, Any]:
    """Replay a Gnavspiel record (MATCH_RECORD.md, "Profile `gnavspiel`")."""
    from bot.games.gnavspiel.engine.record import RecordError, replay_record

    try:
        _, result = replay_record(record)
    except RecordError as exc:
        raise ReplayError(f"{GNAV_PREFIX}{exc}") from None
    return result


def _gnav(record: Any, name: str) -> dict[str, Any]:
    """Replay a Gnav record (profiles norsk and tradisjonell)."""
    from bot.games.gnav.engine.record import RecordError, replay_record

    try:
        if looks_like_an_outcome(record):
            raise RecordError(
                f"{safejson.cut(name)} looks like an outcome (what gnav-bot replay prints), "
                "not a match record (MATCH_RECORD.md)"
            )
        _, result = replay_record(record)
    except RecordError as exc:
        raise ReplayError(f"{GNAV_PREFIX}{exc}") from None
    return result


#: Each registered game's replay (a test checks that every game in GAME_NAMES has one).
_REPLAY: dict[str, Callable[[Any, str], dict[str, Any]]] = {
    "gnav": _gnav,
    "gnavspiel": _gnavspiel,
    "karnaval": _karnaval,
}


def looks_like_an_outcome(data: Any) -> bool:
    """The JSON `gnav-bot replay` prints: winners, and rounds of events instead of actions."""
    if not isinstance(data, dict) or "winners" not in data or "seats" in data:
        return False
    rounds = data.get("rounds")
    return isinstance(rounds, list) and all(
        isinstance(r, dict) and "events" in r and "actions" not in r for r in rounds
    )
