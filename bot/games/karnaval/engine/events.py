"""Karnaval engine events: past-tense facts, each with an audience (everyone or one seat).

Hands are private: the only event that names a card not yet seen by everyone is `hand`, sent to
its own seat at the deal. Every other event is public and names only cards face up on the table
(the trump card, cards played, the draw).

Kinds and their fields (`seat` is the acting seat, -1 when none):
- `drew` (one per round of the draw; numbers: round, then the drawing seats; cards: theirs)
- `first_player` (seat: player 1, K2)
- `dealt` (seat: dealer; numbers: deal, quarter, number, cards, leader; cards: trump card or ())
- `hand` (private; cards: the seat's hand)
- `bid` (seat; numbers: (bid,))
- `played` (seat; cards: (card,); detail: "" or "high"/"low"/"top"/"under")
- `karnaval_led` (seat; cards: the two cards), `gave` (seat; cards; detail: "" or "take")
- `trick` (seat: winner; numbers: (tricks counted: 1 or 2, tricks taken in the deal))
- `deal_scored` (numbers: every seat's points, by seat index)
- `quarter_scored` (numbers: quarter, then every seat's quarter total)
- `match_over` (numbers: every seat's total; detail: winners' seat indexes "0,2")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Audience of an event every seat (and the channel) may see.
EVERYONE = -1


@dataclass(frozen=True, slots=True)
class Event:
    """One fact of the game."""

    kind: str
    seat: int = -1
    audience: int = EVERYONE
    cards: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()
    detail: str = ""

    @property
    def public(self) -> bool:
        """True when everyone may see this event."""
        return self.audience == EVERYONE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe form."""
        return {
            "kind": self.kind,
            "seat": self.seat,
            "audience": self.audience,
            "cards": list(self.cards),
            "numbers": list(self.numbers),
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Inverse of `to_dict`."""
        return cls(
            data["kind"],
            data["seat"],
            data["audience"],
            tuple(data["cards"]),
            tuple(data["numbers"]),
            data["detail"],
        )
