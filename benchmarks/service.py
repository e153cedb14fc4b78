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
service while the measured tables play: their bots think in `--think-processes` worker
processes (0: threads), at most `--think-concurrent` at once, each within `--think-seconds`;
the latency figures stay those of the measured tables' commands, so comparing a run with and
without `--thinking` shows what those tables cost the others. `--thinking-level normal` plays
them with bots that do not think (at once: many more steps); `--thinking-level paced` with
bots that do not think either, each decision released `--pace` seconds after its thinking
would start (when the bot's step is stored as the next one) by a timer on the event loop: the
tables' own play at the rhythm of thinking bots, without the thinking.

`--bot-delay D` makes every bot wait D seconds on average (0.5-1.5x) before it acts: with
bots acting at once (the default) the event loop is saturated, and any extra table's command
waits behind the others; with a delay the tables offer a load the loop can carry (300 tables
at D=0.3: about 1,000 commands a second, half of what it can do), as a bot in use has them.

`--compare R` runs R rounds of three fresh processes, interleaved so that a machine's
changing load falls on all three alike: the measured tables alone, with N `strong` tables,
and with N `paced` tables whose pace is the strong run's mean wait for a decision (so both
make about as many steps). It prints every run, the median p50/p99 of each, and the median
of the paired p99 ratios with a distribution-free 95% interval for each median: strong/alone
is what the thinking tables cost the others in all, strong/paced what their thinking costs
beyond their own play. Each run also prints the processor time the machine's host stole from
it ("steal" in /proc/stat), so a run slowed by the host's other guests shows as such; and
`--neighbour` adds a fourth kind of run, the paced tables beside a busy process of the lowest
priority that has nothing to do with the bot (what any busy second processor costs). Run:
`.venv/bin/python benchmarks/service.py --compare 6 --tables 300 --thinking 100` (about 5
minutes).
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
import contextlib
import gc
import json
import math
import os
import random
import sqlite3
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from functools import partial
from typing import Any

from bot.games.registry import all_games
from bot.runtime import tune_garbage_collector
from bot.service.commands import Configure, Open, Start
from bot.service.game import Choice, GameRules
from bot.service.options import ServiceSettings
from bot.service.ports import Delivery, Screen
from bot.service.service import TableService
from bot.service.table import TableKey, User
from bot.service.thinking import Ready, Thinking
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


class TimedThinking(Thinking):
    """Thinking that keeps how long each table waited for its decision (from the step that
    started it to the job's end); with `pace`, bots that do not think: the plain bot choice,
    released `pace` seconds after it is due by a timer on the event loop."""

    def __init__(self, *, pace: float | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.pace = pace
        self.waits: list[float] = []
        self._since: dict[str, float] = {}
        self._spread = random.Random(7)

    def start(
        self,
        key: str,
        stamp: Any,
        rules: GameRules,
        match: Any,
        seat: int,
        rng: random.Random,
        level: str,
        ready: Ready | None = None,
    ) -> Choice | None:
        """As `Thinking.start`, timed; paced: the plain choice after `pace` seconds."""
        timed = partial(self._timed, ready)
        if self.pace is None or level == "normal":
            choice = super().start(key, stamp, rules, match, seat, rng, level, timed)
            if choice is None:
                self._since.setdefault(key, time.perf_counter())
            return choice
        if self._holds(key, stamp):
            return None
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Choice] = loop.create_future()
        # Spread around the mean, as thinking bots' decisions are (not all tables at once).
        pace = self.pace * self._spread.uniform(0.5, 1.5)
        loop.call_later(pace, future.set_result, rules.bot_choice(match, seat, rng))
        self._since.setdefault(key, time.perf_counter())
        self._launch(key, stamp, future, timed)
        return None

    def _timed(self, ready: Ready | None, key: str) -> None:
        """A job is done: how long its table waited, then the service's `ready`."""
        since = self._since.pop(key, None)
        if since is not None:
            self.waits.append(time.perf_counter() - since)
        if ready is not None:
            ready(key)


async def setup_tables(
    service: TableService, count: int, prefix: str, players: int, words: tuple[str, ...] = ()
) -> None:
    """Open, configure and start `count` tables of bot seats (in parallel: commits batch)."""
    words = words or ("lives=3",)

    async def one(i: int) -> None:
        key = TableKey("bench", f"{prefix}{i}")
        await service.handle(Open(key, HOST, sit=False))
        reply = await service.handle(Configure(key, HOST, [f"bots={players}", *words, "delay=0"]))
        assert reply.ok, reply.text
        reply = await service.handle(Start(key, HOST))
        assert reply.ok, reply.text

    await asyncio.gather(*(one(i) for i in range(count)))


