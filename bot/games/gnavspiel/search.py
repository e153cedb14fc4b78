"""Gnavspiel's `strong` bot: sampling over the seat's information set, weighed by what the
other seats' choices say (issues 22 and 33).

For a decision with more than one sensible answer (offer or pass, accept or refuse, draw or
stop; a loan is always taken, G8), the seat deals the whole deal afresh many times with what
it knows fixed: its own dealt card, the Joker with the seat that knocked (G6), and its card
now with the seat it came from through the public exchanges (G4: who swapped with whom is
public); the other cards and the stock at random. Each such world is replayed from the
deal's start through the choices made so far and weighed `SLIP` for every choice of another
seat that `normal` (`strategy.choose`) would not have made on it: a pass or a refusal makes
low cards unlikely, an offer high ones (the opponent model: `normal` seats never slip, an
`easy` seat a quarter of the time, a person more or less). In every world each answer is
tried and the deal played out with `normal` for every seat; the answer with the fewest
chips paid on (weighted) average (G7) is chosen, `normal`'s on a tie. A deal that has shown
cards (a draw's taboo cards, G5) falls back to the plain sampler of issue 22 (`_world`:
the cards the seat cannot see dealt anew, consistent with `strategy.SeatView`). The live
match is never touched: `think` snapshots only what the seat may know.

The ceiling: an omniscient seat (benchmarks/oracle.py: it sees every card and looks ahead
exactly through the deal against the `normal` seats) ends with the better balance in 0.550
± 0.013 (2 players), 0.642 ± 0.021 (3), 0.655 ± 0.022 (4), 0.660 ± 0.023 (5) and 0.644 ±
0.022 (6) of duplicate matches (seed 12, 500 matches per size) against the same `normal`
seats. Issue 22's sampler (the worlds not weighed) reached 0.512 ± 0.022, 0.525 ± 0.021,
0.535 ± 0.021 and 0.499 ± 0.020 at 3-6 players (seed 21); the weighed worlds, on the
oracle's matches (500-524 per size): 0.525 ± 0.015, 0.583 ± 0.022, 0.594 ± 0.021, 0.606 ±
0.024 and 0.582 ± 0.021 at 2-6 players, 50-66% of the oracle's edge, decision p99 67 ms
(docs/performance.md, "Bot strength", has the commands).
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.games.gnavspiel.engine.cards import DECK, JOKER
from bot.games.gnavspiel.engine.match import NO_CARD, Choice, Match
from bot.games.gnavspiel.strategy import STOCK, SeatView, choose

#: Worlds per decision.
SAMPLES = 48
#: Weight of a sampled dealing for each choice of another seat that `normal` would not have
#: made on it (the opponent model; see `_weighted_world`).
SLIP = 0.15


def _world(match: Match, view: SeatView, rng: random.Random) -> Match:
    """A copy of the deal under way with the unseen cards dealt afresh (public facts kept)."""
    m = _sampled(match, view, rng)
    log = m.history[-1]
    log.deal, log.stock = list(m.hands), tuple(m.stock)  # the copy keeps no real hidden card
    return m


def _sampled(match: Match, view: SeatView, rng: random.Random) -> Match:
    m = copy.copy(match)
    m.history = match.history[-1:]
    m = copy.deepcopy(m)
    seats = [s for s in range(m.n) if s != view.seat and m.hands[s] != NO_CARD]
    pool = [c for c in DECK if c != view.card and c not in view.taboo_seen]
    if view.joker_at != STOCK and view.joker_at != view.seat:
        pool.remove(JOKER)
        seats.remove(view.joker_at)
        m.hands[view.joker_at] = JOKER
    elif view.joker_at == STOCK and JOKER in pool:
        pool.remove(JOKER)  # nobody knocked: the Joker lies in the stock
        hidden = pool
        rng.shuffle(hidden)
        for s in seats:
            m.hands[s] = hidden.pop()
        m.stock = [*hidden, JOKER, *view.taboo_seen]
        rng.shuffle(m.stock)
        return m
    rng.shuffle(pool)
    for s in seats:
        m.hands[s] = pool.pop()
    m.stock = [*pool, *view.taboo_seen]
    rng.shuffle(m.stock)
    return m


def _deal_start(match: Match) -> Match:
    """A copy of `match` (holding only its deal under way) as it stood before that deal was
    dealt: chips, pot and debts do not change during play; the first deal's ante (G2) is
    given back, as `start_deal` takes it again."""
    m = copy.copy(match)
    m.history = []
    m = copy.deepcopy(m)
    m.phase = "deal"
    m.deal_no -= 1
    if m.deal_no == 0:
        for s in range(m.n):
            m.chips[s] += 1
            m.pot -= 1
    return m


def _fixed_cards(match: Match, seat: int) -> dict[int, int] | None:
    """The dealt cards `seat` knows, by seat: its own; the Joker with the seat that knocked
    (G6); and its card now with the seat it came from, following the accepted exchanges
    (G4, public: who swapped with whom). None when the deal showed cards (taboo, G5) or the
    facts do not fit: the plain sampler is used then."""
    log = match.history[-1]
    if any(e.kind in ("taboo", "stand", "draw") for e in log.events):
        return None
    holds = {s: s for s in range(match.n)}  # the dealt card each seat holds now, by dealt seat
    offer: tuple[int, int] | None = None
    fixed = {seat: log.deal[seat]}
    for e in log.events:
        if e.kind == "knock" and e.seats[0] != seat:
            fixed[e.seats[0]] = JOKER
        elif e.kind == "offer":
            offer = (e.seats[0], e.seats[1])
        elif e.kind == "accept" and offer is not None:
            x, y = offer
            holds[x], holds[y] = holds[y], holds[x]
    origin, own = holds[seat], match.hands[seat]
    if fixed.get(origin, own) != own:
        return None
    fixed[origin] = own
    if len(set(fixed.values())) != len(fixed):
        return None
    return fixed


def _weighted_world(
    match: Match, seat: int, start: Match, fixed: dict[int, int], rng: random.Random, slip: float
) -> tuple[Match, float] | None:
    """A dealing of the deal under way consistent with what `seat` knows (`fixed`), replayed
    from its start through the deal's choices so far, and its weight: `slip` for each choice
    of another seat that `normal` (`strategy.choose`) would not have made there (the
    opponent model: a `normal` seat never slips, an `easy` one now and then, a person more).
    None when the replay does not reach `seat`'s decision."""
    log = match.history[-1]
    dealt = [s for s in range(match.n) if log.deal[s] != NO_CARD]
    knocked = JOKER in fixed.values()
    pool = [c for c in DECK if c not in fixed.values() and (knocked or c != JOKER)]
    rng.shuffle(pool)
    deal = [NO_CARD] * match.n
    for s in dealt:
        deal[s] = fixed[s] if s in fixed else pool.pop()
    stock = pool if knocked else [*pool, JOKER]
    rng.shuffle(stock)
    w = copy.deepcopy(start)
    w.start_deal(deal, stock)
    weight = 1.0
    for s, action in log.actions:
        if w.phase != "play":
            return None
        options = w.choices(s)
        pick = next((c for c in options if c.action == action), None)
        if pick is None:
            return None
        if s != seat and len(options) > 1 and choose(w, s).action != action:
            weight *= slip
        w.act(s, action, pick.arg)
    if w.deciders() != [seat] or w.hands[seat] != match.hands[seat]:
        return None
    return w, weight


