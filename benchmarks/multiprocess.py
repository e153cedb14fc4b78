"""Multi-process benchmark: 1, 2 and 4 bot processes serving the same tables on one PostgreSQL.

The parent opens `--tables` tables of bot seats (through the service, on a fresh schema), then
starts N worker processes, each a `TableService` on the same store running the service's main
loop (`run`: deadlines claimed through the store, the outbox delivered and swept). Bots act
as soon as they are due (`bot_delay=0`); the notifier sends nothing anywhere. Each worker
measures for `--seconds` after a warm-up:

- actions: deadlines acted on (one committed command each, with its outbox messages);
- latency per command: from handling a due table to its commit (p50/p99);
- outbox delivery lag: from a message's commit to its send (p50/p99).

Printed per N: actions/s over all workers, latencies, lags, and the core count; the last line
is one JSON object. Run (PostgreSQL from GNAV_BENCH_POSTGRES_DSN, else the local server):
`.venv/bin/python benchmarks/multiprocess.py` (about two minutes; `--processes 1 2 4`,
`--tables N`, `--seconds S` to change it).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import json
import os
import random
import secrets
import statistics
import subprocess
import time
from typing import Any

from benchmarks.service import NullNotifier
from bot.games.registry import all_games
from bot.service.service import TableService
from bot.service.table import TableKey, User

HOST = User("bench:host", "Host")
DSN = os.environ.get("GNAV_BENCH_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test")


class TimedService(TableService):
    """The service, with the wall time of every deadline it acted on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.latencies: list[float] = []
        self.measuring = False
        # Each handled deadline timed, around the main loop's own step (`Timers`).
        step = self.timers._on_deadline

        async def timed(key: str) -> bool:
            start = time.perf_counter()
            acted = await step(key)
            if acted and self.measuring:
                self.latencies.append(time.perf_counter() - start)
            return acted

        self.timers._on_deadline = timed  # type: ignore[method-assign]


async def _open(schema: str, size: int):  # type: ignore[no-untyped-def]
    from storage.postgres import PostgresRepository

    return await PostgresRepository.open(DSN, schema=schema, min_size=2, max_size=size)


async def setup(schema: str, tables: int, players: int) -> None:
    """Open and start the tables (their first messages delivered), then stop quietly."""
    repo = await _open(schema, 20)
    # No main loop runs here: the bots' first deadlines wait for the workers.
    service = TableService(repo, NullNotifier(), bot_delay=0.0, games=all_games())

    async def one(i: int) -> None:
        key = TableKey("bench", f"t{i}")
        await service.open(key, HOST, sit=False)
        reply = await service.configure(key, HOST, [f"bots={players}", "lives=9", "delay=0"])
        assert reply.ok, reply.text
        reply = await service.start(key, HOST)
        assert reply.ok, reply.text

    for start in range(0, tables, 100):
        await asyncio.gather(*(one(i) for i in range(start, min(tables, start + 100))))
    await service.outbox.drain()
    await service.shutdown()
    await repo.close()


async def worker(schema: str, warmup: float, seconds: float, parallel: int) -> dict[str, Any]:
    """Serve whatever is due for warm-up + seconds; report what was measured."""
    repo = await _open(schema, 16)
    service = TimedService(
        repo,
        NullNotifier(),
        rng=random.Random(),
        bot_delay=0.0,
        games=all_games(),
        max_parallel=parallel,
    )
    loop = asyncio.create_task(service.run())
    await asyncio.sleep(warmup)
    service.latencies.clear()
    service.outbox.lags.clear()
    service.measuring = True
    await asyncio.sleep(seconds)
    service.measuring = False
    lags = list(service.outbox.lags)
    latencies = list(service.latencies)
    loop.cancel()
    await asyncio.gather(loop, return_exceptions=True)
    await service.shutdown()
    await repo.close()
    return {"actions": len(latencies), "latencies": latencies, "lags": lags}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_n(n: int, args: argparse.Namespace) -> dict[str, Any]:
    """One measurement with `n` worker processes on a fresh schema."""
    import asyncpg

    schema = f"gnav_bench_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(DSN)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        await setup(schema, args.tables, args.players)
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            schema,
            "--seconds",
            str(args.seconds),
            "--warmup",
            str(args.warmup),
            "--parallel",
            str(args.parallel),
        ]
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(n)]
        results = []
        for p in procs:
            out, _ = p.communicate(timeout=args.seconds + args.warmup + 120)
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()
    actions = sum(r["actions"] for r in results)
    latencies = [x for r in results for x in r["latencies"]]
    lags = [x for r in results for x in r["lags"]]
    return {
        "processes": n,
        "actions_per_s": round(actions / args.seconds, 1),
        "per_process": [round(r["actions"] / args.seconds, 1) for r in results],
        "command_p50_ms": round(_pct(latencies, 0.5) * 1000, 2),
        "command_p99_ms": round(_pct(latencies, 0.99) * 1000, 2),
        "lag_p50_ms": round(_pct(lags, 0.5) * 1000, 2),
        "lag_p99_ms": round(_pct(lags, 0.99) * 1000, 2),
        "lag_mean_ms": round(statistics.fmean(lags) * 1000, 2) if lags else None,
    }


async def main() -> None:
    """Parse arguments; run as the parent or as one worker."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4, help="bot seats per table")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--parallel", type=int, default=64, help="deadlines handled at once")
    parser.add_argument("--worker", metavar="SCHEMA", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        result = await worker(args.worker, args.warmup, args.seconds, args.parallel)
        print(json.dumps(result))
        return
    cores = os.cpu_count()
    runs = []
    for n in args.processes:
        r = await run_n(n, args)
        runs.append(r)
        print(
            f"{n} process(es), {args.tables} tables x {args.players} bot seats: "
            f"{r['actions_per_s']:,} actions/s {r['per_process']}; command p50 "
            f"{r['command_p50_ms']} ms, p99 {r['command_p99_ms']} ms; outbox lag p50 "
            f"{r['lag_p50_ms']} ms, p99 {r['lag_p99_ms']} ms",
            flush=True,
        )
    print(json.dumps({"cores": cores, "tables": args.tables, "runs": runs}))


if __name__ == "__main__":
    asyncio.run(main())
