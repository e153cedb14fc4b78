"""Deadlines of tables: turn timeouts, bot steps, next-round delays and lobby expiry, set from
each table's state (stored with it) and queued for the main loop (timers.py)."""

from __future__ import annotations

import asyncio
import heapq

from bot.service.game import Games
from bot.service.options import ServiceSettings
from bot.service.table import Table


class Deadlines:
    """Arms a table's next deadline and queues it."""

    def __init__(self, games: Games, settings: ServiceSettings) -> None:
        self.games = games
        self.settings = settings
        #: (deadline, table key), earliest first; stale entries are skipped when due.
        self.heap: list[tuple[float, str]] = []
        #: Set to wake the main loop when a deadline is queued (made by `Timers.run`).
        self.wake: asyncio.Event | None = None

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
            if self.wake is not None:
                self.wake.set()

    def next_deadline(self) -> float | None:
        """The earliest scheduled deadline."""
        return self.heap[0][0] if self.heap else None
