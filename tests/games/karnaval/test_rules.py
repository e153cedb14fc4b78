"""The Karnaval rules (../shared/KARNAVAL.md), one test or more per rule id K1-K20 / KC1-KC12.

Each test sets up a deal from given hands (`helpers.table`) and plays whole plays through
`Karnaval.play`, as a record would; the step API (`choices`/`act`) has its own tests in
test_steps.py.
"""

from __future__ import annotations

from collections import Counter

import pytest

from bot.games.karnaval.engine import (
    IllegalBid,
    IllegalPlay,
    InvalidDeal,
    InvalidDraw,
    Karnaval,
    NotYourTurn,
    draw_next,
    draw_winner,
    score,
)
from bot.games.karnaval.engine.cards import DECK_ORDER, full_deck
from bot.games.karnaval.engine.game import legal_follow_cards, pair_beats
from tests.games.karnaval.helpers import play_all, stock_for, table

NAMES = ["Ann", "Bob", "Cy"]

# Three hands that fit together; trumps from `top`.
H1 = ["AS", "KS", "6H", "7H", "8D", "9D"]
H2 = ["QS", "10S", "AH", "9C", "10C", "JC"]
H3 = ["JS", "9S", "KH", "QC", "KC", "7D"]


# --- cards, seats, quarters (K1-K5) ---


def test_k1_deck_has_76_cards_each_suit_card_twice_and_four_jokers() -> None:
    deck = Counter(full_deck())
    assert sum(deck.values()) == 76
    assert deck["JK"] == 4
    assert all(deck[c] == 2 for c in DECK_ORDER if c != "JK")
    assert len(DECK_ORDER) == 37


def test_k2_three_to_six_players() -> None:
    for n in (3, 4, 5, 6):
        assert Karnaval([f"P{i}" for i in range(n)]).n == n
    for bad in (["A", "B"], ["A", "B", "C", "D", "E", "F", "G"], ["A", "A", "B"]):
        with pytest.raises(Exception, match="3 to 6"):
            Karnaval(bad)


def test_k2_kc1_lowest_rank_draws_first_joker_lowest_suit_ignored() -> None:
    assert draw_winner(NAMES, [{0: "7S", 1: "6H", 2: "AS"}]) == 1
    assert draw_winner(NAMES, [{0: "7S", 1: "6H", 2: "JK"}]) == 2  # KC1: a joker below a 6
    k = Karnaval(NAMES, [{0: "7S", 1: "6H", 2: "AS"}])
    assert k.order == [1, 2, 0]  # seats clockwise from player 1


def test_kc4_tied_players_draw_again_from_a_whole_deck() -> None:
    rounds = [{0: "6S", 1: "6H", 2: "9C"}, {0: "KS", 1: "KS"}, {0: "6D", 1: "AD"}]
    assert draw_next(3, rounds[:1]) == [0, 1]
    assert draw_next(3, rounds[:2]) == [0, 1]
    assert draw_next(3, rounds) == []
    assert draw_winner(NAMES, rounds) == 0  # KS twice again: drawn from a whole deck


def test_kc4_draw_faults() -> None:
    with pytest.raises(InvalidDraw, match="decided in round 1"):
        draw_winner(NAMES, [{0: "6S", 1: "7H", 2: "9C"}, {0: "6D"}])
    with pytest.raises(InvalidDraw, match="exactly Ann, Bob"):
        draw_winner(NAMES, [{0: "6S", 1: "6H", 2: "9C"}, {0: "6D", 2: "7D"}])
    with pytest.raises(InvalidDraw, match="KH drawn 3 times"):
        draw_winner(NAMES, [{0: "KH", 1: "KH", 2: "KH"}])
    with pytest.raises(InvalidDraw, match="Ann and Bob tie for lowest in round 1"):
        draw_winner(NAMES, [{0: "6S", 1: "6H", 2: "9C"}])


