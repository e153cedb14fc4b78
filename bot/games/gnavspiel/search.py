"""Gnavspiel's `strong` bot: determinized sampling over the seat's information set (issue 22).

For a decision with more than one sensible answer (offer or pass, accept or refuse, draw or
stop; a loan is always taken, G8), the seat deals the cards it cannot see many times,
consistently with `strategy.SeatView` (its own card; the Joker with the seat that knocked, G6,
and the exchanges after it, else in the stock; the taboo cards shown, G5, in the stock), tries
each answer in every such world and plays the deal out with today's strategy (`choose`) for
every seat; the answer with the fewest chips paid on average (G7) is chosen, today's answer
on a tie. The live match is never touched: each world is a copy of the deal under way with
the hidden cards replaced.
"""

from __future__ import annotations

import copy
import random

from bot.games.gnavspiel.engine.cards import DECK, JOKER
from bot.games.gnavspiel.engine.match import NO_CARD, Choice, Match
from bot.games.gnavspiel.strategy import STOCK, SeatView, choose

#: Worlds per decision.
SAMPLES = 48


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


def _pays(m: Match, seat: int, first: Choice) -> int:
    """Chips `seat` pays at this deal's reveal (G7) after `first`, every seat then playing
    today's strategy."""
    pick, who = first, seat
    for _ in range(64):
        events = m.act(who, pick.action, pick.arg)
        if any(e.kind == "reveal" for e in events):
            return sum(1 for e in events if e.kind == "pay" and e.seats[0] == seat)
        if m.phase != "play" or not m.deciders():
            return 0
        who = m.deciders()[0]
        pick = choose(m, who)
    return 0


def evaluate(match: Match, seat: int, seed: int, samples: int = SAMPLES) -> dict[Choice, float]:
    """Mean chips paid by `seat` for each of its choices over sampled worlds."""
    view = SeatView.from_match(match, seat)
    choices = match.choices(seat)
    rng = random.Random(seed)
    totals = dict.fromkeys(choices, 0.0)
    for _ in range(samples):
        world = _world(match, view, rng)
        for c in choices:
            totals[c] += _pays(_copy(world), seat, c)
    return {c: t / samples for c, t in totals.items()}


def _copy(m: Match) -> Match:
    return copy.deepcopy(m)


def choose_strong(match: Match, seat: int, rng: random.Random, samples: int = SAMPLES) -> Choice:
    """The strong choice: one of `match.choices(seat)`, from the seat's view only."""
    choices = match.choices(seat)
    normal = choose(match, seat)
    if len(choices) < 2 or normal.action == "borrow":
        return normal
    means = evaluate(match, seat, rng.getrandbits(63), samples)
    return min(choices, key=lambda c: (round(means[c], 9), c != normal))
