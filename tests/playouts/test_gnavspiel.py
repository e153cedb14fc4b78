"""Seeded random Gnavspiel matches, checking the engine's invariants at every step.

Sized by `seeds(base)` (GNAV_PLAYOUT_SCALE). Each match draws a table (2-6 seats, chips,
agreed deals or none, variants) and plays random legal choices, with strategy seats mixed in.
At every step: the 14 cards are conserved (G1, G3), chips + pot equal the start (G2, G8),
nobody has fewer than 0 chips or more than 2 debts (G8), one seat decides at a time and its
timeout choice is legal, no hidden card in a public event (G4, G5, G6), private events go to
their own seat and tell the card it holds. `to_dict` round trips through JSON: a third of
the matches are replaced by their restored copy at every step (and play on), the others are
checked between deals. Per match: it ends with a winner whose balances add up to the start
(C23), and its export replays to the same outcome.
"""

from __future__ import annotations

import json
import random

import pytest

from bot.games.gnavspiel.engine import DECK, Event, Match, NotYourTurn
from bot.games.gnavspiel.engine.cards import STAND_CARDS, taboo_cards
from bot.games.gnavspiel.engine.events import CARD_PUBLIC_KINDS, PUBLIC_KINDS
from bot.games.gnavspiel.engine.record import export_record, outcome, replay_record
from bot.games.gnavspiel.strategy import choose
from tests.playouts import seeds

MAX_STEPS = 20_000


def _check_events(m: Match, events: list[Event]) -> None:
    taboo = taboo_cards("jack_taboo" in m.settings.variants)
    last_private: dict[int, int] = {}
    for e in events:
        if e.public:
            assert e.kind in PUBLIC_KINDS, e
            if e.kind == "reveal":  # G7: every hand is shown, and only then
                assert m.log is not None and dict(e.data) == m.log.hands
                continue
            assert not e.data, e
            if e.kind in CARD_PUBLIC_KINDS:
                assert e.card in (taboo if e.kind == "taboo" else STAND_CARDS), e
            else:
                assert e.card == -1, e  # G4: nothing hidden in a public event
        else:
            assert e.kind == "card" and e.seats == (e.audience,), e
            last_private[e.audience] = e.card
    log = m.log
    for s, card in last_private.items():
        if m.phase == "play":
            assert m.hands[s] == card
        elif log is not None and log.hands:
            assert log.hands[s] == card


def _check_state(m: Match) -> None:
    assert m.cards_accounted()
    assert m.chips_accounted()
    assert all(c >= 0 for c in m.chips)
    assert all(0 <= d <= 2 for d in m.debts)
    if m.phase in ("play", "loan"):
        assert len(m.deciders()) == 1
        seat = m.deciders()[0]
        assert m.timeout_choice(seat) in m.choices(seat)
        for other in range(m.n):
            if other != seat:
                assert m.choices(other) == []
    else:
        assert m.deciders() == []


def play_match(seed: int, restore: bool) -> Match:
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    variants = [v for v in ("stand", "jack_taboo") if rng.random() < 0.4]
    deals = rng.choice([0, 0, rng.randint(1, 12)])
    m = Match(
        [f"P{i}" for i in range(n)],
        chips=rng.randint(2, 5),
        deals=deals,
        variants=variants,
        dealer=rng.randrange(n),
    )
    smart = {s for s in range(n) if rng.random() < 0.4}
    for _ in range(MAX_STEPS):
        if m.phase == "over":
            break
        if m.phase == "deal":
            cards = list(DECK)
            rng.shuffle(cards)
            events = m.start_deal(*m.deal_from(cards))
        else:
            seat = m.deciders()[0]
            choices = m.choices(seat)
            wrong = (seat + 1) % m.n
            with pytest.raises(NotYourTurn):
                m.act(wrong, choices[0].action)
            pick = choose(m, seat) if seat in smart else rng.choice(choices)
            assert pick in choices
            events = m.act(seat, pick.action, pick.arg)
        _check_events(m, events)
        _check_state(m)
        if restore or m.phase != "play":  # every step of a restored match, else per deal
            data = json.loads(json.dumps(m.to_dict()))
            assert Match.from_dict(data).to_dict() == data
            if restore:
                m = Match.from_dict(data)
    assert m.phase == "over" and m.result is not None
    assert sum(m.result.balance) == m.settings.chips * m.n  # C23
    assert m.result.takes == m.result.pot + sum(d for _, d in m.result.collects)
    return m


@pytest.mark.parametrize("seed", seeds(150))
def test_g1_g2_g8_c23_random_match_invariants_and_export_replay(seed: int) -> None:
    m = play_match(seed, restore=seed % 3 == 0)
    _, replayed = replay_record(json.loads(json.dumps(export_record(m))))
    assert replayed == outcome(m)
