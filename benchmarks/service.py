"""Service benchmark: many tables playing whole matches at once through the real service.

Every table is opened, configured and started through `TableService` (the host watches, bot
seats play: `open(..., sit=False)`), bots act as soon as they are due (`bot_delay=0`), and every
action is a command committed to SQLite on disk (synchronous=FULL) before the next; the
notifier sends nothing anywhere (it only counts). Printed:

- actions per second over the whole run, and p50/p99 latency per command (from the start of
  handling a due table to its commit being acknowledged), with the garbage collector tuned
  as `gnav-bot run` tunes it (bot/runtime.py);
- memory per active table (tracemalloc, in a separate smaller pass);
- bytes stored per match (table state plus the finished match's record, and the file size);
- the time to resume 10,000 stored tables;
- the raw aiosqlite rate of single-row committed transactions on the same disk, the ceiling.

The last line is one JSON object. Run: `.venv/bin/python benchmarks/service.py` (about a
minute; `--tables N` and `--resume N` to change the sizes).

`--thinking N` adds N Karnaval tables of three `strong` bot seats (issue 22) to the same
service while the measured tables play: their bots think in a pool of `--think-processes`
worker processes (0: threads), at most `--think-concurrent` at once, each within
`--think-seconds`; the latency figures stay those of the measured tables' commands, so
comparing a run with and without `--thinking` shows what thinking costs the other tables, and
`--thinking-level normal` what the same tables cost with bots that do not think.
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
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from typing import Any

from bot.games.registry import all_games
from bot.runtime import tune_garbage_collector
from bot.service.ports import Delivery, Screen
from bot.service.service import TableService
from bot.service.table import TableKey, User
from bot.service.thinking import Thinking
from storage.sqlite import SqliteRepository, raw_commit_rate

HOST = User("bench:host", "Host")


class NullNotifier:
    """Sends nothing; counts what it was asked to send."""

    def __init__(self) -> None:
        self.posts = 0
        self.edits = 0
        self.tells = 0

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Count a post."""
        self.posts += 1
        return str(self.posts)

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Count an edit."""
        self.edits += 1
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Count a private message."""
        self.tells += 1
        return Delivery.DELIVERED


