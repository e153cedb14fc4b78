"""Karnaval's `strong` bot: determinized sampling over the seat's information set (issue 22).

`choose_strong(match, seat, rng, budget)` reads only `SeatView.from_match` (the seat's own hand
and the public table: the trump card, the bids, every card played, so also the suits a seat
showed out of, K7) plus the public score sheet of the quarter. From that it deals the unseen
cards many times (`sample_world`): each opponent gets as many cards as it holds, never a card of
a suit it showed out of; the rest is the face-down stock. In every such world it tries each
candidate move (a whole play: the card and its word, K9-K11; a Karnaval led or the two cards
given, K13-K14; or a bid, K6) and plays the rest of the deal out with a fast copy-free policy
for every seat (`Sim`, the rules of thumb of `strategy.py` on small integers); the move with the
best mean outcome for the seat is chosen (perfect-information Monte Carlo).

The outcome is the deal's points (K17-K19) plus what the quarter makes of them (K20): the +60
premium weighs on an exact bid while the quarter's earlier bids were all exact, and the -60
penalty on a quarter sum going negative in its last deal.

The work per decision is bounded by `Budget`: a number of worlds (`samples`) and, in service,
a time limit checked between worlds; tests count worlds only, so a choice is a function of the
view, the seed and the sample count. The engine is never copied: `Sim` holds the hands as
lists of small integers (suit * 9 + rank strength; a joker is 36).

Measured by `python -m benchmarks.karnaval_strategy --level strong` (duplicate format, one
strong seat rotating against normal seats, 32 worlds per decision; 500 games per size, seed 19,
in two chunks): the strong seat scores more than the normal seat on the same cards in 0.837 ±
0.032 of games at 3 players, 0.798 ± 0.035 at 4, 0.787 ± 0.036 at 5 and 0.740 ± 0.038 at 6
(+49 to +81 points a game); decision p99 18-48 ms by size, max 76 ms of one core's CPU time.
With 16 worlds it looked weaker at 6 players (0.53 ± 0.16 over 38 games), so the budget stays at 32.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass
from typing import TypeVar

from bot.games.karnaval.engine.cards import JOKER, RANKS, SUITS
from bot.games.karnaval.engine.game import Choice, Karnaval, needs_place, score
from bot.games.karnaval.strategy import DECK, SeatView, _voids, best_bid, choose_view

#: The joker's code; suit cards are suit * 9 + strength (6 = 0 ... A = 8).
J = 36
#: Premium and penalty of a quarter (K20).
PREMIUM = 60
PENALTY = -60
#: Chance, per later deal of the quarter, that the seat also makes that bid exactly: the
#: premium's weight on the current deal is PREMIUM * EXACT ** (deals left after it).
EXACT = 0.45
#: World counts after which the worse half of the moves still tried stops (`evaluate`).
HALVING = frozenset({6, 12, 24})
#: Bids tried around today's bid (`best_bid`): it and this many on each side.
BID_SPAN = 2


NAMES: tuple[str, ...] = (*(RANKS[8 - r] + s for s in SUITS for r in range(9)), JOKER)
CODES: dict[str, int] = {c: i for i, c in enumerate(NAMES)}


def code(card: str) -> int:
    """A card as a small integer (`J` for a joker)."""
    return CODES[card]


def name(c: int) -> str:
    """The card spelled as the engine spells it."""
    return NAMES[c]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one decision may think: at most `samples` worlds and, when set, `seconds`
    (checked between worlds; at least `min_samples` worlds are always done)."""

    samples: int = 32
    seconds: float | None = None
    min_samples: int = 6
    rollouts: int = 400  # at most this many play-outs per decision (worlds x moves tried)


@dataclass(frozen=True, slots=True)
class Quarter:
    """The seat's public standing in the quarter (K20): every earlier bid exact, the sum of its
    earlier deals, and how many deals of the quarter follow the current one."""

    exact: bool = True
    total: int = 0
    after: int = 0

    @classmethod
    def from_match(cls, k: Karnaval, seat: int) -> Quarter:
        """Read from the finished deals of the current quarter (public: the score sheet)."""
        d = k.current
        if d is None:
            return cls()
        q0 = d.index - d.index % k.n
        exact, total = True, 0
        for e in k.deals[q0 : d.index]:
            took = e.taken(k.n)[seat]
            bid = dict(e.bids)[seat]
            exact = exact and took == bid
            total += score(bid, took)
        return cls(exact, total, q0 + k.n - 1 - d.index)

    def value(self, bid: int, took: int) -> float:
        """The deal's worth to the seat: its points and its share of the quarter's premium
        and penalty (K17-K20)."""
        s = score(bid, took)
        v = float(s)
        if self.exact and took == bid:
            v += PREMIUM * EXACT**self.after
        if self.after == 0 and self.total + s < 0:
            v += PENALTY
        return v


