"""Rules the outcome JSON cannot show, tested on `Match` directly: the C4 bag order, the N6 bank
and spare tokens, the N9/N17 partners, T3's legal actions, the phases of a match and its errors.
"""

from __future__ import annotations

from collections import Counter

import pytest

from bot.games.gnav.engine.errors import (
    BagExhausted,
    InvalidDeal,
    MatchOver,
    NotYourTurn,
    RoundOver,
    RuleError,
)
from bot.games.gnav.engine.match import BAG, Match
from bot.games.gnav.engine.pieces import FULL_SET, parse_rank


def R(*names: str) -> list[int]:
    """Ranks from their record names."""
    return [parse_rank(x) for x in names]


def full_bag(deal: dict[int, int], top: list[int]) -> list[int]:
    """`top`, then the rest of the set (neither dealt nor on top) in rank order: a full bag."""
    rest = Counter(FULL_SET)
    rest.subtract(deal.values())
    rest.subtract(top)
    assert all(v >= 0 for v in rest.values())
    return [*top, *sorted(rest.elements())]


def new(n: int, *, dealer: int, profile: str = "norsk", lives: int = 3) -> Match:
    """An n-seat match A, B, C... with the given dealer, profile and lives."""
    return Match([chr(ord("A") + i) for i in range(n)], profile=profile, dealer=dealer, lives=lives)


def test_c4_ordinary_draw_old_piece_then_skipped_hest_hus_to_the_bottom() -> None:
    """C4: old piece first, then the skipped Hus and Hest in the order drawn."""
    m = new(2, dealer=1)
    deal = dict(zip([0, 1], R("VII", "III"), strict=True))
    bag = full_bag(deal, R("Hus", "Hest", "IX"))
    m.start_round(deal, bag)
    m.act(0, "stay")
    m.act(1, "swap")
    assert m.log is not None and m.log.hands == {0: parse_rank("VII"), 1: parse_rank("IX")}
    assert list(m.bag) == [*bag[3:], *R("III", "Hus", "Hest")]


def test_c4_refusing_candidate_goes_back_after_the_skipped_ones() -> None:
    """C4: skipped Hest first, then the refusing Dragon; the dealer keeps its piece (N17)."""
    m = new(3, dealer=2)
    deal = dict(zip([0, 1, 2], R("V", "VI", "I"), strict=True))
    bag = full_bag(deal, R("Hest", "Dragon"))
    m.start_round(deal, bag)
    for seat, action in ((0, "stay"), (1, "stay"), (2, "swap")):
        m.act(seat, action)
    assert m.hands[2] == parse_rank("I")  # N17: a refusing candidate never stays in the hand
    assert list(m.bag) == [*bag[2:], *R("Hest", "Dragon")]
    assert m.lives == [3, 3, 1]  # the dealer pays the Dragon (N17) and its I is lowest (N19)


def test_c4_katt_pieces_back_first_then_the_undo_takes_the_given_piece_out() -> None:
    """n14_c3_c4 vector with a complete bag: the bag's order after the round, piece by piece."""
    m = new(4, dealer=3)
    deal = dict(zip([0, 1, 2, 3], R("V", "VIII", "II", "Hus"), strict=True))
    bag = full_bag(deal, R("XI", "Katt"))
    m.start_round(deal, bag)
    m.act(0, "swap")  # A<->B
    m.act(1, "swap")  # B<->C
    m.act(2, "swap")  # C -> D's Hus -> the bag (C3): C takes XI, its V to the bottom
    assert list(m.bag) == [*bag[1:], *R("V")]
    m.act(3, "swap")  # the dealer draws the Katt: back first, then the undo (C4)
    assert list(m.bag) == [*bag[2:], *R("Katt", "XI")]
    assert [m.hands[s] for s in range(4)] == R("V", "VIII", "II", "Hus")
    assert m.exchanges == []  # N14: the record is cleared


