"""Gnav's sampled stay/swap (bot/games/gnav/search.py): what it reads is the seat's information
set only, and the deals it samples agree with every public event of the round (N13, N5)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

from bot.games.gnav.engine.match import Match
from bot.games.gnav.engine.pieces import DRAGON, FULL_SET, NARR, Rank
from bot.games.gnav.game import GnavRules
from bot.games.gnav.search import Knowledge, Worlds, decide_strong, evaluate, hint

R = Rank


def start(deal: Mapping[int, int], top: list[int]) -> Match:
    """Four seats, dealer 0 (order 1, 2, 3, 0); the bag is `top` then the rest of the set."""
    match = Match([f"P{i}" for i in range(4)], dealer=0)
    rest = Counter(FULL_SET)
    rest.subtract(deal.values())
    rest.subtract(top)
    match.start_round(dict(deal), [*top, *sorted(rest.elements())])
    return match


def test_the_choice_depends_only_on_the_seats_information_set_n8() -> None:
    # Seat 2 (own IV) after seat 1 stayed: the other pieces and the bag are moved round, nothing
    # public changes, so neither the knowledge nor the sampled figures may change.
    a = start({1: int(R.X), 2: int(R.IV), 3: int(R.VII), 0: int(R.II)}, [int(R.IX)])
    b = start({1: int(R.II), 2: int(R.IV), 3: int(R.IX), 0: int(R.X)}, [int(R.VII)])
    for m in (a, b):
        m.act(1, "stay")
    ka, kb = Knowledge.from_match(a, 2), Knowledge.from_match(b, 2)
    assert ka == kb
    assert evaluate(ka, 7, 12) == evaluate(kb, 7, 12)
    picks = {decide_strong(m, 2, random.Random(3), worlds=12) for m in (a, b)}
    assert len(picks) == 1


def test_sampled_deals_keep_a_dragon_shown_by_a_refusal_n13() -> None:
    # Seat 1 asked seat 2, who holds the Dragon: "hugg av" is public, so every deal seat 3
    # keeps gives seat 2 the Dragon, and the deals that do not are dropped.
    m = start({1: int(R.III), 2: DRAGON, 3: int(R.VI), 0: int(R.VIII)}, [])
    m.act(1, "swap")
    assert m.turn == 2
    m.act(2, "stay")
    k = Knowledge.from_match(m, 3)
    worlds = Worlds(k)
    rng = random.Random(5)
    kept = dropped = 0
    for _ in range(200):
        deal, bag = worlds.sample(rng)
        seen = worlds.replay(deal, bag)
        if seen is None:
            dropped += 1
            continue
        kept += 1
        assert seen[0].hands[2] == DRAGON
    assert kept > 0 and dropped > 0


def test_a_knock_gives_the_narr_to_the_seat_that_knocked_n5() -> None:
    m = start({1: int(R.V), 2: NARR, 3: int(R.VI), 0: int(R.VIII)}, [])
    m.act(1, "stay")
    m.act(2, "swap")
    k = Knowledge.from_match(m, 3)
    deal, _bag = Worlds(k).sample(random.Random(1))
    assert deal[2] == NARR and deal[3] == int(R.VI)
    assert sum(1 for r in deal.values() if r == NARR) == 1


def test_the_hint_depends_only_on_the_seats_information_set_n8() -> None:
    # Issue 33: the hint samples from the asker's knowledge only, so moving the other pieces
    # and the bag round consistently with what is public never changes it (a fixed seed).
    a = start({1: int(R.X), 2: int(R.IV), 3: int(R.VII), 0: int(R.II)}, [int(R.IX)])
    b = start({1: int(R.II), 2: int(R.IV), 3: int(R.IX), 0: int(R.X)}, [int(R.VII)])
    for m in (a, b):
        m.act(1, "stay")
    for seed in range(3):
        found = hint(a, 2, random.Random(seed), worlds=16)
        assert found is not None and found == hint(b, 2, random.Random(seed), worlds=16)
        action, share, worlds = found
        assert action in ("stay", "swap") and 0.0 <= share <= 1.0 and worlds == 16
        rules = GnavRules()
        ha, hb = (rules.hint(m, 2, random.Random(seed)) for m in (a, b))
        assert ha == hb and ha is not None and ha.choice.action == action
    # A seat not to act gets no hint.
    assert hint(a, 3, random.Random(0)) is None


def test_a_deal_where_a_recorded_stay_is_illegal_is_dropped_t3() -> None:
    # Tradisjonell: seat 1 knocks and must swap (T3); seat 2's Hest passes the request on
    # (N15), so seat 3 gets the Narr and must swap it to the dealer. Deals giving seat 2 an
    # ordinary piece hand it the Narr, and its recorded stay is illegal there (T3): those deals
    # contradict what was seen and are dropped, and the dealer's hint and strong choice come
    # from the others instead of failing.
    match = Match([f"P{i}" for i in range(4)], dealer=0, profile="tradisjonell")
    deal = {1: NARR, 2: int(R.HEST), 3: int(R.V), 0: int(R.VIII)}
    rest = Counter(FULL_SET)
    rest.subtract(deal.values())
    match.start_round(deal, sorted(rest.elements()))
    for seat in (1, 2, 3):
        match.act(seat, match.legal_actions(seat)[-1] if seat != 2 else "stay")
    assert match.turn == 0 and match.hands[0] == NARR
    k = Knowledge.from_match(match, 0)
    worlds = Worlds(k)
    rng = random.Random(2)
    kept = 0
    for _ in range(300):
        seen = worlds.replay(*worlds.sample(rng))
        if seen is not None:
            kept += 1
            assert seen[0].hands[2] == int(R.HEST)
    assert kept > 0
    for seed in range(3):
        found = hint(match, 0, random.Random(seed), worlds=32)
        assert found is not None and found[2] > 0
        assert decide_strong(match, 0, random.Random(seed), worlds=32) in ("stay", "swap")


def test_no_deal_gives_a_narr_to_a_seat_that_did_not_knock_n5() -> None:
    m = start({1: int(R.V), 2: int(R.IV), 3: int(R.VI), 0: int(R.VIII)}, [])
    m.act(1, "stay")
    worlds = Worlds(Knowledge.from_match(m, 2))
    rng = random.Random(4)
    for _ in range(200):
        deal, bag = worlds.sample(rng)
        assert NARR not in deal.values() and bag.count(NARR) == 2
