"""The events of a game in which a seat holds one hidden thing (a Gnav piece, a Gnavspiel
card): past-tense facts, each with an audience (everyone, or one seat).

Each game names its thing in its own words: its events subclass `Event` with a property for
`item` (Gnav's `rank`, Gnavspiel's `card`) and name the kinds whose item the rules show to the
table (`event_text`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, NamedTuple, TypeVar

#: Audience of an event every seat (and the channel) may see.
EVERYONE = -1


class Event(NamedTuple):
    """One fact of the game.

    `seats` are seat indexes in the order the record format names them (`swap P Q`, `offer X
    Y`). `item` is -1 unless the event may carry one: the index, in the game's list of names,
    of the piece or card a public kind shows or a private event tells its audience it now
    holds. `detail` qualifies the event (the reason of a private one, of a payment); `data`
    is, for `reveal`, the (seat, item) pairs of every hand.
    """

    kind: str
    seats: tuple[int, ...] = ()
    item: int = -1
    audience: int = EVERYONE
    detail: str = ""
    data: tuple[tuple[int, int], ...] = ()

    @property
    def public(self) -> bool:
        """True when everyone may see this event."""
        return self.audience == EVERYONE


def event_text(
    event: Event, names: Sequence[str], item_names: Sequence[str], shown: Collection[str]
) -> str:
    """The MATCH_RECORD.md string of a public event: its kind, its seats' names, and for a
    kind in `shown` the name of its item (`forbi B Hest`, `taboo Cid K`)."""
    parts = [event.kind, *(names[s] for s in event.seats)]
    if event.kind in shown:
        parts.append(item_names[event.item])
    return " ".join(parts)


def event_to_list(event: Event) -> list[Any]:
    """A JSON-safe form of an event (`event_from_list` reverses it)."""
    return [
        event.kind,
        list(event.seats),
        event.item,
        event.audience,
        event.detail,
        [list(p) for p in event.data],
    ]


E = TypeVar("E", bound=Event)


def event_from_list(cls: type[E], value: Sequence[Any]) -> E:
    """The event of class `cls` (a game's own) that `event_to_list` wrote."""
    kind, seats, item, audience, detail, data = value
    return cls(kind, tuple(seats), item, audience, detail, tuple((a, b) for a, b in data))
