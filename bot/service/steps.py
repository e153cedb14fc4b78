"""What the steps of a match offer the jobs that start, end or time them (the lobby and the
timers): a Protocol that `Play` (play.py) meets, handed to them by the service, so that no job
imports another."""

from __future__ import annotations

from typing import Protocol

from bot.service.moves import LogLine, Outcome
from bot.service.ports import FinishedMatch, Screen
from bot.service.table import Table


class Steps(Protocol):
    """The steps of a match, staged in the command's unit of work (committed at its end)."""

    async def after_step(
        self,
        table: Table,
        *steps: Outcome,
        freeze: Screen | None = None,
        new_round: bool = False,
    ) -> None:
        """Settle automatic moves, stage the table, then queue what people are told."""
        ...

    async def deal(self, table: Table) -> None:
        """Deal the next round."""
        ...

    async def forfeit(self, table: Table, seat: int, note: LogLine) -> None:
        """`seat` leaves the match under way (`note`: the log line saying why)."""
        ...

    def finished_match(self, table: Table, winners: list[int]) -> FinishedMatch:
        """The table's match as it is stored once finished (or stopped)."""
        ...

    async def close(self, table: Table, reason: str, finished: FinishedMatch | None = None) -> None:
        """Close the table for `reason` (a `closed.*` message) and show it."""
        ...