def test_k3_four_quarters_of_n_deals_with_6_8_10_12_cards() -> None:
    k = Karnaval(["A", "B", "C", "D"])
    assert k.deal_total == 16
    assert [k.deal_info(i)["cards"] for i in range(16)] == [6] * 4 + [8] * 4 + [10] * 4 + [12] * 4
    assert [k.deal_info(i)["quarter"] for i in (0, 3, 4, 15)] == [1, 1, 2, 4]


def test_k4_player_k_leads_deal_k_and_the_player_before_deals() -> None:
    k = Karnaval(NAMES, [{0: "9S", 1: "8H", 2: "6C"}])  # Cy is player 1
    assert [k.deal_info(i)["leader"] for i in range(4)] == [2, 0, 1, 2]
    assert [k.deal_info(i)["dealer"] for i in range(4)] == [1, 2, 0, 1]
    assert k.next_dealer == 1


def test_k5_kc2_trump_card_is_the_first_non_joker_of_the_stock() -> None:
    k = table([H1, H2, H3], top=("JK", "JK", "QD"))
    d = k.current
    assert d is not None
    assert (d.trump_card, d.trump) == ("QD", "D")
    assert d.stock[:3] == ["JK", "JK", "QD"]  # it stays on the stock


def test_kc5_no_trump_when_the_stock_holds_only_jokers() -> None:
    from tests.games.karnaval.playout import play_match

    k = play_match(5, 6, max_deals=18, check=False).match
    assert k.phase == "deal" and k.deal_info(18)["cards"] == 12
    suits = [c for c in full_deck() if c != "JK"]
    hands = [suits[i * 12 : (i + 1) * 12] for i in range(6)]  # by seat
    k.start_deal(hands, ["JK"] * 4)
    d = k.current
    assert d is not None and d.trump is None and d.trump_card is None
    # Without trumps K7 is: follow suit, else any card.
    assert legal_follow_cards(["AH", "7C", "8D"], "S", None) == {"AH", "7C", "8D"}


def test_k1_k3_a_deal_must_be_the_whole_deck_with_right_hand_sizes() -> None:
    k = Karnaval(NAMES)
    with pytest.raises(InvalidDeal, match="Bob holds 5 cards, not 6"):
        k.start_deal([H1, H2[:5], H3], stock_for([H1, H2[:5], H3]))
    with pytest.raises(InvalidDeal, match="AS appears 3 times"):
        k.start_deal([H1, H2, ["AS", *H3[1:]]], stock_for([H1, H2, H3]))
    with pytest.raises(InvalidDeal, match='"1OH" in Ann'):
        k.start_deal([["1OH", *H1[1:]], H2, H3], stock_for([H1, H2, H3]))


# --- bids (K6) ---


def test_k6_last_bidder_cannot_make_total_equal_cards() -> None:
    k = table([H1, H2, H3], bids=[2, 2])
    assert k.legal_bids() == [0, 1, 3, 4, 5, 6]
    with pytest.raises(IllegalBid, match="bid 2 by P3 is barred") as info:
        k.bid(2, 2)
    assert (info.value.rule, info.value.key) == ("K6", "karnaval.error.barred_bid")
    assert info.value.params["player"] == "P3"


def test_k6_bar_can_be_zero() -> None:
    k = table([H1, H2, H3], bids=[3, 3])
    assert k.legal_bids() == [1, 2, 3, 4, 5, 6]


def test_k6_nothing_barred_when_earlier_bids_exceed_the_cards() -> None:
    k = table([H1, H2, H3], bids=[5, 2])
    assert k.legal_bids() == list(range(7))


def test_k6_bids_in_turn_from_the_first_leader_and_in_range() -> None:
    k = table([H1, H2, H3])
    with pytest.raises(NotYourTurn, match="it is P1's turn to bid, not P2's"):
        k.bid(1, 1)
    with pytest.raises(IllegalBid, match=r"bid 7 by P1 is out of range \(0 to 6\)"):
        k.bid(0, 7)
    k.bid(0, 0)
    assert k.turn == 1


