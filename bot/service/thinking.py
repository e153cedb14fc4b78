"""Bot seats that think: a table's bot `level` decides how, and thinking never stalls a table.

A game may offer `bot_thinking(match, seat, rng, level, seconds)` (see `GameRules`): it returns
the choice when it is decided at once, or a job (a callable holding a snapshot of what the seat
may know, never the live match) that takes longer. Jobs run away from the event loop, in
`processes` worker processes (workers.py: the loop writes their jobs and reads their answers
itself, with no thread in the bot's process to take the interpreter lock from it) or, with
`processes=0`, in threads; at most `concurrent` at a time, each within `seconds` (None: the
game's own count of work only, so tests are repeatable).

The main loop never waits for a job: `start` launches it and the bot's deadline step ends
there; when the job is done, the `ready(key)` its caller handed to `start` queues the table's
deadline again, and the next
step takes the choice (`result`) if the table is still where the job saw it (`stamp`). Other
tables' commands and deadlines go on meanwhile.

The workers think at the lowest priority there is (`SCHED_IDLE` on Linux, see workers.py):
every table's commands come first. So a table never waits on a starved worker, a job not
answered within `patience` seconds of its start (by default `max(PATIENCE, PATIENCE_FACTOR x
seconds)`; none when `seconds` is None) is given up: the table plays the plain bot choice, as
when a job fails, and the job's late answer is dropped.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, ThreadPoolExecutor
from functools import partial
from typing import Any

from bot.service.game import Choice, GameRules
from bot.service.metrics import NO_METRICS, Recorder
from bot.service.settings import LEVELS
from bot.service.workers import WorkerPool

log = logging.getLogger(__name__)

#: Called with a table's key when its job is done (the timers queue the table's step again).
Ready = Callable[[str], None]

#: How much lower than the bot's process the thinking processes run (`os.nice`) where there
#: is no `SCHED_IDLE`: on a busy machine the commands of every table come first.
NICENESS = 10
#: A job unanswered this many seconds after it started (at least; or `PATIENCE_FACTOR` times
#: its budget) is given up, and the table plays the plain bot choice.
PATIENCE = 2.0
PATIENCE_FACTOR = 8.0


def _loaded(load: Callable[[], object]) -> int:
    """Run in a new thinking process: `load` (e.g. the games' registry, whose modules its
    jobs unpickle), so the first real job does not pay for the imports. Returns its pid."""
    load()
    return os.getpid()


def _record(metrics: Recorder, started: float, future: asyncio.Future[Choice]) -> None:
    """A job ended: how (decided, failed, given up past its patience) and how long it took."""
    if future.cancelled():
        outcome = "given_up"
    else:
        outcome = "failed" if future.exception() is not None else "decided"
    metrics.thought(outcome, time.perf_counter() - started)


class Thinking:
    """Where bot seats think: a bounded pool away from the event loop."""

    #: Where jobs are recorded (`TableService.use_metrics`).
    metrics: Recorder = NO_METRICS

    def __init__(
        self,
        *,
        processes: int = 0,
        concurrent: int = 2,
        seconds: float | None = None,
        patience: float | None = None,
    ) -> None:
        self.seconds = seconds
        if patience is None and seconds is not None:
            patience = max(PATIENCE, PATIENCE_FACTOR * seconds)
        #: Seconds after which a job under way is given up (None: never).
        self.patience = patience
        #: How many jobs were given up for taking longer than `patience`.
        self.given_up = 0
        self.concurrent = max(1, concurrent)
        self._processes = max(0, processes)
        self._limit: asyncio.Semaphore | None = None
        self._workers: WorkerPool | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._closed = False
        #: Jobs under way or done, by table key: (the state they saw, their future).
        self._jobs: dict[str, tuple[Any, asyncio.Future[Choice]]] = {}
        #: Tables whose job failed, with the state it saw: they get the plain bot choice.
        self._failed: dict[str, Any] = {}

    def _pool(self) -> WorkerPool:
        # Fresh interpreters, never forks (forking a process that runs threads, as the stores
        # do, is unsafe).
        if self._workers is None:
            self._workers = WorkerPool(self._processes, niceness=NICENESS, idle=True)
        return self._workers

    async def start_pool(self, load: Callable[[], object] = os.getpid) -> set[int]:
        """Start the worker processes now and load the games in them. Without it they start
        on demand, at a thinking seat's first decision: once in a process's life, a new
        interpreter importing the games (at normal priority until its initializer runs)
        while tables play. `load` runs in each worker (a picklable function: the caller's
        games registry; this module knows no game). `benchmarks/service.py --thinking` starts
        them first, so it measures the steady state. Returns the workers' process ids (none
        for threads). A pool that cannot start is logged and left to start on demand; its
        jobs then fall back to the plain bot choice as any failed job does."""
        if not self._processes:
            return set()
        try:
            return await self._pool().start(partial(_loaded, load))
        except Exception as exc:
            log.error("the thinking processes could not start: %r", exc)
            return set()

    async def choose(
        self, rules: GameRules, match: Any, seat: int, rng: random.Random, level: str
    ) -> Choice:
        """The bot seat's choice at `level`: at once when the game decides at once, else its
        job run in the pool (waiting for a free place when `concurrent` jobs run)."""
        if level not in LEVELS or level == "normal":
            return rules.bot_choice(match, seat, rng)
        decided = rules.bot_thinking(match, seat, rng, level, self.seconds)
        if decided is None:  # the game decides every level as `bot_choice`
            return rules.bot_choice(match, seat, rng)
        if isinstance(decided, Choice):
            return decided
        return await self._run(decided)

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
        """The choice at once when the game decides at once; else None, with a job thinking
        for the table in state `stamp` (one per table: a job for an older state is dropped);
        `ready(key)` is called when that job is done (the main loop queues the table)."""
        if level not in LEVELS or level == "normal":
            return rules.bot_choice(match, seat, rng)
        if self._failed.pop(key, None) == stamp:  # its thinking failed: never stall the table
            return rules.bot_choice(match, seat, rng)
        if self._holds(key, stamp):
            return None  # already thinking about this very state
        decided = rules.bot_thinking(match, seat, rng, level, self.seconds)
        if decided is None:  # the game decides every level as `bot_choice`
            return rules.bot_choice(match, seat, rng)
        if isinstance(decided, Choice):
            return decided
        self._launch(key, stamp, self._run(decided), ready)
        return None

    def ahead(
        self,
        key: str,
        stamp: Any,
        rules: GameRules,
        match: Any,
        seat: int,
        rng: random.Random,
        level: str,
        ready: Ready | None = None,
    ) -> None:
        """Start deciding for the table in state `stamp` before its bot step is due (during
        the bot delay): the step then takes the choice from `result` (one decided at once is
        kept for it too). Nothing for `normal`, or when it is already thinking of `stamp`."""
        if level not in LEVELS or level == "normal" or self._closed or self._holds(key, stamp):
            return
        choice = self.start(key, stamp, rules, match, seat, rng, level, ready)
        if choice is not None:
            decided: asyncio.Future[Choice] = asyncio.get_running_loop().create_future()
            decided.set_result(choice)
            self._jobs[key] = (stamp, decided)

    def _holds(self, key: str, stamp: Any) -> bool:
        """Whether the table has a job (under way or done) for state `stamp`."""
        held = self._jobs.get(key)
        return held is not None and held[0] == stamp

    def _launch(self, key: str, stamp: Any, work: Awaitable[Choice], ready: Ready | None) -> None:
        """Hold `work` as the table's job for state `stamp` (replacing one for an older
        state); `ready(key)` when it is done."""
        future = asyncio.ensure_future(work)
        self._jobs[key] = (stamp, future)
        future.add_done_callback(partial(_record, self.metrics, time.perf_counter()))
        if ready is not None:
            future.add_done_callback(lambda _f: ready(key))
        if self.patience is not None:
            late = asyncio.get_running_loop().call_later(self.patience, self._give_up, future)
            future.add_done_callback(lambda _f: late.cancel())

    def _give_up(self, future: asyncio.Future[Choice]) -> None:
        """A job past its patience: cancelled (its place is freed, its answer dropped); the
        table's next step plays the plain bot choice."""
        if not future.done():
            self.given_up += 1
            future.cancel()

    def result(self, key: str, stamp: Any) -> Choice | None:
        """The choice of the job done for the table in state `stamp` (None if none; a job of
        another state is dropped). A job that failed gives None and is logged."""
        held = self._jobs.get(key)
        if held is None or not held[1].done():
            return None
        del self._jobs[key]
        if held[0] != stamp:
            return None
        try:
            return held[1].result()
        except asyncio.CancelledError:  # given up past its patience (`_give_up`)
            log.warning(
                "a bot seat's thinking at %s took over %.1f s: the plain choice instead",
                key,
                self.patience,
            )
        except Exception as exc:
            # A worker that died is replaced at the next job (workers.py).
            log.error("a bot seat's thinking failed at %s: %r", key, exc)
        self._failed[key] = stamp  # the next step plays the plain bot choice
        return None

    def thinking(self, key: str) -> bool:
        """Whether a job for the table is under way."""
        held = self._jobs.get(key)
        return held is not None and not held[1].done()

    async def wait(self) -> bool:
        """Wait until every job under way is done; False when none was (for tests and
        benchmarks that run the main loop step by step)."""
        running = [f for _, f in self._jobs.values() if not f.done()]
        if not running:
            return False
        await asyncio.wait(running)
        return True

    async def _run(self, job: Callable[[], Choice]) -> Choice:
        if self._limit is None:
            self._limit = asyncio.Semaphore(self.concurrent)
        async with self._limit:
            if self._closed:  # stopped while this job waited for a place: no new pool
                raise BrokenExecutor("bot seats' thinking was stopped")
            if self._processes:
                return await self._pool().run(job)
            if self._threads is None:
                self._threads = ThreadPoolExecutor(self.concurrent, thread_name_prefix="thinking")
            return await asyncio.get_running_loop().run_in_executor(self._threads, job)

    async def close(self) -> None:
        """Stop thinking: jobs waiting for a place are dropped, the workers end after the
        jobs they have (the threads after theirs); later jobs fail (the plain bot choice)."""
        self._closed = True
        if self._workers is not None:
            workers, self._workers = self._workers, None
            await workers.close()
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
            self._threads = None
