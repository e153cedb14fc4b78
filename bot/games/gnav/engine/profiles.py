"""Rule profiles: the data and small named hooks that make `norsk` and `tradisjonell` differ.

The round logic in `match.py` asks the profile at each point where the seeds differ, so a
further profile (RULES.md section 3, `gnavspiel`) adds a profile and its hooks rather than a
second copy of the round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.games.gnav.engine.pieces import DRAGON, FULL_SET, GJOK, HEST, HUS, KATT, NARR

#: What happens when a request to swap meets a piece (N10, N12-N15).
ACCEPT = 0
FORBI = 1
GJOK_STOP = 2
HUGG_AV = 3
KISS = 4

_RESPONSES: tuple[int, ...] = tuple(
    {HUS: FORBI, HEST: FORBI, KATT: KISS, DRAGON: HUGG_AV, GJOK: GJOK_STOP}.get(rank, ACCEPT)
    for rank in range(21)
)


def gnav_payers(ranks: Sequence[int]) -> list[int]:
    """Indexes into `ranks` of the pieces that pay at the reveal (N19, N20, C6).

    With exactly one Narr among the pieces, its holder pays and so do the holders of the lowest
    rank among the rest (N20); otherwise the holders of the lowest rank pay (N19; two Narr are
    simply the lowest rank, C6).
    """
    if ranks.count(NARR) == 1:
        rest = [rank for rank in ranks if rank != NARR]
        if not rest:
            return [ranks.index(NARR)]
        low = min(rest)
        return [i for i, rank in enumerate(ranks) if rank in (NARR, low)]
    low = min(ranks)
    if ranks.count(low) == 1:
        return [ranks.index(low)]
    return [i for i, rank in enumerate(ranks) if rank == low]


@dataclass(frozen=True, slots=True)
class Profile:
    """One rule profile. Flags name the rule they switch on."""

    name: str
    description: str
    deck: tuple[int, ...] = FULL_SET
    min_players: int = 2
    max_players: int = 20  # N3, T1 (the bot keeps the cap of 20 so the bag never runs dry)
    default_lives: int = 3
    double_narr_sit_out: bool = True  # N6 (norsk); T4 replaces it in tradisjonell
    dragon_skips_passed: bool = False  # T2
    narr_may_not_stay: bool = False  # T3
    narr_sits_out_next: bool = False  # T4, C8
    responses: tuple[int, ...] = _RESPONSES  # N12-N15: a partner's answer by rank
    payers: Callable[[Sequence[int]], list[int]] = field(default=gnav_payers)  # N19-N20


NORSK = Profile(
    name="norsk",
    description="The manufacturer's Norwegian rules (seeds 000 and 003), the default.",
)

TRADISJONELL = Profile(
    name="tradisjonell",
    description="The traditional Norwegian description (seed 001): T1-T4.",
    double_narr_sit_out=False,
    dragon_skips_passed=True,
    narr_may_not_stay=True,
    narr_sits_out_next=True,
)

PROFILES: dict[str, Profile] = {p.name: p for p in (NORSK, TRADISJONELL)}


def get_profile(name: str) -> Profile:
    """The profile called `name`; ValueError listing the known ones otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f'profile "{name}" is not known (known: {known})') from None
