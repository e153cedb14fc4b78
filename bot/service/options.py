"""How the service runs, beside its store, notifier and games: `ServiceOptions` (what
`TableService(repo, notifier, games=..., **options)` takes) and `ServiceSettings`, the pace and
chance the parts of the service read (each handed the settings, nothing else of the service)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from typing import Any, TypedDict, TypeVar, Unpack

from bot.service.ports import Clock, PageLinks, SystemClock
from bot.service.thinking import Thinking

T = TypeVar("T")


class ServiceOptions(TypedDict, total=False):
    """How the service runs, beside its store, notifier and games: each one optional (its
    default in `ServiceSettings`), handed on as they are by `TableService(repo, notifier,
    games=..., **options)`."""

    #: The time (default: the system's).
    clock: Clock | None
    #: Chance: deals, bot seats' choices (default: seeded by the system).
    rng: random.Random | None
    #: Seconds a bot seat waits before it acts (1.5).
    bot_delay: float
    #: Seconds an untouched lobby stays open (600).
    lobby_idle: float
    #: Timeouts in a row that forfeit a seat's match (3).
    max_timeouts: int
    #: Deadlines handled at once (32).
    max_parallel: int
    #: This process's name in the outbox's claims (default: host, process id, a random tail).
    owner: str | None
    #: Seconds one store outage may last before the bot stops (None: it waits for ever).
    store_give_up: float | None
    #: Where bot seats think at their table's level (default: threads, no worker process).
    thinking: Thinking | None


class ServiceSettings:
    """The service's pace and chance: clock, randomness, bot delay, lobby idle time, timeouts
    in a row, deadlines at once, and the web table's addresses once it is served."""

    def __init__(self, **options: Unpack[ServiceOptions]) -> None:
        self.clock: Clock = options.get("clock") or SystemClock()
        self.rng = options.get("rng") or random.Random()
        self.bot_delay = options.get("bot_delay", 1.5)
        self.lobby_idle = options.get("lobby_idle", 600.0)
        self.max_timeouts = options.get("max_timeouts", 3)
        # Deadlines handled at once: enough for commits to share a transaction, few enough
        # that each command is answered quickly when many tables are due together.
        self.parallel = asyncio.Semaphore(options.get("max_parallel", 32))
        #: Addresses of the web table, when it is served (docs/web.md); None: no link buttons.
        self.links: PageLinks | None = None

    async def bounded(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` once one of the `max_parallel` places is free."""
        try:
            async with self.parallel:
                return await work
        except BaseException:
            work.close()  # cancelled before it began (a stop): no "never awaited" warning
            raise
