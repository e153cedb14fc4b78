"""The Karnaval bot strategies: legal choices only over seeded matches of every size (K2), public
knowledge only (the other hands and the stock never change a choice), and the rules it relies on:
the K6 bar, jokers on top or underneath (K9, K10), equal cards (K11), Karnavals (K13, K14)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot.games.karnaval.engine.cards import full_deck
from bot.games.karnaval.engine.game import Choice, Karnaval
from bot.games.karnaval.strategy import (
    SeatView,
    choose,
    choose_view,
    estimate_tricks,
    heuristic_choice,
    random_choice,
)
from tests.games.karnaval.helpers import play_all, table
from tests.games.karnaval.playout import random_draw

STRATEGIES = {"choose": choose, "heuristic": heuristic_choice, "random": random_choice}


def _play(seed: int, n: int, pick, max_deals: int | None = None, on_step=None) -> Karnaval:
    """A seeded match in which every seat plays `pick`; `on_step(k, seat)` before each choice."""
    rng = random.Random(seed)
    k = Karnaval([f"P{i + 1}" for i in range(n)], random_draw(rng, n))
    limit = k.deal_total if max_deals is None else max_deals
    while k.phase != "over":
        if k.phase == "deal":
            if len(k.deals) >= limit:
                break
            deck = full_deck()
            rng.shuffle(deck)
            k.start_deal(*k.deal_from(deck))
            continue
        (seat,) = k.deciders()
        if on_step is not None:
            on_step(k, seat)
        choice = pick(k, seat, rng)
        assert choice in k.choices(seat), (choice, k.choices(seat))
        k.act(seat, choice.action, choice.arg)
    return k


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_only_legal_choices_over_whole_matches(name: str, n: int) -> None:
    for seed in range(2):
        k = _play(100 * n + seed, n, STRATEGIES[name])
        assert k.phase == "over" and k.totals() is not None


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_strategy_against_mixed_seats_is_legal(n: int) -> None:
    """Every seat a different strategy, so the strategy meets odd plays too."""
    names = ["choose", "heuristic", "random"]

    def mixed(k: Karnaval, seat: int, rng: random.Random) -> Choice:
        return STRATEGIES[names[seat % 3]](k, seat, rng)

    for seed in range(3):
        _play(7_000 + 10 * n + seed, n, mixed)


def _hide_others(k: Karnaval, seat: int, rng: random.Random) -> Karnaval:
    """A copy of `k` whose other hands and face-down stock are reshuffled among themselves."""
    other = Karnaval.from_dict(k.to_dict())
    d = other.current
    assert d is not None
    seats = [s for s in range(other.n) if s != seat]
    face_up = next((i for i, c in enumerate(d.stock) if c != "JK"), len(d.stock) - 1) + 1
    pool = [c for s in seats for c in d.held[s]] + d.stock[face_up:]
    rng.shuffle(pool)
    for s in seats:
        size = len(d.held[s])
        d.held[s], pool = pool[:size], pool[size:]
    d.stock = d.stock[:face_up] + pool
    return other


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_hidden_cards_never_change_a_choice(n: int) -> None:
    """At every step of seeded deals: other hands and the stock reshuffled, the seat's view is the
    same and so is the strategy's choice (with the same random generator)."""
    checked = 0

    def probe(k: Karnaval, seat: int) -> None:
        nonlocal checked
        shuffled = _hide_others(k, seat, random.Random(checked))
        assert shuffled.view_for(seat) == k.view_for(seat)
        assert SeatView.from_match(shuffled, seat) == SeatView.from_match(k, seat)
        for pick in (choose, heuristic_choice):
            assert pick(shuffled, seat, random.Random(5)) == pick(k, seat, random.Random(5))
        checked += 1

    _play(900 + n, n, choose, max_deals=n + 1, on_step=probe)
    assert checked > 50


def test_k6_the_bar_is_respected_and_bids_follow_the_hand() -> None:
    # 3 players, 6 cards, clubs trump; P1 and P2 bid 3 and 2: P3 may not bid 1.
    strong = ["JK", "AC", "KC", "AS", "AH", "AD"]
    weak = ["6S", "7S", "6H", "7H", "6D", "7D"]
    k = table([["8S", "8H", "8D", "9S", "9H", "9D"], ["10S", "10H", "10D", "JS", "JH", "JD"], weak])
    k.bid(0, 3)
    k.bid(1, 2)
    assert Choice("bid", "1") not in k.choices(2)
    assert choose(k, 2, random.Random(0)) in k.choices(2)
    a = table([strong, ["8S", "8H", "8D", "9S", "9H", "9D"], weak])
    b = table([weak, ["8S", "8H", "8D", "9S", "9H", "9D"], strong])
    assert estimate_tricks(SeatView.from_match(a, 0)) > estimate_tricks(SeatView.from_match(b, 0))
    assert int(choose(a, 0).arg or 0) > int(choose(b, 0).arg or 0)


