"""Storage benchmark: the raw SQLite commit rate against group commit with 1,000 busy tables.

Run from the repository root: `.venv/bin/python -m benchmarks.storage [--seconds 3] [--rounds
3]`. Alternates two windows per round: the rate of single-row committed transactions on one
aiosqlite connection (each awaited before the next: what a one-write-one-commit store gets),
and `SqliteRepository.save_table` throughput with 1,000 tables saving concurrently (each a
realistic 2-4 KB state, some saves with statistics or a finished match). Prints each round,
the medians with p50/p99 latency, and, as the last line, a JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: benchmarks/ would shadow the `storage` package
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from typing import Any

from bot.service.ports import FinishedMatch, StatDelta, TableRow
from storage.common import dump_json
from storage.sqlite import SqliteRepository, Synchronous, raw_commit_rate

NAMES = ["Åse", "Bjørn", "Kari", "Ola", "Sigrid", "Torstein", "Ingrid", "Magnus", "Liv"]
EVENTS = ["Stayed", "Swapped", "Refused", "DealtFromBag", "RoundRevealed", "LifeLost"]


def table_state(rng: random.Random, key: str, version: int) -> dict[str, Any]:
    """A table state shaped like the service's: seats, pieces, bag, recent events (2-4 KB)."""
    seats = [
        {
            "user": f"tg:{rng.randrange(10**9)}",
            "name": rng.choice(NAMES),
            "lives": rng.randint(0, 3),
            "piece": rng.randrange(21),
            "refused": rng.random() < 0.2,
            "reachable": True,
            "lang": "nb",
        }
        for _ in range(rng.randint(4, 8))
    ]
    log = [
        {
            "event": rng.choice(EVENTS),
            "seat": rng.randrange(len(seats)),
            "other": rng.randrange(len(seats)),
            "round": rng.randint(1, 20),
            "at": 1_700_000_000 + rng.random() * 1e5,
        }
        for _ in range(rng.randint(20, 34))
    ]
    return {
        "game": "gnav",
        "key": key,
        "version": version,
        "phase": rng.choice(["lobby", "turns", "reveal"]),
        "settings": {"lives": 3, "profile": "classic", "turn_seconds": 60, "lang": "nb"},
        "dealer": rng.randrange(len(seats)),
        "turn": rng.randrange(len(seats)),
        "seats": seats,
        "bag": [rng.randrange(21) for _ in range(rng.randint(10, 30))],
        "log": log,
        "message_ref": f"{rng.randrange(10**12)}",
    }


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The value below which `fraction` of the sorted sample lies (nearest rank)."""
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


class GroupCommitRun:
    """`tables` tables on one `SqliteRepository`, each saving again and again in its coroutine."""

    def __init__(self, repo: SqliteRepository, tables: int, seed: int = 1) -> None:
        """Prepare the tables' states (building them is not what is measured)."""
        rng = random.Random(seed)
        self.repo = repo
        self.keys = [f"tg:-100{i:07d}" for i in range(tables)]
        # A few states per table, made beforehand: the benchmark measures storage, not Python
        # building dictionaries (encoding them to JSON stays in the measured path, as in the
        # service).
        self.states = {k: [table_state(rng, k, 0) for _ in range(4)] for k in self.keys}
        self.sizes = [len(dump_json(s).encode()) for k in self.keys for s in self.states[k]]
        self.versions = dict.fromkeys(self.keys, 0)
        self.saves = dict.fromkeys(self.keys, 0)

    async def create(self) -> None:
        """Store every table at version 1."""
        await asyncio.gather(
            *(
                self.repo.save_table(
                    TableRow(k, 1, "playing", self.states[k][0]), expected_version=None
                )
                for k in self.keys
            )
        )
        self.versions = dict.fromkeys(self.keys, 1)

    async def window(self, seconds: float) -> tuple[int, float, int, list[float]]:
        """Every table saves for `seconds`: the saves, elapsed time, transactions, latencies."""
        latencies: list[float] = []
        transactions = self.repo.transactions
        start = time.perf_counter()
        deadline = start + seconds

        async def play(key: str) -> int:
            version, saves, done = self.versions[key], self.saves[key], 0
            while time.perf_counter() < deadline:
                state = dict(self.states[key][saves % 4], version=version + 1)
                stats: list[StatDelta] = []
                finished = None
                if saves % 10 == 9:  # a round ends: statistics for the seats
                    stats = [
                        StatDelta(
                            "tg:-100", s["user"], s["name"], "gnav", {"rounds": 1, "lives_lost": 1}
                        )
                        for s in state["seats"]
                    ]
                if saves % 50 == 49:  # a match ends: its record is kept
                    finished = FinishedMatch(
                        f"{key}:{version}", "tg:-100", key, "gnav", state, ["tg:1"], time.time()
                    )
                now = time.time()
                row = TableRow(key, version + 1, "playing", state, now + 60, now)
                began = time.perf_counter()
                await self.repo.save_table(
                    row, expected_version=version, stats=stats, finished=finished
                )
                latencies.append(time.perf_counter() - began)
                version += 1
                saves += 1
                done += 1
            self.versions[key], self.saves[key] = version, saves
            return done

        saves = sum(await asyncio.gather(*(play(k) for k in self.keys)))
        return saves, time.perf_counter() - start, self.repo.transactions - transactions, latencies


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Alternate raw and group-commit windows, print each, then the summary as JSON."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each window")
    parser.add_argument("--rounds", type=int, default=3, help="raw + group window pairs")
    parser.add_argument("--tables", type=int, default=1000, help="concurrent tables")
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    parser.add_argument("--dir", help="where the scratch databases go (default: a temp dir)")
    parser.add_argument(
        "--payload-bytes", type=int, default=3072, help="row size of the raw measurement"
    )
    args = parser.parse_args(argv)
    synchronous: Synchronous = args.synchronous

    raw_rates: list[float] = []
    group_rates: list[float] = []
    latencies: list[float] = []
    saves = transactions = 0
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="gnav-bench-") as tmp:
        folder = Path(tmp)
        print(f"scratch directory {folder}, synchronous={synchronous}", flush=True)
        repo = await SqliteRepository.open(folder / "group.db", synchronous=synchronous)
        try:
            run = GroupCommitRun(repo, args.tables)
            await run.create()
            # The disk's fsync rate and the machine's load drift: raw and group windows
            # alternate, and the ratio is taken per round, then its median.
            for round_no in range(1, args.rounds + 1):
                raw = await raw_commit_rate(
                    folder / "raw.db",
                    args.seconds,
                    payload_bytes=args.payload_bytes,
                    synchronous=synchronous,
                )
                n, elapsed, txns, window_latencies = await run.window(args.seconds)
                raw_rates.append(raw)
                group_rates.append(n / elapsed)
                latencies += window_latencies
                saves += n
                transactions += txns
                print(
                    f"round {round_no}: raw single-row commits {raw:8.0f}/s   "
                    f"group commit ({args.tables} tables) {n / elapsed:8.0f} saves/s   "
                    f"ratio {n / elapsed / raw:.2f}   mean batch {n / max(txns, 1):.0f}",
                    flush=True,
                )
        finally:
            await repo.close()

    latencies.sort()
    ratios = [g / r for g, r in zip(group_rates, raw_rates, strict=True)]
    result = {
        "raw_commit_rate": round(statistics.median(raw_rates), 1),
        "group_commit_rate": round(statistics.median(group_rates), 1),
        "ratio": round(statistics.median(ratios), 3),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "raw_commit_rates": [round(r, 1) for r in raw_rates],
        "group_commit_rates": [round(g, 1) for g in group_rates],
        "tables": args.tables,
        "saves": saves,
        "mean_batch": round(saves / max(transactions, 1), 1),
        "state_bytes": [min(run.sizes), round(statistics.fmean(run.sizes)), max(run.sizes)],
        "raw_payload_bytes": args.payload_bytes,
        "seconds_per_window": args.seconds,
        "synchronous": synchronous,
    }
    print(
        f"median: raw {result['raw_commit_rate']:.0f}/s, group {result['group_commit_rate']:.0f}"
        f"/s, ratio {result['ratio']:.2f}, latency p50 {result['p50_ms']:.1f} ms "
        f"p99 {result['p99_ms']:.1f} ms, state {result['state_bytes'][0]}-"
        f"{result['state_bytes'][2]} bytes"
    )
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    asyncio.run(main())
