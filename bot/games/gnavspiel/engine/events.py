"""Gnavspiel events: past-tense facts, each with an audience (everyone, or one seat).

Public events use MATCH_RECORD.md's vocabulary (`offer Ann Bob`, `taboo Cid K`, `pay Bob`...).
Only three public kinds carry a card, each one the rules show to the table: `taboo` (a drawn
taboo card, G5), `stand` (the caller's Q or K, G10) and `reveal` (every hand, G7, in `data`).
The private `card` event tells one seat the card it now holds; nothing else names a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from bot.games.gnavspiel.engine.cards import CARD_NAMES

#: Audience of an event every seat (and the channel) may see.
EVERYONE = -1

#: Public event kinds, as MATCH_RECORD.md words them.
PUBLIC_KINDS = frozenset(
    {
        "ante",
        "knock",
        "pass",
        "offer",
        "accept",
        "refuse",
        "stop",
        "stand",
        "draw",
        "taboo",
        "take_back",
        "reveal",
        "pay",
        "borrow",
        "decline",
        "out",
        "win",
    }
)
#: Public kinds whose `card` is shown to everyone by the rules (G5 taboo cards, G10 call).
CARD_PUBLIC_KINDS = frozenset({"taboo", "stand"})
#: The private kind: the card its audience now holds (`detail` says why).
PRIVATE_KINDS = frozenset({"card"})


class Event(NamedTuple):
    """One fact of the game.

    `seats` are seat indexes in the order the record format names them (`offer X Y`: X offers
    Y). `card` is -1 unless the event may carry one (`taboo`, `stand`, or the private `card`).
    `detail` qualifies a `card` event ("deal", "accept", "draw", "take_back") or a `pay`
    ("joker", "lowest"); `data` is, for `reveal`, the (seat, card) pairs of every hand.
    """

    kind: str
    seats: tuple[int, ...] = ()
    card: int = -1
    audience: int = EVERYONE
    detail: str = ""
    data: tuple[tuple[int, int], ...] = ()

    @property
    def public(self) -> bool:
        """True when everyone may see this event."""
        return self.audience == EVERYONE


def event_text(event: Event, names: Sequence[str]) -> str:
    """The MATCH_RECORD.md string of a public event, e.g. `offer Ann Bob` or `taboo Cid K`."""
    parts = [event.kind, *(names[s] for s in event.seats)]
    if event.kind in CARD_PUBLIC_KINDS:
        parts.append(CARD_NAMES[event.card])
    return " ".join(parts)


def event_to_list(event: Event) -> list[Any]:
    """A JSON-safe form of an event (`event_from_list` reverses it)."""
    return [
        event.kind,
        list(event.seats),
        event.card,
        event.audience,
        event.detail,
        [list(p) for p in event.data],
    ]


def event_from_list(value: Sequence[Any]) -> Event:
    """The event `event_to_list` wrote."""
    kind, seats, card, audience, detail, data = value
    return Event(
        str(kind),
        tuple(int(s) for s in seats),
        int(card),
        int(audience),
        str(detail),
        tuple((int(a), int(b)) for a, b in data),
    )
