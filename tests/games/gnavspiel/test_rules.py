"""Every Gnavspiel rule and convention (RULES.md section 3, G1-G10, C5, C9-C24) on small deals.

Test names start with the rule ids they exercise. Deals are written as card names; the stock
is the listed top followed by every other card (tests/games/gnavspiel/helpers.py).
"""

from __future__ import annotations

import json

import pytest

from bot.games.gnavspiel.engine import (
    CARD_NAMES,
    DECK,
    Choice,
    IllegalChoice,
    InvalidDeal,
    InvalidSettings,
    Match,
    MatchOver,
    NotYourTurn,
    RoundOver,
    RuleError,
    Settings,
    VariantNotInPlay,
)
from bot.games.gnavspiel.engine.events import CARD_PUBLIC_KINDS
from tests.games.gnavspiel.helpers import (
    cards,
    full_stock,
    hand,
    log_texts,
    new_match,
    play,
    start,
    texts,
)


def seat(m: Match, name: str) -> int:
    return m.seats.index(name)


def actions(m: Match, name: str) -> list[str]:
    return [c.action for c in m.choices(seat(m, name))]


# ----------------------------------------------------------------------------- G1, G2, C14
def test_g1_deck_is_fourteen_cards_joker_lowest_king_highest() -> None:
    assert len(DECK) == 14 and CARD_NAMES[0] == "Joker" and CARD_NAMES[-1] == "K"
    assert list(CARD_NAMES[1:11]) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]


@pytest.mark.parametrize("count", [1, 7])
def test_g1_two_to_six_players(count: int) -> None:
    with pytest.raises(InvalidSettings) as exc:
        Match([f"P{i}" for i in range(count)])
    assert exc.value.rule == "G1"


def test_g1_a_card_dealt_twice_is_invalid() -> None:
    m = Match(["Ann", "Bob"])
    with pytest.raises(InvalidDeal) as exc:
        m.start_deal(cards(["K", "K"]), cards(["A", "2", "3"]))
    assert "appears twice" in exc.value.message


def test_g2_ante_one_chip_each_before_the_first_deal_only() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, chips=4)
    assert m.chips == [3, 3, 3] and m.pot == 3
    assert log_texts(m)[0] == "ante"
    play(m, "Ann pass", "Bob pass", "Cid pass")  # Ann pays: lowest (G7)
    start(m, {"Ann": "3", "Bob": "9", "Cid": "5"})
    assert "ante" not in log_texts(m)
    assert m.pot == 4 and m.chips == [2, 3, 3]


def test_c14_chips_at_least_two_and_table_limits() -> None:
    with pytest.raises(InvalidSettings) as exc:
        Match(["Ann", "Bob"], chips=1)
    assert exc.value.rule == "C14"
    assert Match(["Ann", "Bob"]).settings.chips == 5
    Settings(chips=20, deals=100).check_table_limits()
    with pytest.raises(InvalidSettings):
        Settings(chips=21).check_table_limits()
    with pytest.raises(InvalidSettings):
        Settings(deals=101).check_table_limits()


# ----------------------------------------------------------------------------- G3, C9
def test_g3_deal_from_gives_one_card_each_from_the_dealers_left_rest_is_stock() -> None:
    m = Match(["Ann", "Bob", "Cid"], dealer=1)
    deal, stock = m.deal_from(list(range(14)))
    assert deal == [1, 2, 0]  # Cid (dealer's left) first, then Ann, then Bob
    assert stock == list(range(3, 14))
    m.start_deal(deal, stock)
    assert m.cards_accounted()


def test_g3_the_deal_must_cover_exactly_the_players_still_in() -> None:
    m = Match(["Ann", "Bob", "Cid"])
    with pytest.raises(InvalidDeal) as exc:
        m.start_deal({0: 1, 1: 2}, full_stock({"Ann": "A", "Bob": "2"}))
    assert exc.value.message == "the deal must give one card to each player still in: Ann, Bob, Cid"


def test_c9_deal_passes_left_to_the_next_player_still_in() -> None:
    # Cid deals; Dot (Cid's left) declines the loan and goes out: the deal skips Dot to Ann.
    m = new_match({"Ann": "5", "Bob": "6", "Cid": "7", "Dot": "3"}, dealer="Cid", chips=2)
    play(m, "Dot pass", "Ann pass", "Bob pass", "Cid pass", "Dot decline")
    assert not m.in_match[seat(m, "Dot")]
    assert m.dealer == seat(m, "Ann")
    # The dealer itself going out also passes the deal on to its left.
    m2 = new_match({"Ann": "5", "Bob": "6", "Cid": "3"}, dealer="Cid", chips=2)
    play(m2, "Ann pass", "Bob pass", "Cid pass", "Cid decline")
    assert m2.dealer == seat(m2, "Ann")