def open_tables(service: TableService) -> int:
    """Measured tables still playing (the benchmark may look inside the service it measures)."""
    return sum(
        1 for k, t in service.uow.cached.items() if t.status != "closed" and ":think" not in k
    )


class SpreadDelay(ServiceSettings):
    """The service settings with each bot's delay drawn around the mean (0.5-1.5x), so tables that
    started together do not act in step (`--bot-delay`)."""

    mean_delay = 0.0
    spread = random.Random(11)

    @property  # type: ignore[override]
    def bot_delay(self) -> float:
        """A delay around the mean."""
        return self.mean_delay * self.spread.uniform(0.5, 1.5)

    @bot_delay.setter
    def bot_delay(self, value: float) -> None:
        self.mean_delay = value


async def play_all(service: TimedService) -> tuple[int, float]:
    """Run deadlines until every table has finished; returns (commands, seconds)."""
    start = time.perf_counter()
    idle_since = time.perf_counter()
    paced = service.settings.bot_delay > 0
    deadlines = service.timers.deadlines
    wake = deadlines.wake  # set when a thought is done (as `Timers.run` waits on it)
    while True:
        acted = await service.tick()
        if acted == 0:
            if open_tables(service) == 0:
                break
            if time.perf_counter() - idle_since > 30:
                raise RuntimeError("tables stopped making progress")
            if not paced:
                await asyncio.sleep(0)
                continue
            # Bots due later: wait for the next deadline, or a thought done before it.
            due = deadlines.heap[0][0] - service.clock.now() if deadlines.heap else 0.05
            wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), max(0.0, min(due, 0.05)))
        else:
            idle_since = time.perf_counter()
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


def parse_args() -> argparse.Namespace:
    """The command line (see the module's docstring)."""
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
        "--thinking-level",
        default="strong",
        choices=("easy", "normal", "strong", "paced"),
        help="the level of those tables (normal: no thinking, at once; paced: no thinking, "
        "each decision after --pace seconds)",
    )
    parser.add_argument(
        "--pace", type=float, default=0.5, help="seconds per decision of paced tables"
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.0,
        help="mean seconds before a bot acts (0: at once, the loop saturated; spread 0.5-1.5x)",
    )
    parser.add_argument(
        "--compare",
        type=int,
        default=0,
        metavar="R",
        help="R rounds of alone / strong / paced runs, interleaved (needs --thinking)",
    )
    parser.add_argument(
        "--play-only",
        action="store_true",
        help="only the play (no raw rate, memory, stored bytes or resume figures)",
    )
    parser.add_argument(
        "--neighbour",
        action="store_true",
        help="beside the play, a process at the lowest priority (SCHED_IDLE) sweeping 256 MB "
        "without pause: what any busy second processor costs, thinking or not; with "
        "--compare, a fourth kind of run: paced tables beside it",
    )
    args = parser.parse_args()
    if args.compare and not args.thinking:
        parser.error("--compare needs --thinking N (the tables that think)")
    return args