# --- tricks (K7, K8, K12) ---


def test_k7_must_follow_suit_else_trump_else_any_card() -> None:
    assert legal_follow_cards(["AS", "7H", "8D"], "S", "H") == {"AS"}
    assert legal_follow_cards(["7H", "9H", "8D"], "S", "H") == {"7H", "9H"}
    assert legal_follow_cards(["7C", "8D"], "S", "H") == {"7C", "8D"}
    assert legal_follow_cards(["7C", "8D", "JK"], "S", "H") == {"7C", "8D", "JK"}


def test_k7_trump_led_following_suit_is_playing_a_trump() -> None:
    assert legal_follow_cards(["7H", "AS", "8D"], "H", "H") == {"7H"}


def test_k7_k8_no_duty_to_beat_or_overtrump_and_the_highest_trump_wins() -> None:
    k = table([H1, H2, H3], top=("6C",), bids=[1, 1, 1])
    # P1 leads 8D; P2 has no diamonds, plays a trump; P3 follows with 7D.
    play_all(k, [(0, "8D", None), (1, "9C", None), (2, "7D", None)])
    d = k.current
    assert d is not None and d.tricks == [1]  # K8: the only trump
    # P2 leads AH; P3 follows with KH (no duty to beat); P1 6H: AH wins (K8).
    play_all(k, [(1, "AH", None), (2, "KH", None), (0, "6H", None)])
    assert d.tricks == [1, 1]
    # P2 leads QS; P3 follows JS; P1 AS takes it.
    play_all(k, [(1, "QS", None), (2, "JS", None), (0, "AS", None)])
    assert d.tricks == [1, 1, 0]


def test_k12_the_winner_leads_and_only_in_turn() -> None:
    k = table([H1, H2, H3], bids=[1, 1, 1])
    with pytest.raises(NotYourTurn, match="it is P1's turn, not P2's"):
        k.play(1, ("QS",))
    play_all(k, [(0, "AS", None), (1, "QS", None), (2, "JS", None)])
    assert k.turn == 0


def test_k7_error_names_the_suit_to_follow() -> None:
    k = table([H1, H2, H3], bids=[1, 1, 1])
    k.play(0, ("AS",))
    with pytest.raises(IllegalPlay, match="P2 must follow spades") as info:
        k.play(1, ("AH",))
    assert info.value.rule == "K7"
    assert info.value.params == {"player": "P2", "suit": "spades", "trump": "clubs"}


def test_k7_error_must_play_a_trump() -> None:
    k = table([["AS", "KS", "QS", "JS", "10S", "9S"], H2, ["6C", *H3[1:]]], bids=[1, 1, 1])
    k.play(0, ("AS",))
    k.play(1, ("QS",))
    k.current.held[2] = ["6C", "AH", "KH", "QH", "JH", "10H"]  # type: ignore[union-attr]
    with pytest.raises(IllegalPlay, match=r"P3 must play a trump \(clubs\)"):
        k.play(2, ("AH",))


# --- jokers (K9, K10, KC6, KC7) ---


def _joker_table() -> Karnaval:
    return table(
        [
            ["JK", "JK", "AS", "6H", "7H", "8H"],
            ["JK", "QS", "KS", "9D", "10D", "JD"],
            ["JK", "AD", "6S", "7C", "8C", "9C"],
        ],
        top=("6C",),
        bids=[1, 1, 1],
    )


def test_k9_joker_at_any_time_on_top_takes_the_last_on_top() -> None:
    k = _joker_table()
    # P1 leads AS; P2 (holding spades) may still play a joker; P3 too: the last on top.
    play_all(k, [(0, "AS", None), (1, "JK", "top"), (2, "JK", "top")])
    assert k.current.tricks == [2]  # type: ignore[union-attr]


