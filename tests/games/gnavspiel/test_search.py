"""Gnavspiel's `strong` bot (bot/games/gnavspiel/search.py): legal choices over seeded
matches, a choice that depends only on the seat's information set (other hidden cards and the
stock changed consistently with what is public never change it, for a fixed seed), a loan
always taken (G8, C19)."""

from __future__ import annotations

import random

from bot.games.gnavspiel.engine import CARD_BY_NAME, DECK, Choice, Match
from bot.games.gnavspiel.engine.cards import JOKER
from bot.games.gnavspiel.game import GnavspielMatch, GnavspielRules
from bot.games.gnavspiel.search import (
    _deal_start,
    _fixed_cards,
    _weighted_world,
    choose_strong,
    think,
)
from bot.games.gnavspiel.strategy import SeatView, choose
from tests.games.gnavspiel.helpers import new_match, play


def test_g4_hidden_cards_never_change_the_strong_choice() -> None:
    a = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["7"])
    b = new_match({"Ann": "3", "Bob": "10", "Cid": "6"}, ["7"])
    for m in (a, b):
        play(m, "Ann offer", "Bob refuse")
    assert SeatView.from_match(a, 0) == SeatView.from_match(b, 0)
    for seed in range(3):
        pick = choose_strong(a, 0, random.Random(seed), samples=8)
        assert pick == choose_strong(b, 0, random.Random(seed), samples=8)


def test_strong_choices_are_legal_over_seeded_matches() -> None:
    for n in (3, 5):
        rng = random.Random(40 + n)
        m = Match([f"P{i}" for i in range(n)], chips=3, dealer=0)
        for _ in range(400):
            if m.phase == "over":
                break
            if m.phase == "deal":
                cards = list(DECK)
                rng.shuffle(cards)
                m.start_deal(*m.deal_from(cards))
                continue
            s = m.deciders()[0]
            pick = choose_strong(m, s, rng, samples=3) if s == 0 else choose(m, s)
            assert pick in m.choices(s)
            m.act(s, pick.action, pick.arg)


def test_g8_c19_a_loan_is_always_taken() -> None:
    m = new_match({"Ann": "A", "Bob": "K", "Cid": "Q"}, chips=2)
    for _ in range(20):
        s = m.deciders()[0]
        if any(c.action == "borrow" for c in m.choices(s)):
            assert choose_strong(m, s, random.Random(0), samples=4) == Choice("borrow")
            return
        c = choose(m, s)
        m.act(s, c.action, c.arg)
    raise AssertionError("Ann, broke after paying with the ace, was never asked to borrow")


def test_g4_hidden_cards_never_change_the_hint() -> None:
    # Issue 33: the hint samples from the asker's knowledge only (the strong bot's snapshot):
    # another consistent dealing of the hidden cards and the stock gives the same hint.
    a = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["7"])
    b = new_match({"Ann": "3", "Bob": "10", "Cid": "6"}, ["7"])
    for m in (a, b):
        play(m, "Ann offer", "Bob refuse")
    rules = GnavspielRules()
    for seed in range(3):
        ha = rules.hint(GnavspielMatch(a), 0, random.Random(seed))
        hb = rules.hint(GnavspielMatch(b), 0, random.Random(seed))
        assert ha is not None and ha == hb
        assert (ha.choice.action, ha.choice.arg) in {(c.action, c.arg) for c in a.choices(0)}
        assert 0.0 <= ha.share <= 1.0 and ha.worlds > 0
    assert rules.hint(GnavspielMatch(a), 1, random.Random(0)) is None  # not Bob's decision


def test_g4_g6_known_cards_follow_the_public_exchanges() -> None:
    # Ann offers Bob, Bob accepts: Bob saw his own 9 and now holds Ann's 3, so in every world
    # he samples Ann was dealt the 3 and holds his 9 now; Dot knocked, so Dot holds the Joker.
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5", "Dot": "Joker"})
    play(m, "Ann offer", "Bob accept")
    snapshot = think(m, 1, random.Random(1)).match  # what Bob may know, nothing more
    fixed = _fixed_cards(snapshot, 1)
    assert fixed == {1: CARD_BY_NAME["9"], 0: CARD_BY_NAME["3"], 3: JOKER}
    start = _deal_start(snapshot)
    rng = random.Random(2)
    for _ in range(20):
        found = _weighted_world(snapshot, 1, start, fixed, rng, 0.15)
        assert found is not None
        world, _weight = found
        assert world.hands[0] == CARD_BY_NAME["9"] and world.hands[1] == CARD_BY_NAME["3"]
        assert world.hands[3] == JOKER and world.deciders() == [1]


def test_g4_a_pass_makes_low_cards_unlikely() -> None:
    # Ann passes: a `normal` seat with a low card would have offered, so the worlds that
    # give Ann a low card weigh less (the opponent model), those with a high card in full.
    m = new_match({"Ann": "Q", "Bob": "4", "Cid": "5", "Dot": "8"})
    play(m, "Ann pass")
    snapshot = think(m, 1, random.Random(1)).match
    fixed = _fixed_cards(snapshot, 1)
    assert fixed is not None
    start = _deal_start(snapshot)
    rng = random.Random(3)
    full: list[int] = []
    less: list[int] = []
    for _ in range(200):
        found = _weighted_world(snapshot, 1, start, fixed, rng, 0.15)
        assert found is not None
        world, weight = found
        (full if weight == 1.0 else less).append(world.hands[0])
    assert full and less
    assert min(full) > max(less)  # the passes explained only by high cards