# ----------------------------------------------------------------------------- G4, C5, C15
def test_g4_a_player_passes_or_offers_to_its_left_neighbour() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"})
    assert m.deciders() == [0]
    assert m.choices(0) == [Choice("pass"), Choice("offer", "1")]
    assert m.choices(1) == [] and m.choices(2) == []


def test_g4_accept_swaps_the_cards_unseen_and_ends_the_offerers_turn() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"})
    events = play(m, "Ann offer", "Bob accept")
    assert texts(m, events) == ["offer Ann Bob", "accept Bob"]
    assert hand(m, "Ann") == "9" and hand(m, "Bob") == "3"
    private = [e for e in events if not e.public]
    assert {(e.audience, e.card) for e in private} == {(0, 9), (1, 3)}
    assert m.deciders() == [1]  # Bob's own turn


def test_g4_refusal_reveals_nothing_offerer_offers_on_or_stops() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5", "Dot": "8"})
    events = play(m, "Ann offer", "Bob refuse")
    assert texts(m, events) == ["offer Ann Bob", "refuse Bob"]
    assert all(e.card == -1 for e in events)
    assert m.choices(0) == [Choice("offer", "2"), Choice("stop")]
    play(m, "Ann offer", "Cid refuse", "Ann stop")
    assert log_texts(m)[-1] == "stop Ann" and m.deciders() == [1]
    assert hand(m, "Ann") == "3"


def test_c5_a_refusal_by_the_dealer_ends_the_offerers_turn() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"})
    play(m, "Ann offer", "Bob refuse", "Ann offer", "Cid refuse")
    assert m.deciders() == [1]  # Bob's turn: Ann keeps its card, no wrap past Cid
    assert hand(m, "Ann") == "3"
    play(m, "Bob offer", "Cid refuse")
    assert m.deciders() == [2]


def test_c15_a_player_who_answered_or_swapped_still_takes_its_turn() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5", "Dot": "8"})
    play(m, "Ann offer", "Bob refuse", "Ann offer", "Cid accept")
    assert m.deciders() == [1]
    play(m, "Bob pass")
    assert m.deciders() == [2] and hand(m, "Cid") == "3"
    play(m, "Cid offer", "Dot accept")
    assert hand(m, "Dot") == "3" and m.deciders() == [3]


# ----------------------------------------------------------- G5, C10, C11, C16, C17
def test_g5_the_dealer_acts_last_pass_offer_first_player_or_draw() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"})
    play(m, "Ann pass", "Bob pass")
    assert m.choices(2) == [Choice("pass"), Choice("offer", "0"), Choice("draw")]


def test_g5_draw_puts_own_card_under_and_takes_the_top() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["7"])
    events = play(m, "Ann pass", "Bob pass", "Cid draw")
    assert texts(m, events)[:3] == ["pass Ann", "pass Bob", "draw Cid"]
    assert m.log is not None and m.log.hands[2] == 7
    assert not any(e.public and e.card == 7 for e in events)  # the drawn card stays hidden
    assert next(e for e in events if not e.public and e.detail == "draw").audience == 2


def test_g5_dealer_draws_taboo_king_shown_and_next_taken() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["K", "2"])
    play(m, "Ann pass", "Bob pass", "Cid draw")
    assert log_texts(m)[3:6] == ["draw Cid", "taboo Cid K", "reveal"]
    assert m.log is not None and m.log.hands[2] == 2


@pytest.mark.parametrize("top", [("Q", "K"), ("K", "Q")])
def test_g5_second_taboo_card_dealer_takes_its_own_card_back(top: tuple[str, str]) -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, top)
    play(m, "Ann pass", "Bob pass", "Cid draw")
    assert log_texts(m)[3:7] == [
        "draw Cid",
        f"taboo Cid {top[0]}",
        f"taboo Cid {top[1]}",
        "take_back Cid",
    ]
    assert m.log is not None and m.log.hands[2] == 5