def pays_after(
    m: Match, seat: int, first: Choice, play: Callable[[Match, int], Choice] = choose
) -> int:
    """Chips `seat` pays at this deal's reveal (G7) after `first`, every seat then playing
    `play` (today's strategy unless told otherwise); `m` is played on."""
    pick, who = first, seat
    for _ in range(64):
        events = m.act(who, pick.action, pick.arg)
        if any(e.kind == "reveal" for e in events):
            return sum(1 for e in events if e.kind == "pay" and e.seats[0] == seat)
        if m.phase != "play" or not m.deciders():
            return 0
        who = m.deciders()[0]
        pick = play(m, who)
    return 0


def evaluate(
    match: Match, seat: int, seed: int, samples: int = SAMPLES, seconds: float | None = None
) -> dict[Choice, float]:
    """Mean chips paid by `seat` for each of its choices over sampled worlds (at least 4
    worlds; `seconds`, when set, stops the sampling after that much time)."""
    return sampled(match, seat, seed, samples, seconds)[0]


def sampled(
    match: Match,
    seat: int,
    seed: int,
    samples: int = SAMPLES,
    seconds: float | None = None,
    slip: float | None = None,
) -> tuple[dict[Choice, float], dict[Choice, float], int]:
    """`evaluate`'s means, the share of worlds in which each choice pays nothing this deal,
    and how many worlds were sampled. With `slip` (default `SLIP`; 1.0: every dealing
    counts alike) the worlds are dealings of the whole deal replayed from its start and
    weighed by how well `normal` explains the other seats' choices; a deal that showed cards
    (G5) falls back to the plain sampler."""
    slip = SLIP if slip is None else slip
    view = SeatView.from_match(match, seat)
    choices = match.choices(seat)
    rng = random.Random(seed)
    totals = dict.fromkeys(choices, 0.0)
    safe = dict.fromkeys(choices, 0.0)
    start = time.perf_counter()
    fixed = _fixed_cards(match, seat) if match.phase == "play" else None
    begin = _deal_start(match) if fixed is not None else None
    done = 0
    weights = 0.0
    while done < samples:
        if seconds is not None and done >= 4 and time.perf_counter() - start > seconds:
            break
        found = None
        if begin is not None and fixed is not None:
            found = _weighted_world(match, seat, begin, fixed, rng, slip)
        world, weight = found if found is not None else (_world(match, view, rng), 1.0)
        done += 1
        weights += weight
        for c in choices:
            paid = pays_after(copy.deepcopy(world), seat, c)
            totals[c] += weight * paid
            safe[c] += weight * (paid == 0)
    n = weights or 1.0
    return {c: t / n for c, t in totals.items()}, {c: x / n for c, x in safe.items()}, done


