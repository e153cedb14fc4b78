"""Seeded random Karnaval matches for the play-out tests, with the invariants checked at each step.

`play_match(seed, n)` draws for the first player and deals from `random.Random(seed)`, then lets
every decider choose uniformly among `choices(seat)` until the match is over (or `max_deals`
deals are played). After every step `check_invariants` asserts: the 76 cards are conserved
(K1), only deciders have choices, a finished deal took as many tricks as cards were dealt
(K3, KC9), the sheet's quarter rows and totals add up (K17-K20, KC12), no public event names a
card not face up, private `hand` events go to their own seat, and `to_dict` round trips.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field

from bot.games.karnaval.engine.cards import JOKER, full_deck, strength
from bot.games.karnaval.engine.events import Event
from bot.games.karnaval.engine.game import Karnaval, score

DECK = Counter(full_deck())


def random_draw(rng: random.Random, n: int) -> list[dict[int, str]]:
    """A draw for the first player (K2, KC1, KC4): rounds from a whole deck until one lowest."""
    rounds: list[dict[int, str]] = []
    drawing = list(range(n))
    while True:
        deck = full_deck()
        rng.shuffle(deck)
        rnd = {s: deck[i] for i, s in enumerate(drawing)}
        rounds.append(rnd)
        low = min(strength(c) for c in rnd.values())
        drawing = [s for s in drawing if strength(rnd[s]) == low]
        if len(drawing) == 1:
            return rounds


@dataclass
class Played:
    """A played match and everything it emitted."""

    match: Karnaval
    events: list[Event] = field(default_factory=list)
    steps: int = 0


def check_invariants(k: Karnaval, new_events: list[Event], seen: Counter[str]) -> None:
    """Assert the invariants after one step; `seen` counts the cards face up this deal."""
    d = k.current
    if d is not None:
        on_table = [c for p in d.plays for c in p.cards]
        everything = Counter(on_table) + Counter(d.stock)
        for h in d.held:
            everything += Counter(h)
        assert everything == DECK  # K1: 76 cards conserved
        cards = k.deal_info(d.index)["cards"]
        assert len({len(h) for h in d.held}) <= 2
        if d.complete:
            assert len(d.tricks) == cards  # K3, KC9
            assert sum(d.taken(k.n)) == cards
            bids = dict(d.bids)
            taken = d.taken(k.n)
            assert d.scores == [score(bids[s], taken[s]) for s in range(k.n)]
    for e in new_events:
        if e.kind == "dealt":
            seen.clear()
            seen.update(e.cards)
        if e.public:
            assert e.kind != "hand"
            if e.kind in ("played", "gave", "karnaval_led"):
                seen.update(e.cards)
            assert not Counter(e.cards) - seen, (e, seen)  # nothing hidden in public
        else:
            assert e.kind == "hand" and e.seat == e.audience
            assert d is not None and list(e.cards) == d.hands[e.seat]
    deciders = k.deciders()
    for s in range(k.n):
        assert bool(k.choices(s)) == (s in deciders)
    for c in (c for s in deciders for c in k.choices(s)):
        assert len(c.token.encode()) < 40
    # The sheet adds up (K20, KC12).
    sheet = k.sheet()
    rows = sheet["rows"]
    deal_rows = [r for r in rows if r["kind"] == "deal"]
    q_rows = [r for r in rows if r["kind"] == "quarter"]
    for q, qr in enumerate(q_rows):
        if qr["sums"][0] is None:
            continue
        mine = deal_rows[q * k.n : (q + 1) * k.n]
        for col in range(k.n):
            assert qr["sums"][col] == sum(r["points"][col] for r in mine)
            assert qr["totals"][col] == qr["sums"][col] + qr["premiums"][col] + qr["penalties"][col]
            assert not (qr["premiums"][col] and qr["penalties"][col])
    total = rows[-1]["totals"]
    if total[0] is not None:
        for col in range(k.n):
            assert total[col] == sum(qr["totals"][col] for qr in q_rows)
    state = k.to_dict()
    assert Karnaval.from_dict(json.loads(json.dumps(state))).to_dict() == state


def play_match(
    seed: int,
    n: int,
    *,
    max_deals: int | None = None,
    check: bool = True,
    restore_every_step: bool = False,
) -> Played:
    """Play a seeded random match (uniform among `choices`), checking invariants if asked."""
    rng = random.Random(seed)
    k = Karnaval([f"P{i + 1}" for i in range(n)], random_draw(rng, n))
    played = Played(k)
    seen: Counter[str] = Counter()
    limit = k.deal_total if max_deals is None else min(max_deals, k.deal_total)
    while True:
        phase = k.phase
        if phase == "over":
            break
        if phase == "deal":
            if len(k.deals) >= limit:
                break
            deck = full_deck()
            rng.shuffle(deck)
            events = k.start_deal(*k.deal_from(deck))
        else:
            (seat,) = k.deciders()
            choice = rng.choice(k.choices(seat))
            events = k.act(seat, choice.action, choice.arg)
        played.events += events
        played.steps += 1
        if check:
            check_invariants(k, events, seen)
        if restore_every_step:
            k = Karnaval.from_dict(json.loads(json.dumps(k.to_dict())))
            played.match = k
    return played


__all__ = ["JOKER", "Played", "check_invariants", "play_match", "random_draw"]
