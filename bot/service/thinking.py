"""Bot seats that think: a table's bot `level` decides how, and thinking never stalls a table.

A game may offer `bot_thinking(match, seat, rng, level, seconds)` (see `GameRules`): it returns
the choice when it is decided at once, or a job (a callable holding a snapshot of what the seat
may know, never the live match) that takes longer. Jobs run away from the event loop, in a pool
of processes (`processes` > 0) or of threads, at most `concurrent` at a time, each within
`seconds` (None: the game's own count of work only, so tests are repeatable). Other tables'
commands go on meanwhile; the table whose bot thinks waits for it under its own lock.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from bot.service.game import Choice, GameRules

#: The bot levels a table may choose (`normal`: the game's plain bot choice).
LEVELS = ("easy", "normal", "strong")


class Thinking:
    """Where bot seats think: a bounded pool away from the event loop."""

    def __init__(
        self, *, processes: int = 0, concurrent: int = 2, seconds: float | None = None
    ) -> None:
        self.seconds = seconds
        self.concurrent = max(1, concurrent)
        self._processes = max(0, processes)
        self._limit: asyncio.Semaphore | None = None
        self._pool: Executor | None = None

    def _executor(self) -> Executor:
        if self._pool is None:
            if self._processes:
                # "spawn": a fresh interpreter per worker (forking a process that runs
                # threads, as the stores do, is unsafe).
                ctx = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(self._processes, mp_context=ctx)
            else:
                self._pool = ThreadPoolExecutor(self.concurrent, thread_name_prefix="thinking")
        return self._pool

    async def choose(
        self, rules: GameRules, match: Any, seat: int, rng: random.Random, level: str
    ) -> Choice:
        """The bot seat's choice at `level`: at once when the game decides at once, else its
        job run in the pool (waiting for a free place when `concurrent` jobs run)."""
        think = getattr(rules, "bot_thinking", None)
        if think is None or level not in LEVELS or level == "normal":
            return rules.bot_choice(match, seat, rng)
        decided: Choice | Callable[[], Choice] = think(match, seat, rng, level, self.seconds)
        if isinstance(decided, Choice):
            return decided
        if self._limit is None:
            self._limit = asyncio.Semaphore(self.concurrent)
        async with self._limit:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor(), decided)

    def close(self) -> None:
        """Stop the pool (jobs under way finish first)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
