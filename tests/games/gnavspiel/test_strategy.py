"""The Gnavspiel bot strategy: legal choices only, public knowledge only, the Joker rules, and
a fixed-seed check that it pays less than a random seat (G4, G5, G6, G7, G8)."""

from __future__ import annotations

import random

from bot.games.gnavspiel.engine import DECK, Choice, Match
from bot.games.gnavspiel.strategy import SeatView, baseline_choice, choose, pay_chance
from tests.games.gnavspiel.helpers import new_match, play


def test_g6_the_joker_holder_offers_and_nobody_offers_to_it() -> None:
    m = new_match({"Ann": "Joker", "Bob": "K", "Cid": "5", "Dot": "9"})
    assert choose(m, 0).action == "offer"  # rid of the Joker whatever its neighbour
    play(m, "Ann offer")
    assert choose(m, 1) == Choice("refuse")  # G6: Bob knows Ann holds the Joker
    m2 = new_match({"Ann": "A", "Bob": "Joker", "Cid": "5", "Dot": "9"})
    assert choose(m2, 0) == Choice("pass")  # offering Bob would bring the Joker


def test_g6_an_accepted_joker_is_tracked_publicly() -> None:
    m = new_match({"Ann": "Joker", "Bob": "2", "Cid": "5", "Dot": "9"})
    play(m, "Ann offer", "Bob accept")
    assert SeatView.from_match(m, 2).joker_at == 1
    assert SeatView.from_match(m, 0).joker_at == 1


def test_g4_the_view_does_not_depend_on_other_hidden_cards() -> None:
    a = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["7"])
    b = new_match({"Ann": "3", "Bob": "10", "Cid": "6"}, ["7"])
    for m in (a, b):
        play(m, "Ann offer", "Bob refuse")
    assert SeatView.from_match(a, 0) == SeatView.from_match(b, 0)
    assert choose(a, 0) == choose(b, 0)


def test_g7_pay_chance_orders_the_cards() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5", "Dot": "8"})
    view = SeatView.from_match(m, 0)
    chances = [pay_chance(view, c) for c in range(1, 14)]
    assert chances == sorted(chances, reverse=True)
    assert pay_chance(view, 0) == 1.0 and pay_chance(view, 13) == 0.0


def test_g8_c19_the_bot_always_borrows() -> None:
    m = new_match({"Ann": "3", "Bob": "7", "Cid": "K"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Cid pass")
    assert choose(m, 0) == Choice("borrow")
    assert baseline_choice(m, 0) == Choice("borrow")


def _pay_rate(hero: str, n: int, deals: int) -> float:
    paid = 0
    for i in range(deals):
        rng = random.Random(1_000 + i)
        m = Match([f"P{k}" for k in range(n)], dealer=rng.randrange(n))
        cards = list(DECK)
        rng.shuffle(cards)
        m.start_deal(*m.deal_from(cards))
        h = i % n
        while m.phase == "play":
            s = m.deciders()[0]
            choices = m.choices(s)
            pick = choose(m, s) if s == h and hero == "strategy" else rng.choice(choices)
            assert pick in choices
            for e in m.act(s, pick.action, pick.arg):
                paid += e.kind == "pay" and e.seats[0] == h
    return paid / deals


def test_g4_g5_g7_strategy_pays_less_than_a_random_seat_over_fixed_seeds() -> None:
    for n in (3, 5):
        assert _pay_rate("strategy", n, 300) < _pay_rate("random", n, 300) - 0.05