def test_c3_two_redirected_bag_exchanges_undone_newest_first() -> None:
    """Two requests reach the bag past the dealer's Hest (C3); a Katt from the bag undoes both,
    newest first, each taking its given piece back out and putting its taken one under (C4)."""
    m = new(4, dealer=3)
    deal = dict(zip(range(4), R("I", "X", "Hus", "Hest"), strict=True))
    bag = full_bag(deal, R("IX", "VIII", "Katt"))
    m.start_round(deal, bag)
    m.act(0, "stay")
    events = m.act(1, "swap")  # past C's Hus and D's Hest to the bag: B takes IX
    assert [e.kind for e in events if e.public] == ["forbi", "forbi", "bag_swap"]
    assert list(m.bag) == [*bag[1:], *R("X")]
    m.act(2, "swap")  # past D's Hest to the bag: C takes VIII, its Hus goes under
    assert list(m.bag) == [*bag[2:], *R("X", "Hus")]
    m.act(3, "swap")  # the Katt: back first, then C's exchange, then B's
    assert list(m.bag) == [*bag[3:], *R("Katt", "VIII", "IX")]
    assert [m.hands[s] for s in range(4)] == R("I", "X", "Hus", "Hest")
    assert m.lives == [2, 3, 3, 2]


def test_c4_undo_of_a_bag_exchange_with_a_twin_in_the_bag() -> None:
    """C4: the undo takes back the copy nearest the bottom, not its twin."""
    m = new(2, dealer=1)
    deal = dict(zip([0, 1], R("V", "Hus"), strict=True))
    top = R("VI", "Katt")
    bag = full_bag(deal, top)
    assert bag.count(parse_rank("V")) == 1  # the other V lies in the rest
    m.start_round(deal, bag)
    m.act(0, "swap")  # A -> B's Hus (the acting dealer) -> the bag: A takes VI, V to the bottom
    other_v = bag.index(parse_rank("V"))
    m.act(1, "swap")  # the dealer draws the Katt: A gets its V back, VI goes to the bottom
    assert m.hands[0] == parse_rank("V")
    expected = [*bag[2:], *R("Katt", "VI")]
    assert list(m.bag) == expected
    assert expected.index(parse_rank("V")) == other_v - 2  # the twin did not move


def test_n6_tokens_from_the_bank_then_spare_tokens() -> None:
    """N6: a token from the bank while it has one, then a spare one; C2 acting dealer."""
    m = new(4, dealer=3)
    deal = dict(zip(range(4), R("I", "II", "III", "IV"), strict=True))
    m.start_round(deal, full_bag(deal, []))
    for seat in range(4):
        m.act(seat, "stay")
    assert (m.lives, m.bank, m.spare) == ([2, 3, 3, 3], 1, 0)
    deal = {1: parse_rank("Narr"), 2: parse_rank("V"), 3: parse_rank("Narr"), 0: parse_rank("VI")}
    events = m.start_round(deal, full_bag(deal, []))
    public = [(e.kind, e.seats) for e in events if e.public]
    assert public == [("knock", (1,)), ("knock", (3,)), ("sit_out", (1,)), ("sit_out", (3,))]
    # B takes the bank's token, D a spare one; both sit out (N6).
    assert (m.lives, m.bank, m.spare) == ([2, 4, 3, 4], 0, 1)
    assert m.tokens_accounted()
    assert m.order == [2, 0]  # C2: A, the last participant, acts as the dealer
    assert m.acting_dealer == 0
    assert m.pieces_accounted() == 42  # N6: the sat-out pieces are set aside, not in the bag


def test_n9_partner_is_the_next_participant_only() -> None:
    """N9: a player may ask only its next participating left neighbour."""
    m = new(4, dealer=3)
    deal = dict(zip(range(4), R("I", "II", "III", "IV"), strict=True))
    m.start_round(deal, full_bag(deal, []))
    with pytest.raises(RuleError) as info:
        m.act(0, "swap", target=2)
    assert info.value.rule == "N9"
    with pytest.raises(RuleError) as info:
        m.act(0, "swap", target=BAG)
    assert info.value.rule == "N17"
    m.act(0, "swap", target=1)
    assert m.hands[:2] == R("II", "I")


def test_n17_the_dealer_swaps_with_the_bag_only() -> None:
    """N17: the acting dealer swaps with the bag, never a neighbour."""
    m = new(2, dealer=1)
    deal = dict(zip(range(2), R("I", "II"), strict=True))
    m.start_round(deal, full_bag(deal, R("X")))
    m.act(0, "stay")
    with pytest.raises(RuleError) as info:
        m.act(1, "swap", target=0)
    assert info.value.rule == "N17"
    m.act(1, "swap", target=BAG)
    assert m.log is not None and m.log.hands == {0: parse_rank("I"), 1: parse_rank("X")}


