"""Every Karnaval vector replays to its expected outcome, key by key, in-process and through the
real `gnav-bot replay` command; every invalid vector fails with one line holding its words.

Public vectors (../shared/vectors/karnaval/) are copied to tests/vectors/karnaval/public; the
hand-worked ones in tests/vectors/karnaval/own are explained in the README there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.games.karnaval.engine.record import RecordError, export_record, replay_record
from tests.games.gnav.engine.vectors import run_gnav_bot
from tests.games.karnaval.vectors import (
    expect_words,
    invalid_records,
    load_json,
    outcome_path,
    valid_records,
)

VALID = valid_records()
INVALID = invalid_records()


def _ids(paths: list[Path]) -> list[str]:
    return [f"{p.parent.name}/{p.stem}" for p in paths]


def _same_keys(got: Any, want: Any, where: str = "outcome") -> None:
    """Compare key by key, so a failure names the first differing key."""
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        assert sorted(got) == sorted(want), where
        for key in want:
            _same_keys(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list) and want and isinstance(want[0], dict):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same_keys(g, w, f"{where}[{i}]")
    else:
        assert got == want, where


def test_vectors_are_present() -> None:
    """The 12 public vectors were copied in, and every valid record has its outcome."""
    public = [p for p in VALID + INVALID if p.parent.name == "public"]
    assert len(public) == 12
    assert len([p for p in INVALID if p.parent.name == "public"]) == 2
    assert len([p for p in VALID if p.parent.name == "own"]) >= 10
    for record in VALID:
        assert outcome_path(record).exists(), record
    for record in INVALID:
        assert record.with_suffix(".expect").exists(), record


@pytest.mark.parametrize("record", VALID, ids=_ids(VALID))
def test_vector_replays_to_its_outcome(record: Path) -> None:
    """`replay_record` gives exactly the expected outcome, key by key."""
    _, outcome = replay_record(load_json(record))
    _same_keys(outcome, load_json(outcome_path(record)))


@pytest.mark.parametrize("record", VALID, ids=_ids(VALID))
def test_vector_export_replays_identically(record: Path) -> None:
    """A replayed match exported again replays to the same outcome."""
    match, outcome = replay_record(load_json(record))
    again = json.loads(json.dumps(export_record(match)))
    _, outcome2 = replay_record(again)
    assert outcome2 == outcome


@pytest.mark.parametrize("record", VALID, ids=_ids(VALID))
def test_vector_through_the_cli(record: Path) -> None:
    """`gnav-bot replay FILE` exits 0 with exactly the outcome JSON on stdout."""
    done = run_gnav_bot("replay", str(record))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    _same_keys(json.loads(done.stdout), load_json(outcome_path(record)))


@pytest.mark.parametrize("record", INVALID, ids=_ids(INVALID))
def test_invalid_vector_in_process(record: Path) -> None:
    """`replay_record` raises one line starting with the location and holding the words."""
    words = expect_words(record)
    with pytest.raises(RecordError) as info:
        replay_record(load_json(record))
    line = info.value.line
    assert "\n" not in line
    assert line.startswith(words[0])
    for word in words:
        assert word in line, (word, line)


@pytest.mark.parametrize("record", INVALID, ids=_ids(INVALID))
def test_invalid_vector_through_the_cli(record: Path) -> None:
    """`gnav-bot replay` exits 2 with one stderr line holding the words, nothing on stdout."""
    done = run_gnav_bot("replay", str(record))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1
    for word in expect_words(record):
        assert word in done.stderr, (word, done.stderr)
