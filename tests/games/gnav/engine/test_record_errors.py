"""Invalid match records: `gnav-bot replay` exits 2 with one clear stderr line, never a traceback.

Each case names the round and action (1-based) and what is wrong (MATCH_RECORD.md), and the same
message comes from `replay_record` in-process as a `RecordError`. A seeded fuzz checks that no
mutation of a valid record makes the replay fail in any other way.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.games.gnav.engine.record import RecordError, parse_record, replay_record
from tests.games.gnav.engine.vectors import load_json, run_gnav_bot, vector_records

PREFIX = "gnav-bot replay: "


def _record(**changes: Any) -> dict[str, Any]:
    """A valid 4-seat norsk record (seed 000 §08) with `changes` applied to its top level."""
    record: dict[str, Any] = {
        "profile": "norsk",
        "seats": ["A", "B", "C", "D"],
        "dealer": "D",
        "rounds": [
            {
                "deal": {"A": "0", "B": "Hest", "C": "VIII", "D": "V"},
                "bag": ["IX", "Hus"],
                "actions": [["A", "swap"], ["B", "stay"], ["C", "stay"], ["D", "stay"]],
            }
        ],
    }
    record.update(changes)
    return record


def _round(deal: dict[str, Any], actions: list[list[str]], bag: list[str] | None = None) -> Any:
    return {"deal": deal, "bag": bag or [], "actions": actions}


ALL_STAY = [["A", "stay"], ["B", "stay"], ["C", "stay"], ["D", "stay"]]

#: (test id citing the rule, record, the expected message after "gnav-bot replay: ").
CASES: list[tuple[str, Any, str]] = [
    (
        "n8_wrong_turn",
        _record(
            dealer="C",
            rounds=[
                _round(
                    {"A": "I", "B": "II", "C": "III", "D": "IV"},
                    [["D", "stay"], ["A", "stay"], ["C", "stay"]],
                )
            ],
        ),
        "round 1, action 3: it is B's turn, not C's",
    ),
    (
        "n1_unknown_rank",
        _record(
            rounds=[
                _round({"A": "I", "B": "II", "C": "III", "D": "IV"}, ALL_STAY),
                _round({"B": "I", "C": "XIII", "D": "III", "A": "IV"}, []),
            ]
        ),
        'round 2: rank "XIII" is not a Gnav rank',
    ),
    (
        "n1_unknown_rank_in_bag",
        _record(rounds=[_round({"A": "I", "B": "II", "C": "III", "D": "IV"}, [], ["Joker"])]),
        'round 1: bag: rank "Joker" is not a Gnav rank',
    ),
    (
        "n1_rank_as_a_json_number",
        _record(rounds=[_round({"A": 12, "B": "II", "C": "III", "D": "IV"}, [])]),
        'round 1: rank 12 is not a Gnav rank: write ranks as strings ("XII" or "12")',
    ),
    (
        "n1_three_of_a_rank",
        _record(
            rounds=[_round({"A": "Katt", "B": "Katt", "C": "III", "D": "IV"}, [], ["V", "Katt"])]
        ),
        'round 1: three pieces of rank "Katt" (the set has two)',
    ),
    (
        "n1_three_of_a_rank_written_differently",
        _record(rounds=[_round({"A": "Gjok", "B": "Gjøk", "C": "12", "D": "XII"}, [], ["XII"])]),
        'round 1: three pieces of rank "XII" (the set has two)',
    ),
    (
        "unknown_seat_in_an_action",
        _record(rounds=[_round({"A": "I", "B": "II", "C": "III", "D": "IV"}, [["Z", "stay"]])]),
        'round 1, action 1: "Z" is not seated',
    ),
    (
        "unknown_seat_in_the_deal",
        _record(rounds=[_round({"A": "I", "B": "II", "C": "III", "Z": "IV"}, [])]),
        'round 1: "Z" in the deal is not seated',
    ),
    (
        "n4_deal_misses_a_player",
        _record(rounds=[_round({"A": "I", "B": "II", "D": "IV"}, [])]),
        "round 1: the deal has no piece for C",
    ),
    (
        "n22_deal_gives_a_piece_to_an_eliminated_player",
        _record(
            lives={"A": 1},
            rounds=[
                _round({"A": "I", "B": "II", "C": "III", "D": "IV"}, ALL_STAY),
                _round({"A": "V", "B": "I", "C": "II", "D": "III"}, []),
            ],
        ),
        "round 2: the deal gives a piece to A, who is out of the match (N22)",
    ),
    (
        "t4_deal_gives_a_piece_to_a_sat_out_player",
        {
            "profile": "tradisjonell",
            "seats": ["A", "B", "C", "D"],
            "dealer": "D",
            "rounds": [
                _round(
                    {"A": "III", "B": "Narr", "C": "IX", "D": "Narr"},
                    [["A", "stay"], ["B", "swap"], ["C", "swap"], ["D", "swap"]],
                    ["Katt"],
                ),
                _round({"A": "VI", "B": "V", "C": "VII"}, []),
            ],
        },
        "round 2: the deal gives a piece to B, who sits out this round (T4)",
    ),
    (
        "n17_bag_drawn_past_its_listed_pieces",
        _record(
            rounds=[
                _round(
                    {"A": "V", "B": "VI", "C": "VII", "D": "Hest"},
                    [["A", "stay"], ["B", "stay"], ["C", "swap"], ["D", "swap"]],
                    ["IX"],
                )
            ]
        ),
        "round 1, action 4: the bag is drawn past its 1 listed piece (MATCH_RECORD.md)",
    ),
    (
        "n17_bag_drawn_with_no_listed_pieces",
        _record(
            rounds=[
                _round(
                    {"A": "V", "B": "VI", "C": "VII", "D": "I"},
                    [["A", "stay"], ["B", "stay"], ["C", "stay"], ["D", "swap"]],
                )
            ]
        ),
        "round 1, action 4: the bag is drawn past its 0 listed pieces (MATCH_RECORD.md)",
    ),
    (
        "n12_action_after_the_end",
        _record(
            rounds=[
                _round(
                    {"A": "V", "B": "Gjok", "C": "VII", "D": "I"},
                    [["A", "swap"], ["B", "stay"]],
                )
            ]
        ),
        "round 1, action 2: the round is over (gjok); no more actions",
    ),
    (
        "n18_action_after_the_reveal",
        _record(
            rounds=[
                _round({"A": "I", "B": "II", "C": "III", "D": "IV"}, [*ALL_STAY, ["A", "stay"]])
            ]
        ),
        "round 1, action 5: the round is over (reveal); no more actions",
    ),
    (
        "c1_action_in_a_void_round",
        {
            "seats": ["A", "B", "C"],
            "dealer": "C",
            "rounds": [_round({"A": "Narr", "B": "Narr", "C": "V"}, [["C", "stay"]])],
        },
        "round 1, action 1: the deal is void (C1): the round has no actions",
    ),
    (
        "non_last_round_stops_short",
        _record(
            rounds=[
                _round({"A": "I", "B": "II", "C": "III", "D": "IV"}, ALL_STAY[:2]),
                _round({"B": "I", "C": "II", "D": "III", "A": "IV"}, []),
            ]
        ),
        "round 1: the round stops short (C is still to act), "
        "but only the last round may stop short",
    ),
    (
        "n23_round_after_the_match_is_over",
        {
            "seats": ["A", "B"],
            "dealer": "B",
            "lives": {"A": 1},
            "rounds": [
                _round({"A": "I", "B": "II"}, [["A", "stay"], ["B", "stay"]]),
                _round({"A": "I", "B": "II"}, []),
            ],
        },
        "round 2: the match is already over (N23)",
    ),
    ("n3_lives_zero", _record(lives={"A": 0}), "lives: A has 0: a whole number of at least 1 (N3)"),
    (
        "n3_lives_not_whole",
        _record(lives={"B": 2.5}),
        "lives: B has 2.5: a whole number of at least 1 (N3)",
    ),
    (
        "n3_lives_as_text",
        _record(lives={"C": "3"}),
        'lives: C has "3": a whole number of at least 1 (N3)',
    ),
    ("n3_lives_of_a_stranger", _record(lives={"Z": 3}), 'lives: "Z" is not seated'),
    (
        "n3_lives_not_a_mapping",
        _record(lives=[3, 3]),
        '"lives" must map player names to whole numbers',
    ),
    ("n3_one_player", _record(seats=["A"], dealer="A"), "norsk needs 2 to 20 players, not 1 (N3)"),
    (
        "n3_twenty_one_players",
        _record(seats=[f"P{i}" for i in range(21)], dealer="P0"),
        "norsk needs 2 to 20 players, not 21 (N3)",
    ),
    ("seated_twice", _record(seats=["A", "B", "A"]), '"A" is seated twice'),
    ("seats_not_names", _record(seats="ABCD"), '"seats" must be a list of player names'),
    ("bad_dealer", _record(dealer="Z"), 'dealer "Z" is not seated'),
    (
        "missing_dealer",
        {k: v for k, v in _record().items() if k != "dealer"},
        '"dealer" is missing: the seated player who deals the first round',
    ),
    (
        "unknown_profile",
        _record(profile="schwarz"),
        'profile "schwarz" is not known (known: norsk, tradisjonell)',
    ),
    ("record_not_an_object", [1, 2], "a match record is a JSON object"),
    ("rounds_not_a_list", _record(rounds={"deal": {}}), '"rounds" must be a list'),
    (
        "deal_not_a_mapping",
        _record(rounds=[{"deal": ["I", "II"], "actions": []}]),
        'round 1: "deal" must map player names to ranks',
    ),
    (
        "action_not_a_pair",
        _record(rounds=[_round({"A": "I", "B": "II", "C": "III", "D": "IV"}, [["A"]])]),
        'round 1, action 1: an action is [player, "stay" | "swap"]',
    ),
    (
        "n9_unknown_verb",
        _record(rounds=[_round({"A": "I", "B": "II", "C": "III", "D": "IV"}, [["A", "pass"]])]),
        'round 1, action 1: "pass" is not an action: stay, swap or forfeit',
    ),
    (
        "t3_narr_holder_stays",
        {
            "profile": "tradisjonell",
            "seats": ["A", "B", "C"],
            "dealer": "C",
            "rounds": [
                _round(
                    {"A": "V", "B": "VII", "C": "Narr"},
                    [["A", "stay"], ["B", "stay"], ["C", "stay"]],
                )
            ],
        },
        "round 1, action 3: C holds the Narr and may not stay: it must swap (T3)",
    ),
    (
        "t2_skipped_seat_acts",
        {
            "profile": "tradisjonell",
            "seats": ["A", "B", "C", "D", "E"],
            "dealer": "E",
            "rounds": [
                _round(
                    {"A": "IV", "B": "Hest", "C": "Dragon", "D": "II", "E": "VII"},
                    [["A", "swap"], ["B", "stay"]],
                )
            ],
        },
        "round 1, action 2: it is D's turn, not B's: B lost its turn to the Dragon (T2)",
    ),
    (
        "n6_sat_out_seat_acts",
        _record(
            rounds=[
                _round(
                    {"A": "I", "B": "Narr", "C": "Narr", "D": "IV"}, [["A", "stay"], ["B", "stay"]]
                )
            ]
        ),
        "round 1, action 2: it is D's turn, not B's: B sits out this round",
    ),
]


@pytest.mark.parametrize(("record", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_record_in_process(record: Any, message: str) -> None:
    """`replay_record` raises a RecordError with exactly the message."""
    with pytest.raises(RecordError) as info:
        replay_record(record)
    assert str(info.value) == message


@pytest.mark.parametrize(("record", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_record_cli_exits_2_with_one_line(
    tmp_path: Path, record: Any, message: str
) -> None:
    """`gnav-bot replay` exits 2, prints nothing on stdout, one line on stderr."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == PREFIX + message + "\n"


