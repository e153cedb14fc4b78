"""The bid keypad says why a number is missing (K6): the last bidder's private screen names
the barred number and the rule, in the table's language."""

from __future__ import annotations

import random

import pytest

from bot.games.karnaval.engine.cards import full_deck
from bot.games.karnaval.engine.game import Karnaval
from bot.games.karnaval.game import KarnavalMatch, KarnavalRules, KarnavalView
from bot.service.i18n import LANGUAGES, Catalog, catalog, with_game_messages

RULES = KarnavalRules()
VIEW = KarnavalView(RULES)


def _cat(language: str) -> Catalog:
    return with_game_messages(catalog(language), [VIEW.messages])


def _bidding(bids: list[int]) -> KarnavalMatch:
    """Three players in the first deal (6 cards each), `bids` made from player 1 on."""
    k = Karnaval(["Ann", "Bob", "Cy"])
    deck = full_deck()
    random.Random(5).shuffle(deck)
    k.start_deal(*k.deal_from(deck))
    for b in bids:
        turn = k.turn
        assert turn is not None
        k.bid(turn, b)
    return KarnavalMatch(k)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_K6_the_keypad_says_which_number_is_barred_and_why(language: str) -> None:
    # The language's own entry, not the English fallback.
    assert "karnaval.piece.barred" in VIEW.messages(language)
    cat = _cat(language)
    t = _bidding([3, 2])  # 6 cards: the last bidder may not bid 1
    seat = t.k.turn
    assert seat is not None
    offered = [c.arg for c in RULES.choices(t, seat)]
    assert offered == ["0", "2", "3", "4", "5", "6"]
    text = VIEW.private_text(t, seat, cat)
    line = cat.t("karnaval.piece.barred", n=1, cards=6)
    assert line in text.splitlines()
    assert line.startswith("1") and "6" in line and "K6" not in line  # no rule id (issue 30)
    if language != "en":
        assert line != _cat("en").t("karnaval.piece.barred", n=1, cards=6)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_K6_a_barred_zero_is_named_too(language: str) -> None:
    cat = _cat(language)
    t = _bidding([3, 3])  # 6 cards, bids 3 + 3: the last bidder must bid at least 1
    seat = t.k.turn
    assert seat is not None
    assert "0" not in [c.arg for c in RULES.choices(t, seat)]
    assert cat.t("karnaval.piece.barred", n=0, cards=6) in VIEW.private_text(t, seat, cat)


def test_K6_no_line_when_nothing_is_barred_or_for_another_seat() -> None:
    cat = _cat("en")
    first = _bidding([])
    seat = first.k.turn
    assert seat is not None
    assert "not offered" not in VIEW.private_text(first, seat, cat)  # not the last bidder
    over = _bidding([5, 2])  # the seed's deal 3: 5 + 2 > 6, no bar
    seat = over.k.turn
    assert seat is not None
    assert [c.arg for c in RULES.choices(over, seat)] == [str(b) for b in range(7)]
    assert "not offered" not in VIEW.private_text(over, seat, cat)
    barred = _bidding([3, 2])
    others = [s for s in range(3) if s != barred.k.turn]
    for s in others:  # the other seats' screens do not speak of the last bidder's bar
        assert "not offered" not in VIEW.private_text(barred, s, cat)