def test_k9_joker_underneath_never_takes_and_changes_no_duty() -> None:
    k = _joker_table()
    play_all(k, [(0, "AS", None), (1, "JK", "under")])
    # P3 must still follow spades (K9): 6S only.
    assert [c.arg for c in k.choices(2)] == ["JK", "6S"]
    k.play(2, ("6S",))
    assert k.current.tricks == [0]  # type: ignore[union-attr]


def test_k9_following_joker_needs_top_or_under() -> None:
    k = _joker_table()
    k.play(0, ("AS",))
    with pytest.raises(IllegalPlay, match='P2 must put JK "top" or "under" \\(K9\\)'):
        k.play(1, ("JK",))
    with pytest.raises(IllegalPlay, match='not "high"'):
        k.play(1, ("JK",), "high")


def test_k10_led_joker_must_be_declared_high_or_low() -> None:
    k = _joker_table()
    with pytest.raises(IllegalPlay, match='P1 must declare the led JK "high" or "low"') as info:
        k.play(0, ("JK",))
    assert info.value.rule == "K10"


def test_k10_high_the_leader_joker_counts_as_on_top() -> None:
    k = _joker_table()
    play_all(k, [(0, "JK", "high"), (1, "KS", None), (2, "AD", None)])
    assert k.current.tricks == [0]  # type: ignore[union-attr]


def test_k10_high_a_later_joker_on_top_takes_it() -> None:
    k = _joker_table()
    play_all(k, [(0, "JK", "high"), (1, "JK", "top"), (2, "AD", None)])
    assert k.current.tricks == [1]  # type: ignore[union-attr]


def test_k10_low_highest_card_regardless_of_suit() -> None:
    k = _joker_table()
    play_all(k, [(0, "JK", "low"), (1, "KS", None), (2, "AD", None)])
    assert k.current.tricks == [2]  # type: ignore[union-attr]


def test_k10_low_a_trump_beats_higher_non_trumps() -> None:
    k = _joker_table()
    play_all(k, [(0, "JK", "low"), (1, "KS", None), (2, "7C", None)])
    assert k.current.tricks == [2]  # type: ignore[union-attr]


def test_k10_low_a_joker_on_top_still_takes_it() -> None:
    k = _joker_table()
    play_all(k, [(0, "JK", "low"), (1, "JK", "top"), (2, "7C", None)])
    assert k.current.tricks == [1]  # type: ignore[union-attr]


def test_kc6_after_a_joker_lead_no_card_sets_a_suit() -> None:
    k = _joker_table()
    play_all(k, [(0, "JK", "low"), (1, "9D", None)])
    # P3 holds AD: no duty to follow diamonds, any card.
    assert {c.arg for c in k.choices(2)} == {"JK", "AD", "6S", "7C", "8C", "9C"}


def test_kc7_low_joker_with_only_jokers_under_goes_to_the_leader() -> None:
    k = table(
        [
            ["JK", "AS", "KS", "6H", "7H", "8H"],
            ["JK", "QS", "10S", "9D", "10D", "JD"],
            ["JK", "AD", "6S", "7C", "8C", "9C"],
        ],
        bids=[1, 1, 1],
    )
    play_all(k, [(0, "JK", "low"), (1, "JK", "under"), (2, "JK", "under")])
    assert k.current.tricks == [0]  # type: ignore[union-attr]


# --- equal cards (K11, KC8) ---


def _equal_table() -> Karnaval:
    return table(
        [
            ["QS", "JK", "6H", "7H", "8H", "9H"],
            ["QS", "AD", "9D", "10D", "JD", "KH"],
            ["JK", "AS", "AC", "QD", "QH", "6C"],
        ],
        top=("7C",),  # clubs
        bids=[1, 1, 1],
    )


