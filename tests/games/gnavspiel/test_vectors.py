"""Every gnavspiel vector (tests/vectors/gnavspiel/public and own) replays to its outcome.

Public vectors are copied from ../shared/vectors/gnavspiel/; their test ids are prefixed with
the rule ids they exercise. Each record is replayed in-process, through the real `gnav-bot
replay` command, and once more after `export_record` (a finished match exports every deal).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.games.gnavspiel.engine.record import RecordError, export_record, replay_record
from tests.games.gnav.engine.vectors import load_json, outcome_path, run_gnav_bot

HERE = Path(__file__).resolve().parents[2] / "vectors" / "gnavspiel"
RECORDS = sorted(
    p
    for p in HERE.rglob("*.json")
    if not p.name.endswith(".outcome.json") and not p.name.startswith("invalid_")
)
#: Invalid records (`invalid_NAME.json`) with their checked strings (`invalid_NAME.expect`,
#: one a line, the location first), as KARNAVAL_RECORD.md's vectors have them.
INVALID = sorted(HERE.rglob("invalid_*.json"))
#: Rule ids of the public vectors (their names are the shared folder's).
PUBLIC_RULES = {
    "dealer_taboo_draw": "g5_c10_c11",
    "deals_end_highest_card": "g7_g9_c19_c20_c21",
    "double_taboo": "g5_c5_g6",
    "joker_pair_payment": "g6_g7_c15",
    "loan": "g8_c19",
    "out_after_two_loans": "g8_c13_c19",
    "record_example": "g4_g5_g9_c23",
    "refusal_chain": "g4_c5_c15",
    "variants_stand_jack": "g10_c24",
}


def _id(p: Path) -> str:
    rules = PUBLIC_RULES.get(p.stem, "")
    return f"{p.parent.name}/{rules + '_' if rules else ''}{p.stem}"


IDS = [_id(p) for p in RECORDS]


def _diff(got: Any, want: Any) -> str:
    lines = []
    for i, (a, b) in enumerate(zip(got["rounds"], want["rounds"], strict=False), start=1):
        lines += [f"round {i} {k}: {a.get(k)!r} != {v!r}" for k, v in b.items() if a.get(k) != v]
    if got["result"] != want["result"]:
        lines.append(f"result: {got['result']!r} != {want['result']!r}")
    return "\n".join(lines)


def test_all_nine_public_vectors_and_own_ones_are_present() -> None:
    public = [p for p in RECORDS if p.parent.name == "public"]
    assert len(public) == 9
    assert len([p for p in RECORDS if p.parent.name == "own"]) >= 10
    for record in RECORDS:
        assert outcome_path(record).exists(), record


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_vector_replays_to_its_outcome_key_by_key(record: Path) -> None:
    _, got = replay_record(load_json(record))
    want = load_json(outcome_path(record))
    assert len(got["rounds"]) == len(want["rounds"])
    assert got == want, _diff(got, want)


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_vector_through_the_cli(record: Path) -> None:
    done = run_gnav_bot("replay", str(record))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout) == load_json(outcome_path(record))


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_vector_export_replays_identically(record: Path) -> None:
    """Exported again, a record replays to the same outcome (minus a deal under way)."""
    match, got = replay_record(load_json(record))
    _, got2 = replay_record(json.loads(json.dumps(export_record(match))))
    finished = [r for r in got["rounds"] if r["end"] is not None]
    assert got2["rounds"] == finished
    assert got2["result"] == got["result"]


def _expect(record: Path) -> list[str]:
    lines = record.with_suffix(".expect").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line]


def test_invalid_vectors_are_present() -> None:
    assert {p.stem for p in INVALID} >= {"invalid_seven_players"}
    for record in INVALID:
        assert record.with_suffix(".expect").exists(), record


@pytest.mark.parametrize("record", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_vector_in_process(record: Path) -> None:
    """`replay_record` refuses it with one line starting with the location, holding the words."""
    words = _expect(record)
    with pytest.raises(RecordError) as info:
        replay_record(load_json(record))
    line = str(info.value)
    assert "\n" not in line and line.startswith(words[0])
    for word in words:
        assert word in line, (word, line)


@pytest.mark.parametrize("record", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_vector_through_the_cli(record: Path) -> None:
    """`gnav-bot replay` exits 2 with one stderr line holding the words, nothing on stdout."""
    done = run_gnav_bot("replay", str(record))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1
    for word in _expect(record):
        assert word in done.stderr, (word, done.stderr)