def test_c10_c11_first_player_refuses_the_dealer_who_may_draw_or_stop() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["7"])
    play(m, "Ann pass", "Bob pass", "Cid offer", "Ann refuse")
    assert m.choices(2) == [Choice("draw"), Choice("stop")]
    with pytest.raises(IllegalChoice) as exc:
        m.act(2, "offer")
    assert (
        exc.value.message == 'Cid was refused by Ann: it may "draw" or "stop", not "offer"'
        " (C11, C16)"
    )
    play(m, "Cid stop")
    assert log_texts(m)[-3:] == ["stop Cid", "reveal", "pay Ann"]


def test_c16_the_dealers_offer_goes_to_the_first_player_only() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"})
    play(m, "Ann pass", "Bob pass")
    assert Choice("offer", "0") in m.choices(2)
    with pytest.raises(IllegalChoice):
        m.act(2, "offer", "1")
    play(m, "Cid offer", "Ann accept")
    assert m.log is not None and m.log.hands == {0: 5, 1: 9, 2: 3}


def test_c17_a_draw_never_meets_the_dealers_own_or_a_taboo_card_put_under() -> None:
    # Six players: the stock holds 8 cards; the top two are both taboo.
    deal = {"Ann": "A", "Bob": "2", "Cid": "3", "Dot": "4", "Eve": "5", "Fay": "6"}
    m = new_match(deal, ["Q", "K"])
    assert len(m.stock) == 8
    play(m, "Ann pass", "Bob pass", "Cid pass", "Dot pass", "Eve pass", "Fay draw")
    assert m.log is not None and m.log.hands[5] == 6


# ----------------------------------------------------------------------------- G6, C18
def test_g6_the_player_dealt_the_joker_knocks() -> None:
    m = new_match({"Ann": "3", "Bob": "Joker", "Cid": "5"})
    assert log_texts(m) == ["ante", "knock Bob"]


def test_g6_c18_a_joker_in_the_stock_or_drawn_is_not_knocked() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["Joker"])
    assert log_texts(m) == ["ante"]
    play(m, "Ann pass", "Bob pass", "Cid draw")
    assert "knock Cid" not in log_texts(m)
    assert DECK.count(0) == 1  # C18: one Joker, so the two-Joker clauses never apply


# ----------------------------------------------------------------------------- G7
def test_g7_without_joker_the_lowest_card_pays() -> None:
    m = new_match({"Ann": "10", "Bob": "A", "Cid": "5"})
    play(m, "Ann pass", "Bob pass", "Cid pass")
    assert log_texts(m)[-2:] == ["reveal", "pay Bob"]


def test_g7_joker_holder_and_lowest_other_card_pay() -> None:
    m = new_match({"Ann": "10", "Bob": "Joker", "Cid": "5", "Dot": "2"})
    play(m, "Ann pass", "Bob pass", "Cid pass", "Dot pass")
    assert log_texts(m)[-3:] == ["reveal", "pay Bob", "pay Dot"]


def test_g7_with_two_players_and_the_joker_both_pay() -> None:
    m = new_match({"Ann": "K", "Bob": "Joker"})
    play(m, "Ann pass", "Bob pass")
    assert log_texts(m)[-3:] == ["reveal", "pay Ann", "pay Bob"]


def test_g7_a_joker_the_dealer_draws_is_in_play() -> None:
    m = new_match({"Ann": "10", "Bob": "4", "Cid": "2"}, ["Joker"])
    play(m, "Ann pass", "Bob pass", "Cid draw")
    assert log_texts(m)[-3:] == ["reveal", "pay Bob", "pay Cid"]


def test_g7_refusals_stops_taboo_cards_and_draws_cost_nothing() -> None:
    m = new_match({"Ann": "10", "Bob": "4", "Cid": "2"}, ["K", "9"])
    play(m, "Ann offer", "Bob refuse", "Ann stop", "Bob pass", "Cid draw")
    assert [t for t in log_texts(m) if t.startswith("pay")] == ["pay Bob"]
    assert m.chips == [4, 3, 4] and m.pot == 4


def test_g7_reveal_shows_every_hand_publicly() -> None:
    m = new_match({"Ann": "10", "Bob": "4", "Cid": "2"})
    events = play(m, "Ann pass", "Bob pass", "Cid pass")
    reveal = next(e for e in events if e.kind == "reveal")
    assert reveal.public and dict(reveal.data) == {0: 10, 1: 4, 2: 2}


