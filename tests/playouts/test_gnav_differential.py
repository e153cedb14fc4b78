"""The engine against a second, plain reading of the rules (tests/games/gnav/engine/reference.py).

Random whole matches (2-20 players, both profiles, 1-5 lives), and the same matches cut short
in their last round, must give the same outcome from `replay_record` and from the reference.
The hand-made and public vectors agree with the reference too, so each outcome is settled by
three readings: the hand-worked one, the engine's and the reference's.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.games.gnav.engine.record import export_record, replay_record
from tests.games.gnav.engine.playout import play_match
from tests.games.gnav.engine.reference import reference_outcome
from tests.games.gnav.engine.vectors import load_json, outcome_path, vector_records
from tests.playouts import seeds

RECORDS = vector_records()


@pytest.mark.parametrize("record", RECORDS, ids=[f"{p.parent.name}/{p.stem}" for p in RECORDS])
def test_reference_agrees_with_the_vectors(record: Path) -> None:
    """The reference reading gives every vector's hand-worked outcome."""
    assert reference_outcome(load_json(record)) == load_json(outcome_path(record))


def _cut_last_round(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The record with its last round stopped after a random number of its actions."""
    cut = copy.deepcopy(record)
    last = cut["rounds"][-1]
    if last["actions"]:
        del last["actions"][rng.randrange(len(last["actions"])) :]
    return cut


@pytest.mark.parametrize("profile", ["norsk", "tradisjonell"])
def test_engine_agrees_with_the_reference_on_random_matches(profile: str) -> None:
    """Whole random matches, and the same cut short, agree with the reference."""
    rng = random.Random(f"differential-{profile}")
    for seed in seeds(250):
        n = 2 + seed % 19
        played = play_match(seed * 7919 + 1, n, profile, 1 + seed % 5, check=False)
        record = json.loads(json.dumps(export_record(played.match), ensure_ascii=False))
        _, engine = replay_record(record)
        assert engine == reference_outcome(record), (seed, n)
        short = _cut_last_round(record, rng)
        _, engine_short = replay_record(short)
        assert engine_short == reference_outcome(short), (seed, n)
