"""Invalid Karnaval records: every error kind of KARNAVAL_RECORD.md "Errors", with its location
and checked words, and the order in which faults are found.

Each case mutates a valid record (the public `seed_example`: the seed's first quarter, 3 players
P1 P2 P3) and replays it in-process; a few run through the real `gnav-bot replay`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.games.karnaval.engine.record import RecordError, parse_record, replay_record
from tests.games.gnav.engine.vectors import run_gnav_bot
from tests.games.karnaval.vectors import VECTORS, load_json

SEED = load_json(VECTORS / "public" / "seed_example.json")
FULL = load_json(VECTORS / "public" / "full_game_shared_win.json")
THREE_JOKERS = load_json(VECTORS / "public" / "three_jokers_karnaval.json")

Mutation = Callable[[dict[str, Any]], Any]


def _set(path: list[Any], value: Any) -> Mutation:
    def go(r: dict[str, Any]) -> None:
        node: Any = r
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return go


def _del(path: list[Any]) -> Mutation:
    def go(r: dict[str, Any]) -> None:
        node: Any = r
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return go


def _many(*steps: Mutation) -> Mutation:
    def go(r: dict[str, Any]) -> None:
        for step in steps:
            step(r)

    return go


def _hand_to_stock(r: dict[str, Any]) -> None:
    r["deals"][0]["stock"].append(r["deals"][0]["hands"]["P2"].pop())


def _extra_deal(r: dict[str, Any]) -> None:
    r["deals"].append(copy.deepcopy(r["deals"][0]))


def _two_jokers_only(r: dict[str, Any]) -> None:
    hands = r["deals"][0]["hands"]
    hands["P1"] = ["JK", "JK", "KH", "AH", "6C", "7C"]
    hands["P2"] = ["JK", "JK", "QH", "8D", "9D", "10D"]
    r["deals"][0]["plays"][0] = ["P1", ["JK", "JK"]]


DRAW_TIE = [{"P1": "6H", "P2": "6S", "P3": "7C"}]

CASES: list[tuple[str, dict[str, Any], Mutation, list[str]]] = [
    ("game_missing", SEED, _del(["game"]), ["game:"]),
    ("game_other", SEED, _set(["game"], "poker"), ["game:"]),
    ("seats_two", SEED, _set(["seats"], ["P1", "P2"]), ["seats:"]),
    ("seats_twice", SEED, _set(["seats"], ["P1", "P2", "P2"]), ["seats:"]),
    ("seats_empty_name", SEED, _set(["seats"], ["P1", "P2", ""]), ["seats:"]),
    ("seats_null", SEED, _set(["seats"], None), ["seats:"]),
    ("draw_empty", SEED, _set(["draw"], []), ["draw:"]),
    ("draw_object", SEED, _set(["draw"], {"P1": "6H"}), ["draw:"]),
    (
        "draw_decided_early",
        SEED,
        _set(["draw"], [{"P1": "6H", "P2": "7S", "P3": "8C"}, {"P1": "9D"}]),
        ["draw, round 2:", "decided"],
    ),
    (
        "draw_wrong_players",
        SEED,
        _set(["draw"], [*DRAW_TIE, {"P1": "9D", "P3": "6D"}]),
        ["draw, round 2:"],
    ),
    (
        "draw_value_not_string",
        SEED,
        _set(["draw"], [{"P1": "6H", "P2": 7, "P3": "8C"}]),
        ["draw, round 1:"],
    ),
    (
        "draw_not_a_card",
        SEED,
        _set(["draw"], [{"P1": "6H", "P2": "1OH", "P3": "8C"}]),
        ["draw, round 1:", "1OH"],
    ),
    (
        "draw_copies",
        SEED,
        _set(["draw"], [{"P1": "KH", "P2": "KH", "P3": "KH"}]),
        ["draw, round 1:", "KH"],
    ),
    ("draw_undecided", SEED, _set(["draw"], DRAW_TIE), ["draw:", "P1", "P2"]),
    ("deals_missing", SEED, _del(["deals"]), ["deals:"]),
    ("deals_null", SEED, _set(["deals"], None), ["deals:"]),
    ("match_over", FULL, _extra_deal, ["deal 13:", "over"]),
    ("deal_not_object", SEED, _set(["deals", 1], []), ["deal 2:"]),
    ("hands_not_object", SEED, _set(["deals", 0, "hands"], []), ["deal 1:", "hands"]),
    ("hands_missing", SEED, _del(["deals", 0, "hands"]), ["deal 1:", "hands"]),
    ("hands_players", SEED, _del(["deals", 0, "hands", "P3"]), ["deal 1:", "hands"]),
    ("hands_value", SEED, _set(["deals", 0, "hands", "P2"], "AS"), ["deal 1:", "hands"]),
    ("stock_malformed", SEED, _set(["deals", 0, "stock"], [1, 2]), ["deal 1:", "stock"]),
    ("stock_null", SEED, _set(["deals", 0, "stock"], None), ["deal 1:", "stock"]),
    ("hand_not_a_card", SEED, _set(["deals", 0, "hands", "P2", 0], "1OH"), ["deal 1:", "1OH"]),
    ("stock_not_a_card", SEED, _set(["deals", 0, "stock", 5], "10h"), ["deal 1:", "10h"]),
    ("hand_size", SEED, _hand_to_stock, ["deal 1:", "P2"]),
    ("copies", SEED, _set(["deals", 0, "stock", 1], "QS"), ["deal 1:", "QS"]),
    ("missing", SEED, _del(["deals", 0, "stock", 1]), ["deal 1:", "AS"]),
    ("bids_malformed", SEED, _set(["deals", 0, "bids"], {"P1": 2}), ["deal 1:", "bids"]),
    ("bid_float", SEED, _set(["deals", 0, "bids", 1], ["P2", 2.0]), ["deal 1:"]),
    ("bid_string", SEED, _set(["deals", 0, "bids", 1], ["P2", "2"]), ["deal 1:"]),
    ("bid_bool", SEED, _set(["deals", 0, "bids", 1], ["P2", True]), ["deal 1:"]),
    ("bid_out_of_turn", SEED, _set(["deals", 0, "bids", 0], ["P2", 2]), ["deal 1:", "P1", "P2"]),
    ("bid_unseated", SEED, _set(["deals", 0, "bids", 0], ["Zed", 2]), ["deal 1:", "P1", "Zed"]),
    ("bid_range", SEED, _set(["deals", 0, "bids", 0], ["P1", 7]), ["deal 1:", "bid 7", "P1"]),
    ("bid_negative", SEED, _set(["deals", 0, "bids", 0], ["P1", -1]), ["deal 1:", "bid -1"]),
    ("bid_barred", SEED, _set(["deals", 1, "bids", 2], ["P1", 2]), ["deal 2:", "barred", "P1"]),
    (
        "too_many_bids",
        SEED,
        _set(["deals", 0, "bids"], [["P1", 2], ["P2", 2], ["P3", 3], "junk"]),
        ["deal 1:", "too many bids"],
    ),
    ("plays_malformed", SEED, _set(["deals", 0, "plays"], "AS"), ["deal 1:", "plays"]),
    (
        "plays_too_early",
        SEED,
        _set(["deals", 0, "bids"], [["P1", 2], ["P2", 2]]),
        ["deal 1:", "plays", "bids"],
    ),
    (
        "too_many_plays",
        SEED,
        lambda r: r["deals"][0]["plays"].append(None),
        ["deal 1, play 19:", "over"],
    ),
    (
        "unfinished",
        SEED,
        lambda r: r["deals"][0]["plays"].pop(),
        ["deal 1:", "unfinished"],
    ),
    (
        "unfinished_bids",
        SEED,
        _many(_set(["deals", 0, "bids"], [["P1", 2]]), _set(["deals", 0, "plays"], None)),
        ["deal 1:", "unfinished"],
    ),
    ("play_malformed", SEED, _set(["deals", 0, "plays", 2], ["P3"]), ["deal 1, play 3:"]),
    (
        "play_three_cards",
        SEED,
        _set(["deals", 0, "plays", 2], ["P3", ["6H", "6H", "6H"]]),
        ["deal 1, play 3:"],
    ),
    (
        "play_null_choice",
        SEED,
        _set(["deals", 0, "plays", 2], ["P3", "6H", None]),
        ["deal 1, play 3:"],
    ),
    (
        "unknown_choice",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", "AH", "highest"]),
        ["deal 1, play 1:", "highest"],
    ),
    (
        "play_out_of_turn",
        SEED,
        _set(["deals", 0, "plays", 1], ["P3", "6H"]),
        ["deal 1, play 2:", "P2", "P3"],
    ),
    (
        "play_not_a_card",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", "QX"]),
        ["deal 1, play 1:", "QX"],
    ),
    (
        "not_held",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", "QS"]),
        ["deal 1, play 1:", "P1", "QS"],
    ),
    (
        "not_held_second_copy",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", ["9C", "9C"]]),
        ["deal 1, play 1:", "P1", "9C"],
    ),
    (
        "led_joker_no_choice",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", "JK"]),
        ["deal 1, play 1:", "P1", "high", "low"],
    ),
    (
        "led_joker_top",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", "JK", "top"]),
        ["deal 1, play 1:", "P1", "high", "low"],
    ),
    (
        "not_a_karnaval",
        SEED,
        _set(["deals", 1, "plays", 3], ["P3", ["9H", "AH"]]),
        ["deal 2, play 4:", "Karnaval", "9H", "AH"],
    ),
    (
        "two_jokers_holding_two",
        THREE_JOKERS,
        _two_jokers_only,
        ["deal 1, play 1:", "Karnaval", "P1"],
    ),
    (
        "joker_with_card_not_four",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", ["JK", "AH"]]),
        ["deal 1, play 1:", "Karnaval", "JK", "AH"],
    ),
    (
        "no_place_lead",
        SEED,
        _set(["deals", 0, "plays", 0], ["P1", "AH", "top"]),
        ["deal 1, play 1:", "choice", "AH", "top"],
    ),
    (
        "no_place_karnaval_lead",
        SEED,
        _set(["deals", 1, "plays", 3], ["P3", ["9H", "9H"], "take"]),
        ["deal 2, play 4:", "choice", "9H 9H", "take"],
    ),
    (
        "no_place_give",
        SEED,
        _set(["deals", 1, "plays", 5], ["P2", ["7H", "8C"], "top"]),
        ["deal 2, play 6:", "choice", "7H 8C", "top"],
    ),
    (
        "no_place_follow",
        SEED,
        _set(["deals", 0, "plays", 1], ["P2", "JC", "top"]),
        ["deal 1, play 2:", "choice", "JC", "top"],
    ),
    (
        "two_cards",
        SEED,
        _set(["deals", 1, "plays", 4], ["P1", "KH"]),
        ["deal 2, play 5:", "P1", "two cards"],
    ),
    (
        "bad_take_not_pair",
        SEED,
        _set(["deals", 1, "plays", 4], ["P1", ["KH", "AS"], "take"]),
        ["deal 2, play 5:", "P1", "take"],
    ),
    (
        "one_card",
        SEED,
        _set(["deals", 0, "plays", 1], ["P2", ["JC", "KD"]]),
        ["deal 1, play 2:", "P2", "one card"],
    ),
    (
        "suit_not_followed",
        SEED,
        _set(["deals", 0, "plays", 2], ["P3", "KC"]),
        ["deal 1, play 3:", "P3", "hearts"],
    ),
    (
        "must_play_trump",
        SEED,
        _set(["deals", 0, "plays", 1], ["P2", "KS"]),
        ["deal 1, play 2:", "P2", "clubs"],
    ),
    (
        "joker_choice_missing",
        SEED,
        _set(["deals", 0, "plays", 8], ["P1", "JK"]),
        ["deal 1, play 9:", "P1", "top", "under"],
    ),
    (
        "joker_choice_high",
        SEED,
        _set(["deals", 0, "plays", 8], ["P1", "JK", "high"]),
        ["deal 1, play 9:", "P1", "top", "under"],
    ),
    (
        "equal_card",
        SEED,
        _set(["deals", 2, "plays", 2], ["P2", "AC"]),
        ["deal 3, play 3:", "AC", "P2", "top"],
    ),
    (
        "equal_card_take",
        SEED,
        _set(["deals", 2, "plays", 2], ["P2", "AC", "take"]),
        ["deal 3, play 3:", "AC", "P2", "top"],
    ),
]


@pytest.mark.parametrize(
    ("base", "mutate", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_invalid_record_reports_the_first_fault(
    base: dict[str, Any], mutate: Mutation, words: list[str]
) -> None:
    record = copy.deepcopy(base)
    mutate(record)
    record = json.loads(json.dumps(record))
    with pytest.raises(RecordError) as info:
        replay_record(record)
    line = info.value.line
    assert "\n" not in line
    assert line.startswith(words[0].split(",")[0].split(":")[0]), line
    for word in words:
        assert word in line, (word, line)


def test_location_is_exact_deal_1_is_not_deal_10() -> None:
    record = copy.deepcopy(FULL)
    record["deals"][9]["plays"].pop()
    record["deals"][9]["plays"].append(["P1", "QX"])
    with pytest.raises(RecordError) as info:
        replay_record(record)
    assert info.value.line.startswith("deal 10, play ")


def test_hands_are_checked_in_player_order_not_key_order() -> None:
    record = copy.deepcopy(SEED)
    record["draw"] = [{"P1": "9H", "P2": "6S", "P3": "8C"}]  # P2 is player 1
    hands = record["deals"][0]["hands"]
    hands["P1"][0] = "XX"
    hands["P2"][0] = "YY"
    with pytest.raises(RecordError, match='deal 1: "YY" in P2'):
        replay_record(record)


def test_copies_are_reported_in_deck_order() -> None:
    record = copy.deepcopy(SEED)
    stock = record["deals"][0]["stock"]
    stock[stock.index("7C")] = "6C"  # 6C thrice
    stock[stock.index("8C")] = "AS"  # AS thrice, before 6C in deck order
    with pytest.raises(RecordError, match=r"deal 1: AS appears 3 times \(the deck has 2\)"):
        replay_record(record)


def test_unfinished_deal_is_fine_when_last() -> None:
    record = copy.deepcopy(SEED)
    record["deals"][2]["plays"] = record["deals"][2]["plays"][:7]
    _, out = replay_record(record)
    assert out["next"] == {"deal": 3, "action": "play", "player": "P1"}
    assert out["deals"][2]["tricks"] == ["P2", "P3"] and out["deals"][2]["scores"] is None
    assert out["quarters"] == []


@pytest.mark.parametrize(
    "text",
    ["", "{", '\ufeff{"game": "karnaval"}', '{"game": "karnaval", "x": NaN}', "{} {}"],
    ids=["empty", "truncated", "bom", "nan", "trailing"],
)
def test_file_not_valid_json(text: str) -> None:
    with pytest.raises(RecordError) as info:
        parse_record(text)
    assert info.value.line.startswith("file: ") and "JSON" in info.value.line


def _run(tmp_path: Path, text: str | bytes) -> tuple[int, str, str]:
    path = tmp_path / "record.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    return done.returncode, done.stdout, done.stderr


def test_cli_invalid_json_naming_karnaval_is_a_file_fault(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, '{"game": "karnaval", "seats": [1, 2, 3], "x": NaN}')
    assert (code, out) == (2, "")
    assert err.startswith("file: not valid JSON") and err.count("\n") == 1


def test_cli_other_game_and_karnaval_faults(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, json.dumps({"game": "poker", "seats": []}))
    assert (code, out) == (2, "") and err.startswith("game: ")
    record = copy.deepcopy(SEED)
    record["deals"][0]["bids"][2] = ["P3", 2]
    code, out, err = _run(tmp_path, json.dumps(record))
    assert (code, out) == (2, "")
    assert err == "deal 1: bid 2 by P3 is barred (the bids would add up to 6)\n"


def test_cli_gnav_records_still_go_to_gnav(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, json.dumps({"seats": ["A", "B"], "rounds": []}))
    assert code == 2 and err.startswith("gnav-bot replay: ")  # a Gnav fault, Gnav's wording


# --- hostile records: a long tied draw (issue 31, point 8) ------------------------------------


def _tied_draw_text(rounds: int, *, decided: bool = False, alternate: bool = False) -> str:
    """A record of P1 P2 P3 whose draw ties P1 and P2 for `rounds` rounds (the shape of
    benchmarks/hostile_record.py); with `decided` one more round makes P2 player 1."""
    later = ['{"P1": "10D", "P2": "10C"}', '{"P1": "7S", "P2": "7H"}']
    parts = ['{"P1": "10H", "P2": "10S", "P3": "KD"}']
    parts += [later[i % 2] if alternate else later[0] for i in range(rounds - 1)]
    if decided:
        parts.append('{"P1": "AD", "P2": "6C"}')
    head = '{"game": "karnaval", "seats": ["P1", "P2", "P3"], "draw": ['
    return head + ", ".join(parts) + '], "deals": []}'


def _replay_text(text: str) -> str:
    from bot.games.replay import ReplayError, replay_text

    try:
        return json.dumps(replay_text(text))
    except ReplayError as exc:
        return exc.line


def test_a_long_tied_draw_gives_its_line_and_a_decided_one_its_outcome() -> None:
    line = _replay_text(_tied_draw_text(5000))
    assert line == "draw: P1 and P2 tie for lowest in round 5000 and must draw again"
    result = json.loads(_replay_text(_tied_draw_text(5000, decided=True)))
    assert result["order"] == ["P2", "P3", "P1"]
    alternating = _replay_text(_tied_draw_text(5001, alternate=True))
    assert alternating == "draw: P1 and P2 tie for lowest in round 5001 and must draw again"


@pytest.mark.parametrize("alternate", [False, True], ids=["one-round-repeated", "two-alternating"])
def test_the_draw_is_folded_with_constant_work_per_round(
    monkeypatch: pytest.MonkeyPatch, alternate: bool
) -> None:
    """Cards are looked at a bounded number of times however long the tie: a fold that recounts
    the deck or re-ranks the cards each round fails here (the count would grow with the
    rounds), without timing anything."""
    import bot.games.karnaval.engine.game as game

    looks = {"strength": 0, "over_counts": 0}
    real_strength, real_over = game.strength, game.over_counts

    def strength(card: str) -> int:
        looks["strength"] += 1
        return real_strength(card)

    def over_counts(cards: Any) -> Any:
        looks["over_counts"] += 1
        return real_over(cards)

    monkeypatch.setattr(game, "strength", strength)
    monkeypatch.setattr(game, "over_counts", over_counts)
    counts = []
    for rounds in (11, 20_001):
        looks.update(strength=0, over_counts=0)
        text = _tied_draw_text(rounds, alternate=alternate)
        assert f"tie for lowest in round {rounds} " in _replay_text(text)
        counts.append(dict(looks))
    assert counts[0] == counts[1], counts


@pytest.mark.parametrize("alternate", [False, True], ids=["one-round-repeated", "two-alternating"])
def test_a_long_tied_draw_is_replayed_in_little_memory(alternate: bool) -> None:
    """100,000 tied rounds (3.7 MB of JSON) through the whole replay: a parse that builds a
    dict a round, or a fold that copies each round, holds tens of MB (about 60 MB before);
    shared rounds keep the peak under 8 MB besides the text."""
    import tracemalloc

    text = _tied_draw_text(100_000, alternate=alternate)
    tracemalloc.start()
    try:
        line = _replay_text(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert line.startswith("draw: P1 and P2 tie for lowest in round 100000 "), line
    assert peak < 8_000_000, peak


def test_shared_rounds_are_still_checked_for_depth_and_surrogates() -> None:
    """The parse shares equal objects of strings and the checks look at each once: a lone
    surrogate in a repeated round, and an object of strings one level too deep, are still
    refused as faults of the file; one level less is fine."""
    from bot.games.common.engine import safejson

    text = _tied_draw_text(1000).replace('"P2": "10C"', '"P2": "10\\udc00"')
    assert _replay_text(text).startswith("file: ") and "surrogate" in _replay_text(text)
    deepest = (
        "[" * (safejson.MAX_DEPTH - 1) + '{"a": "b"}, {"a": "b"}' + "]" * (safejson.MAX_DEPTH - 1)
    )
    assert safejson.loads(deepest)
    too_deep = "[" + deepest + "]"
    with pytest.raises(safejson.JsonError, match="nested"):
        safejson.loads(too_deep)
    parsed = safejson.loads('[{"a": "b"}, {"a": "b"}, {"a": 1}, {"a": true}]')
    assert parsed[0] is parsed[1] and parsed[2] == {"a": 1} and parsed[3]["a"] is True
