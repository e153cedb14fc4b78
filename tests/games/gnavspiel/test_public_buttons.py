"""The Gnavspiel table's choices are buttons everyone sees: they must never depend on a hidden
card. With the "stand" variant (G10, C24), Stand is offered to every offered player, and the
engine refuses it to one holding neither Q nor K."""

from __future__ import annotations

import random

import pytest

from bot.games.gnavspiel.engine.cards import STAND_CARDS
from bot.games.gnavspiel.game import GnavspielRules
from bot.games.gnavspiel.settings import GnavspielSettings
from bot.service.game import GameRuleError

RULES = GnavspielRules()


def _deciding_states(seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    settings = GnavspielSettings(chips=3, variants=frozenset({"stand"}))
    t = RULES.new_match(["A", "B", "C", "D"], settings, rng)
    for _ in range(400):
        if RULES.winners(t):
            return
        if not RULES.deciders(t):
            RULES.start_round(t, rng)
            continue
        seat = RULES.deciders(t)[0]
        yield t, seat
        legal = [c for c in RULES.choices(t, seat) if c.action != "stand"]
        choice = rng.choice(legal)
        RULES.act(t, seat, choice.action, choice.arg)


def test_g10_c24_stand_is_offered_whatever_the_offered_player_holds() -> None:
    answered = 0
    for seed in range(40):
        for t, seat in _deciding_states(seed):
            actions = {c.action for c in RULES.choices(t, seat)}
            if "accept" in actions:
                answered += 1
                assert "stand" in actions  # the same buttons for every card
    assert answered > 50


def test_c24_stand_without_a_queen_or_king_is_refused_and_changes_nothing() -> None:
    for seed in range(40):
        for t, seat in _deciding_states(seed):
            actions = {c.action for c in RULES.choices(t, seat)}
            if "accept" in actions and t.m.hands[seat] not in STAND_CARDS:
                before = RULES.dump(t)
                with pytest.raises(GameRuleError) as refused:
                    RULES.act(t, seat, "stand")
                assert refused.value.rule in ("G10", "C24")
                assert RULES.dump(t) == before
                return
    raise AssertionError("no offered player without Q or K in 40 seeded matches")