@dataclass(frozen=True)
class Thought:
    """A decision to think about away from the live match: a copy of the deal holding only
    what the seat may know (the other hands and the stock are placeholders), the seed and
    the budget (picklable, so it may run in another process)."""

    match: Match
    seat: int
    seed: int
    samples: int = SAMPLES
    seconds: float | None = None

    def run(self) -> Choice:
        """The strong choice: one of the seat's choices."""
        return self.hint()[0]

    def hint(self) -> tuple[Choice, float, int]:
        """The strong choice, the share of sampled worlds in which it pays nothing this deal
        (issue 33's hint; 1.0 with no sampling: a loan, or a single choice) and how many
        worlds were sampled."""
        m, seat = self.match, self.seat
        choices = m.choices(seat)
        normal = choose(m, seat)
        if len(choices) < 2 or normal.action == "borrow":
            return normal, 1.0, 0
        means, safe, done = sampled(m, seat, self.seed, self.samples, self.seconds)
        pick = min(choices, key=lambda c: (round(means[c], 9), c != normal))
        return pick, safe[pick], done


def think(
    match: Match,
    seat: int,
    rng: random.Random,
    samples: int = SAMPLES,
    seconds: float | None = None,
) -> Thought:
    """Snapshot what `seat` may know now (run it with `Thought.run`)."""
    m = copy.copy(match)
    m.history = match.history[-1:]
    m = copy.deepcopy(m)
    own = m.hands[seat]
    m.hands = [c if s == seat or c == NO_CARD else own for s, c in enumerate(m.hands)]
    m.stock = [own] * len(m.stock)
    log = m.history[-1]
    dealt = log.deal[seat]  # the seat's own dealt card: it saw it
    log.deal = [dealt if s == seat else c for s, c in enumerate(m.hands)]
    log.stock = tuple(m.stock)
    log.hands = {}
    return Thought(m, seat, rng.getrandbits(63), samples, seconds)


def choose_strong(match: Match, seat: int, rng: random.Random, samples: int = SAMPLES) -> Choice:
    """The strong choice: one of `match.choices(seat)`, from the seat's view only."""
    return think(match, seat, rng, samples).run()