class TimedService(TableService):
    """The service, with the wall time of every handled deadline (a bot's command) kept
    (not of the tables whose key starts with "think": they are the load, not the measure)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.latencies: list[float] = []
        self.thinking_steps = 0
        # Each handled deadline timed, around the main loop's own step (`Timers`).
        step = self.timers._on_deadline

        async def timed(key: str) -> bool:
            start = time.perf_counter()
            acted = await step(key)
            if acted and ":think" in key:
                self.thinking_steps += 1
            elif acted:
                self.latencies.append(time.perf_counter() - start)
            return acted

        self.timers._on_deadline = timed  # type: ignore[method-assign]


async def setup_tables(
    service: TableService, count: int, prefix: str, players: int, words: tuple[str, ...] = ()
) -> None:
    """Open, configure and start `count` tables of bot seats (in parallel: commits batch)."""
    words = words or ("lives=3",)

    async def one(i: int) -> None:
        key = TableKey("bench", f"{prefix}{i}")
        await service.open(key, HOST, sit=False)
        reply = await service.configure(key, HOST, [f"bots={players}", *words, "delay=0"])
        assert reply.ok, reply.text
        reply = await service.start(key, HOST)
        assert reply.ok, reply.text

    await asyncio.gather(*(one(i) for i in range(count)))


def open_tables(service: TableService) -> int:
    """Measured tables still playing (the benchmark may look inside the service it measures)."""
    return sum(
        1 for k, t in service.work.cached.items() if t.status != "closed" and ":think" not in k
    )


async def play_all(service: TimedService) -> tuple[int, float]:
    """Run deadlines until every table has finished; returns (commands, seconds)."""
    start = time.perf_counter()
    idle = 0
    while True:
        acted = await service.tick()
        if acted == 0:
            idle += 1
            if open_tables(service) == 0:
                break
            if idle > 1000:
                raise RuntimeError("tables stopped making progress")
            await asyncio.sleep(0)
        else:
            idle = 0
    return len(service.latencies), time.perf_counter() - start


async def memory_per_table(folder: Path, tables: int, players: int) -> float:
    """Bytes of Python memory per active table, mid-match (tracemalloc)."""
    repo = await SqliteRepository.open(folder / "memory.sqlite3", synchronous="NORMAL")
    service = TimedService(
        repo, NullNotifier(), rng=random.Random(2), bot_delay=0.0, games=all_games()
    )
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    await setup_tables(service, tables, "m", players)
    for _ in range(5):  # a few bot moves each, so the tables are mid-round
        await service.tick()
    await service.outbox.drain()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    await repo.close()
    return (after - before) / tables


async def resume_time(folder: Path, tables: int, players: int) -> float:
    """Seconds for a new service to resume `tables` stored tables."""
    path = folder / "resume.sqlite3"
    repo = await SqliteRepository.open(path)
    service = TableService(
        repo, NullNotifier(), rng=random.Random(3), bot_delay=3600.0, games=all_games()
    )
    await setup_tables(service, tables, "r", players)
    await service.outbox.drain()
    await repo.close()
    repo = await SqliteRepository.open(path)
    fresh = TableService(
        repo, NullNotifier(), rng=random.Random(4), bot_delay=3600.0, games=all_games()
    )
    start = time.perf_counter()
    restored = await fresh.resume()
    seconds = time.perf_counter() - start
    await fresh.outbox.drain()
    await repo.close()
    assert restored == tables, (restored, tables)
    return seconds


def stored_bytes(path: Path) -> tuple[float, float, float]:
    """(state bytes per table, record bytes per match, file bytes per match)."""
    with sqlite3.connect(path) as db:
        state, tables = db.execute("SELECT sum(length(state)), count(*) FROM tables").fetchone()
        record, matches = db.execute("SELECT sum(length(record)), count(*) FROM matches").fetchone()
    size = sum(p.stat().st_size for p in path.parent.iterdir() if p.name.startswith(path.name))
    return state / tables, record / max(matches, 1), size / max(matches, 1)


async def main() -> None:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--players", type=int, default=6, help="bot seats per table")
    parser.add_argument("--resume", type=int, default=10_000)
    parser.add_argument("--parallel", type=int, default=64, help="deadlines handled at once")
    parser.add_argument("--thinking", type=int, default=0, help="strong Karnaval tables too")
    parser.add_argument("--think-processes", type=int, default=1)
    parser.add_argument("--think-concurrent", type=int, default=2)
    parser.add_argument("--think-seconds", type=float, default=0.25)
    parser.add_argument(
        "--thinking-level", default="strong", help="the level of those tables (normal: no thinking)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gnav-service-bench-") as tmp:
        folder = Path(tmp)
        raw = await raw_commit_rate(folder / "raw.sqlite3", seconds=3.0)
        print(f"raw aiosqlite single-row commits: {raw:,.0f}/s (synchronous=FULL)")

        path = folder / "play.sqlite3"
        repo = await SqliteRepository.open(path)
        notifier = NullNotifier()
        service = TimedService(
            repo,
            notifier,
            rng=random.Random(1),
            bot_delay=0.0,
            max_parallel=args.parallel,
            games=all_games(),
            thinking=Thinking(
                processes=args.think_processes,
                concurrent=args.think_concurrent,
                seconds=args.think_seconds,
            ),
        )
        await setup_tables(service, args.tables, "t", args.players)
        if args.thinking:
            karnaval = ("game=karnaval", f"level={args.thinking_level}")
            await setup_tables(service, args.thinking, "think", 3, karnaval)
        if args.thinking:
            await service.work.thinking.start_pool(all_games)  # as `gnav-bot run` does at its start
        tune_garbage_collector()  # as `gnav-bot run` does once its tables are restored
        commands, seconds = await play_all(service)
        await service.outbox.drain()
        transactions = repo.transactions
        await service.work.thinking.close()
        await repo.close()
        lat = sorted(service.latencies)
        p50 = statistics.median(lat) * 1000
        p99 = lat[int(len(lat) * 0.99) - 1] * 1000
        rate = commands / seconds
        print(
            f"{args.tables} tables x {args.players} bot seats: {commands:,} commands in "
            f"{seconds:.1f} s = {rate:,.0f} actions/s ({rate / raw:.2f} of the raw rate), "
            f"{transactions:,} transactions"
        )
        print(f"latency per command: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
        if args.thinking:
            print(
                f"meanwhile {args.thinking} Karnaval tables of {args.thinking_level} bots made "
                f"{service.thinking_steps:,} steps (not in the figures above)"
            )
        print(
            f"messages: {notifier.posts:,} posts, {notifier.edits:,} edits, "
            f"{notifier.tells:,} private"
        )
        state, record, file_bytes = stored_bytes(path)
        print(
            f"stored: {state / 1024:.1f} KB state per table, {record / 1024:.1f} KB record "
            f"per match, {file_bytes / 1024:.1f} KB of database file per match"
        )
        per_table = await memory_per_table(folder, min(args.tables, 1000), args.players)
        print(f"memory: {per_table / 1024:.1f} KB per active table")
        resume = await resume_time(folder, args.resume, args.players)
        print(f"resume {args.resume:,} stored tables: {resume:.2f} s")
        print(
            json.dumps(
                {
                    "tables": args.tables,
                    "players": args.players,
                    "actions_per_s": round(rate, 1),
                    "raw_commits_per_s": round(raw, 1),
                    "ratio_to_raw": round(rate / raw, 3),
                    "p50_ms": round(p50, 2),
                    "p99_ms": round(p99, 2),
                    "kb_per_table": round(per_table / 1024, 2),
                    "state_kb_per_table": round(state / 1024, 2),
                    "record_kb_per_match": round(record / 1024, 2),
                    "file_kb_per_match": round(file_bytes / 1024, 2),
                    "resume_10k_s": round(resume * 10_000 / args.resume, 3),
                    "commands": commands,
                    "thinking_tables": args.thinking,
                    "thinking_steps": service.thinking_steps,
                    "cpu_count": os.cpu_count(),
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main())