async def play(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """The measured tables' play (with the thinking tables, if any); prints its figures."""
    path = folder / "play.sqlite3"
    repo = await SqliteRepository.open(path)
    notifier = NullNotifier()
    paced = args.thinking_level == "paced"
    thinking = TimedThinking(
        pace=args.pace if paced else None,
        processes=args.think_processes,
        concurrent=args.think_concurrent,
        seconds=args.think_seconds,
    )
    service = TimedService(
        repo,
        notifier,
        rng=random.Random(1),
        bot_delay=args.bot_delay,
        max_parallel=args.parallel,
        games=all_games(),
        thinking=thinking,
    )
    if args.bot_delay:
        service.settings.__class__ = SpreadDelay
        service.settings.bot_delay = args.bot_delay
    await setup_tables(service, args.tables, "t", args.players)
    if args.thinking:
        level = "strong" if paced else args.thinking_level
        await setup_tables(service, args.thinking, "think", 3, ("game=karnaval", f"level={level}"))
        if not paced:
            await thinking.start_pool(all_games)  # in its steady state: the workers loaded
    tune_garbage_collector()  # as `gnav-bot run` does once its tables are restored
    cpu, loop_cpu, stolen = time.process_time(), time.thread_time(), stolen_seconds()
    commands, seconds = await play_all(service)
    cpu, loop_cpu = time.process_time() - cpu, time.thread_time() - loop_cpu
    stolen = stolen_seconds() - stolen
    await service.outbox.drain()
    transactions = repo.transactions
    await thinking.close()
    await repo.close()
    lat = sorted(service.latencies)
    p50 = statistics.median(lat) * 1000
    p99 = lat[int(len(lat) * 0.99) - 1] * 1000
    rate = commands / seconds
    print(
        f"{args.tables} tables x {args.players} bot seats: {commands:,} commands in "
        f"{seconds:.1f} s = {rate:,.0f} actions/s, {transactions:,} transactions"
    )
    print(f"latency per command: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(
        f"processor time of the bot's process: {cpu:.2f} s, of which the event loop's "
        f"thread {loop_cpu:.2f} s (worker processes not counted); stolen by the host from "
        f"this machine meanwhile: {stolen:.2f} s"
    )
    wait = statistics.fmean(thinking.waits) if thinking.waits else 0.0
    if args.thinking:
        how = f"paced at {args.pace:.3f} s" if paced else args.thinking_level
        print(
            f"meanwhile {args.thinking} Karnaval tables of {how} bots made "
            f"{service.thinking_steps:,} steps (not in the figures above), waiting "
            f"{wait:.3f} s a decision on average; {thinking.given_up} decisions given up "
            f"after {thinking.patience} s (the plain choice instead)"
        )
    print(
        f"messages: {notifier.posts:,} posts, {notifier.edits:,} edits, {notifier.tells:,} private"
    )
    return {
        "tables": args.tables,
        "players": args.players,
        "actions_per_s": round(rate, 1),
        "p50_ms": round(p50, 2),
        "p99_ms": round(p99, 2),
        "commands": commands,
        "thinking_tables": args.thinking,
        "thinking_level": args.thinking_level,
        "thinking_steps": service.thinking_steps,
        "decision_wait_s": round(wait, 4),
        "decision_wait_max_s": round(max(thinking.waits, default=0.0), 3),
        "given_up": thinking.given_up,
        "cpu_s": round(cpu, 3),
        "loop_cpu_s": round(loop_cpu, 3),
        "stolen_s": round(stolen, 2),
        "path": str(path),
    }


async def measure(args: argparse.Namespace) -> None:
    """One run: the play, then (unless --play-only) every other figure."""
    with tempfile.TemporaryDirectory(prefix="gnav-service-bench-") as tmp:
        folder = Path(tmp)
        if args.play_only:
            with neighbour(args.neighbour):
                figures = await play(args, folder)
            figures.pop("path")
            print(json.dumps({**figures, "cpu_count": os.cpu_count()}))
            return
        raw = await raw_commit_rate(folder / "raw.sqlite3", seconds=3.0)
        print(f"raw aiosqlite single-row commits: {raw:,.0f}/s (synchronous=FULL)")
        figures = await play(args, folder)
        state, record, file_bytes = stored_bytes(Path(figures.pop("path")))
        print(f"actions/s over the raw rate: {figures['actions_per_s'] / raw:.2f}")
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
                    **figures,
                    "raw_commits_per_s": round(raw, 1),
                    "ratio_to_raw": round(figures["actions_per_s"] / raw, 3),
                    "kb_per_table": round(per_table / 1024, 2),
                    "state_kb_per_table": round(state / 1024, 2),
                    "record_kb_per_match": round(record / 1024, 2),
                    "file_kb_per_match": round(file_bytes / 1024, 2),
                    "resume_10k_s": round(resume * 10_000 / args.resume, 3),
                    "cpu_count": os.cpu_count(),
                }
            )
        )


#: The `--neighbour` process: the lowest priority there is, then a sweep over 256 MB (every
#: cache line written) until it is killed: processor and memory busy, nothing else.
NEIGHBOUR = """
import os
os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
memory = bytearray(256 << 20)
zeros = bytes(len(memory) // 64)
while True:
    memory[::64] = zeros
"""


@contextlib.contextmanager
def neighbour(on: bool) -> Iterator[None]:
    """With `on`, a `NEIGHBOUR` process runs for the block."""
    if not on:
        yield
        return
    process = subprocess.Popen([sys.executable, "-c", NEIGHBOUR])
    try:
        yield
    finally:
        process.kill()
        process.wait()


