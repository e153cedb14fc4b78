"""What adapters may see of a table: frozen views, one per viewer, never the live state.

`TableService.status` hands these out. A view holds public facts (seats, whose turn, the
table's settings) and, for the seat that asked, its own choices; never another seat's hidden
cards or the match object itself, so an adapter cannot leak what it never receives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.service.game import Choice
from bot.service.settings import TableSettings
from bot.service.table import TableKey

#: Where the table is: gathering players, a round being played, between two rounds, over.
Phase = Literal["lobby", "round", "between", "finished", "closed"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """A seat as everyone may see it."""

    user: str
    name: str
    bot: bool
    in_match: bool


@dataclass(frozen=True, slots=True)
class TableView:
    """One table as one viewer may see it (`choices` are the viewer's own, if seated)."""

    key: TableKey
    table_id: str
    game: str
    status: str
    phase: Phase
    host: str | None
    seats: tuple[SeatView, ...]
    seq: int
    settings: TableSettings
    deciders: tuple[int, ...]
    viewer: str | None = None
    choices: tuple[Choice, ...] = ()
    #: The labels of `choices`, in order, in the table's language (as their buttons say
    #: them: the game renders them, its cards named as the language names them).
    labels: tuple[str, ...] = ()

    def seat_of(self, user: str) -> int | None:
        """The seat index of a user, if seated."""
        for i, seat in enumerate(self.seats):
            if seat.user == user:
                return i
        return None

    @property
    def names(self) -> list[str]:
        """Seat names in seat order."""
        return [s.name for s in self.seats]