def test_t3_narr_holder_may_only_swap() -> None:
    """T3: a Narr holder's only legal action is to swap."""
    m = new(3, dealer=2, profile="tradisjonell")
    deal = dict(zip(range(3), R("Narr", "V", "VI"), strict=True))
    m.start_round(deal, full_bag(deal, []))
    assert m.legal_actions(0) == ("swap",)
    assert m.legal_actions(1) == ()
    with pytest.raises(RuleError) as info:
        m.act(0, "stay")
    assert info.value.rule == "T3"
    m.act(0, "swap")
    assert m.legal_actions(1) == ("swap",)  # B now holds the Narr


def test_n8_only_the_player_to_act_and_phases() -> None:
    """N4, N8, N24: dealing order, turn order, and nothing out of phase."""
    m = new(3, dealer=0)
    assert m.turn is None and m.phase == "deal"
    with pytest.raises(RoundOver):
        m.act(1, "stay")
    assert m.deal_seats() == [1, 2, 0]  # N4: from the dealer's left
    deal, bag = m.deal_from(FULL_SET)
    assert deal == {1: 0, 2: 0, 0: 1} and len(bag) == 39
    deal = dict(zip([1, 2, 0], R("I", "II", "III"), strict=True))
    m.start_round(deal, full_bag(deal, []))
    with pytest.raises(RuleError):
        m.start_round(deal, full_bag(deal, []))  # N24: the round under way comes first
    with pytest.raises(NotYourTurn) as info:
        m.act(0, "stay")
    assert str(info.value) == "it is B's turn, not A's"
    with pytest.raises(RuleError):
        m.act(1, "pass")


def test_n23_nothing_after_the_match() -> None:
    """N23: the last player left wins; then no deal and no action."""
    m = new(2, dealer=1, lives=1)
    deal = dict(zip(range(2), R("I", "II"), strict=True))
    m.start_round(deal, full_bag(deal, []))
    m.act(0, "stay")
    events = m.act(1, "stay")
    assert [e.kind for e in events if e.public] == ["stay", "reveal", "pay", "out", "win"]
    assert m.phase == "finished" and m.winners == [1]
    with pytest.raises(MatchOver):
        m.start_round(deal, full_bag(deal, []))
    with pytest.raises(MatchOver):
        m.act(0, "stay")


def test_invalid_deals() -> None:
    """N1, N4: a deal that misses a seat, triples a rank or names a stranger."""
    m = new(3, dealer=2)
    with pytest.raises(InvalidDeal, match="no piece for C"):
        m.start_round({0: 1, 1: 2}, [])
    with pytest.raises(InvalidDeal, match=r'three pieces of rank "Narr" \(the set has two\)'):
        m.start_round({0: 0, 1: 0, 2: 0}, [])
    with pytest.raises(InvalidDeal, match="seat 7 is not at the table"):
        m.start_round({0: 1, 1: 2, 7: 3}, [])


def test_bag_exhausted_only_for_a_partial_bag() -> None:
    """MATCH_RECORD.md: what goes back under a partial bag lies below its unlisted rest."""
    m = new(2, dealer=1)
    m.start_round({0: parse_rank("V"), 1: parse_rank("Hest")}, R("VI"))
    m.act(0, "swap")  # C3: the bag gives VI; A's V goes under the unlisted rest
    with pytest.raises(BagExhausted):
        m.act(1, "swap")


@pytest.mark.parametrize("bad", [1, 21])
def test_n3_two_to_twenty_players(bad: int) -> None:
    """N3: 2 to 20 players."""
    with pytest.raises(RuleError) as info:
        Match([f"P{i}" for i in range(bad)])
    assert info.value.rule == "N3"


def test_n3_lives_at_least_one() -> None:
    """N3: every player starts with at least one life; names differ."""
    with pytest.raises(RuleError):
        Match(["A", "B"], lives=[3, 0])
    with pytest.raises(RuleError):
        Match(["A", "A"])
