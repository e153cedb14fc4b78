"""Each thing once per state (issue 32): the service asks a Karnaval table for its deciders and
their choices several times in one command (screens, deadlines, bots, the page); the game
computes them once per state of the match and again only after a step. The private screen
shows the hand without building the seat's choices or the score sheet again."""

from __future__ import annotations

import random

import pytest

from bot.games.karnaval.engine.cards import JOKER, full_deck
from bot.games.karnaval.engine.game import Karnaval
from bot.games.karnaval.game import KarnavalMatch, KarnavalRules, KarnavalView
from bot.service.i18n import catalog, with_game_messages

RULES = KarnavalRules()
VIEW = KarnavalView(RULES)


def _dealt(seed: int = 5) -> KarnavalMatch:
    """Three players at the first deal (six cards each), no bid made yet."""
    k = Karnaval(["Ann", "Bob", "Cy"])
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    k.start_deal(*k.deal_from(deck))
    return KarnavalMatch(k)


class _Counting:
    """Counts the engine's `deciders` and `choices` calls of one match."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.deciders = 0
        self.choices = 0
        deciders, choices = Karnaval.deciders, Karnaval.choices

        def counted_deciders(k: Karnaval) -> list[int]:
            self.deciders += 1
            return deciders(k)

        def counted_choices(k: Karnaval, seat: int) -> list:  # type: ignore[type-arg]
            self.choices += 1
            return choices(k, seat)

        monkeypatch.setattr(Karnaval, "deciders", counted_deciders)
        monkeypatch.setattr(Karnaval, "choices", counted_choices)


def test_deciders_and_choices_are_computed_once_per_state(monkeypatch: pytest.MonkeyPatch) -> None:
    t = _dealt()
    count = _Counting(monkeypatch)
    (seat,) = RULES.deciders(t)
    for _ in range(7):  # as often as one command asks (issue 32: about seven times)
        assert RULES.deciders(t) == [seat]
        offered = RULES.choices(t, seat)
    assert count.deciders == 1 and count.choices == 1
    assert [c.action for c in offered] == ["bid"] * 7  # 0 to 6 tricks (K6)
    # A step is a new state: asked again, they are computed again, and right.
    RULES.act(t, seat, "bid", "2")
    (after,) = RULES.deciders(t)
    assert after == t.k.turn and after != seat
    assert RULES.choices(t, seat) == [] and RULES.choices(t, after)
    assert RULES.deciders(t) == [after]
    # The engine checks the step against the seat's choices itself (one more), then each seat's
    # choices of the new state once.
    assert count.deciders == 2 and count.choices == 4


def test_a_step_of_two_is_a_new_state_too_K10() -> None:
    """A joker led asks high or low next (K10): the same seat decides, its choices change."""
    for seed in range(100):  # a deal whose first player holds a joker
        t = _dealt(seed)
        for _ in range(3):
            (seat,) = RULES.deciders(t)
            RULES.act(t, seat, "bid", "1")
        (seat,) = RULES.deciders(t)
        if JOKER in t.k.current.held[seat]:  # type: ignore[union-attr]
            break
    else:
        raise AssertionError("no first player with a joker in 100 deals")
    assert ("play", JOKER) in [c.key for c in RULES.choices(t, seat)]
    RULES.act(t, seat, "play", JOKER)
    assert RULES.deciders(t) == [seat]
    assert [c.key for c in RULES.choices(t, seat)] == [("declare", "high"), ("declare", "low")]


def test_the_private_screen_builds_neither_the_choices_nor_the_sheet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = _dealt()
    (seat,) = RULES.deciders(t)
    cat = with_game_messages(catalog("en"), [VIEW.messages])
    before = VIEW.private_text(t, seat, cat)

    def refused(*args: object) -> None:
        raise AssertionError("built again for the private screen")

    for name in ("view_for", "sheet", "choices"):
        monkeypatch.setattr(Karnaval, name, refused)
    assert VIEW.private_text(t, seat, cat) == before
    assert before.startswith("Your hand")
