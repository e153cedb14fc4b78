"""Deadlines of tables: turn timeouts, bot steps, next-round delays and lobby expiry, set from
each table's state (stored with it) and queued for the main loop (timers.py), which their
`Wake` wakes: made with the deadlines, and handed by the service to whatever else wakes the
loop (the store's health when the store is back; a bot seat's thinking when it is done)."""

from __future__ import annotations

import asyncio
import heapq

from bot.service.game import Games
from bot.service.options import ServiceSettings
from bot.service.table import Table


class Wake:
    """The main loop's wake-up: `set` by whoever has something for it (a deadline queued, a
    thought done, the store back), waited for by the loop between its rounds. Not bound to
    an event loop until it waits, and bound to none between waits (an `asyncio.Event` is
    bound to the first loop that waits on it), so it can be made with the service."""

    def __init__(self) -> None:
        self._set = False
        self._waiter: asyncio.Future[None] | None = None

    def set(self) -> None:
        """Wake the loop (now, or at its next wait)."""
        self._set = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def clear(self) -> None:
        """Forget a wake-up that came before the loop's next wait."""
        self._set = False

    def is_set(self) -> bool:
        """Whether a wake-up waits for the loop."""
        return self._set

    async def wait(self) -> None:
        """Until `set` (at once when it was set since the last `clear`)."""
        if self._set:
            return
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


class Deadlines:
    """Arms a table's next deadline and queues it."""

    def __init__(self, games: Games, settings: ServiceSettings) -> None:
        self.games = games
        self.settings = settings
        #: (deadline, table key), earliest first; stale entries are skipped when due.
        self.heap: list[tuple[float, str]] = []
        #: Set to wake the main loop when a deadline is queued (`Timers.run` waits on it).
        self.wake = Wake()

    def arm(self, table: Table, keep: bool = False) -> None:
        """Set the table's next deadline from its state (stored with it)."""
        now = self.settings.clock.now()
        if keep and table.deadline is not None and table.deadline_kind != "lobby":
            return
        if table.status == "lobby":
            table.deadline, table.deadline_kind = now + self.settings.lobby_idle, "lobby"
        elif table.status == "playing":
            deciders = table.deciders_for(self.games.rules_of(table))
            if deciders:
                if any(table.seats[s].bot for s in deciders):
                    table.deadline, table.deadline_kind = now + self.settings.bot_delay, "bot"
                else:
                    deadline = now + table.settings.turn_timeout
                    table.deadline, table.deadline_kind = deadline, "turn"
            else:
                table.deadline = now + table.settings.next_round_delay
                table.deadline_kind = "next"
        else:
            table.deadline, table.deadline_kind = None, None

    def schedule(self, table: Table) -> None:
        """Queue the table's deadline for the main loop (and wake it)."""
        if table.deadline is not None:
            heapq.heappush(self.heap, (table.deadline, table.key.key))
            self.wake.set()

    def next_deadline(self) -> float | None:
        """The earliest scheduled deadline."""
        return self.heap[0][0] if self.heap else None
