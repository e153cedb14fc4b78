"""Karnaval's hint for people learning (issue 33, bot/games/karnaval/search.py `hint_view`,
`KarnavalRules.hint`): the move `strong` would make, sampled from the seat's own view only
(the other hands and the face-down stock dealt afresh, consistently with what is public, never
change it for a seed), named as the seat's buttons name it (a bid, a card and the word it needs
next: K9-K14), with the share of the sampled worlds in which the seat takes exactly its bid."""

from __future__ import annotations

import random

import pytest

from bot.games.karnaval.engine.game import Karnaval
from bot.games.karnaval.game import KarnavalMatch, KarnavalRules, KarnavalView
from bot.games.karnaval.search import choose_strong
from bot.games.karnaval.strategy import choose
from bot.service.i18n import Catalog, catalog, with_game_messages
from tests.games.karnaval.test_strategy import _hide_others, _play

RULES = KarnavalRules()
VIEW = KarnavalView(RULES)


def _cat(language: str) -> Catalog:
    return with_game_messages(catalog(language), [VIEW.messages])


def _hint_text(k: Karnaval, seat: int, seed: int, cat: Catalog) -> str:
    found = RULES.hint(KarnavalMatch(k), seat, random.Random(seed))
    assert found is not None
    label = VIEW.render_line(found.choice.label, cat) if found.choice.label[0] else ""
    return f"{found.choice.key} {label} {found.share} {found.worlds}"


@pytest.mark.parametrize("n", [3, 5])
def test_other_hands_permuted_publicly_never_change_the_hint(n: int) -> None:
    """Purity: at every step of a seeded deal, the other hands and the stock reshuffled among
    themselves give the same hint (choice, words, share and worlds) for the same seed."""
    cat = _cat("en")
    checked = 0

    def probe(k: Karnaval, seat: int) -> None:
        nonlocal checked
        shuffled = _hide_others(k, seat, random.Random(checked))
        assert _hint_text(shuffled, seat, 7, cat) == _hint_text(k, seat, 7, cat)
        checked += 1

    _play(610 + n, n, lambda k, s, rng: choose_strong(k, s, rng), max_deals=1, on_step=probe)
    assert checked > 10


def test_the_hint_names_a_choice_of_the_seat_and_the_word_it_needs_next() -> None:
    """Over whole deals: the hint's step is one of the seat's choices, the same step the strong
    bot takes with the same seed and count of worlds, and a card needing a word (a joker led:
    highest or lowest, K9; a card equal to the winning one: on top or underneath, K11) or two
    cards given to a Karnaval that may take it (K14) is named with that word."""
    cat = _cat("en")
    words = {"Highest", "Lowest", "On top", "Underneath", "Take it", "Don't take"}
    seen: set[str] = set()
    shares: list[float] = []

    def probe(k: Karnaval, seat: int) -> None:
        match = KarnavalMatch(k)
        found = RULES.hint(match, seat, random.Random(3))
        assert found is not None and 0 <= found.share <= 1 and found.worlds >= 1
        shares.append(found.share)
        choices = RULES.choices(match, seat)
        assert found.choice.key in {c.key for c in choices}
        if len(choices) > 1:
            strong = choose_strong(k, seat, random.Random(3))
            assert RULES._choice(strong.action, strong.arg).key == found.choice.key
        text = VIEW.render_line(found.choice.label, cat) if found.choice.label[0] else ""
        named = {w for w in words if f"“{w}”" in text}
        assert len(named) <= 1, text
        if named:  # the word the move needs after this step, after its card or cards
            assert k.pending is None and found.choice.action in ("play", "give"), text
        seen.update(named)

    _play(41, 4, choose, max_deals=3, on_step=probe)
    assert seen, "no hint needed a word over these deals"
    assert 0 < sum(shares) / len(shares) < 1


def test_no_hint_for_a_seat_with_nothing_to_choose() -> None:
    k = _play(5, 3, lambda k, s, rng: choose_strong(k, s, rng), max_deals=1)
    (seat,) = k.deciders() or (0,)
    idle = (seat + 1) % 3
    assert RULES.hint(KarnavalMatch(k), idle, random.Random(1)) is None