def test_gnavspiel_records_go_to_their_own_engine(tmp_path: Path) -> None:
    """The Gnav engine refuses a gnavspiel record; `gnav-bot replay` hands it to the gnavspiel
    engine (bot/games/gnavspiel), which wants a stock, not a bag."""
    record = _record(profile="gnavspiel")
    with pytest.raises(RecordError) as info:
        replay_record(record)
    assert str(info.value) == 'profile "gnavspiel" is not supported yet (RULES.md section 3)'
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    assert done.returncode == 2
    assert done.stderr == PREFIX + "round 1: the stock must list every card not dealt, top first\n"


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    """Broken JSON: one line naming where, no traceback."""
    path = tmp_path / "broken.json"
    path.write_text('{\n "seats": ["A", "B"\n}\n', encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("file: not valid JSON: line 3, column 1: ")  # every game's
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


def test_missing_file(tmp_path: Path) -> None:
    """A missing file: one line, exit 2."""
    path = tmp_path / "nowhere.json"
    done = run_gnav_bot("replay", str(path))
    assert done.returncode == 2
    assert done.stderr == f"file: cannot read {path}: No such file or directory\n"


def test_file_not_utf8(tmp_path: Path) -> None:
    """A file in another encoding: one line, exit 2."""
    path = tmp_path / "latin1.json"
    path.write_bytes('{"seats": ["Bjørn"]}'.encode("latin-1"))
    done = run_gnav_bot("replay", str(path))
    assert done.returncode == 2
    assert done.stderr == f"file: {path} is not UTF-8 text\n"


def test_parse_record_reports_json_errors() -> None:
    """`parse_record` (the engine's part) reports JSON errors itself."""
    with pytest.raises(RecordError, match=r"^not valid JSON: line 1, column 1: "):
        parse_record("")


# --------------------------------------------------------------------------- fuzz
_ATOMS: list[Any] = [
    None,
    True,
    0,
    -1,
    1,
    2.5,
    "",
    "A",
    "Z",
    "Narr",
    "XIII",
    "12",
    12,
    [],
    {},
    ["A"],
    ["A", "swap"],
    ["A", "stay", "x"],
    {"A": "V"},
    "swap",
    "stay",
    "forfeit",
    10**30,
    "tradisjonell",
]


def _mutate(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        r = rng.random()
        if r < 0.15:
            del value[key]
        elif r < 0.4:
            value[key] = copy.deepcopy(rng.choice(_ATOMS))
        else:
            value[key] = _mutate(value[key], rng)
        return value
    if isinstance(value, list) and value and rng.random() < 0.7:
        i = rng.randrange(len(value))
        r = rng.random()
        if r < 0.15:
            del value[i]
        elif r < 0.3:
            value.insert(i, copy.deepcopy(value[i]))
        elif r < 0.5:
            value[i] = copy.deepcopy(rng.choice(_ATOMS))
        else:
            value[i] = _mutate(value[i], rng)
        return value
    return copy.deepcopy(rng.choice(_ATOMS)) if rng.random() < 0.3 else value


def test_mutated_records_fail_only_with_record_errors() -> None:
    """No mutation of a valid vector makes replay fail other than with a RecordError."""
    rng = random.Random(20240601)
    records = [load_json(p) for p in vector_records()]
    for _ in range(4000):
        record = copy.deepcopy(rng.choice(records))
        for _ in range(rng.randint(1, 3)):
            record = _mutate(record, rng)
        try:
            replay_record(record)
        except RecordError as exc:
            assert "\n" not in str(exc)
