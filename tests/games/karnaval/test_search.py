"""The Karnaval `strong` bot (bot/games/karnaval/search.py): legal choices, a choice that depends
only on the seat's information set (its hand and the public table: cards played, the suits a
seat showed out of, the bids), repeatable for a seed and a count of sampled worlds, the sampled
worlds consistent with what is public, and the fast play-out keeping the rules (K7-K14)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bot.games.karnaval.engine.cards import JOKER, SUITS, full_deck
from bot.games.karnaval.engine.game import Choice, Karnaval
from bot.games.karnaval.search import (
    Budget,
    Quarter,
    Sim,
    choose_strong,
    code,
    evaluate,
    name,
    sample_world,
    think,
)
from bot.games.karnaval.strategy import SeatView, _voids, choose
from tests.games.karnaval.helpers import play_all, table
from tests.games.karnaval.test_strategy import _hide_others, _play

SMALL = Budget(samples=3, min_samples=3)


def strong(k: Karnaval, seat: int, rng: random.Random) -> Choice:
    return choose_strong(k, seat, rng, SMALL)


def test_cards_round_trip_through_codes() -> None:
    for s in SUITS:
        for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6"):
            assert name(code(r + s)) == r + s
    assert name(code(JOKER)) == JOKER
    assert code("AS") > code("KS") > code("6S")


@pytest.mark.parametrize("n", [3, 6])
def test_strong_choices_are_legal_over_deals(n: int) -> None:
    """K6-K16: every strong choice is one of the engine's choices (the mixed table meets
    normal seats too)."""

    def mixed(k: Karnaval, seat: int, rng: random.Random) -> Choice:
        return strong(k, seat, rng) if seat % 2 == 0 else choose(k, seat, rng)

    k = _play(4_200 + n, n, mixed, max_deals=2)
    assert len(k.deals) == 2


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_other_hands_permuted_publicly_never_change_the_strong_choice(n: int) -> None:
    """Information-set purity: at every step, the other hands and the face-down stock dealt
    afresh consistently with everything public give the same view and, for a fixed seed and
    count of worlds, the same strong choice."""
    checked = 0

    def probe(k: Karnaval, seat: int) -> None:
        nonlocal checked
        shuffled = _hide_others(k, seat, random.Random(checked))
        assert SeatView.from_match(shuffled, seat) == SeatView.from_match(k, seat)
        a = choose_strong(shuffled, seat, random.Random(11), SMALL)
        assert a == choose_strong(k, seat, random.Random(11), SMALL)
        checked += 1

    _play(910 + n, n, strong, max_deals=1, on_step=probe)
    assert checked > 15


def test_a_choice_is_repeatable_for_a_seed_and_a_count() -> None:
    """Deterministic for a seed and a budget counted in worlds (no clock involved)."""
    k = Karnaval(["P1", "P2", "P3", "P4"])
    rng = random.Random(3)
    deck = full_deck()
    rng.shuffle(deck)
    k.start_deal(*k.deal_from(deck))
    budget = Budget(samples=8, min_samples=8)
    picks = {choose_strong(k, 0, random.Random(21), budget) for _ in range(3)}
    assert len(picks) == 1 and picks <= set(k.choices(0))


def test_sampled_worlds_respect_counts_and_shown_voids() -> None:
    """Each other seat gets as many cards as it holds, none of a suit it showed out of (K7),
    and no card the seat sees (its hand, the table, the trump card)."""
    hands = [
        ["AS", "KS", "6H", "7H", "6D", "7D"],
        ["QS", "JS", "8H", "9H", "8D", "9D"],
        ["10H", "JH", "QH", "10D", "JD", "QD"],
    ]
    k = table(hands, bids=[2, 2, 1])  # clubs trump
    play_all(k, [(0, "AS", None), (1, "QS", None), (2, "10H", None)])  # P3 shows out of spades
    view = SeatView.from_match(k, 0)
    assert _voids(view) == {2: {"S", "C"}}
    rng = random.Random(4)
    seen = Counter([*view.hand, *(c for p in view.plays for c in p.cards), "6C"])
    for _ in range(50):
        world = sample_world(view, rng)
        assert [len(h) for h in world] == list(view.held)
        assert sorted(name(c) for c in world[0]) == sorted(view.hand)
        assert not any(name(c)[-1] in "SC" for c in world[2] if c != code(JOKER))
        dealt = Counter(name(c) for h in world[1:] for c in h)
        for c, m in dealt.items():
            assert m + seen[c] <= (4 if c == JOKER else 2)


def test_the_play_out_keeps_every_rule_of_a_trick() -> None:
    """K8: the highest card of the suit led, or the highest trump, takes the trick; K9 a joker
    on top takes it; K14 a taking pair holds a Karnaval (two tricks); the deal plays out."""
    t = SUITS.index("C")
    sim = Sim(3, t, [[code("AS")], [code("KS")], [code("6C")]], [1, 0, 0])
    sim.play(0, code("AS"), None)
    sim.play(1, code("KS"), None)
    sim.play(2, code("6C"), None)  # a trump from a seat void in spades
    assert sim.taken == [0, 0, 1]
    sim = Sim(3, t, [[code("AS")], [JOKER_CODE], [code("KS")]], [0, 1, 0])
    sim.play(0, code("AS"), None)
    sim.play(1, JOKER_CODE, "top")
    sim.play(2, code("KS"), None)
    assert sim.taken == [0, 1, 0] and sim.turn == 1
    hands = [[code("9H")] * 2, [code("KH")] * 2, [code("6S"), code("7S")]]
    sim = Sim(3, t, hands, [0, 2, 0])
    sim.lead_pair(0, code("9H"), code("9H"))
    a, b, take = sim.give_policy(1)
    assert (a, b, take) == (code("KH"), code("KH"), True)
    sim.give(1, a, b, take)
    sim.run()
    assert sim.taken == [0, 2, 0]


JOKER_CODE = code(JOKER)


def test_the_quarter_weighs_on_an_exact_bid_k20() -> None:
    """K20: while every earlier bid of the quarter was exact, making this one exactly is worth
    a share of the +60 premium; in the quarter's last deal a negative sum costs -60."""
    assert Quarter(True, 40, 0).value(2, 2) == 20 + 60
    assert Quarter(False, 40, 0).value(2, 2) == 20
    assert Quarter(True, 40, 2).value(2, 2) > 20
    assert Quarter(False, -5, 0).value(2, 1) == 1 - 60
    assert Quarter(False, -5, 1).value(2, 1) == 1