def test_k11_identical_card_on_top_takes_underneath_leaves() -> None:
    k = _equal_table()
    k.play(0, ("QS",))
    with pytest.raises(IllegalPlay, match='QS ties the winning card: P2 must put it "top"'):
        k.play(1, ("QS",))
    k.play(1, ("QS",), "top")
    k.play(2, ("JK",), "under")
    assert k.current.tricks == [1]  # type: ignore[union-attr]
    k2 = _equal_table()
    play_all(k2, [(0, "QS", None), (1, "QS", "under"), (2, "JK", "under")])
    assert k2.current.tricks == [0]  # type: ignore[union-attr]
    k3 = _equal_table()
    play_all(k3, [(0, "QS", None), (1, "QS", "top"), (2, "AS", None)])
    assert k3.current.tricks == [2]  # type: ignore[union-attr]


def test_kc8_low_lead_same_rank_non_trumps_are_equal() -> None:
    k = table(
        [
            ["JK", "AS", "6H", "7H", "8H", "9H"],
            ["AD", "KS", "9D", "10D", "JD", "KH"],
            ["AH", "AC", "QD", "QH", "6C", "7S"],
        ],
        top=("8C",),  # clubs: AC is a trump
        bids=[1, 1, 1],
    )
    play_all(k, [(0, "JK", "low"), (1, "AD", None)])
    with pytest.raises(IllegalPlay, match="AH ties the winning card"):
        k.play(2, ("AH",))
    k.play(2, ("AH",), "top")
    assert k.current.tricks == [2]  # type: ignore[union-attr]


def test_kc8_a_trump_never_equals_a_non_trump() -> None:
    k = table(
        [
            ["JK", "AS", "6H", "7H", "8H", "9H"],
            ["AD", "KS", "9D", "10D", "JD", "KH"],
            ["AH", "AC", "QD", "QH", "6C", "7S"],
        ],
        top=("8C",),
        bids=[1, 1, 1],
    )
    play_all(k, [(0, "JK", "low"), (1, "AD", None)])
    with pytest.raises(IllegalPlay, match='no choice to make with AC \\("top" given\\)'):
        k.play(2, ("AC",), "top")
    k.play(2, ("AC",))
    assert k.current.tricks == [2]  # type: ignore[union-attr]


def test_kc8_no_choice_under_a_joker_on_top_or_after_a_high_lead() -> None:
    hands = [
        ["QS", "JK", "6H", "7H", "8H", "9H"],
        ["JK", "AD", "9D", "10D", "JD", "KH"],
        ["QS", "AS", "AC", "QD", "QH", "6C"],
    ]
    k = table(hands, top=("7C",), bids=[1, 1, 1])
    play_all(k, [(0, "QS", None), (1, "JK", "top")])
    with pytest.raises(IllegalPlay, match="no choice to make with QS"):
        k.play(2, ("QS",), "top")
    k.play(2, ("QS",))
    assert k.current.tricks == [1]  # type: ignore[union-attr]
    k2 = table(hands, top=("7C",), bids=[1, 1, 1])
    play_all(k2, [(0, "JK", "high"), (1, "KH", None)])
    with pytest.raises(IllegalPlay, match="no choice to make with QH"):
        k2.play(2, ("QH",), "top")


def test_kc8_no_choice_for_a_card_equal_to_one_not_winning() -> None:
    k = table(
        [
            ["9S", "6H", "7H", "8H", "9H", "10H"],
            ["KS", "AD", "9D", "10D", "JD", "KH"],
            ["9S", "AC", "QD", "QH", "6C", "7S"],
        ],
        top=("8C",),
        bids=[1, 1, 1],
    )
    play_all(k, [(0, "9S", None), (1, "KS", None)])
    with pytest.raises(IllegalPlay, match="no choice to make with 9S"):
        k.play(2, ("9S",), "under")
    k.play(2, ("9S",))
    assert k.current.tricks == [1]  # type: ignore[union-attr]


# --- Karnaval (K13-K16, KC3, KC9-KC11) ---


