"""Gnavspiel events: past-tense facts, each with an audience (everyone, or one seat).

Public events use MATCH_RECORD.md's vocabulary (`offer Ann Bob`, `taboo Cid K`, `pay Bob`...).
Only three public kinds carry a card, each one the rules show to the table: `taboo` (a drawn
taboo card, G5), `stand` (the caller's Q or K, G10) and `reveal` (every hand, G7, in `data`).
The private `card` event tells one seat the card it now holds; nothing else names a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games.common.engine.events import EVERYONE, event_to_list
from bot.games.common.engine.events import Event as _Event
from bot.games.common.engine.events import event_from_list as _event_from_list
from bot.games.common.engine.events import event_text as _event_text
from bot.games.gnavspiel.engine.cards import CARD_NAMES

__all__ = [
    "CARD_PUBLIC_KINDS",
    "EVERYONE",
    "PRIVATE_KINDS",
    "PUBLIC_KINDS",
    "Event",
    "event_from_list",
    "event_text",
    "event_to_list",
]

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


class Event(_Event):
    """One fact of Gnavspiel (the fields are `bot.games.common.engine.events.Event`'s).

    `seats` are in the order the record format names them (`offer X Y`: X offers Y). `card`
    is -1 unless the event may carry one (`taboo`, `stand`, or the private `card`). `detail`
    qualifies a `card` event ("deal", "accept", "draw", "take_back") or a `pay` ("joker",
    "lowest"); `data` is, for `reveal`, the (seat, card) pairs of every hand.
    """

    __slots__ = ()

    @property
    def card(self) -> int:
        """The card the event carries (its `item`), -1 when none."""
        return self.item


def event_text(event: Event, names: Sequence[str]) -> str:
    """The MATCH_RECORD.md string of a public event, e.g. `offer Ann Bob` or `taboo Cid K`."""
    return _event_text(event, names, CARD_NAMES, CARD_PUBLIC_KINDS)


def event_from_list(value: Sequence[Any]) -> Event:
    """The event `event_to_list` wrote."""
    return _event_from_list(Event, value)
