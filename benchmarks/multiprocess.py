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

`--chat`: how N processes share one bot token's budgets (issue 17). The parent runs the fake
Bot API (tests/fakes/telegram_api.py) keeping Telegram's limits (20 sends and edits per
sliding minute per group, about 1 a second per private chat, 30 a second per bot: a 429 with
`retry_after` beyond them) and opens `--groups` tables of bot seats in as many groups
through the real Telegram adapter; then N worker processes, each the real adapter
(python-telegram-bot, the lanes of adapters/telegram/limits.py) and the service on the same
PostgreSQL, serve them for `--seconds` (only sending: bots play, nobody presses; updates
would come by webhook to any process). Tables keep a next-round delay (`--delay`, default
16 s: longer than the outbox's 15 s lease, so a table's next round may be delivered by
another process than its last one). Printed per N: group calls in the busiest sliding minute
of any group (the budget is 20), 429s received (per group and in all), calls per group, and
rounds played.

    .venv/bin/python benchmarks/multiprocess.py --chat --processes 1 3

`--takeover`: how soon a live process takes a dead one's messages (issue 17, point 4). A
process whose id names another host (tests/service/recovery_child.py) commits a press it
never delivers and is killed with SIGKILL; a live process on the same PostgreSQL, running the
service's main loop, delivers the dead one's private message: printed, the seconds from the
kill to that delivery (`--rounds` kills). `--heartbeat-only` ignores the store's session
liveness (`gone_processes`), as before it: the dead process is known by its heartbeat's end.

    .venv/bin/python benchmarks/multiprocess.py --takeover [--heartbeat-only]
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import json
import logging
import os
import random
import secrets
import statistics
import subprocess
import time
from typing import Any

from benchmarks.service import NullNotifier
from bot.games.registry import all_games
from bot.service.commands import Configure, Open, Start
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
        await service.handle(Open(key, HOST, sit=False))
        reply = await service.handle(
            Configure(key, HOST, [f"bots={players}", "lives=9", "delay=0"])
        )
        assert reply.ok, reply.text
        reply = await service.handle(Start(key, HOST))
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


# -- --chat: one bot token's budgets shared by N processes ----------------------------------


def _chat_settings(base_url: str, token: str) -> Any:
    from bot.config import BotSettings

    values: dict[str, Any] = {
        "telegram_token": token,
        "telegram_base_url": base_url,
        "telegram_base_file_url": base_url.replace("/bot", "/file/bot"),
        "telegram_mode": "polling",
    }
    return BotSettings(_env_file=None, **values)  # type: ignore[call-arg]


def _sender(base_url: str, token: str, drain: float) -> Any:
    """The real Telegram adapter, sending only (updates would go to another process)."""
    from adapters.telegram.platform import TelegramLimits, TelegramPlatform

    class Sender(TelegramPlatform):
        async def _receive(self, app: Any) -> None:
            return None

    limits = TelegramLimits(drain_timeout=drain)
    return Sender(_chat_settings(base_url, token), limits=limits)


async def chat_setup(
    schema: str, base_url: str, token: str, keys: list[str], args: argparse.Namespace
) -> None:
    """Open a table of bot seats in each group, through the real adapter; stop quietly."""
    repo = await _open(schema, 10)
    platform = _sender(base_url, token, 60.0)
    service = TableService(repo, platform.notifier, bot_delay=3600.0, games=all_games())
    await platform.start(service)
    try:
        for key in keys:
            tk = TableKey.parse(key)
            await service.handle(Open(tk, HOST, sit=False))
            changes = [f"bots={args.players}", "lives=9", f"delay={args.delay}"]
            reply = await service.handle(Configure(tk, HOST, changes))
            assert reply.ok, reply.text
            reply = await service.handle(Start(tk, HOST))
            assert reply.ok, reply.text
        await service.outbox.drain()
    finally:
        await platform.stop()
        await service.shutdown()
        await repo.close()