def test_k13_karnaval_counts_two_tricks_for_its_leader() -> None:
    k = table(
        [
            ["9H", "9H", "AS", "6D", "7D", "8D"],
            ["KS", "QS", "10S", "9D", "10D", "JD"],
            ["AD", "6S", "7C", "8C", "9C", "10C"],
        ],
        bids=[1, 1, 1],
    )
    play_all(k, [(0, ("9H", "9H"), None), (1, ("KS", "QS"), None), (2, ("AD", "6S"), None)])
    d = k.current
    assert d is not None and d.tricks == [0, 0] and k.turn == 0


def test_k13_kc9_any_two_cards_and_a_single_card_is_refused() -> None:
    k = table(
        [
            ["9H", "9H", "AS", "6D", "7D", "8D"],
            ["KS", "KS", "10S", "8H", "10D", "JD"],
            ["AD", "6S", "7C", "8C", "9C", "JK"],
        ],
        bids=[1, 1, 1],
    )
    k.play(0, ("9H", "9H"))
    with pytest.raises(IllegalPlay, match="P2 must give two cards"):
        k.play(1, ("8H",))
    k.play(1, ("KS", "10D"))  # breaks a pair, ignores the suit
    k.play(2, ("JK", "7C"))  # a joker given has no value
    assert k.current.tricks == [0, 0]  # type: ignore[union-attr]


def test_k13_not_a_karnaval() -> None:
    k = table([H1, H2, H3], bids=[1, 1, 1])
    with pytest.raises(IllegalPlay, match=r"AS KS is not a Karnaval \(two identical cards\)"):
        k.play(0, ("AS", "KS"))


@pytest.mark.parametrize(
    ("new", "held", "trump", "beats"),
    [
        (("KH", "KH"), ("9H", "9H"), "C", True),  # same suit, higher
        (("8H", "8H"), ("9H", "9H"), "C", False),  # same suit, lower
        (("6C", "6C"), ("AH", "AH"), "C", True),  # a trump pair beats a non-trump one
        (("6C", "6C"), ("9C", "9C"), "C", False),  # a lower trump pair
        (("AS", "AS"), ("9H", "9H"), "C", False),  # another non-trump suit never takes
        (("JK", "JK"), ("AC", "AC"), "C", True),  # two jokers beat any pair
        (("JK", "JK"), ("JK", "JK"), "C", True),  # the later joker pair
        (("AC", "AC"), ("JK", "JK"), "C", False),
        (("KS", "KS"), ("JK", "QS"), "C", True),  # joker + card is a Karnaval of the card
        (("QS", "QS"), ("QS", "JK"), "C", False),
        (("6C", "6C"), ("JK", "AS"), "C", True),
        (("KH", "QH"), ("9H", "9H"), "C", False),  # not two identical cards
        (("6C", "6C"), ("AH", "AH"), None, False),  # no trump deal: no trump Karnaval
    ],
)
def test_k14_kc3_which_pair_takes_a_karnaval(
    new: tuple[str, str], held: tuple[str, str], trump: str | None, beats: bool
) -> None:
    assert pair_beats(new, held, trump) is beats


def test_k14_kc3_takes_in_turn_and_the_holder_leads() -> None:
    k = table(
        [
            ["9H", "9H", "AS", "6D", "7D", "8D"],
            ["KH", "KH", "10S", "9S", "10D", "JD"],
            ["6C", "6C", "7C", "8C", "AD", "KD"],
        ],
        top=("9C",),
        bids=[1, 1, 1],
    )
    k.play(0, ("9H", "9H"))
    k.play(1, ("KH", "KH"), "take")
    with pytest.raises(IllegalPlay, match="P3 cannot take with 7C 8C \\(not a Karnaval\\)"):
        k.play(2, ("7C", "8C"), "take")
    k.play(2, ("6C", "6C"), "take")
    assert k.current.tricks == [2, 2] and k.turn == 2  # type: ignore[union-attr]


