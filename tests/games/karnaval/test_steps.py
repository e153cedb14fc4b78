"""The step API of the Karnaval engine: deciders, choices, act, events, views, to_dict.

A play needing a further choice is split into steps (K10 declare, K9/K11 place, KC9 the two
cards given, K14 take or not); `choices` lists exactly what `act` accepts.
"""

from __future__ import annotations

import json
import random

import pytest

from bot.games.karnaval.engine import (
    Choice,
    IllegalChoice,
    IllegalPlay,
    Karnaval,
    MatchOver,
    NotYourTurn,
    WrongPhase,
)
from bot.games.karnaval.engine.cards import full_deck
from tests.games.karnaval.helpers import table
from tests.games.karnaval.playout import play_match


def _tokens(k: Karnaval, seat: int) -> list[str]:
    return [c.token for c in k.choices(seat)]


def test_k3_k4_deal_phase_has_no_deciders_and_hands_are_private() -> None:
    k = Karnaval(["Ann", "Bob", "Cy"])
    assert k.phase == "deal" and k.deciders() == [] and k.next_dealer == 2
    deck = full_deck()
    random.Random(1).shuffle(deck)
    events = k.start_deal(*k.deal_from(deck))
    dealt = events[0]
    assert dealt.kind == "dealt" and dealt.public and dealt.cards == (k.current.trump_card,)  # type: ignore[union-attr]
    hands = [e for e in events if e.kind == "hand"]
    assert [e.audience for e in hands] == [0, 1, 2]
    assert all(not e.public and len(e.cards) == 6 for e in hands)
    with pytest.raises(WrongPhase):
        k.start_deal(*k.deal_from(deck))


def test_k6_bid_choices_leave_out_the_barred_number() -> None:
    k = table([["AS", "KS", "6H", "7H", "8D", "9D"], ["QS", "10S", "AH", "9C", "10C", "JC"],
               ["JS", "9S", "KH", "QC", "KC", "7D"]])  # fmt: skip
    assert k.deciders() == [0]
    assert _tokens(k, 0) == [f"bid:{b}" for b in range(7)]
    assert _tokens(k, 1) == []
    k.act(0, "bid", "2")
    k.act(1, "bid", "3")
    assert "bid:1" not in _tokens(k, 2)
    with pytest.raises(Exception, match="barred") as info:
        k.act(2, "bid", "1")
    assert info.value.key == "karnaval.error.barred_bid"  # type: ignore[attr-defined]
    with pytest.raises(NotYourTurn):
        k.act(0, "bid", "0")
    events = k.act(2, "bid", "0")
    assert [e.kind for e in events] == ["bid"] and events[0].numbers == (0,)
    assert k.phase == "play" and k.deciders() == [0]


def test_k10_leading_a_joker_is_two_steps() -> None:
    k = table([["JK", "KS", "6H", "7H", "8D", "9D"], ["QS", "10S", "AH", "9C", "10C", "JC"],
               ["JS", "9S", "KH", "QC", "KC", "7D"]], bids=[1, 1, 1])  # fmt: skip
    assert "play:JK" in _tokens(k, 0)
    assert k.act(0, "play", "JK") == []
    assert _tokens(k, 0) == ["declare:high", "declare:low"]
    events = k.act(0, "declare", "low")
    assert [(e.kind, e.cards, e.detail) for e in events] == [("played", ("JK",), "low")]
    assert k.turn == 1


def test_k9_k11_following_joker_or_equal_card_asks_top_or_under() -> None:
    k = table([["QS", "KS", "6H", "7H", "8D", "9D"], ["QS", "JK", "AH", "9C", "10C", "JC"],
               ["JS", "9S", "KH", "QC", "KC", "7D"]], bids=[1, 1, 1])  # fmt: skip
    k.act(0, "play", "QS")
    assert _tokens(k, 1) == ["play:JK", "play:QS"]  # K7: spades (and the joker)
    assert k.act(1, "play", "QS") == []
    assert _tokens(k, 1) == ["place:top", "place:under"]
    events = k.act(1, "place", "under")
    assert events[0].detail == "under"
    k.act(2, "play", "JS")
    assert k.current.tricks == [0]  # type: ignore[union-attr]


def test_k13_k16_lead_choices_offer_karnavals() -> None:
    k = table([["JK", "JK", "JK", "9H", "9H", "8D"], ["QS", "JK", "AH", "9C", "10C", "JC"],
               ["JS", "9S", "KH", "QC", "KC", "7D"]], bids=[1, 1, 1])  # fmt: skip
    tokens = _tokens(k, 0)
    assert "karnaval:JK JK" in tokens and "karnaval:9H 9H" in tokens
    assert not any(t.startswith("karnaval:JK 9H") for t in tokens)  # KC11: not dealt four
    assert all(len(t.encode()) < 40 for t in tokens)