async def chat_worker(
    schema: str, base_url: str, token: str, seconds: float, bot_delay: float
) -> dict[str, Any]:
    """Serve the tables (bots play, the adapter sends) for `seconds`."""
    repo = await _open(schema, 8)
    platform = _sender(base_url, token, 2.0)
    service = TableService(
        repo, platform.notifier, rng=random.Random(), bot_delay=bot_delay, games=all_games()
    )
    await service.resume()
    await platform.start(service)
    loop = asyncio.create_task(service.run())
    await asyncio.sleep(seconds)
    loop.cancel()
    await asyncio.gather(loop, return_exceptions=True)
    sent = len(service.outbox.lags)
    await platform.stop()
    await service.shutdown()
    await repo.close()
    return {"owner": service.outbox.owner, "sent": sent}


def _busiest(times: list[float], window: float) -> int:
    """The most calls in any sliding `window` (times sorted)."""
    most, j = 0, 0
    for i, t in enumerate(times):
        while times[j] <= t - window:
            j += 1
        most = max(most, i - j + 1)
    return most


async def chat_run(n: int, args: argparse.Namespace) -> dict[str, Any]:
    """One measurement of `n` sending processes against one fake Bot API."""
    import asyncpg

    from tests.fakes.telegram_api import FLOODED_METHODS, FakeTelegram, FloodLimits

    schema = f"gnav_bench_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(DSN)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        async with FakeTelegram(flood=FloodLimits()) as tg:
            groups = [tg.add_group(f"Group {i}") for i in range(args.groups)]
            keys = [f"telegram:{g.id}" for g in groups]
            await chat_setup(schema, tg.base_url, tg.token, keys, args)
            loop = asyncio.get_running_loop()
            first = len(tg.calls())
            start = loop.time()
            cmd = [
                sys.executable, str(Path(__file__).resolve()), "--chat-worker", schema,
                tg.base_url, tg.token, "--seconds", str(args.seconds),
                "--bot-delay", str(args.bot_delay),
            ]  # fmt: skip
            procs = [
                await asyncio.create_subprocess_exec(*cmd, stdout=subprocess.PIPE) for _ in range(n)
            ]
            outs = [await p.communicate() for p in procs]
            elapsed = loop.time() - start
            calls = [c for c in tg.calls()[first:] if c.method.lower() in FLOODED_METHODS]
            refused = dict(tg.flood_refusals)
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()
    sent = [json.loads(out.decode().strip().splitlines()[-1])["sent"] for out, _ in outs]
    ids = {g.id for g in groups}
    per_group: dict[int, list[float]] = {g: [] for g in ids}
    for c in calls:
        chat = c.params.get("chat_id")
        if chat in ids and c.ok:
            per_group[chat].append(c.time)
    busiest = {g: _busiest(sorted(t), 60.0) for g, t in per_group.items()}
    rounds = sum(
        1
        for c in calls
        if c.ok and c.method.lower() == "sendmessage" and c.params.get("chat_id") in ids
    )
    return {
        "processes": n,
        "groups": args.groups,
        "seconds": round(elapsed, 1),
        "busiest_minute_max": max(busiest.values(), default=0),
        "busiest_minute_mean": round(statistics.fmean(busiest.values()), 1),
        "refused_429": sum(1 for c in calls if c.status == 429),
        "refused_429_group": sum(v for k, v in refused.items() if k in ids),
        "groups_refused": sum(1 for k, v in refused.items() if k in ids and v),
        "group_calls": sum(len(t) for t in per_group.values()),
        "group_posts": rounds,
        "sent_per_process": sent,
    }


async def chat_main(args: argparse.Namespace) -> None:
    """`--chat`: each N of `--processes`, printed, then one JSON line."""
    runs = []
    for n in args.processes:
        r = await chat_run(n, args)
        runs.append(r)
        print(
            f"{n} process(es), {args.groups} groups of {args.players} bot seats, "
            f"{r['seconds']} s: busiest minute of a group {r['busiest_minute_max']} calls "
            f"(mean over groups {r['busiest_minute_mean']}; the budget is 20), 429s "
            f"{r['refused_429']} ({r['groups_refused']} groups), {r['group_calls']} group "
            f"calls, {r['group_posts']} posts; messages sent per process "
            f"{r['sent_per_process']}",
            flush=True,
        )
    print(json.dumps({"chat": runs}))


