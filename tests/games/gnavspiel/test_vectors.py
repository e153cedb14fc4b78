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

from bot.games.gnavspiel.engine.record import export_record, replay_record
from tests.games.gnav.engine.vectors import load_json, outcome_path, run_gnav_bot

HERE = Path(__file__).resolve().parents[2] / "vectors" / "gnavspiel"
RECORDS = sorted(p for p in HERE.rglob("*.json") if not p.name.endswith(".outcome.json"))
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
