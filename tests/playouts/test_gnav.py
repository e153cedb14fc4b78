"""Invariants of the engine over random whole matches (hypothesis and seeded play-outs).

At every step (tests/games/gnav/engine/playout.py): 42 pieces conserved with each rank twice
(N1, N24), lives + bank accounted (N3, N6), no hidden rank in a public event (N16, N25), private
`piece` events only for their own seat and equal to the hand, only the player to act may act (N8),
`to_dict` round trips through JSON. Per match: a match restored at every step plays on
identically, its exported record replays to the same outcome, and it ends with winners (N23).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.gnav.engine.match import Match
from bot.games.gnav.engine.record import export_record, outcome, replay_record
from tests.games.gnav.engine.playout import normalised, play_match
from tests.playouts import seeds

PROFILES = ("norsk", "tradisjonell")


def _same_outcome_after_export(match: Match) -> None:
    record = json.loads(json.dumps(export_record(match), ensure_ascii=False))
    replayed, result = replay_record(record)
    assert result == outcome(match)
    assert normalised(replayed.to_dict()) == normalised(match.to_dict())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 20),
    profile=st.sampled_from(PROFILES),
    lives=st.integers(1, 5),
)
def test_n1_n3_n8_n23_random_match_invariants(seed: int, n: int, profile: str, lives: int) -> None:
    """Hypothesis: random tables, profiles and lives keep every invariant at every step."""
    played = play_match(seed, n, profile, lives)
    _same_outcome_after_export(played.match)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 12),
    profile=st.sampled_from(PROFILES),
    lives=st.integers(1, 4),
)
def test_restored_match_continues_identically(seed: int, n: int, profile: str, lives: int) -> None:
    """A match replaced by its JSON round trip at every step plays exactly as the original."""
    plain = play_match(seed, n, profile, lives)
    restored = play_match(seed, n, profile, lives, restore_every_step=True)
    assert restored.events == plain.events
    assert normalised(restored.match.to_dict()) == normalised(plain.match.to_dict())
    assert export_record(restored.match) == export_record(plain.match)
    # The newest round's outcome survives the restore too (the older ones are not saved).
    assert outcome(restored.match)["rounds"][-1] == outcome(plain.match)["rounds"][-1]
    assert outcome(restored.match)["winners"] == outcome(plain.match)["winners"]


@pytest.mark.parametrize("profile", PROFILES)
def test_seeded_playouts_many_tables(profile: str) -> None:
    """80 seeded matches per profile over every table size: invariants and the export round trip."""
    for seed in seeds(80):
        n = 2 + seed % 19
        played = play_match(seed, n, profile, 1 + seed % 5)
        _same_outcome_after_export(played.match)


@pytest.mark.parametrize("profile", PROFILES)
def test_seeded_playouts_with_forfeits(profile: str) -> None:
    """Players forfeiting now and then (Match.forfeit) keep every invariant and the replay."""
    for seed in seeds(40):
        played = play_match(seed, 2 + seed % 19, profile, 1 + seed % 5, forfeit_rate=0.03)
        _same_outcome_after_export(played.match)


def test_n23_matches_end_within_bounded_rounds() -> None:
    """Tradisjonell has no N6 tokens: every round costs a life, so rounds <= the lives dealt."""
    for seed in seeds(100):
        n = 2 + seed % 19
        played = play_match(seed, n, "tradisjonell", 3, check=False)
        assert played.rounds <= 3 * n
        assert played.match.winners
