"""Invalid gnavspiel records: one error line naming round and action (MATCH_RECORD.md Errors).

Each case mutates a public vector and expects the exact line; a few also go through the CLI
(exit status 2, the line on stderr).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.games.gnavspiel.engine.record import RecordError, replay_record
from tests.games.gnav.engine.vectors import load_json, run_gnav_bot

PUBLIC = Path(__file__).resolve().parents[2] / "vectors" / "gnavspiel" / "public"


def vector(name: str) -> dict[str, Any]:
    return load_json(PUBLIC / f"{name}.json")


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(rec: dict[str, Any]) -> None:
        node: Any = rec
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    def change(rec: dict[str, Any]) -> None:
        del rec[key]

    return change


def _drop_last_action(rec: dict[str, Any]) -> None:
    rec["rounds"][0]["actions"].pop()


def _stock_without_joker(rec: dict[str, Any]) -> None:
    rec["rounds"][0]["stock"].remove("Joker")


def _deals_one_without_borrow(rec: dict[str, Any]) -> None:
    rec["deals"] = 1
    rec["rounds"][0]["actions"].pop()


def _extra_action(rec: dict[str, Any]) -> None:
    rec["rounds"][0]["actions"].append(["Cid", "pass"])


def _bob_out_but_dealt(rec: dict[str, Any]) -> None:
    rec["rounds"][3]["deal"] = {"Ann": "3", "Bob": "7", "Cid": "4"}


def _dealer_offers_twice(rec: dict[str, Any]) -> None:
    rec["rounds"][0]["actions"] = [
        ["Ann", "pass"],
        ["Bob", "pass"],
        ["Cid", "offer"],
        ["Ann", "refuse"],
        ["Cid", "offer"],
    ]


CASES: list[tuple[str, str, Callable[[dict[str, Any]], None], str]] = [
    (
        "g2_c14_chips_below_two",
        "record_example",
        _set(("chips",), 1),
        "chips: every player starts with the same whole number of chips, at least 2 (G2, C14)",
    ),
    (
        "g2_c14_chips_not_a_whole_number",
        "record_example",
        _set(("chips",), "5"),
        "chips: every player starts with the same whole number of chips, at least 2 (G2, C14)",
    ),
    (
        "g1_not_a_card",
        "record_example",
        _set(("rounds", 0, "deal", "Ann"), "11"),
        'round 1: card "11" is not a gnavspiel card',
    ),
    (
        "g1_card_twice",
        "record_example",
        _set(("rounds", 0, "deal", "Ann"), "K"),
        'round 1: card "K" appears twice (the deck has one of each, G1)',
    ),
    (
        "g3_card_missing",
        "record_example",
        _stock_without_joker,
        'round 1: card "Joker" is missing (the stock holds every card not dealt)',
    ),
    (
        "g3_deal_to_a_player_out",
        "out_after_two_loans",
        _bob_out_but_dealt,
        "round 4: the deal must give one card to each player still in: Bob, Cid",
    ),
    (
        "g4_wrong_player_answers",
        "record_example",
        _set(("rounds", 0, "actions", 1), ["Cid", "refuse"]),
        "round 1, action 2: it is Bob's turn to answer Ann's offer, not Cid's",
    ),
    (
        "g5_only_the_dealer_draws",
        "record_example",
        _set(("rounds", 0, "actions", 0), ["Ann", "draw"]),
        "round 1, action 1: only the dealer draws from the stock (G5)",
    ),
    (
        "c11_c16_dealer_refused_may_not_offer_again",
        "dealer_taboo_draw",
        _dealer_offers_twice,
        'round 1, action 5: Cid was refused by Ann: it may "draw" or "stop", not "offer"'
        " (C11, C16)",
    ),
    (
        "g10_stand_not_in_play",
        "record_example",
        _set(("rounds", 0, "actions", 1), ["Bob", "stand"]),
        'round 1, action 2: "stand" is a table variant that is not in play here (G10)',
    ),
    (
        "c19_unfinished_round_then_more",
        "record_example",
        _drop_last_action,
        'round 1: the round is unfinished (Cid is to choose "borrow" or "decline") but the'
        " record goes on",
    ),
    (
        "g7_round_already_over",
        "variants_stand_jack",
        _extra_action,
        "round 1, action 3: the round is already over",
    ),
    (
        "g9_match_already_over",
        "record_example",
        _deals_one_without_borrow,
        "round 2: the match is already over",
    ),
    (
        "g4_action_shape",
        "record_example",
        _set(("rounds", 0, "actions", 0), ["Ann"]),
        "round 1, action 1: an action is [player, verb], two strings",
    ),
    (
        "g4_unknown_verb",
        "record_example",
        _set(("rounds", 0, "actions", 0), ["Ann", "swap"]),
        'round 1, action 1: "swap" is not a gnavspiel action (known: pass, offer, accept,'
        " refuse, stand, stop, draw, borrow, decline)",
    ),
    (
        "g4_player_not_seated",
        "record_example",
        _set(("rounds", 0, "actions", 0), ["Zed", "pass"]),
        'round 1, action 1: "Zed" is not seated',
    ),
    (
        "g4_not_your_turn",
        "record_example",
        _set(("rounds", 0, "actions", 0), ["Bob", "pass"]),
        "round 1, action 1: it is Ann's turn, not Bob's",
    ),
    (
        "g1_jack_dealt_and_in_the_stock",
        "variants_stand_jack",
        _set(("rounds", 0, "deal"), {"Ann": "4", "Bob": "J", "Cid": "8"}),
        'round 1: card "J" appears twice (the deck has one of each, G1)',
    ),
    (
        "g1_too_many_players",
        "record_example",
        _set(("seats",), ["A", "B", "C", "D", "E", "F", "G"]),
        "seats: gnavspiel needs 2 to 6 players, not 7 (G1)",
    ),
    (
        "g1_seated_twice",
        "record_example",
        _set(("seats",), ["Ann", "Bob", "Ann"]),
        'seats: "Ann" is seated twice',
    ),
    (
        "c24_variants_null_is_not_a_list",
        "record_example",
        _set(("variants",), None),
        'variants: a list of "stand" and "jack_taboo" (G10, C24)',
    ),
    (
        "rounds_missing",
        "record_example",
        _drop("rounds"),
        '"rounds" must be a list of rounds',
    ),
    (
        "c20_deals_zero",
        "record_example",
        _set(("deals",), 0),
        "deals: the agreed number of deals is a whole number of at least 1, or null (C20)",
    ),
    (
        "c24_unknown_variant",
        "record_example",
        _set(("variants",), ["stand", "stand"]),
        'variants: "stand" is listed twice (G10, C24)',
    ),
    (
        "c5_pass_after_refusal",
        "record_example",
        _set(("rounds", 0, "actions", 2), ["Ann", "pass"]),
        'round 1, action 3: Ann was refused by Bob: it may "offer" or "stop", not "pass" (C5)',
    ),
]


@pytest.mark.parametrize(
    ("base", "change", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_invalid_record_gives_one_exact_line(
    base: str, change: Callable[[dict[str, Any]], None], line: str
) -> None:
    rec = copy.deepcopy(vector(base))
    change(rec)
    with pytest.raises(RecordError) as exc:
        replay_record(rec)
    assert str(exc.value) == line


def test_c24_stand_without_queen_or_king_is_refused() -> None:
    rec = vector("variants_stand_jack")
    rec["rounds"][0]["deal"] = {"Ann": "4", "Bob": "9", "Cid": "8"}
    rec["rounds"][0]["stock"] = ["Joker", "A", "2", "3", "5", "6", "7", "K", "10", "J", "Q"]
    with pytest.raises(RecordError) as exc:
        replay_record(rec)
    assert str(exc.value) == 'round 1, action 2: Bob holds no Q or K: it may not "stand" (G10, C24)'


def test_only_chips_deals_and_variants_are_optional() -> None:
    """MATCH_RECORD.md: without `chips`, `deals` and `variants` (or `deals` null) a record
    replays with the defaults; `variants` null and a missing `rounds` are refused above."""
    rec = vector("record_example")
    for key in ("chips", "deals", "variants"):
        rec.pop(key, None)
    rec["rounds"] = []
    match, _ = replay_record(rec)
    assert (match.settings.chips, match.settings.deals, match.settings.variants) == (
        5,
        0,
        frozenset(),
    )
    rec["deals"] = None
    replay_record(rec)


@pytest.mark.parametrize("case", ["g5_only_the_dealer_draws", "g1_not_a_card"])
def test_invalid_record_through_the_cli_exits_2_with_one_line(case: str, tmp_path: Path) -> None:
    _, base, change, line = next(c for c in CASES if c[0] == case)
    rec = copy.deepcopy(vector(base))
    change(rec)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"gnav-bot replay: {line}\n"
