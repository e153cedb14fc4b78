"""`gnav-bot replay` for Karnaval records: the glue between the command line and the engine.

`bot.cli` parses the file and hands any record that names a `game` other than Gnav here. The
record is checked again as strict RFC 8259 JSON (the Gnav reader tolerates NaN and Infinity);
an invalid record prints its one error line (KARNAVAL_RECORD.md "Errors") and exits 2.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bot.games.karnaval.engine.record import (
    RecordError,
    has_non_json_numbers,
    parse_record,
    replay_record,
)


def is_karnaval_record(record: Any) -> bool:
    """Whether `gnav-bot replay` hands this parsed record to the Karnaval rules: an object
    with a `game` key other than "gnav" (a record without `game` is a Gnav record)."""
    return isinstance(record, dict) and "game" in record and record["game"] != "gnav"


def replay_command(path: str, record: Any, compact: bool = False) -> int:
    """Replay a parsed Karnaval record read from `path`: print the outcome, return 0; or print
    the error line on stderr and return 2."""
    try:
        if has_non_json_numbers(record):
            with open(path, encoding="utf-8") as f:
                record = parse_record(f.read())  # the strict parser names the fault
        _, result = replay_record(record)
    except RecordError as exc:
        print(exc.line, file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as exc:
        print(f"file: cannot be read ({exc})", file=sys.stderr)
        return 2
    text = json.dumps(result, ensure_ascii=False, indent=None if compact else 1)
    sys.stdout.write(text + "\n")
    return 0
