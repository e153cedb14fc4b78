"""Bot seats for Gnav: a stay/swap strategy that uses only the bot's own piece and public facts.

`BotView.from_match(match, seat)` distils what one seat may know: its own piece, the turn order,
the profile's flags and the round's public events (knocks, refusals, swaps, undos, bag draws).
`decide(view)` turns that into "stay" or "swap": a swap threshold per table size and position,
tuned with the engine's own simulation (`benchmarks/strategy.py`), overridden where public
knowledge makes the answer certain.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from bot.games.gnav.engine.events import Event
from bot.games.gnav.engine.match import BAG, NO_PIECE, Match
from bot.games.gnav.engine.pieces import (
    DRAGON,
    FIRST_MATADOR,
    FULL_SET,
    GJOK,
    HEST,
    HUS,
    KATT,
    NARR,
    RANK_NAMES,
    Rank,
)

Action = Literal["stay", "swap"]

#: An exchange as the match records it: (asker, partner or BAG, piece given, piece taken).
Exchange = tuple[int, int, int, int]

#: Ranks that pass a request on (N15).
_PASSERS = frozenset({HEST, HUS})


@dataclass(frozen=True, slots=True)
class BotView:
    """What one seat knows at its turn: its own piece and public facts, nothing else.

    `known` pairs other participants with the rank they are known to hold now; `not_narr` are
    participants known not to hold a Narr (they did not knock and no piece reached them since);
    `in_bag` are ranks known to lie in the bag, `set_aside` ranks known to be out of play
    (the pieces of N6 sit-outs). `bag_size` is public: the set minus the pieces dealt.
    """

    seat: int
    rank: int
    dealt: int
    participants: int
    position: int
    is_dealer: bool
    order: tuple[int, ...]
    narr_must_swap: bool
    known: tuple[tuple[int, int], ...] = ()
    not_narr: frozenset[int] = frozenset()
    in_bag: tuple[int, ...] = ()
    set_aside: tuple[int, ...] = ()
    bag_size: int = 0

    @classmethod
    def from_match(cls, match: Match, seat: int) -> BotView:
        """The view of `seat`, a participant of the round under way, from public facts only.

        Reads the seat's own piece (its hand, its dealt piece and the exchanges it took part
        in), the turn order, the profile and the public events; never another seat's hand, an
        exchange it was not part of, or the bag. ValueError when `seat` is not playing now.
        """
        log = match.log
        if match.phase != "play" or log is None or seat not in match.order:
            raise ValueError(f"seat {seat} takes no part in a round under way")
        order = tuple(match.order)
        deal = log.deal
        tracker = _Tracker(seat, order, deal[seat])
        tracker.read(log.events, _own_exchanges(match, seat))
        rank = match.hands[seat]
        now = tracker.now
        now[seat] = rank  # own piece: always exact
        dealt_count = len(deal) - deal.count(NO_PIECE)
        position = order.index(seat)
        known = tuple(sorted((s, r) for s, r in now.items() if s != seat))
        bag = tracker.bag
        return cls(
            seat=seat,
            rank=rank,
            dealt=deal[seat],
            participants=len(order),
            position=position,
            is_dealer=position == len(order) - 1,
            order=order,
            narr_must_swap=match.profile.narr_may_not_stay,
            known=known,
            not_narr=frozenset(s for s in tracker.not_narr if s != seat and s not in now),
            in_bag=tuple(sorted([r for r, k in bag.items() for _ in range(k)])) if bag else (),
            set_aside=tuple(sorted(tracker.aside)),
            bag_size=len(match.profile.deck) - dealt_count,
        )

    def known_rank(self, seat: int) -> int | None:
        """The rank `seat` is known to hold now (own rank for the view's seat), else None."""
        if seat == self.seat:
            return self.rank
        for s, rank in self.known:
            if s == seat:
                return rank
        return None


def _own_exchanges(match: Match, seat: int) -> list[Exchange | None]:
    """The exchanges recorded since the last undo, keeping only those `seat` took part in.

    What a seat gave and received in its own exchanges it saw; every other entry is replaced
    by None unread, so nothing hidden about other seats reaches the view.
    """
    return [x if seat in (x[0], x[1]) else None for x in match.exchanges]


#: The public events `_Tracker._apply` learns from.
_TELLING = frozenset(
    {
        "sit_out",
        "swap",
        "bag_swap",
        "forbi",
        "hugg_av",
        "gjok",
        "kiss",
        "bag_forbi",
        "bag_hugg_av",
        "bag_gjok",
        "bag_kiss",
    }
)


class _Tracker:
    """Replays the round's public events into knowledge about who holds what.

    `now` maps seats to ranks known now; `at_deal` holds what is known about the pieces as
    dealt, which is exactly the state after a Katt's undo (N14 undoes every exchange, so the
    hands are the dealt ones again): an undo resets `now` to it. A fact learned about a seat
    that has exchanged since the last reset says nothing about its dealt piece, so it does
    not enter `at_deal`.
    """

    def __init__(self, seat: int, order: Sequence[int], dealt: int) -> None:
        self.seat = seat
        self.order = order
        self.dealt = dealt
        self.now: dict[int, int] = {seat: dealt}
        self.not_narr: set[int] = set()
        self.at_deal: dict[int, int] = {seat: dealt}
        self.not_narr_at_deal: set[int] = set()
        self.touched: set[int] = set()
        # Ranks known to lie in the bag, with their counts (plain dicts: made for every view).
        self.bag: dict[int, int] = {}
        self.bag_at_deal: dict[int, int] = {}
        self.bag_exchanged = False
        self.aside: list[int] = []

    def read(self, events: Sequence[Event], own: Sequence[Exchange | None]) -> None:
        """Apply the public events in order; `own` lines up with the exchanges since the last
        undo (None for those the seat took no part in)."""
        knockers = set()
        first_recorded = 0  # exchanges are recorded since the last undo (N14)
        for i, e in enumerate(events):
            kind = e.kind
            if kind == "knock":
                knockers.add(e.seats[0])
            elif kind == "kiss" or kind == "bag_kiss":
                first_recorded = i + 1
        for s in knockers:  # N5 (an N6 sit-out's Narr is set aside by its `sit_out`)
            self.now[s] = self.at_deal[s] = NARR
        # Whoever was dealt a Narr knocks, so the others were not.
        self.not_narr = {s for s in self.order if s not in knockers}
        self.not_narr_at_deal = set(self.not_narr)
        exchange = 0
        apply = self._apply
        for i, e in enumerate(events):
            kind = e.kind
            if kind not in _TELLING:
                continue  # a knock (read above), a stay...: nothing more to learn from it
            record: Exchange | None = None
            if (kind == "swap" or kind == "bag_swap") and i >= first_recorded:
                if exchange < len(own):
                    record = own[exchange]
                exchange += 1
            apply(e, record)

    def _apply(self, e: Event, record: Exchange | None) -> None:
        kind = e.kind
        if kind == "sit_out":
            (s,) = e.seats
            if self.now.pop(s, None) == NARR:  # N6: the knocked Narr is set aside
                self.aside.append(NARR)
            self.at_deal.pop(s, None)
        elif kind == "swap":
            self._swap(e.seats[0], e.seats[1], record)
        elif kind == "bag_swap":
            self._bag_swap(e.seats[0], record)
        elif kind == "forbi":
            self._shown(e.seats[0], e.rank)
        elif kind == "hugg_av":
            self._shown(e.seats[0], DRAGON)
        elif kind == "gjok":
            self._shown(e.seats[0], GJOK)
        elif kind == "kiss":
            self._shown(e.seats[0], KATT)
            self._reset()
        elif kind == "bag_forbi":
            self._in_bag(e.rank)
        elif kind == "bag_hugg_av":
            self._in_bag(DRAGON)
        elif kind == "bag_gjok":
            self._in_bag(GJOK)
        elif kind == "bag_kiss":
            self._in_bag(KATT)
            self._reset()

    def _swap(self, asker: int, partner: int, record: Exchange | None) -> None:
        # N10: the two pieces change places, and so does what is known about them.
        now, not_narr = self.now, self.not_narr
        a, p = now.pop(asker, None), now.pop(partner, None)
        if p is not None:
            now[asker] = p
        if a is not None:
            now[partner] = a
        a_clear, p_clear = asker in not_narr, partner in not_narr
        not_narr.discard(asker)
        not_narr.discard(partner)
        if p_clear:
            not_narr.add(asker)
        if a_clear:
            not_narr.add(partner)
        if self.seat in (asker, partner):
            # Own knowledge: the seat saw what it received (and knows where its piece went).
            got = self._received(record, asker, partner)
            if got is None:
                now.pop(self.seat, None)
            else:
                now[self.seat] = got
        self.touched.update((asker, partner))

    def _bag_swap(self, asker: int, record: Exchange | None) -> None:
        # N17: the old piece goes to the bottom of the bag, an unseen one comes from the top.
        old = self.now.pop(asker, None)
        if old is not None:
            self.bag[old] = self.bag.get(old, 0) + 1
        self.not_narr.discard(asker)
        if asker == self.seat:
            got = self._received(record, asker, BAG)
            if got is not None:
                self.now[asker] = got
        self.touched.add(asker)
        self.bag_exchanged = True

    def _received(self, record: Exchange | None, asker: int, partner: int) -> int | None:
        if record is None or record[0] != asker or record[1] != partner:
            return None
        return record[3] if self.seat == asker else record[2]

    def _shown(self, seat: int, rank: int) -> None:
        # N16: a refusal shows the matador (never the asker's piece).
        self.now[seat] = rank
        self.not_narr.add(seat)
        if seat not in self.touched:
            self.at_deal[seat] = rank
            self.not_narr_at_deal.add(seat)

    def _in_bag(self, rank: int) -> None:
        # A refusing or skipped candidate goes back into the bag (N17, C4).
        self.bag[rank] = self.bag.get(rank, 0) + 1
        if not self.bag_exchanged:  # then it was in the bag as dealt, which an undo restores
            self.bag_at_deal[rank] = self.bag_at_deal.get(rank, 0) + 1

    def _reset(self) -> None:
        # N14: every exchange is undone, so every hand (and the bag) is as dealt again.
        self.now = dict(self.at_deal)
        self.now[self.seat] = self.dealt
        self.not_narr = set(self.not_narr_at_deal)
        self.touched = set()
        self.bag = dict(self.bag_at_deal)
        self.bag_exchanged = False


# --------------------------------------------------------------------------- thresholds
#: The fixed baseline the tuned bots are measured against: swap below VI, whatever the seat.
FIXED_THRESHOLD = int(Rank.VI)

#: Position classes, the columns of a threshold row.
FIRST, EARLY, LATE, DEALER = range(4)
CLASS_NAMES = ("first", "early", "late", "dealer")

#: participants -> thresholds per position class (first, early, late, dealer): swap when the
#: own rank is below. Rows for other sizes use the nearest smaller key.
ThresholdTable = Mapping[int, Sequence[int]]

#: Why it falls with the table size: a request risks a Dragon or Katt (a life at once) or
#: the Narr whatever the size, while the chance that a middling piece ends up the lowest
#: shrinks with more players; so at 16-20 players only Narr, Ugle and Potte are worth it.
#: Within a size the best responses differ by a rank or two between positions (the first
#: seat swaps least); the figures are the simulation's, not a formula.
#: Tuned by `.venv/bin/python -m benchmarks.strategy --scale 3 --gjok 60000`.
THRESHOLDS: dict[int, tuple[int, int, int, int]] = {
    # players: (first, early, late, dealer)
    2: (7, 7, 7, 8),  # below IV, IV, IV, V
    3: (7, 8, 8, 9),  # below IV, V, V, VI
    4: (6, 7, 8, 8),  # below III, IV, V, V
    5: (7, 6, 8, 7),  # below IV, III, V, IV
    6: (6, 6, 6, 6),  # below III, III, III, III
    7: (4, 6, 6, 6),  # below I, III, III, III
    8: (4, 5, 6, 5),  # below I, II, III, II
    10: (4, 5, 5, 4),  # below I, II, II, I
    12: (3, 4, 5, 4),  # below 0, I, II, I
    16: (3, 3, 4, 3),  # below 0, 0, I, 0
    20: (2, 3, 3, 3),  # below Potte, 0, 0, 0
}

#: Ask a partner known to hold the Gjøk (ending the round, N12) with any piece below this.
GJOK_STOP = int(Rank.X)

#: How much the dealer's gain from a swap changes per rank of its piece near its threshold,
#: in lives (`--per-rank`: about 0.07 at 2-4 players, 0.15 at 8-16): converts a change in
#: the bag's odds into a shift of the threshold (`bag_shift`).
BAG_SLOPE = 0.1


def position_class(position: int, participants: int) -> int:
    """The class of a 0-based turn position: first, early, late (up to the seat before the
    acting dealer) or the acting dealer."""
    last = participants - 1
    if position >= last:
        return DEALER
    if position == 0:
        return FIRST
    return EARLY if position <= (participants - 2) // 2 else LATE


def threshold(view: BotView, table: ThresholdTable | None = None) -> int:
    """The tuned swap threshold of `view`'s seat (its class in the row for its table size)."""
    m = view.participants
    if table is None:
        row = _ROWS.get(m)
        if row is not None:  # THRESHOLDS' row for m, found once
            return row[position_class(view.position, m)]
        table = THRESHOLDS
    if not table:
        return FIXED_THRESHOLD
    key = max((k for k in table if k <= m), default=min(table))
    return table[key][position_class(view.position, m)]


#: THRESHOLDS' row for each table size Gnav seats (N3: 2 to 20 players; `threshold`).
_ROWS: dict[int, tuple[int, int, int, int]] = {
    m: THRESHOLDS[max((k for k in THRESHOLDS if k <= m), default=min(THRESHOLDS))]
    for m in range(2, 21)
}


def fixed_table(rank: int = FIXED_THRESHOLD) -> dict[int, tuple[int, int, int, int]]:
    """A table with one threshold for every seat and size (the fixed-threshold baseline)."""
    return {2: (rank, rank, rank, rank)}


# --------------------------------------------------------------------------- knowledge
def partner_of(view: BotView) -> int:
    """The seat a request would reach: the next participant not known to hold Hest/Hus (N15),
    or BAG past the acting dealer (C3) and for the acting dealer itself (N17)."""
    for s in view.order[view.position + 1 :]:
        if view.known_rank(s) not in _PASSERS:
            return s
    return BAG


def is_safe(view: BotView) -> bool:
    """True when a seat that can no longer change its piece is known to hold a lower ordinary
    piece than ours (not a Narr): then ours cannot be the lowest of the rest (N19, N20)."""
    rank = view.rank
    if rank == NARR or rank >= FIRST_MATADOR:
        return False
    for seat, theirs in view.known:
        # Seats before us in the order have had their turn; only a Katt's undo moves them.
        if NARR < theirs < rank and view.order.index(seat) < view.position:
            return True
    return False


def bag_odds(view: BotView) -> list[float]:
    """Probability of each rank for the first bag draw that is not Hest/Hus (N17), from what
    the seat knows to be elsewhere.

    The unseen pieces are spread evenly over the unseen places (the top of the bag and the
    hands not known), except that a seat known not to hold a Narr cannot have one. Pieces
    known to be in the bag went to its bottom (C4), so the next draws are not them.
    """
    pool = Counter(FULL_SET)
    pool[view.rank] -= 1
    for _, rank in view.known:
        pool[rank] -= 1
    for rank in (*view.in_bag, *view.set_aside):
        pool[rank] -= 1
    pool = +pool  # knowledge is exact, but never let a count go below zero
    unknown_seats = [s for s in view.order if s != view.seat and view.known_rank(s) is None]
    bag_unknown = max(0, view.bag_size - len(view.in_bag))
    free = bag_unknown + sum(1 for s in unknown_seats if s not in view.not_narr)
    narr = min(1.0, pool[NARR] / free) if free else 0.0
    others = sum(pool.values()) - pool[NARR]
    odds = [0.0] * len(RANK_NAMES)
    odds[NARR] = narr if others else 1.0
    for rank, count in pool.items():
        if rank != NARR and others:
            odds[rank] = (1.0 - narr) * count / others
    passing = odds[HEST] + odds[HUS]
    odds[HEST] = odds[HUS] = 0.0
    if passing < 1.0:
        odds = [p / (1.0 - passing) for p in odds]
    return odds


def outright_loss(odds: Sequence[float]) -> float:
    """Chance that a draw costs a life for sure: a Dragon or Katt (N13, N14) or a Narr (N20)."""
    return odds[DRAGON] + odds[KATT] + odds[NARR]


def bag_shift(view: BotView) -> float:
    """How many ranks to move the threshold for a request that goes to the bag.

    The table prices the bag of a typical round (nobody knocked, nothing refused). What the
    seat knows can make the next draw safer (a knocked Narr, a Dragon or Katt shown in a
    hand, N6 sit-outs, or pieces shown in the bag, which lie at its bottom) or riskier
    (ordinary pieces known to be in hands leave the unseen rest richer in them); the change in
    the chance of an outright loss, divided by the value of one rank, moves the threshold.
    """
    change = _typical_loss(view.rank, view.bag_size) - outright_loss(bag_odds(view))
    return change / BAG_SLOPE


@lru_cache(maxsize=512)
def _typical_loss(rank: int, bag_size: int) -> float:
    """`outright_loss` of the first bag draw in a typical round (nobody knocked, nothing
    refused or shown: every other seat known not to hold a Narr, nothing else known) for a
    seat holding `rank`: a function of the own rank and the bag's size alone (`bag_odds`)."""
    typical = BotView(
        seat=0,
        rank=rank,
        dealt=rank,
        participants=2,
        position=0,
        is_dealer=False,
        order=(0, 1),
        narr_must_swap=False,
        not_narr=frozenset({1}),
        bag_size=bag_size,
    )
    return outright_loss(bag_odds(typical))


# --------------------------------------------------------------------------- decisions
def forced_action(view: BotView) -> Action | None:
    """The action the rules or certain knowledge dictate, or None when the threshold decides."""
    rank = view.rank
    if rank == NARR and view.narr_must_swap:
        return "swap"  # T3: a Narr holder may not stay
    if rank >= FIRST_MATADOR:
        return "stay"  # a matador refuses requests and is (all but) never the lowest piece
    if is_safe(view):
        return "stay"  # a swap could only cost us: a Dragon, a Katt, a lower piece
    partner = partner_of(view)
    if partner == BAG:
        return None
    theirs = view.known_rank(partner)
    if theirs is None:
        return None
    if theirs == GJOK:
        # Asking ends the round at once, no exchange (N12): the pieces are frozen before the
        # seats after us pass their low pieces on and the dealer trades one for a bag piece.
        # The benchmark (--gjok) finds that worth it for every piece below X.
        return "swap" if rank < GJOK_STOP else "stay"
    if theirs == NARR or theirs in (DRAGON, KATT):
        # We would receive the Narr (and pay, N20), or lose a life and keep our piece (N13,
        # N14): staying is never worse. With a Narr of our own the exchange changes nothing.
        return "stay"
    return "swap" if theirs > rank else "stay"  # a known ordinary piece: take it if higher


def decide(
    view: BotView, rng: random.Random | None = None, *, table: ThresholdTable | None = None
) -> Action:
    """The action for `view`'s seat, "stay" or "swap": always one of its legal actions.

    `rng` is accepted for the service's interface; the strategy is deterministic, so a replay
    of a bot's choices needs nothing but the match record. `table` replaces `THRESHOLDS`
    (the benchmark uses it to tune and to play the fixed baseline).
    """
    forced = forced_action(view)
    if forced is not None:
        return forced
    return "swap" if view.rank + 0.5 < swap_limit(view, table) else "stay"


def swap_limit(view: BotView, table: ThresholdTable | None = None) -> float:
    """Swap when the own rank + 0.5 is below this: the threshold, moved by `bag_shift` when
    the request goes to the bag (the acting dealer, or C3 past known Hest/Hus)."""
    limit: float = threshold(view, table)
    if partner_of(view) == BAG:
        limit += bag_shift(view)
    return limit
