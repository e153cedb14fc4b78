"""The `gnav-bot` command line: `replay`, `play` (a table in the terminal) and `run` (the bots).

This is the composition root: the only module that picks concrete storage and adapters. Each
sub-command imports what it needs when it runs, so `replay` starts without any platform library.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any


def load_record(path: str) -> Any:
    """Read a match record file and parse its JSON (RecordError when unreadable or malformed)."""
    from bot.engine.record import RecordError, parse_record

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not UTF-8 text") from None
    return parse_record(text)


def _replay(args: argparse.Namespace) -> int:
    from bot.engine.record import RecordError, replay_record

    try:
        _, result = replay_record(load_record(args.file))
    except RecordError as exc:
        print(f"gnav-bot replay: {exc}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False, indent=None if args.compact else 1)
    sys.stdout.write("\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    parser = argparse.ArgumentParser(
        prog="gnav-bot",
        description="Gnav, the Scandinavian swapping game, for chat groups and the terminal.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    replay = sub.add_parser(
        "replay",
        help="replay a match record (MATCH_RECORD.md) and print its outcome as JSON",
        description="Replay a match record through the rules engine and print the outcome JSON.",
    )
    replay.add_argument("file", metavar="FILE", help="the match record (JSON)")
    replay.add_argument("--compact", action="store_true", help="print the JSON on one line")
    replay.set_defaults(func=_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gnav-bot` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
