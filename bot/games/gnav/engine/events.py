"""Engine events: past-tense facts, each with an audience (everyone, or one seat).

Public events use the vocabulary of MATCH_RECORD.md (`swap A C`, `forbi B Hest`...). A
private event (`piece`) tells one seat the rank it now holds; nothing else carries a hidden rank.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.common.engine.events import EVERYONE
from bot.games.common.engine.events import Event as _Event
from bot.games.common.engine.events import event_text as _event_text
from bot.games.gnav.engine.pieces import RANK_NAMES

__all__ = ["EVERYONE", "PUBLIC_KINDS", "RANKED_PUBLIC_KINDS", "Event", "event_text"]

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


class Event(_Event):
    """One fact of Gnav (the fields are `bot.games.common.engine.events.Event`'s).

    `seats` are in the order the record format names them (`swap P Q`: P asked, Q gave).
    `rank` is -1 unless the event may carry one: a matador that refused (`forbi`,
    `bag_forbi`) or, for a private `piece` event, the rank its audience now holds. `detail`
    qualifies: the reason of a `piece` ("deal", "swap", "bag", "undo") or of a `pay`
    ("lowest", "narr"); `data` is, for `reveal`, the (seat, rank) pairs of all participants.
    """

    __slots__ = ()

    @property
    def rank(self) -> int:
        """The piece's rank the event carries (its `item`), -1 when none."""
        return self.item


def event_text(event: Event, names: Sequence[str]) -> str:
    """The MATCH_RECORD.md string of a public event, e.g. `forbi B Hest` or `swap A C`."""
    return _event_text(event, names, RANK_NAMES, RANKED_PUBLIC_KINDS)