# --- the fast play-out --------------------------------------------------------------------


def _val(c: int, trump: int) -> int:
    """Low to high: plain cards by rank, then trumps, then jokers."""
    if c == J:
        return 40
    return c % 9 + (20 if c // 9 == trump else 0)


#: `_val` as a table per trump suit (index -1: no trump).
VALS: dict[int, list[int]] = {t: [_val(c, t) for c in range(J + 1)] for t in range(-1, 4)}


def _beats(c: int, b: int, trump: int, low: bool) -> bool:
    cs, bs = c // 9, b // 9
    if cs == bs:
        return c > b
    if cs == trump:
        return True
    if bs == trump:
        return False
    return low and c % 9 > b % 9


def _equals(c: int, b: int, trump: int, low: bool) -> bool:
    if c == b:
        return True
    return low and c % 9 == b % 9 and c // 9 != trump and b // 9 != trump


def _pair_beats(c: int, holding: tuple[int, int], trump: int) -> bool:
    """Two cards `c` take a Karnaval held by `holding` (K14, KC3)."""
    if c == J:
        return True
    a, b = holding
    if a == J and b == J:
        return False
    v = b if a == J else a
    if c // 9 == v // 9:
        return c > v
    return c // 9 == trump


class Sim:
    """One deal in a determinized world, played on small integers; never the engine."""

    __slots__ = (
        "best",
        "best_seat",
        "bids",
        "count",
        "hands",
        "holder",
        "holding",
        "leader",
        "led",
        "mode",
        "n",
        "taken",
        "top",
        "trump",
        "turn",
        "val",
    )

    def __init__(self, n: int, trump: int, hands: list[list[int]], bids: list[int]) -> None:
        self.n = n
        self.trump = trump
        self.hands = hands
        self.bids = bids
        self.taken = [0] * n
        self.turn = 0
        self.count = 0  # plays in the trick on the table
        self.leader = 0
        self.mode = 0  # 0 suit led, 1 joker led high, 2 joker led low, 3 Karnaval
        self.led = -1
        self.best = -1
        self.best_seat = -1
        self.top = -1
        self.holder = -1
        self.holding = (J, J)
        self.val = VALS[trump]

    def copy(self) -> Sim:
        s = Sim.__new__(Sim)
        s.n, s.trump = self.n, self.trump
        s.hands = [list(h) for h in self.hands]
        s.bids = list(self.bids)
        s.taken = list(self.taken)
        s.turn, s.count, s.leader = self.turn, self.count, self.leader
        s.mode, s.led, s.best, s.best_seat, s.top = (
            self.mode,
            self.led,
            self.best,
            self.best_seat,
            self.top,
        )
        s.holder, s.holding, s.val = self.holder, self.holding, self.val
        return s

    # -- applying plays

    def play(self, seat: int, c: int, word: str | None) -> None:
        """One single card (led or following), with its word (K7-K12)."""
        self.hands[seat].remove(c)
        trump = self.trump
        if self.count == 0:
            self.leader = seat
            if c == J:
                self.mode = 1 if word == "high" else 2
                self.top = seat if word == "high" else -1
                self.best, self.best_seat, self.led = -1, -1, -1
            else:
                self.mode, self.led, self.best, self.best_seat, self.top = 0, c // 9, c, seat, -1
        elif c == J:
            if word == "top":
                self.top = seat
        elif self.mode != 1:
            low = self.mode == 2
            if (
                self.best < 0
                or _beats(c, self.best, trump, low)
                or (word == "top" and _equals(c, self.best, trump, low))
            ):
                self.best, self.best_seat = c, seat
        self._next(1)

    def lead_pair(self, seat: int, a: int, b: int) -> None:
        """A Karnaval led (K13, K16)."""
        self.hands[seat].remove(a)
        self.hands[seat].remove(b)
        self.leader = seat
        self.mode, self.holder, self.holding = 3, seat, (a, b)
        self._next(2)

    def give(self, seat: int, a: int, b: int, take: bool) -> None:
        """Two cards given to a Karnaval, taking it or not (KC9, K14)."""
        self.hands[seat].remove(a)
        self.hands[seat].remove(b)
        if take:
            self.holder, self.holding = seat, (a, b)
        self._next(2)

    def _next(self, tricks: int) -> None:
        self.count += 1
        if self.count < self.n:
            self.turn = (self.turn + 1) % self.n
            return
        if self.mode == 3:
            w, tricks = self.holder, 2
        elif self.top >= 0:
            w, tricks = self.top, 1
        elif self.best_seat >= 0:
            w, tricks = self.best_seat, 1
        else:
            w, tricks = self.leader, 1  # KC7
        self.taken[w] += tricks
        self.turn = w
        self.count = 0

    # -- the policy (today's rules of thumb on integers)

    def _holds(self, seat: int, c: int) -> bool:
        """Whether `c`, winning now, survives the later seats' cards (known in this world)."""
        trump, led, mode = self.trump, self.led, self.mode
        low = mode == 2
        cs = c // 9
        hands, n = self.hands, self.n
        for i in range(1, n - self.count):
            h = hands[(seat + i) % n]
            if mode != 0:
                for x in h:
                    if x != J and _beats(x, c, trump, low):
                        return False
                continue
            # A joker's suit (36 // 9 = 4) is no suit: never the led suit nor trump.
            has_led = False
            for x in h:
                if x // 9 == led:
                    has_led = True
                    if cs == led and x > c:
                        return False
            if not has_led:
                for x in h:
                    if x // 9 == trump and (cs != trump or x > c):
                        return False
        return True

    def need(self, seat: int) -> int:
        return self.bids[seat] - self.taken[seat]

    def policy(self, seat: int) -> tuple[int, str | None]:
        """The single card and word `seat` plays now (a hot loop: written out flat; a joker's
        "suit" 36 // 9 = 4 matches no suit and no trump, which spares the joker tests)."""
        h = self.hands[seat]
        val = self.val
        key = val.__getitem__
        need = self.bids[seat] - self.taken[seat]
        trump = self.trump
        if self.count == 0:
            plain = [x for x in h if x != J]
            if not plain:
                return J, ("high" if need > 0 else "low")
            if need > 0:
                sure = self._sure_leads(seat, plain)
                if sure:  # a card no one beats: lead the highest
                    return max(sure, key=key), None
                if J in h and need >= len(h):
                    return J, "high"
            return min(plain, key=key), None
        mode = self.mode
        # K7 on the whole hand (a subset of the K15 choices), jokers always (K9).
        if mode != 0:
            legal = h
        else:
            led = self.led
            legal = [x for x in h if x // 9 == led]
            if not legal and trump >= 0:
                legal = [x for x in h if x // 9 == trump]
            if not legal:
                legal = h
            elif J in h:
                legal.append(J)
        best = self.best
        open_ = self.top < 0 and mode != 1  # a single card may still win the trick
        bs = best // 9
        bt = best % 9
        if need > 0:
            if not open_:
                winners = []
            elif best < 0:
                winners = [x for x in legal if x != J]
            elif mode == 2:  # beats or equals, low (K10, K11)
                winners = [
                    x
                    for x in legal
                    if x != J
                    and (
                        x >= best
                        if x // 9 == bs
                        else x // 9 == trump or (bs != trump and x % 9 >= bt)
                    )
                ]
            else:
                winners = [
                    x for x in legal if x != J and (x >= best if x // 9 == bs else x // 9 == trump)
                ]
            if winners:
                winners.sort(key=key)
                if self.count == self.n - 1:
                    c = winners[0]
                else:
                    c = -1
                    for x in winners:
                        if self._holds(seat, x):
                            c = x
                            break
                    if c < 0:
                        c = J if J in legal else winners[0]
                if c == J:
                    return J, "top"
                return c, self._word(c, True)
            if J in legal:
                return J, "top"
            c = min((x for x in legal if x != J), key=key)
            return c, self._word(c, True)
        if not open_:
            losers = [x for x in legal if x != J]
        elif best < 0:
            losers = []
        elif mode == 2:  # not beating, low (K10)
            losers = [
                x
                for x in legal
                if x != J
                and not (
                    x > best if x // 9 == bs else x // 9 == trump or (bs != trump and x % 9 > bt)
                )
            ]
        else:
            losers = [
                x for x in legal if x != J and (x <= best if x // 9 == bs else x // 9 != trump)
            ]
        if losers:
            c = max(losers, key=key)
            return c, self._word(c, False)
        if J in legal:
            return J, "under"
        c = min(legal, key=key)
        return c, self._word(c, False)

    def wins_now(self, c: int, place_top: bool) -> bool:
        """Whether single card `c` following now would hold the trick."""
        if c == J:
            return place_top
        if self.top >= 0 or self.mode == 1:
            return False
        if self.best < 0:
            return True
        low = self.mode == 2
        if _beats(c, self.best, self.trump, low):
            return True
        return place_top and _equals(c, self.best, self.trump, low)

    def _word(self, c: int, want: bool) -> str | None:
        """ "top"/"under" for a card equal to the card winning (K11, KC8), else None."""
        if self.count == 0 or self.mode in (1, 3) or self.top >= 0 or self.best < 0:
            return None
        if _equals(c, self.best, self.trump, self.mode == 2):
            return "top" if want else "under"
        return None

    def _sure_leads(self, seat: int, plain: list[int]) -> list[int]:
        """The cards of `plain` no other hand beats when led now: no higher (or equal) card of
        their suit elsewhere, no trump in a hand void in their suit."""
        trump = self.trump
        hands, n = self.hands, self.n
        high = [-1, -1, -1, -1, -1]  # the highest card of each suit in the other hands
        ruff = [False] * 5  # some other hand void in the suit holds a trump
        for i in range(1, n):
            h = hands[(seat + i) % n]
            has = [False] * 5
            for x in h:
                s = x // 9
                has[s] = True
                if x > high[s]:
                    high[s] = x
            if trump >= 0 and has[trump]:
                for s in range(4):
                    if not has[s] and s != trump:
                        ruff[s] = True
        return [x for x in plain if x > high[x // 9] and not ruff[x // 9]]

    def give_policy(self, seat: int) -> tuple[int, int, bool]:
        """Two cards for a Karnaval: take with the cheapest beating pair while two tricks are
        wanted, else the two cheapest cards (wanting) or the two most dangerous (not)."""
        h = self.hands[seat]
        trump = self.trump
        need = self.need(seat)
        if need >= 2:
            seen: set[int] = set()
            pairs = []
            for x in h:
                if x != J and x in seen and _pair_beats(x, self.holding, trump):
                    pairs.append(x)
                seen.add(x)
            if pairs:
                c = min(pairs, key=lambda x: _val(x, trump))
                return c, c, True
        if need > 0:
            a, b = sorted(h, key=lambda x: _val(x, trump))[:2]
        else:
            a, b = sorted(h, key=lambda x: (x == J, -_val(x, trump)))[:2]
        return a, b, False

    def run(self) -> None:
        """Play the deal out with the policy for every seat."""
        hands = self.hands
        while hands[self.turn]:
            seat = self.turn
            if self.mode == 3 and self.count > 0:
                a, b, take = self.give_policy(seat)
                self.give(seat, a, b, take)
            else:
                c, w = self.policy(seat)
                self.play(seat, c, w)


# --- sampling the information set ---------------------------------------------------------


class Sampler:
    """Deals the unseen cards to the other seats, consistently with what is public: each gets
    as many cards as it holds and never a suit it showed out of (a void seen is taken as proof,
    like `strategy.Odds`); the rest is the face-down stock."""

    def __init__(self, view: SeatView) -> None:
        unseen = DECK.copy()
        unseen.subtract(view.hand)
        for p in view.plays:
            unseen.subtract(p.cards)
        if view.trump_card is not None:
            unseen[view.trump_card] -= 1
        # A canonical order (not the order of anything hidden), shuffled by the seeded rng.
        self.pool = sorted(code(c) for c, k in unseen.items() for _ in range(max(0, k)))
        voids = {s: {SUITS.index(x) for x in v} for s, v in _voids(view).items()}
        self.voids = voids
        others = [s for s in range(view.n) if s != view.seat]
        others.sort(key=lambda s: (-len(voids.get(s, ())), s))
        self.others = others
        self.held = view.held
        self.seat = view.seat
        self.own = [code(c) for c in view.hand]
        self.n = view.n

    def world(self, rng: random.Random) -> list[list[int]]:
        """Hands by seat: the seat's own, and a dealing of the unseen cards to the others."""
        pool = self.pool
        hands: list[list[int]] = [[] for _ in range(self.n)]
        for _attempt in range(4):
            rng.shuffle(pool)
            left = pool
            ok = True
            for s in self.others:
                want = self.held[s]
                bar = self.voids.get(s)
                if not bar:
                    hands[s], left = left[:want], left[want:]
                    continue
                got: list[int] = []
                rest: list[int] = []
                for c in left:
                    if len(got) < want and (c == J or c // 9 not in bar):
                        got.append(c)
                    else:
                        rest.append(c)
                if len(got) < want:  # no dealing fits: take the void as a hint only
                    ok = False
                    more = want - len(got)
                    got += rest[:more]
                    rest = rest[more:]
                hands[s] = got
                left = rest
            if ok:
                break
        hands[self.seat] = list(self.own)
        return hands


def sample_world(view: SeatView, rng: random.Random) -> list[list[int]]:
    """One dealing of the unseen cards (`Sampler`)."""
    return Sampler(view).world(rng)


def _sim_from(view: SeatView, hands: list[list[int]], bids: list[int]) -> Sim:
    """The world's deal at the view's moment (the trick on the table replayed on integers)."""
    trump = -1 if view.trump is None else SUITS.index(view.trump)
    for p in view.trick:  # the table's cards are out of the hands already: give them back
        hands[p.seat].extend(code(c) for c in p.cards)
    sim = Sim(view.n, trump, hands, bids)
    sim.taken = list(view.taken)
    sim.turn = view.trick[0].seat if view.trick else view.seat
    for p in view.trick:
        if len(p.cards) == 2 and sim.count == 0:
            sim.lead_pair(p.seat, code(p.cards[0]), code(p.cards[1]))
        elif len(p.cards) == 2:
            sim.give(p.seat, code(p.cards[0]), code(p.cards[1]), p.choice == "take")
        else:
            sim.play(p.seat, code(p.cards[0]), p.choice)
    return sim


# --- candidate moves ----------------------------------------------------------------------

#: A whole move: ("play", card, word), ("pair", a, b), ("give", a, b, take) or ("bid", n).
Move = tuple
#: A move scored by `evaluate` (move, mean, worlds) or `_evaluate` (and its exact bids).
_Scored = TypeVar("_Scored", tuple[Move, float, int], tuple[Move, float, int, int])


def _moves(view: SeatView) -> list[Move]:
    """The whole moves open to the seat now, consistent with its half-made play."""
    choices = list(view.choices)
    pend = view.pending
    trick = list(view.trick)
    trump = view.trump
    first = choices[0].action
    if first == "bid":
        return [("bid", int(c.arg or 0)) for c in choices]
    if pend is not None and pend[0] == "declare":
        return [("play", JOKER, "high"), ("play", JOKER, "low")]
    if pend is not None and pend[0] == "place":
        return [("play", pend[1], "top"), ("play", pend[1], "under")]
    if pend is not None and pend[0] == "take":
        return [("give", pend[1], pend[2], True), ("give", pend[1], pend[2], False)]
    if first == "give":
        return _give_moves(view)
    out: list[Move] = []
    for c in choices:
        if c.action == "karnaval" and c.arg:
            a, b = c.arg.split()
            out.append(("pair", a, b))
            continue
        card = c.arg or ""
        if not trick and card == JOKER:
            out += [("play", JOKER, "high"), ("play", JOKER, "low")]
        elif trick and needs_place(card, trick, trump):
            out += [("play", card, "top"), ("play", card, "under")]
        else:
            out.append(("play", card, None))
    return out


def _give_moves(view: SeatView) -> list[Move]:
    """A few pairs of cards to give to a Karnaval: the cheapest two, the most dangerous two, the
    cards today's strategy gives, every pair that takes it (K14) (and, with one card given
    already, the pairs that keep it)."""
    trump = -1 if view.trump is None else SUITS.index(view.trump)
    hand = [code(c) for c in view.hand]
    holding = _holding(view)
    first = None
    if view.pending is not None and view.pending[0] == "give":
        first = code(view.pending[1])
        hand.remove(first)
    asc = sorted(hand, key=lambda x: (_val(x, trump), x))
    desc = sorted(hand, key=lambda x: (x == J, -_val(x, trump), x))
    pairs: list[tuple[int, int]] = []
    if first is None:
        pairs += [(asc[0], asc[1]), (desc[0], desc[1]), (asc[0], desc[0])]
        cnt = Counter(hand)
        pairs += [(c, c) for c, k in cnt.items() if k >= 2 and c != J]
    else:
        pairs += [(first, asc[0]), (first, desc[0])]
        if first in hand:
            pairs.append((first, first))
    out: list[Move] = []
    have = Counter(hand)
    for a, b in pairs:
        if first is None and a == b and have[a] < 2:
            continue
        mv = ("give", name(a), name(b), False)
        if mv not in out:
            out.append(mv)
        if a == b and _pair_beats(a, (holding[0], holding[1]), trump):
            out.append(("give", name(a), name(b), True))
    return out


def _holding(view: SeatView) -> tuple[int, int]:
    """The two cards holding the Karnaval on the table: the last pair that took it, else the
    pair led (K14)."""
    cards = next((p.cards for p in reversed(view.trick) if p.choice == "take"), view.trick[0].cards)
    return code(cards[0]), code(cards[1])


def _step(view: SeatView, move: Move) -> Choice:
    """The engine step that starts (or continues) `move` now."""
    pend = view.pending
    kind = move[0]
    if kind == "bid":
        return Choice("bid", str(move[1]))
    if kind == "pair":
        return Choice("karnaval", f"{move[1]} {move[2]}")
    if kind == "give":
        if pend is None:
            return Choice("give", move[1])
        if pend[0] == "give":
            return Choice("give", move[2])
        return Choice("take", "yes" if move[3] else "no")
    if pend is not None and pend[0] == "declare":
        return Choice("declare", move[2])
    if pend is not None and pend[0] == "place":
        return Choice("place", move[2])
    return Choice("play", move[1])


def _apply(sim: Sim, seat: int, move: Move) -> None:
    kind = move[0]
    if kind == "play":
        sim.play(seat, code(move[1]), move[2])
    elif kind == "pair":
        sim.lead_pair(seat, code(move[1]), code(move[2]))
    else:
        sim.give(seat, code(move[1]), code(move[2]), move[3])


# --- the decision -------------------------------------------------------------------------


def _later_bids(view: SeatView, hands: list[list[int]]) -> list[tuple[int, int]]:
    """The bids of the seats bidding after this one, in order: today's bid on their sampled
    hand (`strategy.best_bid`, which sees only that hand and the public table), before the
    K6 bar (`_with_bar` applies it once the seat's own bid is set)."""
    done = {s for s, _ in view.bids}
    made = [*view.bids, (view.seat, 0)]
    out = []
    for i in range(1, view.n):
        s = (view.seat + i) % view.n
        if s in done:
            continue
        hand = tuple(name(c) for c in hands[s])
        other = SeatView(
            s, view.n, "bid", view.cards, hand, view.trump, view.trump_card,
            tuple(made), view.taken, view.held, (), (), None, (),
        )  # fmt: skip
        bid = best_bid(other, list(range(view.cards + 1)))
        made.append((s, bid))
        out.append((s, bid))
    return out


def _with_bar(view: SeatView, later: list[tuple[int, int]], mine: int) -> list[int]:
    """Every seat's bid with the seat's own `mine`; the last bidder steps off the K6 bar."""
    bids = [0] * view.n
    for s, b in view.bids:
        bids[s] = b
    bids[view.seat] = mine
    for s, b in later:
        bids[s] = b
    if later:
        last = later[-1][0]
        rest = view.cards - (sum(bids) - bids[last])
        if bids[last] == rest:
            bids[last] = rest + 1 if rest < view.cards else rest - 1
    return bids


def _bid_moves(view: SeatView) -> list[Move]:
    legal = [int(c.arg or 0) for c in view.choices]
    base = best_bid(view, legal)
    near = [b for b in legal if abs(b - base) <= BID_SPAN]
    return [("bid", b) for b in near]


def evaluate(
    view: SeatView, quarter: Quarter, seed: int, budget: Budget
) -> list[tuple[Move, float, int]]:
    """Every candidate move with its mean worth over the worlds it was tried in, and their
    count. Every move meets the same worlds; after `HALVING` worlds the worse half of the moves
    still in play stops (successive halving), so the worlds go to the close calls."""
    return [(mv, mean, count) for mv, mean, count, _exact in _evaluate(view, quarter, seed, budget)]


def _evaluate(
    view: SeatView, quarter: Quarter, seed: int, budget: Budget, alone: bool = False
) -> list[tuple[Move, float, int, int]]:
    """`evaluate`, each move also with the count of its worlds in which the seat took exactly
    its bid (K17); `alone`: sample even a single move (a hint's share needs the worlds)."""
    moves = _bid_moves(view) if view.phase == "bid" else _moves(view)
    rng = random.Random(seed)
    totals = [0.0] * len(moves)
    counts = [0] * len(moves)
    exact = [0] * len(moves)
    active = list(range(len(moves)))
    worlds = rollouts = 0
    start = time.perf_counter() if budget.seconds is not None else 0.0
    seat = view.seat
    my_bid = view.bid or 0
    sampler = Sampler(view)
    fewest = 1 if alone else 2
    while worlds < budget.samples and len(active) >= fewest:
        if worlds >= budget.min_samples:
            if rollouts >= budget.rollouts:
                break
            if budget.seconds is not None and time.perf_counter() - start > budget.seconds:
                break
        if worlds in HALVING and len(active) > 2:
            active.sort(key=lambda i: -totals[i])
            active = active[: max(2, (len(active) + 1) // 2)]
        hands = sampler.world(rng)
        worlds += 1
        rollouts += len(active)
        if view.phase == "bid":
            later = _later_bids(view, hands)
            leader = view.bids[0][0] if view.bids else seat
            trump = _trump(view)
            for i in active:
                mine = moves[i][1]
                sim = Sim(view.n, trump, [list(h) for h in hands], _with_bar(view, later, mine))
                sim.turn = leader
                sim.run()
                totals[i] += quarter.value(mine, sim.taken[seat])
                counts[i] += 1
                exact[i] += sim.taken[seat] == mine
            continue
        bids = [0] * view.n
        for s, b in view.bids:
            bids[s] = b
        root = _sim_from(view, hands, bids)
        for i in active:
            sim = root.copy()
            _apply(sim, seat, moves[i])
            sim.run()
            totals[i] += quarter.value(my_bid, sim.taken[seat])
            counts[i] += 1
            exact[i] += sim.taken[seat] == my_bid
    return [(mv, totals[i] / max(1, counts[i]), counts[i], exact[i]) for i, mv in enumerate(moves)]


def _trump(view: SeatView) -> int:
    return -1 if view.trump is None else SUITS.index(view.trump)


def choose_strong_view(
    view: SeatView, quarter: Quarter, seed: int, budget: Budget | None = None
) -> Choice:
    """The strong choice from a seat's view (one of `view.choices`)."""
    choices = list(view.choices)
    if not choices:
        raise ValueError("the seat has no choice now")
    if len(choices) == 1:
        return choices[0]
    budget = budget or Budget()
    scored = evaluate(view, quarter, seed, budget)
    pick = _step(view, _best(view, scored)[0])
    return pick if pick in choices else choose_view(view)


def _best(view: SeatView, scored: list[_Scored]) -> _Scored:
    """The move of `scored` strong plays: the best mean among those tried in the most worlds;
    ties (and near-ties within sampling noise) go to today's choice, then to order."""
    if len(scored) == 1:
        return scored[0]
    normal = choose_view(view)
    most = max(m[2] for m in scored)
    return max(
        (m for m in scored if m[2] == most),
        key=lambda m: (round(m[1], 6), _step(view, m[0]) == normal),
    )


#: A hint's thinking (issue 33): the strong seat's own count of worlds, with no clock, so the
#: hint is a function of the seat's view and the seed (the purity test asks it twice).
HINT_BUDGET = Budget()


@dataclass(frozen=True, slots=True)
class Hinted:
    """What `strong` would do for a seat (issue 33's hint): the whole `move` (a bid; a card
    with its word; a Karnaval led; the two cards given, taking it or not), the engine `step`
    that starts it now (one of the seat's choices), the share of sampled worlds in which the
    seat then takes exactly its bid (K17: what scores), and how many worlds were sampled."""

    move: Move
    step: Choice
    exact: float
    worlds: int

    def then(self, view: SeatView) -> str | None:
        """The question the move answers after `step`, as its button's key says it
        (`declare_high`, `place_under`, `take_yes`...): None when `step` is the whole move."""
        kind, step = self.move[0], self.step
        if kind == "play" and self.move[2] is not None and step.action == "play":
            word = self.move[2]
            return ("declare_" if word in ("high", "low") else "place_") + word
        if kind == "give" and step.action == "give" and self.move[1] == self.move[2]:
            trump = _trump(view)
            if _pair_beats(code(self.move[1]), _holding(view), trump):  # asked (K14)
                return "take_" + ("yes" if self.move[3] else "no")
        return None

    def to_give(self, view: SeatView) -> tuple[str, ...]:
        """The cards a give move still gives from `step` on (both, or the second)."""
        if self.move[0] != "give" or self.step.action != "give":
            return ()
        return tuple(self.move[1:3]) if view.pending is None else (self.move[2],)


def hint_view(
    view: SeatView, quarter: Quarter, seed: int, budget: Budget = HINT_BUDGET
) -> Hinted | None:
    """The strong move for a seat's view and how often it makes the bid exactly, sampled from
    that view only (the strong bot's worlds: `Sampler`); None when the seat has no choice."""
    if not view.choices:
        return None
    scored = _evaluate(view, quarter, seed, budget, alone=True)
    move, _mean, count, exact = _best(view, scored)
    step = _step(view, move)
    if step not in view.choices:  # pragma: no cover - every candidate move is legal
        return None
    return Hinted(move, step, exact / max(1, count), count)


def hint(match: Karnaval, seat: int, rng: random.Random) -> Hinted | None:
    """`hint_view` for `seat` of a live match, from `SeatView.from_match` (its own view)."""
    view = SeatView.from_match(match, seat)
    return hint_view(view, Quarter.from_match(match, seat), rng.getrandbits(63))


def choose_strong(
    match: Karnaval, seat: int, rng: random.Random, budget: Budget | None = None
) -> Choice:
    """The strong seat's choice: one of `match.choices(seat)`, from its own view only."""
    view = SeatView.from_match(match, seat)
    return choose_strong_view(view, Quarter.from_match(match, seat), rng.getrandbits(63), budget)


# --- levels -------------------------------------------------------------------------------

#: The levels a table's bot seats play at: `normal` is `strategy.choose`.
LEVELS = ("easy", "normal", "strong")
#: How often an `easy` seat makes the second-best move instead of today's choice.
EASY_SLIP = 0.3
#: The worlds an `easy` seat looks at to find its second-best move.
EASY_BUDGET = Budget(samples=4, min_samples=4)


def _easy_slip(seed: int) -> random.Random | None:
    """Whether an `easy` seat with decision seed `seed` slips this time (`EASY_SLIP`): the
    generator to go on with when it does, None when it plays today's choice."""
    rng = random.Random(seed)
    return rng if rng.random() < EASY_SLIP else None


def choose_easy_view(view: SeatView, quarter: Quarter, seed: int) -> Choice:
    """A casual player: today's choice, but now and then (`EASY_SLIP`) the best-looking
    other move of a quick look at a few worlds."""
    choices = list(view.choices)
    normal = choose_view(view)
    rng = _easy_slip(seed) if len(choices) >= 2 else None
    if rng is None:
        return normal
    scored = evaluate(view, quarter, rng.getrandbits(63), EASY_BUDGET)
    scored.sort(key=lambda m: (-m[2], -m[1]))
    for move, _mean, _count in scored:
        step = _step(view, move)
        if step != normal and step in choices:
            return step
    return normal


@dataclass(frozen=True, slots=True)
class Thought:
    """A decision to think about away from the live match: the seat's view, its standing in
    the quarter, the seed and the level (picklable, so it may run in another process)."""

    view: SeatView
    quarter: Quarter
    seed: int
    level: str
    budget: Budget

    def quick(self) -> bool:
        """Whether `run` decides without sampling any world (a single choice; `normal`; an
        `easy` seat that does not slip this time): then it takes microseconds, and the caller
        may run it where it is rather than send it away."""
        if len(self.view.choices) < 2 or self.level not in ("easy", "strong"):
            return True
        return self.level == "easy" and _easy_slip(self.seed) is None

    def run(self) -> Choice:
        """The choice (one of the view's choices)."""
        if self.level == "strong":
            return choose_strong_view(self.view, self.quarter, self.seed, self.budget)
        if self.level == "easy":
            return choose_easy_view(self.view, self.quarter, self.seed)
        return choose_view(self.view)


def think(
    match: Karnaval, seat: int, rng: random.Random, level: str, budget: Budget | None = None
) -> Thought:
    """Snapshot what `seat` may know now to decide at `level` (run it with `Thought.run`)."""
    return Thought(
        SeatView.from_match(match, seat),
        Quarter.from_match(match, seat),
        rng.getrandbits(63),
        level if level in LEVELS else "normal",
        budget or Budget(),
    )