def test_kc9_k14_giving_is_two_steps_then_take_or_not() -> None:
    k = table([["9H", "9H", "AS", "6D", "7D", "8D"], ["KH", "KH", "10S", "9S", "10D", "JD"],
               ["AD", "6S", "7C", "8C", "9C", "10C"]], bids=[1, 1, 1])  # fmt: skip
    k.act(0, "karnaval", "9H 9H")
    assert _tokens(k, 1) == ["give:10S", "give:9S", "give:KH", "give:JD", "give:10D"]
    assert k.act(1, "give", "KH") == []
    assert "give:KH" in _tokens(k, 1)  # the other KH
    assert k.act(1, "give", "KH") == []
    assert _tokens(k, 1) == ["take:yes", "take:no"]
    events = k.act(1, "take", "yes")
    assert (events[0].kind, events[0].detail) == ("gave", "take")
    k.act(2, "give", "AD")
    events = k.act(2, "give", "6S")  # not identical: given at once
    assert [e.kind for e in events] == ["gave", "trick"]
    assert events[1].seat == 1 and events[1].numbers == (2, 2)


def test_act_refuses_what_is_not_a_choice_with_a_typed_error() -> None:
    k = table([["AS", "KS", "6H", "7H", "8D", "9D"], ["QS", "10S", "AH", "9C", "10C", "JC"],
               ["JS", "9S", "KH", "QC", "KC", "7D"]], bids=[1, 1, 1])  # fmt: skip
    k.act(0, "play", "AS")
    with pytest.raises(IllegalPlay, match="P2 must follow spades") as info:
        k.act(1, "play", "AH")
    assert info.value.rule == "K7"
    with pytest.raises(IllegalPlay, match="does not hold"):
        k.act(1, "play", "KD")
    with pytest.raises(IllegalChoice) as info2:
        k.act(1, "declare", "high")
    assert info2.value.key == "karnaval.error.not_a_choice"
    with pytest.raises(NotYourTurn):
        k.act(2, "play", "JS")


def test_view_for_shows_own_hand_sorted_trumps_marked_and_the_trick() -> None:
    k = table([["AS", "KS", "6C", "7H", "8D", "JK"], ["QS", "10S", "AH", "9C", "10C", "JC"],
               ["JS", "9S", "KH", "QC", "KC", "7D"]], top=("AC",), bids=[1, 1, 1])  # fmt: skip
    k.act(0, "play", "AS")
    view = k.view_for(1)
    assert [h["card"] for h in view["hand"]] == ["JC", "10C", "9C", "QS", "10S", "AH"]
    assert [h["trump"] for h in view["hand"]] == [True, True, True, False, False, False]
    assert view["trick"] == [{"player": "P1", "cards": ["AS"], "choice": None, "winning": True}]
    assert view["turn"] == "P2" and view["choices"] == ["play:QS", "play:10S"]
    assert view["deal"]["trump_card"] == "AC" and view["deal"]["bids"] == {
        "P1": 1,
        "P2": 1,
        "P3": 1,
    }
    public = k.view_for(-1)
    assert public["hand"] == [] and public["choices"] == []
    assert view["hand"] != k.view_for(0)["hand"]
    json.dumps(view)


def test_k20_sheet_rows_labelled_with_cards_quarters_and_total() -> None:
    k = play_match(2, 3, check=False).match
    sheet = k.sheet()
    assert sheet["players"] == [k.names[s] for s in k.order]
    labels = [r["label"] for r in sheet["rows"]]
    assert labels[:12] == ["6"] * 3 + ["Q1"] + ["8"] * 3 + ["Q2"] + ["10"] * 3 + ["Q3"]
    assert labels[12:] == ["12"] * 3 + ["Q4", "Total"]
    assert all(v is not None for r in sheet["rows"] for key in r if key in ("points",)
               for v in r[key])  # fmt: skip
    total = sheet["rows"][-1]["totals"]
    totals = k.totals()
    assert totals is not None and total == [totals[s] for s in k.order]


def test_match_over_refuses_everything() -> None:
    k = play_match(4, 3, check=False).match
    assert k.phase == "over" and k.deciders() == [] and k.winners
    with pytest.raises(MatchOver):
        k.start_deal([[]] * 3, [])
    with pytest.raises(MatchOver):
        k.act(0, "bid", "1")


def test_to_dict_round_trip_keeps_a_half_made_play() -> None:
    k = table([["9H", "9H", "AS", "6D", "7D", "8D"], ["KH", "KH", "10S", "9S", "10D", "JD"],
               ["AD", "6S", "7C", "8C", "9C", "10C"]], bids=[1, 1, 1])  # fmt: skip
    k.act(0, "karnaval", "9H 9H")
    k.act(1, "give", "KH")
    data = json.loads(json.dumps(k.to_dict()))
    k2 = Karnaval.from_dict(data)
    assert k2.to_dict() == k.to_dict()
    assert k2.choices(1) == k.choices(1)
    k2.act(1, "give", "KH")
    assert k2.choices(1) == [Choice("take", "yes"), Choice("take", "no")]


def test_k2_kc4_draw_events_are_public() -> None:
    k = Karnaval(["Ann", "Bob", "Cy"], [{0: "6S", 1: "6H", 2: "9C"}, {0: "KS", 1: "QS"}])
    events = k.draw_events()
    assert [e.kind for e in events] == ["drew", "drew", "first_player"]
    assert events[1].numbers == (2, 0, 1) and events[1].cards == ("KS", "QS")
    assert events[-1].seat == 1 and all(e.public for e in events)