def test_k14_taking_is_never_a_duty() -> None:
    k = table(
        [
            ["9H", "9H", "AS", "6D", "7D", "8D"],
            ["KH", "KH", "10S", "9S", "10D", "JD"],
            ["AD", "6S", "7C", "8C", "9C", "10C"],
        ],
        bids=[1, 1, 1],
    )
    play_all(k, [(0, ("9H", "9H"), None), (1, ("KH", "KH"), None), (2, ("AD", "6S"), None)])
    assert k.current.tricks == [0, 0]  # type: ignore[union-attr]


def test_k15_kc10_karnaval_set_aside_seed_example() -> None:
    # Trumps hearts, spades led, hand QS QS 9H 9H 7H 8D (KARNAVAL.md KC10).
    hand = ["QS", "QS", "9H", "9H", "7H", "8D"]
    assert legal_follow_cards(hand, "S", "H") == {"QS", "9H", "7H"}


def test_k15_a_karnaval_set_aside_frees_from_the_suit() -> None:
    # The seed's note B: a QS Karnaval and no other spade, no trump: any card.
    assert legal_follow_cards(["QS", "QS", "8D", "7C"], "S", "H") == {"QS", "8D", "7C"}
    # A single spade beside the Karnaval still obliges.
    assert legal_follow_cards(["QS", "QS", "9S", "8D"], "S", "H") == {"QS", "9S"}


def test_k15_a_trump_karnaval_set_aside_frees_from_trumping() -> None:
    assert legal_follow_cards(["9H", "9H", "8D", "7C"], "S", "H") == {"9H", "8D", "7C"}
    assert legal_follow_cards(["9H", "9H", "7H", "8D"], "S", "H") == {"9H", "7H"}


def test_k15_error_follow_or_trump_when_all_the_suit_is_in_karnavals() -> None:
    k = table(
        [
            ["AS", "KD", "KC", "6C", "7C", "8C"],
            ["QS", "QS", "9H", "9H", "7H", "8D"],
            ["6S", "7S", "8S", "9S", "10S", "JS"],
        ],
        top=("AH",),
        bids=[1, 1, 1],
    )
    k.play(0, ("AS",))
    with pytest.raises(IllegalPlay, match=r"P2 must follow spades or play a trump \(hearts\)"):
        k.play(1, ("8D",))
    k.play(1, ("9H",))


def _four_jokers() -> Karnaval:
    return table(
        [
            ["JK", "JK", "JK", "JK", "QS", "7H"],
            ["KS", "KS", "8H", "9H", "10C", "JC"],
            ["AH", "KH", "QH", "6D", "7D", "8D"],
        ],
        top=("AD",),
        bids=[1, 1, 1],
    )


def test_k16_kc11_two_jokers_only_while_holding_three_or_four() -> None:
    k = table(
        [
            ["JK", "JK", "AS", "6D", "7D", "8D"],
            ["JK", "QS", "10S", "9D", "10D", "JD"],
            ["JK", "AD", "6S", "7C", "8C", "9C"],
        ],
        bids=[1, 1, 1],
    )
    with pytest.raises(IllegalPlay, match="P1 may not lead two jokers as a Karnaval holding only"):
        k.play(0, ("JK", "JK"))
    k3 = table(
        [
            ["JK", "JK", "JK", "6D", "7D", "8D"],
            ["JK", "QS", "10S", "9D", "10D", "JD"],
            ["AS", "AD", "6S", "7C", "8C", "9C"],
        ],
        bids=[1, 1, 1],
    )
    play_all(k3, [(0, ("JK", "JK"), None), (1, ("JK", "QS"), None), (2, ("AS", "AD"), None)])
    assert k3.current.tricks == [0, 0]  # type: ignore[union-attr]


def test_k16_kc11_joker_with_a_card_for_the_holder_of_all_four_all_deal() -> None:
    k = _four_jokers()
    play_all(k, [(0, ("JK", "QS"), None), (1, ("KS", "KS"), "take"), (2, ("6D", "7D"), None)])
    assert k.current.tricks == [1, 1]  # type: ignore[union-attr]
    play_all(k, [(1, "8H", None), (2, "QH", None), (0, "JK", "top")])
    # Holding two jokers now, P1 may still pair a joker with a card, not the two jokers.
    pairs = k.lead_pairs(0)
    assert ("JK", "7H") in pairs and ("JK", "JK") not in pairs
    k.play(0, ("JK", "7H"))


