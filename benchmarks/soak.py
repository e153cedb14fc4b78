"""Soak benchmark: many whole matches of each game in one process, watching its memory.

For each game (gnav, gnavspiel, karnaval) `--matches` whole matches of bot seats are played
through the real service on one SQLite file (as `gnav-bot run` stores them: WAL, the outbox,
finished matches and statistics), `--parallel` tables at a time in as many channels, each
channel playing match after match (a new table each time, as a group that plays on does);
`--fresh-channels` plays every match in a channel of its own instead (a bot that meets new
groups all the time). Every tenth of the
run the process's RSS and open file descriptors are printed, after a collection; the closing
note compares the first tenth (warm-up: caches, the catalogs, the interned strings) with the
end, per match.

`--trace` also takes tracemalloc snapshots after the warm-up and at the end and prints the
allocation sites that grew most: what a leak would be made of.

Run: `.venv/bin/python benchmarks/soak.py --matches 2000` (minutes per game; `--game` for one).
The last line is one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script, this folder comes first on sys.path and benchmarks/storage.py would
    # shadow the `storage` package: put the repository root there instead.
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import gc
import json
import os
import random
import tempfile
import time
import tracemalloc
from typing import Any

from benchmarks.service import NullNotifier
from bot.games.registry import all_games
from bot.runtime import tune_garbage_collector
from bot.service.commands import Configure, Open, Start
from bot.service.service import TableService
from bot.service.table import TableKey, User
from storage.sqlite import SqliteRepository

HOST = User("soak:host", "Host")
#: Each game's table settings for a quick whole match of bot seats.
SETTINGS: dict[str, list[str]] = {
    "gnav": ["bots=4", "lives=3", "delay=0"],
    "gnavspiel": ["game=gnavspiel", "bots=4", "delay=0"],
    "karnaval": ["game=karnaval", "bots=4", "delay=0"],
}


def rss_kb() -> int:
    """The process's resident set size (KB), from /proc."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_fds() -> int:
    """File descriptors the process holds."""
    return len(os.listdir("/proc/self/fd"))


async def start_match(service: TableService, key: TableKey, game: str) -> None:
    """Open a table of bot seats in `key`'s channel and start its match."""
    assert (await service.handle(Open(key, HOST, sit=False))).ok
    reply = await service.handle(Configure(key, HOST, SETTINGS[game]))
    assert reply.ok, reply.text
    reply = await service.handle(Start(key, HOST))
    assert reply.ok, reply.text


def closed(service: TableService, key: TableKey) -> bool:
    """Whether the table of `key` finished (the benchmark may look inside the service)."""
    table = service.uow.cached.get(key.key)
    return table is None or table.status == "closed"


async def soak(game: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Play `args.matches` whole matches of `game`; samples of (matches, RSS KB, fds)."""
    repo = await SqliteRepository.open(folder / f"{game}.sqlite3", synchronous="NORMAL")
    service = TableService(
        repo, NullNotifier(), games=all_games(), rng=random.Random(args.seed), bot_delay=0.0
    )
    every = max(1, args.matches // 10)
    samples: list[tuple[int, int, int]] = []
    snapshot: tracemalloc.Snapshot | None = None
    started = 0
    done = 0
    active: list[TableKey] = []
    begin = time.perf_counter()

    def sample() -> None:
        gc.collect()
        samples.append((done, rss_kb(), open_fds()))
        print(f"  {game:10} {done:6} matches  RSS {samples[-1][1] / 1024:7.1f} MB  "
              f"fds {samples[-1][2]:3}  {time.perf_counter() - begin:6.0f} s")  # fmt: skip

    sample()
    free = [TableKey("soak", f"{game}{i}") for i in range(args.parallel)]
    while done < args.matches:
        while free and started < args.matches:
            key = free.pop()
            if args.fresh_channels:
                key = TableKey("soak", f"{game}{started}")
            await start_match(service, key, game)
            active.append(key)
            started += 1
        acted = await service.tick()
        finished = [k for k in active if closed(service, k)]
        for key in finished:
            active.remove(key)
            free.append(key)
            done += 1
            if done % every == 0:
                await service.drain()
                sample()
                if args.trace and done == every:
                    snapshot = tracemalloc.take_snapshot()
        if not acted and not finished:
            await asyncio.sleep(0)
    await service.drain()
    growth: list[str] = []
    if args.trace and snapshot is not None:
        gc.collect()
        later = tracemalloc.take_snapshot()
        for stat in later.compare_to(snapshot, "lineno")[:8]:
            growth.append(f"{stat.size_diff / 1024:+.1f} KB {stat.count_diff:+d} {stat.traceback}")
        print("  grew most since the warm-up (tracemalloc):")
        for line in growth:
            print(f"    {line}")
    await service.shutdown()
    await repo.close()
    warm, end = samples[1], samples[-1]
    per_match = (end[1] - warm[1]) * 1024 / max(1, end[0] - warm[0])
    print(f"  {game}: {per_match:+.0f} bytes of RSS per match after the warm-up, fds {end[2]}")
    return {
        "matches": done,
        "seconds": round(time.perf_counter() - begin, 1),
        "rss_mb": [round(s[1] / 1024, 1) for s in samples],
        "fds": [s[2] for s in samples],
        "bytes_per_match_after_warmup": round(per_match),
        "growth": growth,
    }


async def main() -> None:
    """Soak each game asked for and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000, help="whole matches per game")
    parser.add_argument("--parallel", type=int, default=8, help="tables playing at once")
    parser.add_argument("--game", choices=sorted(SETTINGS), action="append")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fresh-channels", action="store_true", help="a channel per match")
    parser.add_argument("--trace", action="store_true", help="tracemalloc snapshots")
    parser.add_argument("--frames", type=int, default=1, help="frames kept by --trace")
    args = parser.parse_args()
    tune_garbage_collector()
    if args.trace:
        tracemalloc.start(args.frames)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="gnav-soak-") as tmp:
        for game in args.game or list(SETTINGS):
            print(f"{game}:")
            results[game] = await soak(game, args, Path(tmp))
    print(json.dumps(results))


if __name__ == "__main__":
    asyncio.run(main())
