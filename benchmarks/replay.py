"""Replay benchmark: `gnav-bot replay` on a long record, its start-up time, and what it imports.

Run from the repository root: `.venv/bin/python -m benchmarks.replay [--players 20] [--lives 600]`.

Builds one long match record (MATCH_RECORD.md) by playing a seeded random norsk match through
the engine (20 players with many lives: thousands of rounds, a few MB of JSON, every bag listed
in full), writes it to a temporary file, then times:

- `gnav-bot replay FILE` as a subprocess (start-up, reading, replaying, printing the outcome;
  stdout to /dev/null), the best of `--repeat` runs, as rounds per second;
- the same fold in-process (`replay_record` on the parsed record), to tell the engine from the
  process start-up and JSON work;
- `gnav-bot --help`, the start-up alone.

It also checks that `gnav-bot replay` loads no platform library (telegram, discord, aiosqlite,
asyncpg, pydantic, aiohttp): a replay must not pay for the bots. The last line is one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: put the repository root first on the path
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import os
import random
import subprocess
import tempfile
import time
from typing import Any

from bot.games.gnav.engine.match import Match
from bot.games.gnav.engine.pieces import FULL_SET
from bot.games.gnav.engine.record import export_record, outcome, replay_record

ROOT = Path(__file__).resolve().parents[1]
PLATFORM_LIBRARIES = ("telegram", "discord", "aiosqlite", "asyncpg", "pydantic", "aiohttp")


def build_record(players: int, lives: int, seed: int) -> dict[str, Any]:
    """A whole random match (seeded deals and choices), exported as a match record."""
    rng = random.Random(seed)
    match = Match([f"Player{i:02d}" for i in range(players)], lives=lives, dealer=0)
    while match.phase != "finished":
        pieces = list(FULL_SET)
        rng.shuffle(pieces)
        match.start_round(*match.deal_from(pieces))
        while match.phase == "play":
            seat = match.order[match.pos]
            match.act(seat, rng.choice(match.legal_actions(seat)))
    return export_record(match)


def gnav_bot() -> list[str]:
    """The `gnav-bot` console script next to this interpreter (or `python -m bot`)."""
    script = Path(sys.executable).with_name("gnav-bot")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot"]


def best_run(argv: list[str], repeat: int) -> float:
    """Best wall time of `argv` over `repeat` runs; fails loudly on a non-zero exit."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)
        best = min(best, time.perf_counter() - start)
    return best


def replay_modules(path: Path) -> list[str]:
    """Top-level modules loaded by `gnav-bot replay PATH` (run in a fresh interpreter)."""
    code = (
        "import sys, io, contextlib\n"
        "from bot.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['replay', {str(path)!r}])\n"
        "assert rc == 0, rc\n"
        "print(' '.join(sorted({m.partition('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.split()


def main(argv: list[str] | None = None) -> int:
    """Build the record, time the replays, print the figures and the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--lives", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    record = build_record(args.players, args.lives, args.seed)
    rounds = len(record["rounds"])
    text = json.dumps(record, ensure_ascii=False)
    fd, name = tempfile.mkstemp(prefix="gnav-replay-", suffix=".json")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        size = path.stat().st_size
        print(f"record: {rounds:,} rounds, {args.players} players, {size / 1e6:.1f} MB")

        parsed = json.loads(text)
        start = time.perf_counter()
        match, result = replay_record(parsed)
        in_process = time.perf_counter() - start
        assert result == outcome(match) and result["winners"]

        replay_s = best_run([*gnav_bot(), "replay", str(path)], args.repeat)
        help_s = best_run([*gnav_bot(), "--help"], args.repeat)
        loaded = replay_modules(path)
    finally:
        path.unlink(missing_ok=True)

    platform = sorted(set(loaded) & set(PLATFORM_LIBRARIES))
    print(f"gnav-bot replay: {replay_s:.3f} s, {rounds / replay_s:,.0f} rounds/s (whole command)")
    print(f"replay_record in-process: {in_process:.3f} s, {rounds / in_process:,.0f} rounds/s")
    print(f"gnav-bot --help (start-up): {help_s * 1000:.0f} ms")
    print(f"platform libraries loaded by replay: {', '.join(platform) or 'none'}")
    summary = {
        "rounds": rounds,
        "players": args.players,
        "record_bytes": size,
        "replay_s": round(replay_s, 4),
        "rounds_per_s": round(rounds / replay_s),
        "in_process_rounds_per_s": round(rounds / in_process),
        "help_s": round(help_s, 4),
        "platform_libraries_loaded": platform,
    }
    print(json.dumps(summary))
    return 1 if platform else 0


if __name__ == "__main__":
    sys.exit(main())
