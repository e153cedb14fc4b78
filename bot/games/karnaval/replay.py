"""`gnav-bot replay` for records of other games than Gnav (Karnaval now).

`bot.cli` asks `replay_other_game` first. A file whose text never names a `"game"` is left to
the Gnav reader at once (a Gnav record has no `game` key), so Gnav replays pay one extra read
of the file and a substring search. Otherwise the text is parsed as strict RFC 8259 JSON (no
byte-order mark, NaN, Infinity or trailing text): a record with a `game` other than "gnav" is
handed to the Karnaval rules (KARNAVAL_RECORD.md), and a file that names a game but is not
JSON is reported as `file: ...`, whatever game was meant. An invalid record prints its one error
line on stderr (exit 2); a valid one prints the outcome JSON on stdout (exit 0).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bot.games.karnaval.engine.record import RecordError, parse_record, replay_record


def is_karnaval_record(record: Any) -> bool:
    """Whether `gnav-bot replay` hands this parsed record to the Karnaval rules: an object
    with a `game` key other than "gnav" (a record without `game` is a Gnav record)."""
    return isinstance(record, dict) and "game" in record and record["game"] != "gnav"


def replay_other_game(path: str, compact: bool = False) -> int | None:
    """Replay the record at `path` if it is not a Gnav record: the exit status, or None to
    leave the file to the Gnav reader (no `"game"` in it, unreadable, or a Gnav record)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None  # the Gnav reader reports an unreadable file
    if b'"game"' not in data:
        return None
    try:
        text = data.decode("utf-8")
        record = parse_record(text)
    except UnicodeDecodeError:
        return _fail("file: not valid JSON (not UTF-8 text)")
    except RecordError as exc:
        return _fail(exc.line)
    if not is_karnaval_record(record):
        return None
    try:
        _, result = replay_record(record)
    except RecordError as exc:
        return _fail(exc.line)
    text = json.dumps(result, ensure_ascii=False, indent=None if compact else 1)
    sys.stdout.write(text + "\n")
    return 0


def _fail(line: str) -> int:
    print(line, file=sys.stderr)
    return 2