def test_kc11_joker_with_a_card_refused_to_others() -> None:
    k = table(
        [
            ["JK", "JK", "JK", "AS", "6D", "7D"],
            ["JK", "QS", "10S", "9D", "10D", "JD"],
            ["AD", "6S", "7C", "8C", "9C", "10C"],
        ],
        bids=[1, 1, 1],
    )
    with pytest.raises(IllegalPlay, match="JK AS is a Karnaval only for a player dealt all four"):
        k.play(0, ("JK", "AS"))


def test_kc11_a_follower_never_pairs_a_joker_with_a_card_to_take() -> None:
    k = table(
        [
            ["9H", "9H", "AS", "6D", "7D", "8D"],
            ["JK", "KH", "10S", "9S", "10D", "JD"],
            ["AD", "6S", "7C", "8C", "9C", "10C"],
        ],
        bids=[1, 1, 1],
    )
    k.play(0, ("9H", "9H"))
    with pytest.raises(IllegalPlay, match="cannot take with JK KH"):
        k.play(1, ("JK", "KH"), "take")


# --- scoring (K17-K20, KC12) ---


@pytest.mark.parametrize(
    ("bid", "took", "points"),
    [
        (2, 2, 20),  # K17
        (0, 0, 5),  # K17
        (3, 1, 1),  # K18
        (3, 0, 0),  # K18
        (5, 6, 30),  # K19
        (3, 5, -10),  # K19
        (0, 2, -40),  # K19
    ],
)
def test_k17_k18_k19_deal_scores(bid: int, took: int, points: int) -> None:
    assert score(bid, took) == points


def test_k20_kc12_quarter_premium_penalty_and_winners() -> None:
    from tests.games.karnaval.playout import play_match

    k = play_match(11, 3, check=False).match
    rows = k.quarter_rows()
    assert len(rows) == 4
    for row in rows:
        for s in range(3):
            assert row["totals"][s] == row["sums"][s] + row["premiums"][s] + row["penalties"][s]
            assert row["penalties"][s] == (-60 if row["sums"][s] < 0 else 0)
            assert not (row["premiums"][s] and row["penalties"][s])
    totals = k.totals()
    assert totals is not None
    assert k.winners == [s for s in k.order if totals[s] == max(totals)]


def _kc10_by_definition(hand: list[str], led: str, trump: str | None) -> set[str]:
    """KC10 read literally: a card is legal when, for some set of Karnavals set aside that keeps
    it, K7 allows it among the cards not set aside (jokers always, K9)."""
    from itertools import combinations

    pairs = sorted({c for c in hand if c != "JK" and hand.count(c) == 2})
    legal = {"JK"} & set(hand)
    for r in range(len(pairs) + 1):
        for aside in combinations(pairs, r):
            rest = [c for c in hand if c not in aside]
            same = [c for c in rest if c != "JK" and c[-1] == led]
            trumps = [c for c in rest if c != "JK" and trump is not None and c[-1] == trump]
            legal |= set(same or trumps or rest)
    return legal


def test_kc10_formula_agrees_with_the_definition_on_random_hands() -> None:
    import random

    rng = random.Random(7)
    deck = full_deck()
    for _ in range(3000):
        # Small suits make pairs likely: draw from two suits and a few ranks.
        pool = [c for c in deck if c == "JK" or (c[-1] in "SH" and c[:-1] in ("A", "K", "9", "7"))]
        hand = rng.sample(pool, rng.randrange(1, 9))
        led = rng.choice("SH")
        trump = rng.choice(["S", "H", "D", None])
        assert legal_follow_cards(hand, led, trump) == _kc10_by_definition(hand, led, trump), (
            hand,
            led,
            trump,
        )
