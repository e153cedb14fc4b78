"""Engine events: past-tense facts, each with an audience (everyone, or one seat).

Public events use the vocabulary of MATCH_RECORD.md (`swap A C`, `forbi B Hest`...). A
private event (`piece`) tells one seat the rank it now holds; nothing else carries a hidden rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from bot.games.gnav.engine.pieces import RANK_NAMES

#: Audience of an event every seat (and the channel) may see.
EVERYONE = -1

#: Public event kinds, as in MATCH_RECORD.md.
PUBLIC_KINDS = frozenset(
    {
        "knock",
        "sit_out",
        "redeal",
        "stay",
        "swap",
        "forbi",
        "hugg_av",
        "kiss",
        "gjok",
        "bag_swap",
        "bag_forbi",
        "bag_hugg_av",
        "bag_kiss",
        "bag_gjok",
        "reveal",
        "pay",
        "out",
        "win",
        "forfeit",  # gnav-bot's extension: a player leaves the match (Match.forfeit)
    }
)

#: Kinds whose `rank` is a matador shown by a refusal (N16): public by the rules.
RANKED_PUBLIC_KINDS = frozenset({"forbi", "bag_forbi"})


class Event(NamedTuple):
    """One fact of the game.

    `seats` are seat indexes in the order the record format names them (`swap P Q`: P asked,
    Q gave). `rank` is -1 unless the event may carry one: a matador that refused (`forbi`,
    `bag_forbi`) or, for a private `piece` event, the rank its audience now holds. `detail`
    qualifies: the reason of a `piece` ("deal", "swap", "bag", "undo") or of a `pay`
    ("lowest", "narr"); `data` is, for `reveal`, the (seat, rank) pairs of all participants.
    """

    kind: str
    seats: tuple[int, ...] = ()
    rank: int = -1
    audience: int = EVERYONE
    detail: str = ""
    data: tuple[tuple[int, int], ...] = ()

    @property
    def public(self) -> bool:
        """True when everyone may see this event."""
        return self.audience == EVERYONE


def event_text(event: Event, names: Sequence[str]) -> str:
    """The MATCH_RECORD.md string of a public event, e.g. `forbi B Hest` or `swap A C`."""
    parts = [event.kind, *(names[s] for s in event.seats)]
    if event.kind in RANKED_PUBLIC_KINDS:
        parts.append(RANK_NAMES[event.rank])
    return " ".join(parts)
