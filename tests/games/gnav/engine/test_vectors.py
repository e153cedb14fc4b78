"""Every rules vector (tests/vectors/public and own) replays to its expected outcome.

The vector file names start with the RULES.md ids they exercise, so the test ids cite them.
Each record is replayed in-process through `replay_record` and once through the real
`gnav-bot replay` command (exit status 0, the outcome as JSON on stdout).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.games.gnav.engine.record import export_record, replay_record
from tests.games.gnav.engine.vectors import load_json, outcome_path, run_gnav_bot, vector_records

RECORDS = vector_records()
IDS = [f"{p.parent.name}/{p.stem}" for p in RECORDS]


def test_vectors_are_present_in_pairs() -> None:
    """The public vectors were copied in, and every record has its outcome beside it."""
    assert len([p for p in RECORDS if p.parent.name == "public"]) >= 7
    assert len([p for p in RECORDS if p.parent.name == "own"]) >= 20
    for record in RECORDS:
        assert outcome_path(record).exists(), record


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_vector_replays_to_its_outcome(record: Path) -> None:
    """`replay_record` gives exactly the expected outcome."""
    _, outcome = replay_record(load_json(record))
    assert outcome == load_json(outcome_path(record))


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_vector_export_replays_identically(record: Path) -> None:
    """A replayed match exported again (N24: the deals as dealt) replays to the same outcome."""
    match, outcome = replay_record(load_json(record))
    again = export_record(match)
    _, outcome2 = replay_record(json.loads(json.dumps(again)))
    assert outcome2 == outcome


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_vector_through_the_cli(record: Path) -> None:
    """`gnav-bot replay FILE` exits 0 with exactly the outcome JSON on stdout."""
    done = run_gnav_bot("replay", str(record))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout) == load_json(outcome_path(record))


def test_cli_compact_output_is_one_line() -> None:
    """`--compact` prints the same outcome on one line."""
    record = RECORDS[0]
    done = run_gnav_bot("replay", "--compact", str(record))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    assert json.loads(done.stdout) == load_json(outcome_path(record))