def test_k9_k10_jokers_top_to_win_underneath_to_lose() -> None:
    hands = [
        ["JK", "6S", "7S", "6H", "7H", "6D"],
        ["AS", "KS", "QS", "JS", "10S", "9S"],
        ["AH", "KH", "QH", "JH", "10H", "9H"],
    ]
    two_tricks = [
        (0, "6S", None),
        (1, "AS", None),
        (2, "AH", None),
        (1, "KS", None),
        (2, "KH", None),
    ]
    k = table(hands, bids=[3, 0, 0])  # clubs trump; P3 bid 0 and has no spade nor club
    play_all(k, [(0, "6S", None), (1, "AS", None)])
    assert choose(k, 2) == Choice("play", "AH")  # lose high
    ducks = table(hands, bids=[0, 1, 0])
    play_all(ducks, two_tricks)
    assert choose(ducks, 0) == Choice("play", "7S")  # under KS; the joker kept for later
    ducks.act(0, "play", "JK")
    assert choose(ducks, 0) == Choice("place", "under")
    wants = table(hands, bids=[3, 0, 0])
    play_all(wants, two_tricks)
    wants.act(0, "play", "JK")
    assert choose(wants, 0) == Choice("place", "top")


def test_k11_an_equal_card_goes_on_top_only_when_wanted() -> None:
    hands = [
        ["AS", "6H", "7H", "8H", "9H", "10H"],
        ["AS", "6D", "7D", "8D", "9D", "10D"],
        ["8S", "JH", "JD", "QH", "QD", "KH"],
    ]
    k = table(hands, bids=[1, 1, 0])
    play_all(k, [(0, "AS", None)])
    k.act(1, "play", "AS")
    assert choose(k, 1) == Choice("place", "top")  # P2 wants a trick
    k2 = table(hands, bids=[1, 0, 1])
    play_all(k2, [(0, "AS", None)])
    k2.act(1, "play", "AS")
    assert choose(k2, 1) == Choice("place", "under")  # P2 bid 0


def test_k13_k14_a_strong_pair_is_led_only_for_two_tricks() -> None:
    hands = [
        ["AC", "AC", "6S", "7S", "6H", "7H"],
        ["8S", "8H", "8D", "9S", "9H", "9D"],
        ["KD", "KD", "QD", "QD", "10S", "10H"],
    ]
    k = table(hands, bids=[3, 0, 2])  # clubs trump: AC AC is taken only by two jokers
    assert choose(k, 0) == Choice("karnaval", "AC AC")
    k2 = table(hands, bids=[1, 0, 0])  # one trick wanted: never two at once
    assert choose(k2, 0).action == "play"
    k3 = table(
        [
            ["6S", "7S", "8S", "6H", "7H", "8H"],
            ["9S", "10S", "JS", "9H", "10H", "JH"],
            ["AS", "QD", "QD", "KH", "6D", "7D"],
        ],
        bids=[1, 1, 0],
    )
    play_all(k3, [(0, "6S", None), (1, "9S", None), (2, "AS", None)])
    assert Choice("karnaval", "QD QD") in k3.choices(2)
    assert choose(k3, 2).action == "play"  # P3 is over its bid: no Karnaval


def test_k14_a_karnaval_is_taken_for_two_tricks_and_cheap_cards_given() -> None:
    hands = [
        ["KH", "KH", "6S", "7S", "8S", "9S"],
        ["AH", "AH", "6D", "7D", "AS", "KS"],
        ["10S", "JS", "QS", "10D", "JD", "QD"],
    ]
    k = table(hands, bids=[2, 2, 0])  # clubs trump; P1 leads KH KH
    play_all(k, [(0, ("KH", "KH"), None)])
    assert choose(k, 1) == Choice("give", "AH")
    k.act(1, "give", "AH")
    assert choose(k, 1) == Choice("give", "AH")
    k.act(1, "give", "AH")
    assert choose(k, 1) == Choice("take", "yes")
    k.act(1, "take", "yes")
    give = choose(k, 2)  # P3 bid 0: rid of its highest cards
    assert give == Choice("give", "QS") or give == Choice("give", "QD")


def _finish_deal(k: Karnaval) -> None:
    """Every seat plays the strategy until the deal is over, each choice legal."""
    rng = random.Random(3)
    while k.phase in ("bid", "play"):
        (seat,) = k.deciders()
        pick = choose(k, seat, rng)
        assert pick in k.choices(seat)
        k.act(seat, pick.action, pick.arg)


def test_k16_kc11_four_jokers_are_played_legally() -> None:
    hands = [
        ["JK", "JK", "JK", "JK", "AS", "KS"],
        ["8S", "8H", "8D", "9S", "9H", "9D"],
        ["KD", "KD", "QD", "QD", "10S", "10H"],
    ]
    k = table(hands, bids=[4, 0, 1])
    assert any(c.arg == "JK AS" for c in k.choices(0))
    pick = choose(k, 0)
    assert pick.action == "karnaval" and "JK" in (pick.arg or "")
    _finish_deal(k)
    assert k.current is not None and k.current.complete


def test_kc5_a_deal_without_trump_is_played() -> None:
    """The view of a deal without trump (KC5: 6 players, fourth quarter) on real choices."""
    hands = [
        ["AS", "AS", "6S", "7S", "6H", "7H"],
        ["8S", "8H", "8D", "9S", "9H", "9D"],
        ["KD", "KD", "QD", "QD", "10S", "10H"],
    ]
    k = table(hands)
    rng = random.Random(1)
    while k.phase in ("bid", "play"):
        (seat,) = k.deciders()
        view = replace(SeatView.from_match(k, seat), trump=None, trump_card=None)
        pick = choose_view(view, rng)
        assert pick in k.choices(seat)
        k.act(seat, pick.action, pick.arg)