# ----------------------------------------------------------------------------- G8, C12, C19
def test_g8_a_broke_player_borrows_one_chip_as_a_debt() -> None:
    m = new_match({"Ann": "3", "Bob": "7", "Cid": "K"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Cid pass")
    assert m.phase == "loan" and m.choices(0) == [Choice("borrow"), Choice("decline")]
    play(m, "Ann borrow")
    assert m.chips == [1, 1, 1] and m.debts == [1, 0, 0] and m.pot == 3
    assert m.phase == "deal"


def test_g8_declining_the_loan_is_out() -> None:
    m = new_match({"Ann": "3", "Bob": "7", "Cid": "K"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Cid pass", "Ann decline")
    assert log_texts(m)[-2:] == ["decline Ann", "out Ann"]
    assert m.log is not None and m.log.eliminated == [0]


def test_g8_c19_broke_after_two_loans_is_out_without_a_question() -> None:
    m = new_match({"Ann": "3", "Bob": "7", "Cid": "K"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Cid pass", "Ann borrow")
    start(m, {"Ann": "3", "Bob": "7", "Cid": "K"})
    play(m, "Bob pass", "Cid pass", "Ann pass", "Ann borrow")
    start(m, {"Ann": "3", "Bob": "7", "Cid": "K"})
    play(m, "Cid pass", "Ann pass", "Bob pass")
    assert log_texts(m)[-3:] == ["reveal", "pay Ann", "out Ann"]
    assert m.debts[0] == 2 and not m.in_match[0]


def test_c19_broke_players_asked_in_seat_order() -> None:
    # Dot deals; Bob holds the Joker, Ann the lowest other card: both broke, Ann asked first.
    m = new_match({"Ann": "2", "Bob": "Joker", "Cid": "5", "Dot": "8"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Cid pass", "Dot pass")
    assert m.deciders() == [0]
    with pytest.raises(NotYourTurn) as exc:
        m.act(1, "borrow")
    assert exc.value.rule == "C19"
    play(m, "Ann decline")
    assert m.deciders() == [1]
    play(m, "Bob borrow")
    assert log_texts(m)[-5:] == ["pay Ann", "pay Bob", "decline Ann", "borrow Bob", "out Ann"]


def test_c19_nobody_more_is_asked_once_only_one_is_left() -> None:
    m = new_match({"Ann": "K", "Bob": "Joker"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Ann decline")
    # Bob is broke too but is the only one left: not asked, it wins (C13).
    assert log_texts(m)[-4:] == ["pay Bob", "decline Ann", "out Ann", "win Bob"]
    assert m.result is not None and m.result.winner == 1 and m.result.by == "one_left"


def test_c19_the_twice_borrowed_go_first_then_the_count_decides_who_is_asked() -> None:
    # Ann has borrowed twice; at the reveal Ann and Bob are broke. Ann is out first; Bob is
    # still asked because Bob and Cid are two players still in.
    m = new_match({"Ann": "A", "Bob": "2", "Cid": "K"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Cid pass", "Ann borrow")
    start(m, {"Ann": "A", "Bob": "2", "Cid": "K"})
    play(m, "Bob pass", "Cid pass", "Ann pass", "Ann borrow")
    start(m, {"Ann": "Joker", "Bob": "2", "Cid": "K"})
    play(m, "Cid pass", "Ann pass", "Bob pass")
    assert m.deciders() == [1]
    play(m, "Bob borrow")
    assert log_texts(m)[-4:] == ["pay Ann", "pay Bob", "borrow Bob", "out Ann"]


def test_c19_no_loan_and_nobody_out_after_the_last_agreed_deal() -> None:
    m = new_match({"Ann": "3", "Bob": "7", "Cid": "K"}, chips=2, deals=1)
    play(m, "Ann pass", "Bob pass", "Cid pass")
    assert log_texts(m)[-3:] == ["reveal", "pay Ann", "win Cid"]
    assert m.phase == "over" and m.chips[0] == 0 and m.in_match[0]


def test_c12_an_empty_pot_lends_nothing_the_broke_player_is_out() -> None:
    # Ann (Joker) and Bob (lowest other card) are broke; a pot of 1 (a state C14 never
    # reaches) lends Ann its last chip, and Bob, facing an empty pot, is out.
    m = new_match({"Ann": "Joker", "Bob": "2", "Cid": "K"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Cid pass")
    m.chips[2] += m.pot - 1
    m.pot = 1
    play(m, "Ann borrow")
    assert m.pot == 0 and log_texts(m)[-2:] == ["borrow Ann", "out Bob"]
    assert m.chips_accounted()


# ----------------------------------------------------------------------------- G9, C13, C20-C23
def test_g9_c21_last_deal_highest_card_takes_the_pot_even_if_it_paid() -> None:
    m = new_match({"Ann": "K", "Bob": "Joker"}, chips=3, deals=1)
    play(m, "Ann pass", "Bob pass")
    assert log_texts(m)[-3:] == ["pay Ann", "pay Bob", "win Ann"]
    r = m.result
    assert r is not None and (r.winner, r.by, r.pot, r.takes) == (0, "deals", 4, 4)
    assert r.balance == (5, 1)


def test_c21_stock_and_taboo_cards_do_not_count_for_the_highest_card() -> None:
    m = new_match({"Ann": "9", "Bob": "4", "Cid": "5"}, ["K", "10"], deals=1)
    play(m, "Ann pass", "Bob pass", "Cid draw")
    assert m.result is not None and m.seats[m.result.winner] == "Cid"  # 10 beats 9; K shown


def test_c13_the_last_player_left_wins_and_collects_debts() -> None:
    m = new_match({"Ann": "3", "Bob": "7"}, chips=2)
    play(m, "Ann pass", "Bob pass", "Ann borrow")
    start(m, {"Ann": "3", "Bob": "7"})
    play(m, "Bob pass", "Ann pass", "Ann decline")
    r = m.result
    assert r is not None and (r.winner, r.by) == (1, "one_left")
    assert r.collects == ((0, 1),) and r.takes == r.pot + 1
    assert sum(r.balance) == 4 and r.balance[0] == -1


def test_c20_an_agreed_length_match_ends_early_when_one_is_left() -> None:
    m = new_match({"Ann": "3", "Bob": "7"}, chips=2, deals=5)
    play(m, "Ann pass", "Bob pass", "Ann decline")
    assert m.result is not None and m.result.by == "one_left" and m.deal_no == 1


def test_c22_last_two_out_at_the_same_reveal_highest_card_wins() -> None:
    m = new_match({"Ann": "Joker", "Bob": "8"}, chips=2)
    for _ in range(2):
        play(m, *(f"{m.seats[s]} pass" for s in m.order), "Ann borrow", "Bob borrow")
        start(m, {"Ann": "Joker", "Bob": "8"})
    play(m, *(f"{m.seats[s]} pass" for s in m.order))
    assert log_texts(m)[-5:] == ["pay Ann", "pay Bob", "out Ann", "out Bob", "win Bob"]
    r = m.result
    assert r is not None and (r.winner, r.by) == (1, "all_out")
    assert m.log is not None and m.log.eliminated == [0, 1]
    # C23: Bob's own debt is cancelled, Ann's collected; balances add up to the start.
    assert r.collects == ((0, 2),) and r.balance == (-2, 0 + m.pot + 2) and sum(r.balance) == 4


def test_c23_winner_takes_pot_and_debts_own_debt_cancelled() -> None:
    m = new_match({"Ann": "3", "Bob": "7", "Cid": "K"}, chips=2, deals=2)
    play(m, "Ann pass", "Bob pass", "Cid pass", "Ann borrow")
    start(m, {"Ann": "K", "Bob": "7", "Cid": "Joker"})
    play(m, "Bob pass", "Cid pass", "Ann pass")
    r = m.result
    assert r is not None and m.seats[r.winner] == "Ann"
    assert r.collects == () and r.balance[0] == m.chips[0] + m.pot
    assert sum(r.balance) == 6


# ----------------------------------------------------------------------------- G10, C24
def test_g10_stand_is_not_in_play_without_the_variant() -> None:
    m = new_match({"Ann": "3", "Bob": "K", "Cid": "5"})
    play(m, "Ann offer")
    assert actions(m, "Bob") == ["accept", "refuse"]
    with pytest.raises(VariantNotInPlay) as exc:
        m.act(1, "stand")
    assert exc.value.message == '"stand" is a table variant that is not in play here (G10)'


def test_c24_stand_needs_the_queen_or_king_a_jack_gives_no_right() -> None:
    m = new_match({"Ann": "3", "Bob": "J", "Cid": "Q"}, variants=["stand", "jack_taboo"])
    play(m, "Ann offer")
    assert actions(m, "Bob") == ["accept", "refuse"]
    with pytest.raises(IllegalChoice):
        m.act(1, "stand")
    play(m, "Bob refuse", "Ann offer")
    assert actions(m, "Cid") == ["accept", "refuse", "stand"]


def test_c24_stand_answers_the_dealers_offer_and_ends_the_round() -> None:
    m = new_match({"Ann": "Q", "Bob": "3", "Cid": "A"}, variants=["stand"])
    play(m, "Ann pass", "Bob pass", "Cid offer", "Ann stand")
    assert log_texts(m)[-4:] == ["offer Cid Ann", "stand Ann Q", "reveal", "pay Cid"]
    assert m.log is not None and m.log.end == "stand"


def test_c24_a_stand_ends_the_round_before_later_turns_and_the_dealer() -> None:
    m = new_match({"Ann": "3", "Bob": "K", "Cid": "5", "Dot": "A"}, variants=["stand"])
    play(m, "Ann offer", "Bob stand")
    assert m.phase == "deal" and log_texts(m)[-2:] == ["reveal", "pay Dot"]


def test_c24_jack_taboo_makes_a_drawn_jack_taboo() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["J", "2"], variants=["jack_taboo"])
    play(m, "Ann pass", "Bob pass", "Cid draw")
    assert "taboo Cid J" in log_texts(m)
    m2 = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, ["J", "2"])
    play(m2, "Ann pass", "Bob pass", "Cid draw")
    assert m2.log is not None and m2.log.hands[2] == 11


# ----------------------------------------------------------------------------- table rule, errors
def test_g4_g5_c11_c19_timeouts_pass_refuse_stop_borrow() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"}, chips=2)
    assert m.timeout_choice(0) == Choice("pass") and m.timeout_choice(1) is None
    play(m, "Ann offer")
    assert m.timeout_choice(1) == Choice("refuse")
    play(m, "Bob refuse")
    assert m.timeout_choice(0) == Choice("stop")
    play(m, "Ann stop", "Bob pass", "Cid offer", "Ann refuse")
    assert m.timeout_choice(2) == Choice("stop")
    play(m, "Cid stop")
    assert m.timeout_choice(0) == Choice("borrow")


def test_g4_errors_carry_rule_key_params_and_message() -> None:
    m = new_match({"Ann": "3", "Bob": "9", "Cid": "5"})
    play(m, "Ann offer")
    with pytest.raises(NotYourTurn) as exc:
        m.act(2, "accept")
    e = exc.value
    assert isinstance(e, RuleError) and e.rule == "G4"
    assert e.key == "gnavspiel.error.not_your_answer"
    assert e.params == {"player": "Bob", "other": "Cid", "offerer": "Ann"}
    assert e.message == "it is Bob's turn to answer Ann's offer, not Cid's"
    play(m, "Bob refuse", "Ann stop")
    with pytest.raises(IllegalChoice) as exc2:
        m.act(1, "draw")
    assert exc2.value.message == "only the dealer draws from the stock (G5)"


def test_g3_g9_acting_between_deals_or_after_the_match_is_refused() -> None:
    m = new_match({"Ann": "3", "Bob": "7"}, deals=1)
    play(m, "Ann pass", "Bob pass")
    with pytest.raises(MatchOver):
        m.act(0, "pass")
    m2 = new_match({"Ann": "3", "Bob": "7"})
    play(m2, "Ann pass", "Bob pass")
    with pytest.raises(RoundOver):
        m2.act(0, "pass")


def test_g1_g9_to_dict_round_trip_at_every_step() -> None:
    m = new_match({"Ann": "3", "Bob": "Joker", "Cid": "5"}, ["Q", "K"], chips=2)
    for step in ("Ann offer", "Bob refuse", "Ann offer", "Cid accept", "Bob pass", "Cid draw"):
        copy = Match.from_dict(json.loads(json.dumps(m.to_dict())))
        assert copy.to_dict() == m.to_dict()
        name, verb = step.split()
        assert copy.act(m.seats.index(name), verb) == m.act(m.seats.index(name), verb)
    assert Match.from_dict(json.loads(json.dumps(m.to_dict()))).to_dict() == m.to_dict()


def test_g5_g10_public_events_carry_only_cards_the_rules_show() -> None:
    m = new_match({"Ann": "3", "Bob": "K", "Cid": "5"}, ["Q", "7"], variants=["stand"])
    events = play(m, "Ann offer", "Bob refuse", "Ann stop", "Bob pass", "Cid draw")
    for e in events:
        if e.public and e.kind != "reveal":
            assert e.card == -1 or e.kind in CARD_PUBLIC_KINDS
        if not e.public:
            assert e.kind == "card" and e.seats == (e.audience,)