# -- --takeover: a dead process's messages, taken over ------------------------------------


class _Told:
    """A notifier that sends nothing and says when a private message went."""

    def __init__(self) -> None:
        self.told = asyncio.Event()

    async def post(self, channel: str, screen: Any) -> str | None:
        """A reference."""
        return "1"

    async def edit(self, channel: str, message_ref: str, screen: Any) -> bool:
        """Done."""
        return True

    async def tell(self, user: str, screen: Any) -> Any:
        """Noted."""
        from bot.service.ports import Delivery

        self.told.set()
        return Delivery.DELIVERED


async def takeover_once(heartbeat_only: bool) -> float:
    """Seconds from a SIGKILL to the live process's delivery of the dead one's message."""
    import asyncpg

    schema = f"gnav_bench_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(DSN)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    root = Path(__file__).resolve().parents[1]
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.service.recovery_child", f"postgres:{schema}", "elsewhere",
        cwd=root, stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(root)},
    )  # fmt: skip
    try:
        assert child.stdout is not None
        while not (await child.stdout.readline()).startswith(b"COMMITTED"):
            pass
        repo = await _open(schema, 4)
        if heartbeat_only:

            async def nobody(now: float) -> list[str]:
                return []

            repo.gone_processes = nobody  # type: ignore[method-assign]
        notifier = _Told()
        service = TableService(repo, notifier, bot_delay=60.0, games=all_games())
        assert await service.resume() == 0  # the other process lives: a quiet start
        loop = asyncio.create_task(service.run())
        await asyncio.sleep(1.5 + random.random())  # housekeeping rounds while it lives
        assert not notifier.told.is_set()
        killed = time.monotonic()
        child.kill()
        await child.wait()
        await notifier.told.wait()
        took = time.monotonic() - killed
        loop.cancel()
        await asyncio.gather(loop, return_exceptions=True)
        await service.shutdown()
        await repo.close()
        return took
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()


async def takeover_main(args: argparse.Namespace) -> None:
    """`--takeover`: `--rounds` kills, each on a fresh schema."""
    took = [await takeover_once(args.heartbeat_only) for _ in range(args.rounds)]
    how = "heartbeat only" if args.heartbeat_only else "heartbeat and session liveness"
    print(
        f"takeover of a killed process's messages ({how}), {len(took)} kills: "
        + ", ".join(f"{t:.2f}" for t in took)
        + f" s (max {max(took):.2f} s)",
        flush=True,
    )
    print(json.dumps({"takeover_s": [round(t, 3) for t in took], "how": how}))


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
    parser.add_argument("--chat", action="store_true", help="one bot token shared (see above)")
    parser.add_argument("--groups", type=int, default=12, help="--chat: groups, a table each")
    parser.add_argument("--delay", type=int, default=16, help="--chat: next-round delay, s")
    parser.add_argument("--bot-delay", type=float, default=0.5, help="--chat: s per bot step")
    parser.add_argument("--chat-worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--takeover", action="store_true", help="a killed process's messages")
    parser.add_argument("--rounds", type=int, default=5, help="--takeover: kills")
    parser.add_argument("--heartbeat-only", action="store_true", help="--takeover: as before")
    args = parser.parse_args()
    if args.takeover:
        await takeover_main(args)
        return
    if args.chat_worker:
        logging.basicConfig(level=logging.WARNING)
        schema, base_url, token = args.chat_worker
        result = await chat_worker(schema, base_url, token, args.seconds, args.bot_delay)
        print(json.dumps(result))
        return
    if args.chat:
        if args.seconds == 15.0:
            args.seconds = 150.0
        if args.processes == [1, 2, 4]:
            args.processes = [1, 3]
        await chat_main(args)
        return
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
