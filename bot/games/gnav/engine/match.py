"""The Gnav match: lives, bank, deals, turns, matadors, the bag, the reveal (RULES.md 1-2).

A `Match` is pure and deterministic. Chance enters only through `start_round`, which is handed
the deal and the order of the bag (the service shuffles with an injected `random.Random`; a
match record fixes them). Every call returns the events it caused, each with its audience.

Seats are indexes 0..n-1 in clockwise order; seat i's left neighbour is seat i+1 (mod n).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.games.common.engine.events import event_from_list, event_to_list
from bot.games.gnav.engine.errors import (
    BagExhausted,
    InvalidDeal,
    MatchOver,
    NotYourTurn,
    RoundOver,
    RuleError,
)
from bot.games.gnav.engine.events import EVERYONE, Event
from bot.games.gnav.engine.pieces import COPIES_PER_RANK, NARR, RANK_NAMES
from bot.games.gnav.engine.profiles import (
    ACCEPT,
    FORBI,
    GJOK_STOP,
    HUGG_AV,
    KISS,
    NORSK,
    Profile,
    get_profile,
)

#: Partner value of an exchange made with the bag (N17, C3).
BAG = -1
#: No piece in that seat's hand (not dealt, or the round is not under way).
NO_PIECE = -1

Phase = Literal["deal", "play", "finished"]
Action = Literal["stay", "swap"]
RoundEnd = Literal["reveal", "gjok", "redeal"]


@dataclass(slots=True)
class RoundLog:
    """Inputs and outcome of one round: what a match record and its outcome hold."""

    dealer: int
    deal: list[int]  # rank per seat, NO_PIECE for seats that got none
    bag: tuple[int, ...]  # top of the bag first
    actions: list[tuple[int, str]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # public events, in order
    end: RoundEnd | None = None
    hands: dict[int, int] = field(default_factory=dict)  # participants' pieces at the reveal
    lives: list[int] = field(default_factory=list)  # every seat's lives after the round
    eliminated: list[int] = field(default_factory=list)


class _Events:
    """The frequent events of an n-seat table, made once and shared (events are immutable values).

    Building an event costs an allocation or two and feeds the garbage collector; a round makes
    about twenty, so the hot paths take them from here instead.
    """

    __slots__ = (
        "act_stay",
        "act_swap",
        "bag_swap",
        "knock",
        "pair",
        "pay_lowest",
        "pay_narr",
        "piece_bag",
        "piece_deal",
        "piece_swap",
        "sit_out",
        "stay",
        "swap",
    )

    def __init__(self, n: int) -> None:
        one = [(s,) for s in range(n)]
        ranks = range(len(RANK_NAMES))

        def per_seat(kind: str, detail: str = "") -> tuple[Event, ...]:
            return tuple(_new(Event, (kind, one[s], -1, EVERYONE, detail, ())) for s in range(n))

        def pieces(detail: str) -> tuple[tuple[Event, ...], ...]:
            return tuple(
                tuple(_new(Event, ("piece", one[s], r, s, detail, ())) for r in ranks)
                for s in range(n)
            )

        self.stay = per_seat("stay")
        self.knock = per_seat("knock")
        self.sit_out = per_seat("sit_out")
        self.bag_swap = per_seat("bag_swap")
        self.pay_lowest = per_seat("pay", "lowest")
        self.pay_narr = per_seat("pay", "narr")
        self.piece_deal = pieces("deal")
        self.piece_swap = pieces("swap")
        self.piece_bag = pieces("bag")
        self.swap = tuple(
            tuple(_new(Event, ("swap", (a, b), -1, EVERYONE, "", ())) for b in range(n))
            for a in range(n)
        )
        # Not events, but as immutable: the logged actions and the reveal's (seat, rank) pairs.
        self.act_stay = tuple((s, "stay") for s in range(n))
        self.act_swap = tuple((s, "swap") for s in range(n))
        self.pair = tuple(tuple((s, r) for r in ranks) for s in range(n))


_EVENT_TABLES: dict[int, _Events] = {}


def _events_for(n: int) -> _Events:
    table = _EVENT_TABLES.get(n)
    if table is None:
        table = _EVENT_TABLES[n] = _Events(n)
    return table


class Match:
    """A whole Gnav match between named seats.

    Typical use: `deal, bag = match.deal_from(shuffled_pieces)`, `match.start_round(deal, bag)`,
    then `match.act(match.turn, "stay" | "swap")` until `match.phase` is "deal" again (next round)
    or "finished" (`match.winners`).
    """

    __slots__ = (
        "_deck_sorted",
        "_drawable",
        "_dumped",
        "_dumped_events",
        "_dumped_last",
        "_dumped_of",
        "_ev",
        "_rotation",
        "_skip",
        "bag",
        "bank",
        "dealer",
        "exchanges",
        "first_dealer",
        "hands",
        "history",
        "in_match",
        "initial_lives",
        "leaving",
        "lives",
        "log",
        "n",
        "order",
        "phase",
        "pos",
        "profile",
        "seats",
        "sit_next",
        "sitting_out",
        "spare",
        "winners",
    )

    def __init__(
        self,
        seats: Sequence[str],
        *,
        profile: Profile | str = NORSK,
        lives: Sequence[int] | int | None = None,
        dealer: int = 0,
    ) -> None:
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        p = self.profile
        names = [str(s) for s in seats]
        if not p.min_players <= len(names) <= p.max_players:
            raise RuleError(
                "N3", f"{p.name} needs {p.min_players} to {p.max_players} players, not {len(names)}"
            )
        if len(set(names)) != len(names):
            raise RuleError("N3", "every seat needs a different name")
        self.seats: list[str] = names
        self.n = n = len(names)
        self._deck_sorted: list[int] = sorted(p.deck)
        self._ev = _events_for(n)
        # Seats clockwise from each seat's left neighbour round to itself (N4, N8, N24).
        self._rotation: tuple[tuple[int, ...], ...] = tuple(
            tuple((d + k) % n for k in range(1, n + 1)) for d in range(n)
        )
        if lives is None:
            lives = p.default_lives
        start = [lives] * n if isinstance(lives, int) else [int(x) for x in lives]
        if len(start) != n or any(x < 1 for x in start):
            raise RuleError("N3", "every player starts with at least 1 life")
        if not 0 <= dealer < n:
            raise RuleError("N4", f"dealer seat {dealer} is not at the table")
        self.lives: list[int] = start
        self.initial_lives: tuple[int, ...] = tuple(start)
        self.bank = 0  # N3: lost lives go to the bank
        self.spare = 0  # N6: tokens taken while the bank was short
        self.dealer = dealer
        self.first_dealer = dealer
        self.in_match: list[bool] = [True] * n
        self.sit_next: list[int] = []  # T4/C8: seats sitting out the next round
        self.leaving: list[int] = []  # seats that forfeited during the round under way
        self.winners: list[int] | None = None
        self.history: list[RoundLog] = []
        # `to_dict`'s JSON form of the rounds before the newest (they never change again),
        # made once each, and the last round it holds (a history that is not the one they
        # were made from is made again).
        self._dumped: list[dict[str, Any]] = []
        self._dumped_last: RoundLog | None = None
        # The same for the newest round's public events (a round's events only grow): their
        # JSON form, and the list of events it was made from.
        self._dumped_events: list[list[Any]] = []
        self._dumped_of: list[Event] | None = None
        self.phase: Phase = "deal"
        self._clear_round()

    # ----------------------------------------------------------------- round state
    def _clear_round(self) -> None:
        self.hands: list[int] = [NO_PIECE] * self.n
        self.bag: deque[int] = deque()
        self.order: list[int] = []
        self.pos = 0
        self.exchanges: list[tuple[int, int, int, int]] = []  # (asker, partner|BAG, gave, took)
        self.sitting_out: list[int] = []
        self._skip: list[bool] = [False] * self.n  # T2: seats that lost their turn
        # Draws left before the bag reaches pieces a record does not list (MATCH_RECORD.md);
        # None when the bag is complete (every piece not dealt is listed), as the service deals.
        self._drawable: int | None = None
        self.log: RoundLog | None = None

    @property
    def turn(self) -> int | None:
        """The seat whose turn it is, or None between rounds and after the match."""
        if self.phase != "play":
            return None
        return self.order[self.pos]

    @property
    def acting_dealer(self) -> int | None:
        """The seat that acts last and owns the bag this round (N8, C2)."""
        return self.order[-1] if self.order and self.phase == "play" else None

    @property
    def players_left(self) -> list[int]:
        """Seats still in the match (N22)."""
        return [s for s in range(self.n) if self.in_match[s]]

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """What `seat` may do now: () when it is not its turn; under T3 a Narr holder must swap."""
        if self.phase != "play" or self.order[self.pos] != seat:
            return ()
        if self.profile.narr_may_not_stay and self.hands[seat] == NARR:
            return ("swap",)
        return ("stay", "swap")

    def deal_seats(self) -> list[int]:
        """Seats that get a piece in the next deal, in dealing order from the dealer's left (N4).

        Under T4 the seats sitting out this round get none.
        """
        in_match = self.in_match
        skip = self.sit_next
        if skip:
            return [s for s in self._rotation[self.dealer] if in_match[s] and s not in skip]
        return [s for s in self._rotation[self.dealer] if in_match[s]]

    def deal_from(self, pieces: Sequence[int]) -> tuple[dict[int, int], list[int]]:
        """Deal a shuffled set: one piece to each `deal_seats()` seat in order, the rest is the bag.

        `pieces` are the 42 ranks after the service's shuffle, top first (N4).
        """
        seats = self.deal_seats()
        k = len(seats)
        if len(pieces) < k:
            raise InvalidDeal("N4", f"{len(pieces)} pieces cannot deal {k} players")
        bag = pieces[k:]
        return dict(zip(seats, pieces, strict=False)), bag if type(bag) is list else list(bag)

    # ----------------------------------------------------------------- the deal
    def start_round(self, deal: Mapping[int, int], bag: Sequence[int]) -> list[Event]:
        """Begin a round from a given deal (seat -> rank) and bag (top first) (N4-N8, T4, C1)."""
        if self.phase != "deal":
            if self.phase == "finished":
                raise MatchOver("N23", "the match is over")
            raise RuleError("N24", "the round under way has not ended")
        expected = self.deal_seats()
        # The common case first (a whole shuffled set dealt to the right seats): one sort.
        # bytes() takes whole numbers 0..255 only, so no float or text passes for a rank.
        try:
            whole = (
                len(deal) + len(bag) == len(self._deck_sorted)
                and sorted(bytes([*deal.values(), *bag])) == self._deck_sorted
                and deal.keys() == set(expected)
            )
        except (TypeError, ValueError):
            whole = False
        if not whole:
            self._check_deal(deal, bag, expected)  # names what is wrong, or passes a record
        n = self.n
        hands = [NO_PIECE] * n
        for seat, rank in deal.items():
            hands[seat] = rank
        self.hands = hands
        self.bag = deque(bag)
        self.exchanges = []
        if True in self._skip:  # T2 marked seats last round (mostly it did not: keep the list)
            self._skip = [False] * n
        # A record may list only the top of the bag; the rest lies below in no defined order,
        # and pieces put back at the bottom (C4) go below that unknown rest (MATCH_RECORD.md).
        self._drawable = len(bag) if len(deal) + len(bag) < len(self.profile.deck) else None
        self.pos = 0
        events: list[Event]
        public: list[Event]
        sitting: list[int] = []
        if self.sit_next:
            # T4: last round's Narr holders sit out first (C8 already dropped lapsed rights).
            sitting = sorted(self.sit_next)
            events = [self._ev.sit_out[s] for s in sitting]
            public = list(events)
            self.sit_next = []
        else:
            events = []
            public = []
        ev = events.append
        piece_deal = self._ev.piece_deal
        # Each seat is told its own piece, in seat order.
        events += [piece_deal[s][r] for s, r in enumerate(hands) if r != NO_PIECE]
        order = expected  # N8: clockwise from the dealer's left, those dealt a piece
        if NARR in hands:
            narrs = [s for s in range(n) if hands[s] == NARR]
            for seat in narrs:  # N5: a player dealt a Narr knocks three times
                e = self._ev.knock[seat]
                ev(e)
                public.append(e)
            if self.profile.double_narr_sit_out and len(narrs) == 2:
                # N6: both Narr dealt: each holder takes a token from the bank and sits out.
                lives = self.lives
                for seat in narrs:
                    if self.bank > 0:
                        self.bank -= 1
                    else:
                        self.spare += 1
                    lives[seat] += 1
                    e = self._ev.sit_out[seat]
                    ev(e)
                    public.append(e)
                sitting = sorted(sitting + narrs)
                order = [s for s in expected if s not in narrs]
        self.sitting_out = sitting
        self.order = order  # N8, C2: the last in this order is the acting dealer
        log = RoundLog(self.dealer, list(hands), tuple(bag), [], public, None, {}, [], [])
        self.log = log
        self.history.append(log)
        if len(order) < 2:
            # N7, C1: nobody can act; the same dealer redeals, N6 tokens are kept.
            e = _new(Event, ("redeal", (), -1, EVERYONE, "", ()))
            ev(e)
            public.append(e)
            log.end = "redeal"
            log.lives = list(self.lives)
            self.phase = "deal"
            self._clear_round()
            return events
        self.phase = "play"
        return events

    def _check_deal(self, deal: Mapping[int, int], bag: Sequence[int], expected: list[int]) -> None:
        """N1, N4, N22, T4: the deal goes to exactly `expected`, no rank more than twice.

        `start_round` has already tried the common case (a whole set); this names what is
        wrong, or lets a record's partial bag pass.
        """
        n = self.n
        for seat in deal:
            if not isinstance(seat, int) or not 0 <= seat < n:
                raise InvalidDeal("N4", f"seat {seat!r} is not at the table")
        if set(deal) != set(expected):
            missing = [self.seats[s] for s in expected if s not in deal]
            if missing:
                raise InvalidDeal("N4", f"the deal has no piece for {', '.join(missing)}")
            seat = next(s for s in deal if s not in expected)
            if not self.in_match[seat]:
                raise InvalidDeal(
                    "N22",
                    f"the deal gives a piece to {self.seats[seat]}, who is out of the match (N22)",
                )
            raise InvalidDeal(
                "T4",
                f"the deal gives a piece to {self.seats[seat]}, who sits out this round (T4)",
            )
        counts = [0] * len(RANK_NAMES)
        for rank in (*deal.values(), *bag):
            if not isinstance(rank, int) or not 0 <= rank < len(RANK_NAMES):
                raise InvalidDeal("N1", f"{rank!r} is not a Gnav rank")
            counts[rank] += 1
        for rank, count in enumerate(counts):
            if count > COPIES_PER_RANK:
                raise InvalidDeal(
                    "N1",
                    f'{_count_word(count)} pieces of rank "{RANK_NAMES[rank]}" (the set has two)',
                )
        if len(deal) + len(bag) > len(self.profile.deck):
            raise InvalidDeal("N1", "more pieces than the set has")

    # ----------------------------------------------------------------- turns
    def act(self, seat: int, action: str, *, target: int | None = None) -> list[Event]:
        """Apply `seat`'s action: "stay" or "swap" (N9; the acting dealer's swap is with the bag).

        `target`, when given, names the partner the player meant: the next participating left
        neighbour for a player, or BAG for the acting dealer; any other target is refused (N9, N17).
        """
        if self.phase != "play":
            if self.phase == "finished":
                raise MatchOver("N23", "the match is over")
            raise RoundOver("N24", "the round is over; the next deal comes first")
        order = self.order
        pos = self.pos
        current = order[pos]
        if seat != current:
            raise NotYourTurn("N8", self._not_your_turn(current, seat))
        log = self.log
        assert log is not None
        if action == "stay":
            if self.profile.narr_may_not_stay and self.hands[seat] == NARR:
                raise RuleError(
                    "T3", f"{self.seats[seat]} holds the Narr and may not stay: it must swap (T3)"
                )
            table = self._ev
            log.actions.append(table.act_stay[seat])
            e = table.stay[seat]
            log.events.append(e)
            events = [e]
            self._advance(events)  # N8: the next participant clockwise
            return events
        is_dealer = pos == len(order) - 1
        events = []
        if action != "swap":
            raise RuleError("N9", f'"{action}" is not an action: stay or swap')
        if is_dealer:
            if target is not None and target != BAG:
                raise RuleError("N17", "the dealer swaps with the bag, not with a neighbour (N17)")
            log.actions.append(self._ev.act_swap[seat])
            self._bag_request(seat, events)
        else:
            if target is not None and target != order[self.pos + 1]:
                if target == BAG:
                    raise RuleError("N17", "only the dealer swaps with the bag (N17)")
                raise RuleError(
                    "N9",
                    f"you may only ask your left neighbour "
                    f"{self.seats[order[self.pos + 1]]} to swap (N9)",
                )
            log.actions.append(self._ev.act_swap[seat])
            self._request(seat, events)
        return events

    def _not_your_turn(self, current: int, seat: object) -> str:
        text = f"it is {self.seats[current]}'s turn, not {self._name(seat)}'s"
        if isinstance(seat, int) and 0 <= seat < self.n:
            if not self.in_match[seat]:
                return f"{text}: {self.seats[seat]} is out of the match (N22)"
            if seat in self.sitting_out:
                return f"{text}: {self.seats[seat]} sits out this round"
            if self._skip[seat]:
                return f"{text}: {self.seats[seat]} lost its turn to the Dragon (T2)"
        return text

    def _name(self, seat: object) -> str:
        if isinstance(seat, int) and 0 <= seat < self.n:
            return self.seats[seat]
        return repr(seat)

    def _request(self, asker: int, events: list[Event]) -> None:
        """A player's request to swap, passed on by Hest/Hus (N9-N16, C3, T2)."""
        order = self.order
        hands = self.hands
        responses = self.profile.responses
        last = len(order) - 1
        log = self.log
        assert log is not None
        public = log.events
        idx = self.pos + 1
        passed: list[int] = []
        while True:
            partner = order[idx]
            rank = hands[partner]
            response = responses[rank]
            if response == ACCEPT:
                # N10: the ordinary piece is handed over unseen; the asker's turn ends.
                mine = hands[asker]
                hands[asker] = rank
                hands[partner] = mine
                self.exchanges.append((asker, partner, mine, rank))  # N11
                table = self._ev
                e = table.swap[asker][partner]
                public.append(e)
                events += (e, table.piece_swap[asker][rank], table.piece_swap[partner][mine])
                self._advance(events)  # N8: play goes on after the asker
                return
            if response == FORBI:
                # N15: the holder keeps it; the same request goes on to the next participant.
                e = Event("forbi", (partner,), rank)
                events.append(e)
                public.append(e)
                if idx == last:
                    # C3: never past the acting dealer: the request goes on to the bag (N17).
                    self._bag_request(asker, events)
                    return
                passed.append(partner)
                idx += 1
                continue
            if response == GJOK_STOP:
                # N12: "Stå for gjøk!": no exchange, straight to the reveal.
                e = Event("gjok", (partner,))
                events.append(e)
                public.append(e)
                self._reveal(events, "gjok")
                return
            if response == HUGG_AV:
                # N13: refused, the asker loses 1 life and keeps its piece.
                self._lose_life(asker)
                e = Event("hugg_av", (partner, asker))
                events.append(e)
                public.append(e)
                if self.profile.dragon_skips_passed:
                    # T2: play goes on after the Dragon; it and the passed Hest/Hus lose their turn.
                    skip = self._skip
                    skip[partner] = True
                    for s in passed:
                        skip[s] = True
                    if idx == last:
                        self._reveal(events, "reveal")
                        return
                self._advance(events)
                return
            # KISS: N14: the asker pays, the request is cancelled, every exchange is undone.
            self._lose_life(asker)
            e = Event("kiss", (partner, asker))
            events.append(e)
            public.append(e)
            self._undo_all(events)
            self._advance(events)
            return

    def _bag_request(self, asker: int, events: list[Event]) -> None:
        """A request to the bag: the acting dealer's swap (N17) or one passed on to it (C3)."""
        bag = self.bag
        hands = self.hands
        responses = self.profile.responses
        log = self.log
        assert log is not None
        public = log.events
        skipped: list[int] = []
        while True:
            drawable = self._drawable
            if drawable is not None:
                if drawable == 0:
                    raise BagExhausted(
                        "N17",
                        f"the bag is drawn past its {len(log.bag)} listed "
                        f"piece{'s' if len(log.bag) != 1 else ''} (MATCH_RECORD.md)",
                    )
                self._drawable = drawable - 1
            elif not bag:
                raise BagExhausted("N17", "the bag is empty")
            candidate = bag.popleft()
            response = responses[candidate]
            if response == ACCEPT:
                mine = hands[asker]
                hands[asker] = candidate
                bag.append(mine)  # C4: the old piece first, then the skipped Hest/Hus
                bag.extend(skipped)
                self.exchanges.append((asker, BAG, mine, candidate))  # N11
                e = self._ev.bag_swap[asker]
                public.append(e)
                events += (e, self._ev.piece_bag[asker][candidate])
                self._advance(events)
                return
            if response == FORBI:
                skipped.append(candidate)
                e = Event("bag_forbi", (asker,), candidate)
                events.append(e)
                public.append(e)
                continue
            bag.extend(skipped)
            bag.append(candidate)  # C4: a refusing candidate goes back last
            if response == GJOK_STOP:
                e = Event("bag_gjok", (asker,))
                events.append(e)
                public.append(e)
                self._reveal(events, "gjok")
                return
            self._lose_life(asker)
            if response == HUGG_AV:
                e = Event("bag_hugg_av", (asker,))
                events.append(e)
                public.append(e)
                if self.profile.dragon_skips_passed:
                    # T2: nobody is left after a Dragon drawn from the bag.
                    self._reveal(events, "reveal")
                    return
                self._advance(events)
                return
            assert response == KISS
            e = Event("bag_kiss", (asker,))
            events.append(e)
            public.append(e)
            self._undo_all(events)  # C4: the pieces went back first, the undo runs after
            self._advance(events)
            return

    def _undo_all(self, events: list[Event]) -> None:
        """N14: undo every recorded exchange, newest first; clear the record (C4 for the bag)."""
        hands = self.hands
        before = list(hands)
        bag = self.bag
        for asker, partner, gave, _took in reversed(self.exchanges):
            if partner == BAG:
                # C4: take the given piece back out of the bag (the copy nearest the bottom),
                # put the taken piece at the bottom.
                for i in range(len(bag) - 1, -1, -1):
                    if bag[i] == gave:
                        del bag[i]
                        break
                bag.append(hands[asker])
                hands[asker] = gave
            else:
                hands[asker], hands[partner] = hands[partner], hands[asker]
        self.exchanges.clear()
        for seat in self.order:
            if hands[seat] != before[seat]:
                events.append(Event("piece", (seat,), hands[seat], seat, "undo"))

    def _lose_life(self, seat: int) -> None:
        self.lives[seat] -= 1
        self.bank += 1

    def _advance(self, events: list[Event]) -> None:
        """Next participant clockwise (N8); after the acting dealer, the reveal (N18)."""
        order = self.order
        skip = self._skip
        pos = self.pos + 1
        end = len(order)
        while pos < end and skip[order[pos]]:
            pos += 1
        if pos < end:
            self.pos = pos
        else:
            self._reveal(events, "reveal")

    def forfeit(self, seat: int) -> list[Event]:
        """`seat` leaves the match of its own accord (or by the table's decision).

        Not a rule of the seeds but of the table (a player who walks away, or times out three
        turns in a row). During a round the seat keeps its piece and its place until the reveal,
        where it leaves with the players eliminated by N22; between rounds it leaves at once.
        Its lives are left as they are. Recorded as the action `[P, "forfeit"]`.
        """
        if self.phase == "finished":
            raise MatchOver("N23", "the match is over")
        if not 0 <= seat < self.n or not self.in_match[seat]:
            raise RuleError("N22", f"{self._name(seat)} is not in the match")
        if seat in self.leaving:
            raise RuleError("N22", f"{self.seats[seat]} is already leaving the match")
        log = self.history[-1] if self.history else None
        if log is None:
            raise RoundOver("N4", "the match has not started: nothing to forfeit")
        log.actions.append((seat, "forfeit"))
        e = Event("forfeit", (seat,))
        events = [e]
        log.events.append(e)
        if self.phase == "play":
            self.leaving.append(seat)
            return events
        self.in_match[seat] = False
        if seat in self.sit_next:
            self.sit_next.remove(seat)
        e = Event("out", (seat,), detail="forfeit")
        events.append(e)
        log.events.append(e)
        log.eliminated.append(seat)
        left = self.players_left
        if len(left) <= 1:
            self.winners = left
            for s in left:
                e = Event("win", (s,))
                events.append(e)
                log.events.append(e)
            self.phase = "finished"
        elif seat == self.dealer:
            self._pass_deal()
        if self.profile.narr_sits_out_next and len(left) - len(self.sit_next) < 2:
            self.sit_next = []  # C8: the right lapses when too few would play
        return events

    # ----------------------------------------------------------------- the reveal
    def _reveal(self, events: list[Event], end: RoundEnd) -> None:
        """N18-N24, T4, C6-C8: reveal, payers, elimination, winners, the next dealer."""
        order = self.order
        hands = self.hands
        lives = self.lives
        log = self.log
        assert log is not None
        public = log.events
        table = self._ev
        pair = table.pair
        ranks = [hands[s] for s in order]
        shown = tuple([pair[s][hands[s]] for s in order])
        e = _new(Event, ("reveal", (), -1, EVERYONE, "", shown))
        events.append(e)
        public.append(e)
        payers = self.profile.payers(ranks)
        paying = [order[payers[0]]] if len(payers) == 1 else sorted(order[i] for i in payers)
        for seat in paying:
            lives[seat] -= 1
            e = table.pay_narr[seat] if hands[seat] == NARR else table.pay_lowest[seat]
            events.append(e)
            public.append(e)
        self.bank += len(paying)
        in_match = self.in_match
        n = self.n
        leaving = self.leaving
        if leaving:
            out = [s for s in range(n) if in_match[s] and (lives[s] <= 0 or s in leaving)]
            self.leaving = []
        else:
            out = [s for s in range(n) if in_match[s] and lives[s] <= 0]
        left: list[int] | None = None
        if out:
            for seat in out:  # N22 (and seats that forfeited during the round)
                in_match[seat] = False
                detail = "forfeit" if lives[seat] > 0 else ""
                e = _new(Event, ("out", (seat,), -1, EVERYONE, detail, ()))
                events.append(e)
                public.append(e)
            left = [s for s in range(n) if in_match[s]]
        log.end = end
        log.hands = dict(shown)
        log.lives = list(lives)
        log.eliminated = out
        if left is not None and len(left) <= 1:
            # N23: the last player left wins; eliminated together, they share the win.
            self.winners = left if left else out
            for seat in self.winners:
                e = _new(Event, ("win", (seat,), -1, EVERYONE, "", ()))
                events.append(e)
                public.append(e)
            self.phase = "finished"
            return
        if self.profile.narr_sits_out_next and log.deal.count(NARR) == 2:
            if left is None:
                left = [s for s in range(n) if in_match[s]]
            # T4 replaces N6 "when both Narr are dealt" (seed 001: "if two Narr are dealt"):
            # every Narr holder still in sits out the next round, unless that would leave
            # fewer than two participants (C8). A single Narr dealt gives no such right.
            rights = [s for s in order if hands[s] == NARR and in_match[s]]
            if len(left) - len(rights) >= 2:
                self.sit_next = sorted(rights)
        # N24, C7 (as `_pass_deal`, inlined: once a round).
        for seat in self._rotation[self.dealer]:
            if in_match[seat]:
                self.dealer = seat
                break
        self.phase = "deal"

    def _pass_deal(self) -> None:
        """N24, C7: the deal passes to the next player on the dealer's left still in the match."""
        in_match = self.in_match
        for seat in self._rotation[self.dealer]:
            if in_match[seat]:
                self.dealer = seat
                return

    # ----------------------------------------------------------------- serialisation
    def to_dict(self, history_from: int = 0) -> dict[str, Any]:
        """The whole match as JSON-ready data; `Match.from_dict` restores it without loss.
        With `history_from`, "history" holds only the rounds from that index on (the ones
        before it are `finished_rounds`, which go back in front of them for `from_dict`)."""
        data: dict[str, Any] = {
            "format": 1,
            "profile": self.profile.name,
            "seats": list(self.seats),
            "initial_lives": list(self.initial_lives),
            "first_dealer": self.first_dealer,
            "lives": list(self.lives),
            "bank": self.bank,
            "spare": self.spare,
            "dealer": self.dealer,
            "in_match": list(self.in_match),
            "sit_next": list(self.sit_next),
            "leaving": list(self.leaving),
            "winners": self.winners,
            "phase": self.phase,
            "history": self._history_dicts(history_from),
        }
        if self.history:
            # The newest round keeps its outcome too, so a restored table can still show it.
            last = self.history[-1]
            data["last_round"] = {
                "events": self._event_lists(last.events),
                "end": last.end,
                "hands": [[s, r] for s, r in last.hands.items()],
                "lives": list(last.lives),
                "eliminated": list(last.eliminated),
            }
        if self.phase == "play":
            log = self.log
            assert log is not None
            data["round"] = {
                "hands": list(self.hands),
                "bag": list(self.bag),
                "order": list(self.order),
                "pos": self.pos,
                "exchanges": [list(x) for x in self.exchanges],
                "sitting_out": list(self.sitting_out),
                "skip": [s for s in range(self.n) if self._skip[s]],
                "drawable": self._drawable,
            }
        return data

    def finished_rounds(self) -> list[dict[str, Any]]:
        """`to_dict`'s "history" but the newest round, each round made once (a round never
        changes once a newer one began). The lists of rounds (deal, actions) are the match's
        own, as they always were: read them, never change them."""
        history = self.history
        done = len(history) - 1
        dumped = self._dumped
        kept = len(dumped)
        if kept > done or (kept and history[kept - 1] is not self._dumped_last):
            dumped.clear()  # not the history they were made from
            kept = 0
        for r in history[kept:done]:
            dumped.append(
                {"dealer": r.dealer, "deal": r.deal, "bag": list(r.bag), "actions": r.actions}
            )
        self._dumped_last = history[done - 1] if done > 0 else None
        return dumped[:]

    def _history_dicts(self, start: int) -> list[dict[str, Any]]:
        """`to_dict`'s "history" from round `start` on: the finished rounds made once each
        (`finished_rounds`), the newest every time."""
        history = self.history
        if not history:
            return []
        done = len(history) - 1
        finished = self.finished_rounds()[start:] if start < done else []
        r = history[done]
        if start > done:
            return finished
        finished.append(
            {"dealer": r.dealer, "deal": r.deal, "bag": list(r.bag), "actions": r.actions}
        )
        return finished

    def _event_lists(self, events: list[Event]) -> list[list[Any]]:
        """The newest round's public events in JSON form, each made once: a round's events
        only grow (kept while they are the same list)."""
        dumped = self._dumped_events
        if self._dumped_of is not events or len(dumped) > len(events):
            dumped = self._dumped_events = []
            self._dumped_of = events
        if len(dumped) < len(events):
            dumped.extend([event_to_list(e) for e in events[len(dumped) :]])
        return dumped[:]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        """Rebuild a match saved by `to_dict`."""
        if data.get("format") != 1:
            raise ValueError(f"unknown match state format {data.get('format')!r}")
        m = cls(
            data["seats"],
            profile=data["profile"],
            lives=data["initial_lives"],
            dealer=data["first_dealer"],
        )
        m.lives = list(data["lives"])
        m.bank = data["bank"]
        m.spare = data["spare"]
        m.dealer = data["dealer"]
        m.in_match = list(data["in_match"])
        m.sit_next = list(data["sit_next"])
        m.leaving = list(data.get("leaving", []))
        m.winners = None if data["winners"] is None else list(data["winners"])
        m.phase = data["phase"]
        m.history = [
            RoundLog(
                dealer=r["dealer"],
                deal=list(r["deal"]),
                bag=tuple(r["bag"]),
                actions=[(int(a), str(b)) for a, b in r["actions"]],
            )
            for r in data["history"]
        ]
        rnd = data.get("round")
        if m.phase == "play":
            if rnd is None:
                raise ValueError("a match in play needs its round")
            m.hands = list(rnd["hands"])
            m.bag = deque(rnd["bag"])
            m.order = list(rnd["order"])
            m.pos = rnd["pos"]
            m.exchanges = [(a, b, c, d) for a, b, c, d in rnd["exchanges"]]
            m.sitting_out = list(rnd["sitting_out"])
            for s in rnd["skip"]:
                m._skip[s] = True
            m._drawable = rnd.get("drawable")
            m.log = m.history[-1]
        last = data.get("last_round")
        if last is not None and m.history:
            log = m.history[-1]
            log.events = [event_from_list(Event, e) for e in last["events"]]
            log.end = last["end"]
            log.hands = {s: r for s, r in last["hands"]}
            log.lives = list(last["lives"])
            log.eliminated = list(last["eliminated"])
        return m

    # ----------------------------------------------------------------- checks
    def pieces_accounted(self) -> int:
        """How many pieces the round holds: hands (sit-outs included) plus the bag (N1, N24)."""
        return sum(1 for r in self.hands if r != NO_PIECE) + len(self.bag)

    def tokens_accounted(self) -> bool:
        """Lives plus bank equal the starting lives plus the spare tokens used (N3, N6)."""
        return sum(self.lives) + self.bank == sum(self.initial_lives) + self.spare


#: Builds an Event from all six fields at C speed (NamedTuple's own __new__ is Python code).
_new = tuple.__new__


def _count_word(count: int) -> str:
    words = {3: "three", 4: "four", 5: "five", 6: "six"}
    return words.get(count, str(count))