def stolen_seconds() -> float:
    """Processor time the machine's host gave to others while this machine wanted it (the
    "steal" of /proc/stat, all processors; 0 where there is none)."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def run_child(args: argparse.Namespace, *extra: str) -> dict[str, Any]:
    """One play in a fresh process; its figures (the last line it prints)."""
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--play-only",
        f"--tables={args.tables}",
        f"--players={args.players}",
        f"--parallel={args.parallel}",
        f"--think-processes={args.think_processes}",
        f"--think-concurrent={args.think_concurrent}",
        f"--think-seconds={args.think_seconds}",
        f"--bot-delay={args.bot_delay}",
        *extra,
    ]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    figures: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return figures


def median_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float]:
    """A distribution-free interval for the median of `values`: the order statistics k and
    n + 1 - k (1-based) for the largest k with P(Binomial(n, 1/2) <= k - 1) <= (1 - c) / 2, so
    the true median lies inside in at least `confidence` of such samples whatever the
    distribution. With fewer than 6 values none reaches 95%: the whole range is given."""
    xs = sorted(values)
    n = len(xs)
    tail, k = 0.0, 0  # tail: P(Binomial(n, 1/2) <= k - 1)
    while k < n // 2 and tail + math.comb(n, k) / 2**n <= (1 - confidence) / 2:
        tail += math.comb(n, k) / 2**n
        k += 1
    if k == 0:
        return xs[0], xs[-1]
    return xs[k - 1], xs[n - k]


def compare(args: argparse.Namespace) -> None:
    """R rounds of alone / strong / paced runs, interleaved; medians and paired ratios."""
    runs: dict[str, list[dict[str, Any]]] = {"alone": [], "strong": [], "paced": []}
    if args.neighbour:
        runs["neighbour"] = []  # paced tables beside a busy process of the lowest priority
    n = f"--thinking={args.thinking}"
    for r in range(args.compare):
        runs["alone"].append(run_child(args))
        strong = run_child(args, n, "--thinking-level=strong")
        runs["strong"].append(strong)
        pace = f"--pace={strong['decision_wait_s']}"
        runs["paced"].append(run_child(args, n, "--thinking-level=paced", pace))
        if args.neighbour:
            paced = ("--thinking-level=paced", pace, "--neighbour")
            runs["neighbour"].append(run_child(args, n, *paced))
        print(
            f"round {r + 1}: p50/p99 ms "
            + ", ".join(
                f"{name} {runs[name][-1]['p50_ms']:.1f}/{runs[name][-1]['p99_ms']:.1f}"
                for name in runs
            )
            + f"; steps strong {strong['thinking_steps']}, paced "
            f"{runs['paced'][-1]['thinking_steps']} (pace {strong['decision_wait_s']:.3f} s); "
            + "stolen s "
            + ", ".join(f"{name} {runs[name][-1]['stolen_s']:.2f}" for name in runs),
            flush=True,
        )
    summary: dict[str, Any] = {"rounds": args.compare, "tables": args.tables}
    for name, figures in runs.items():
        for key in ("p50_ms", "p99_ms", "actions_per_s", "cpu_s", "loop_cpu_s", "stolen_s"):
            summary[f"{name}_{key}"] = round(statistics.median(f[key] for f in figures), 2)
    pairs = [("strong", "alone"), ("strong", "paced"), ("paced", "alone")]
    if args.neighbour:
        pairs += [("neighbour", "paced"), ("strong", "neighbour")]
    for a, b in pairs:
        ratios = [x["p99_ms"] / y["p99_ms"] for x, y in zip(runs[a], runs[b], strict=True)]
        low, high = median_interval(ratios)
        summary[f"p99_{a}_over_{b}"] = round(statistics.median(ratios), 3)
        summary[f"p99_{a}_over_{b}_ci95"] = [round(low, 3), round(high, 3)]
        print(
            f"p99 {a}/{b}: median {statistics.median(ratios):.3f}, 95% interval of the median "
            f"{low:.2f}-{high:.2f} (rounds: {', '.join(f'{x:.2f}' for x in ratios)})"
        )
    for a, b in (("strong", "alone"), ("strong", "paced")):
        extra = [x["cpu_s"] - y["cpu_s"] for x, y in zip(runs[a], runs[b], strict=True)]
        summary[f"cpu_s_{a}_minus_{b}"] = round(statistics.median(extra), 3)
        print(
            f"processor time of the bot's process, {a} - {b}: median "
            f"{statistics.median(extra):+.2f} s (rounds: {', '.join(f'{x:+.2f}' for x in extra)})"
        )
    for name in runs:
        print(
            f"{name}: median p50 {summary[f'{name}_p50_ms']:.1f} ms, "
            f"p99 {summary[f'{name}_p99_ms']:.1f} ms, "
            f"{summary[f'{name}_actions_per_s']:,.0f} actions/s, "
            f"bot's process {summary[f'{name}_cpu_s']:.2f} s of processor time, "
            f"{summary[f'{name}_stolen_s']:.2f} s stolen by the host"
        )
    print(json.dumps({**summary, "cpu_count": os.cpu_count()}))


def main() -> None:
    """Run every measurement (or the comparison) and print the figures."""
    args = parse_args()
    if args.compare:
        compare(args)
    else:
        asyncio.run(measure(args))


if __name__ == "__main__":
    main()