def test_easy_mostly_plays_like_normal_but_not_always() -> None:
    """`easy` is a casual player: today's choice most of the time, now and then another legal
    one (its best-looking alternative)."""
    same = other = 0

    def probe(k: Karnaval, seat: int) -> None:
        nonlocal same, other
        if len(k.choices(seat)) < 2:
            return
        pick = think(k, seat, random.Random(same + other), "easy").run()
        assert pick in k.choices(seat)
        if pick == choose(k, seat):
            same += 1
        else:
            other += 1

    _play(515, 4, choose, max_deals=2, on_step=probe)
    assert same > other > 0


def test_a_time_budget_stops_the_sampling_after_the_minimum() -> None:
    """The per-decision time budget is checked between worlds: with no time at all only the
    minimum is thought about, and the choice is what that many worlds give (no clock in it)."""
    k = Karnaval(["P1", "P2", "P3"])
    deck = full_deck()
    random.Random(8).shuffle(deck)
    k.start_deal(*k.deal_from(deck))
    view = SeatView.from_match(k, 0)
    quarter = Quarter.from_match(k, 0)
    rushed = evaluate(view, quarter, 5, Budget(samples=40, seconds=0.0, min_samples=2))
    assert {count for _move, _mean, count in rushed} <= {2}
    counted = evaluate(view, quarter, 5, Budget(samples=2, min_samples=2))
    assert rushed == counted


def test_a_quick_thought_samples_no_world_and_only_it_is_quick(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 22: a decision with nothing to sample (one legal card; an `easy` seat not slipping
    this time) is decided where it is, not sent to a worker; any other is not quick. A quick
    thought's `run` never looks at a world."""
    from bot.games.karnaval import search

    seen: Counter[tuple[str, bool]] = Counter()

    def no_worlds(*_args: object) -> object:
        raise AssertionError("a quick thought sampled worlds")

    def probe(k: Karnaval, seat: int) -> None:
        for level in ("easy", "strong"):
            thought = think(k, seat, random.Random(sum(seen.values())), level, SMALL)
            single = len(k.choices(seat)) == 1
            quick = thought.quick()
            seen[level, quick] += 1
            if level == "strong":
                assert quick == single
            if quick:
                with monkeypatch.context() as m:
                    m.setattr(search, "evaluate", no_worlds)
                    assert thought.run() in k.choices(seat)

    _play(77, 4, choose, max_deals=2, on_step=probe)
    assert all(seen[level, quick] for level in ("easy", "strong") for quick in (True, False))
