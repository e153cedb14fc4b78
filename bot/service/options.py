"""How the service runs: `ServiceSettings`, the pace and chance the parts of the service read
(each handed the settings, nothing else of the service), from the `ServiceOptions` that
`TableService(repo, notifier, games=..., **options)` takes (service.py)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from typing import Any, TypeVar

from bot.service.ports import Clock, PageLinks, SystemClock

T = TypeVar("T")

#: How long a process counts as alive after its last heartbeat (unless the store knows its
#: session ended first: `Repository.gone_processes`).
ALIVE_FOR = 10.0


class ServiceSettings:
    """The service's pace and chance: clock, randomness, bot delay, lobby idle time, timeouts
    in a row, deadlines at once, and the web table's addresses once it is served."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        bot_delay: float = 1.5,
        lobby_idle: float = 600.0,
        max_timeouts: int = 3,
        max_parallel: int = 32,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.bot_delay = bot_delay
        self.lobby_idle = lobby_idle
        self.max_timeouts = max_timeouts
        # Deadlines handled at once: enough for commits to share a transaction, few enough
        # that each command is answered quickly when many tables are due together.
        self.parallel = asyncio.Semaphore(max_parallel)
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
