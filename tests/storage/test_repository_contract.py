"""The `Repository` contract, run against every back-end: memory, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.service.ports import (
    ConflictError,
    FinishedMatch,
    PlayerStats,
    StatDelta,
    TablePart,
    TableRow,
)
from storage.common import DuplicateMatchError
from tests.storage.conftest import Store


def table(
    key: str,
    version: int,
    *,
    status: str = "playing",
    state: dict[str, Any] | None = None,
    deadline: float | None = None,
    updated_at: float = 1_700_000_000.25,
    table_id: str | None = None,
) -> TableRow:
    """A table row with a small but varied state."""
    return TableRow(
        key=key,
        version=version,
        status=status,
        state=state if state is not None else {"version": version, "seats": ["a", "b"]},
        deadline=deadline,
        updated_at=updated_at,
        table_id=table_id,
    )


def match(match_id: str, table_key: str, *, chat: str = "chat", at: float = 10.0) -> FinishedMatch:
    """A finished match with a record shaped like the engine's."""
    return FinishedMatch(
        match_id=match_id,
        chat=chat,
        table_key=table_key,
        game="gnav",
        record={"format": 1, "players": ["Åse", "Bjørn"], "moves": [["stay"], ["swap", 1]]},
        winners=["u1"],
        finished_at=at,
    )


def delta(
    user: str, *, chat: str = "chat", name: str | None = None, game: str = "gnav", **counts: int
) -> StatDelta:
    """A statistics delta."""
    return StatDelta(chat=chat, user=user, name=name or user.upper(), game=game, counters=counts)


def stats(user: str, name: str, game: str = "gnav", **counts: int) -> PlayerStats:
    """A player's statistics as a store returns them."""
    return PlayerStats(user=user, name=name, game=game, counters=counts)


# -- tables ---------------------------------------------------------------------------------


async def test_a_new_table_round_trips(store: Store) -> None:
    state = {
        "players": [{"name": "Åse 🂡", "lives": 3, "piece": None}],
        "pot": 2.5,
        "flags": [True, False],
        "nested": {"deep": {"deeper": [1, [2, [3]]]}},
    }
    row = table("tg:-100:1", 1, state=state, deadline=1_700_000_060.5)
    await store.repo.save_table(row, expected_version=None)
    assert await store.repo.load_table("tg:-100:1") == row


async def test_a_missing_table_is_none(store: Store) -> None:
    assert await store.repo.load_table("nowhere") is None
    assert await store.repo.load_active_tables() == []


async def test_state_is_stored_as_json(store: Store) -> None:
    await store.repo.save_table(
        table("t", 1, state={"pair": (1, 2), "3": "three"}), expected_version=None
    )
    loaded = await store.repo.load_table("t")
    assert loaded is not None
    assert loaded.state == {"pair": [1, 2], "3": "three"}


async def test_a_state_that_is_not_json_is_refused(store: Store) -> None:
    with pytest.raises((TypeError, ValueError)):
        await store.repo.save_table(table("t", 1, state={"x": {1, 2}}), expected_version=None)
    assert await store.repo.load_table("t") is None


async def test_text_that_is_not_utf8_is_refused(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.repo.save_table(table("t", 1, state={"x": "\ud800"}), expected_version=None)
    assert await store.repo.load_table("t") is None
    await store.repo.save_table(table("t", 1), expected_version=None)


async def test_an_update_needs_the_stored_version(store: Store) -> None:
    await store.repo.save_table(table("t", 1), expected_version=None)
    await store.repo.save_table(table("t", 2, deadline=99.0), expected_version=1)
    with pytest.raises(ConflictError):
        await store.repo.save_table(table("t", 2, state={"stale": True}), expected_version=1)
    loaded = await store.repo.load_table("t")
    assert loaded == table("t", 2, deadline=99.0)


async def test_a_new_table_under_an_existing_key_conflicts(store: Store) -> None:
    await store.repo.save_table(table("t", 1), expected_version=None)
    with pytest.raises(ConflictError):
        await store.repo.save_table(table("t", 1, state={"other": 1}), expected_version=None)
    assert await store.repo.load_table("t") == table("t", 1)


async def test_an_update_of_a_missing_table_conflicts(store: Store) -> None:
    with pytest.raises(ConflictError):
        await store.repo.save_table(table("t", 2), expected_version=1)
    assert await store.repo.load_table("t") is None


async def test_active_tables_exclude_closed_ones(store: Store) -> None:
    await store.repo.save_table(table("a", 1, status="lobby"), expected_version=None)
    await store.repo.save_table(table("b", 1, status="playing"), expected_version=None)
    await store.repo.save_table(table("c", 1, status="playing"), expected_version=None)
    await store.repo.save_table(table("c", 2, status="closed"), expected_version=1)
    active = await store.repo.load_active_tables()
    assert sorted(r.key for r in active) == ["a", "b"]
    assert {r.key: r for r in active}["b"] == table("b", 1, status="playing")


async def test_loaded_rows_are_copies(store: Store) -> None:
    row = table("t", 1, state={"list": [1]})
    await store.repo.save_table(row, expected_version=None)
    row.state["list"].append("after save")
    loaded = await store.repo.load_table("t")
    assert loaded is not None
    loaded.state["list"].append("after load")
    assert (await store.repo.load_table("t")) == table("t", 1, state={"list": [1]})


async def test_a_table_is_found_by_its_id(store: Store) -> None:
    assert await store.repo.load_table_by_id("abc") is None
    await store.repo.save_table(table("t", 1, table_id="abc"), expected_version=None)
    await store.repo.save_table(table("u", 1, table_id="xyz"), expected_version=None)
    await store.repo.save_table(table("v", 1), expected_version=None)  # a row without an id
    assert await store.repo.load_table_by_id("abc") == table("t", 1, table_id="abc")
    assert await store.repo.load_table_by_id("xyz") == table("u", 1, table_id="xyz")
    assert await store.repo.load_table("v") == table("v", 1)
    # A table keeps its id from version to version.
    await store.repo.save_table(table("t", 2, table_id="abc"), expected_version=1)
    assert await store.repo.load_table_by_id("abc") == table("t", 2, table_id="abc")
    # A new table in the same place (same key) has a new id: the old one finds nothing.
    await store.repo.save_table(table("t", 3, status="lobby", table_id="def"), expected_version=2)
    assert await store.repo.load_table_by_id("abc") is None
    assert await store.repo.load_table_by_id("def") == table("t", 3, status="lobby", table_id="def")
    if store.reopen is not None:
        repo = await store.reopen()
        assert await repo.load_table_by_id("xyz") == table("u", 1, table_id="xyz")


async def test_of_rows_sharing_an_id_the_open_one_then_the_newest_is_found(store: Store) -> None:
    """A table moved to a new chat id keeps its id, and leaves a closed row behind with it."""
    old = table("old", 1, status="closed", updated_at=50.0, table_id="abc")
    older = table("older", 1, status="closed", updated_at=10.0, table_id="abc")
    moved = table("moved", 1, updated_at=20.0, table_id="abc")
    for row in (old, older, moved):
        await store.repo.save_table(row, expected_version=None)
    assert await store.repo.load_table_by_id("abc") == moved
    await store.repo.save_table(
        table("moved", 2, status="closed", updated_at=30.0, table_id="abc"), expected_version=1
    )
    assert await store.repo.load_table_by_id("abc") == old
    await store.repo.save_table(table("old", 2, updated_at=5.0, table_id="new"), expected_version=1)
    found = await store.repo.load_table_by_id("abc")
    assert found is not None and found.key == "moved"
    assert await store.repo.load_table_by_id("new") == table(
        "old", 2, updated_at=5.0, table_id="new"
    )


# -- statistics -----------------------------------------------------------------------------


async def test_statistics_accumulate(store: Store) -> None:
    await store.repo.save_table(
        table("t", 1),
        expected_version=None,
        stats=[delta("u1", name="Old", rounds=1, lives_lost=1), delta("u2", rounds=1)],
    )
    await store.repo.save_table(
        table("t", 2),
        expected_version=1,
        stats=[
            delta("u1", name="New", matches=1, wins=1, rounds=2, times_paid=1, refusals=2),
            delta("u1", chat="other", matches=1),
        ],
    )
    assert await store.repo.player_stats("chat", "u1", "gnav") == stats(
        "u1", "New", matches=1, wins=1, rounds=3, lives_lost=1, times_paid=1, refusals=2
    )
    assert await store.repo.player_stats("other", "u1", "gnav") == stats("u1", "U1", matches=1)
    assert await store.repo.player_stats("chat", "nobody", "gnav") is None
    assert await store.repo.player_stats("chat", "u1", "karnaval") is None


async def test_a_best_counter_keeps_the_highest_value(store: Store) -> None:
    """`best_...` counters hold a maximum (a best game total, negative ones too), not a sum."""
    saves = [
        [delta("u1", game="karnaval", matches=1, best_total=-40)],
        [delta("u1", game="karnaval", matches=1, best_total=-70)],
        [delta("u1", game="karnaval", matches=1, best_total=120)],
        [delta("u1", game="karnaval", best_total=90), delta("u1", game="karnaval", best_total=95)],
    ]
    for version, deltas in enumerate(saves, 1):
        await store.repo.save_table(
            table("t", version), expected_version=version - 1 or None, stats=deltas
        )
        if version == 2:
            found = await store.repo.player_stats("chat", "u1", "karnaval")
            assert found == stats("u1", "U1", "karnaval", matches=2, best_total=-40)
    assert await store.repo.player_stats("chat", "u1", "karnaval") == stats(
        "u1", "U1", "karnaval", matches=3, best_total=120
    )


async def test_statistics_are_kept_per_game(store: Store) -> None:
    """Each game has its own counters (any names) and its own name row per chat and player."""
    await store.repo.save_table(
        table("t", 1),
        expected_version=None,
        stats=[
            delta("u1", name="Gnav name", matches=1, rounds=4),
            delta("u1", name="Karnaval name", game="karnaval", matches=1, tricks=7, wins=1),
            delta("u2", game="karnaval", tricks=2),
        ],
    )
    await store.repo.save_table(
        table("t", 2),
        expected_version=1,
        stats=[delta("u1", game="karnaval", name="Renamed", tricks=3, wins=0)],
    )
    assert await store.repo.player_stats("chat", "u1", "gnav") == stats(
        "u1", "Gnav name", matches=1, rounds=4
    )
    assert await store.repo.player_stats("chat", "u1", "karnaval") == stats(
        "u1", "Renamed", "karnaval", matches=1, tricks=10, wins=1
    )
    assert await store.repo.chat_stats("chat", "karnaval") == [
        stats("u1", "Renamed", "karnaval", matches=1, tricks=10, wins=1),
        stats("u2", "U2", "karnaval", tricks=2),
    ]
    assert await store.repo.chat_stats("chat", "gnav") == [
        stats("u1", "Gnav name", matches=1, rounds=4)
    ]


async def test_counters_that_add_nothing_are_not_kept(store: Store) -> None:
    """A zero delta stores no counter, yet the player is known (with the name last given)."""
    await store.repo.save_table(
        table("t", 1),
        expected_version=None,
        stats=[delta("u1", name="A", wins=0), delta("u1", name="B", rounds=1), delta("u2")],
    )
    assert await store.repo.chat_stats("chat", "gnav") == [
        stats("u1", "B", rounds=1),
        stats("u2", "U2"),
    ]


async def test_chat_stats_lists_every_player_of_the_chat_and_game(store: Store) -> None:
    deltas = [
        delta("few", name="Few", matches=2, wins=1, rounds=10, lives_lost=1),
        delta("best", name="Best", matches=5, wins=4, rounds=20, lives_lost=10),
        delta("busy", name="busy", matches=9, wins=1, rounds=10, lives_lost=1),
        delta("rounds", name="Rounds only", rounds=3, lives_lost=3),
        delta("idle", name="Idle"),
        delta("elsewhere", chat="other", matches=50, wins=50, rounds=50),
        delta("few", game="karnaval", matches=1),
    ]
    await store.repo.save_table(table("t", 1), expected_version=None, stats=deltas)
    everyone = await store.repo.chat_stats("chat", "gnav")
    assert [p.user for p in everyone] == ["best", "busy", "few", "idle", "rounds"]
    for found in everyone:
        assert found == await store.repo.player_stats("chat", found.user, "gnav")
    assert await store.repo.chat_stats("empty", "gnav") == []
    assert await store.repo.chat_stats("chat", "other game") == []


# -- finished matches -----------------------------------------------------------------------


async def test_the_last_finished_match_is_the_newest_stored(store: Store) -> None:
    assert await store.repo.last_finished_match("t") is None
    await store.repo.save_table(table("t", 1), expected_version=None, finished=match("m1", "t"))
    await store.repo.save_table(table("u", 1), expected_version=None, finished=match("m9", "u"))
    # Stored later with an earlier clock: "newest" means stored last.
    await store.repo.save_table(table("t", 2), expected_version=1, finished=match("m2", "t", at=5))
    assert await store.repo.last_finished_match("t") == match("m2", "t", at=5)
    assert await store.repo.last_finished_match("u") == match("m9", "u")
    assert await store.repo.last_finished_match("nowhere") is None


# -- settings and players -------------------------------------------------------------------


async def test_settings_round_trip(store: Store) -> None:
    assert await store.repo.load_settings("c") is None
    await store.repo.save_settings("c", {"lives": 3, "profile": "classic", "timeouts": [30, 60]})
    await store.repo.save_settings("d", {})
    await store.repo.save_settings("c", {"lives": 5})
    assert await store.repo.load_settings("c") == {"lives": 5}
    assert await store.repo.load_settings("d") == {}


async def test_players_round_trip(store: Store) -> None:
    assert await store.repo.load_player("u") is None
    await store.repo.save_player("u", {"name": "Åse", "reachable": True, "lang": "nb"})
    await store.repo.save_player("u", {"name": "Åse", "reachable": False, "lang": "nb"})
    await store.repo.save_player("v", {"name": "V"})
    assert await store.repo.load_player("u") == {"name": "Åse", "reachable": False, "lang": "nb"}
    assert await store.repo.load_player("v") == {"name": "V"}


# -- atomicity ------------------------------------------------------------------------------


async def _two_saves_with_history(store: Store) -> None:
    await store.repo.save_table(table("t", 1), expected_version=None)
    await store.repo.save_table(
        table("t", 2), expected_version=1, stats=[delta("u1", matches=1)], finished=match("m1", "t")
    )


async def _assert_history_unchanged(store: Store) -> None:
    assert await store.repo.load_table("t") == table("t", 2)
    assert await store.repo.player_stats("chat", "u1", "gnav") == stats("u1", "U1", matches=1)
    assert await store.repo.player_stats("chat", "u2", "gnav") is None
    assert await store.repo.last_finished_match("t") == match("m1", "t")


async def test_a_conflicting_save_stores_nothing(store: Store) -> None:
    await _two_saves_with_history(store)
    with pytest.raises(ConflictError):
        await store.repo.save_table(
            table("t", 3),
            expected_version=1,
            stats=[delta("u1", matches=1), delta("u2", wins=1)],
            finished=match("m2", "t"),
        )
    await _assert_history_unchanged(store)


async def test_a_save_failing_midway_stores_nothing(store: Store) -> None:
    """The table and statistics are written before the match insert fails: all are undone."""
    await _two_saves_with_history(store)
    with pytest.raises(DuplicateMatchError):
        await store.repo.save_table(
            table("t", 3),
            expected_version=2,
            stats=[delta("u1", matches=1), delta("u2", wins=1)],
            finished=match("m1", "t", at=99),
        )
    await _assert_history_unchanged(store)
    # The store is still usable, and the retried save with a fresh id goes through.
    await store.repo.save_table(table("t", 3), expected_version=2, finished=match("m2", "t"))
    assert await store.repo.last_finished_match("t") == match("m2", "t")


# -- concurrency ----------------------------------------------------------------------------


async def test_concurrent_saves_of_200_tables_all_land(store: Store) -> None:
    keys = [f"tg:{i}" for i in range(200)]
    await asyncio.gather(*(store.repo.save_table(table(k, 1), expected_version=None) for k in keys))
    await asyncio.gather(
        *(
            store.repo.save_table(
                table(k, 2, status="closed" if i % 2 else "playing"),
                expected_version=1,
                stats=[delta("everyone", rounds=1), delta(f"u{i}", wins=1, matches=1)],
            )
            for i, k in enumerate(keys)
        )
    )
    for i, k in enumerate(keys):
        assert await store.repo.load_table(k) == table(
            k, 2, status="closed" if i % 2 else "playing"
        )
    assert len(await store.repo.load_active_tables()) == 100
    everyone = await store.repo.player_stats("chat", "everyone", "gnav")
    assert everyone == stats("everyone", "EVERYONE", rounds=200)


async def test_a_concurrent_conflicting_pair_yields_one_conflict(store: Store) -> None:
    await store.repo.save_table(table("t", 1), expected_version=None)
    results = await asyncio.gather(
        store.repo.save_table(table("t", 2, state={"by": "first"}), expected_version=1),
        store.repo.save_table(table("t", 2, state={"by": "second"}), expected_version=1),
        return_exceptions=True,
    )
    conflicts = [r for r in results if isinstance(r, ConflictError)]
    assert len(conflicts) == 1 and results.count(None) == 1
    winner = "first" if results[0] is None else "second"
    assert await store.repo.load_table("t") == table("t", 2, state={"by": winner})


async def test_two_handles_on_one_store_conflict_once(store: Store) -> None:
    """Two bot processes hold the same table at version 1 and both write: one loses."""
    other = await store.open_another()
    await store.repo.save_table(table("t", 1), expected_version=None)
    seen = await other.load_table("t")
    assert seen is not None and seen.version == 1
    for attempt in range(3):
        results = await asyncio.gather(
            store.repo.save_table(
                table("t", 2 + attempt * 2, state={"by": 1}), expected_version=1 + attempt * 2
            ),
            other.save_table(
                table("t", 2 + attempt * 2, state={"by": 2}), expected_version=1 + attempt * 2
            ),
            return_exceptions=True,
        )
        assert sum(isinstance(r, ConflictError) for r in results) == 1, results
        assert results.count(None) == 1, results
        # Bring the table to the next odd version for the next round.
        await store.repo.save_table(table("t", 3 + attempt * 2), expected_version=2 + attempt * 2)
    assert (await other.load_table("t")) == table("t", 7)


async def test_conflicts_in_a_crowd_leave_the_others_stored(store: Store) -> None:
    """Group commit: the saves that fail share a transaction with those that succeed."""
    keys = [f"k{i}" for i in range(90)]
    await asyncio.gather(*(store.repo.save_table(table(k, 1), expected_version=None) for k in keys))
    results = await asyncio.gather(
        *(
            store.repo.save_table(
                table(k, 2),
                expected_version=1 if i % 3 else 7,
                stats=[delta(f"u{i}", matches=1)],
                finished=match(f"m{i}", k),
            )
            for i, k in enumerate(keys)
        ),
        return_exceptions=True,
    )
    for i, (k, result) in enumerate(zip(keys, results, strict=True)):
        loaded = await store.repo.load_table(k)
        found = await store.repo.player_stats("chat", f"u{i}", "gnav")
        if i % 3:
            assert result is None
            assert loaded == table(k, 2) and found == stats(f"u{i}", f"U{i}", matches=1)
            assert await store.repo.last_finished_match(k) == match(f"m{i}", k)
        else:
            assert isinstance(result, ConflictError)
            assert loaded == table(k, 1) and found is None
            assert await store.repo.last_finished_match(k) is None


# -- persistence ----------------------------------------------------------------------------


async def test_everything_survives_a_reopen(store: Store) -> None:
    if store.reopen is None:
        pytest.skip("the memory repository keeps nothing across a restart")
    await store.repo.save_table(
        table("t", 1, deadline=5.5),
        expected_version=None,
        stats=[delta("u1", wins=1, matches=1)],
        finished=match("m1", "t"),
    )
    await store.repo.save_settings("c", {"lives": 4})
    await store.repo.save_player("u1", {"name": "U"})
    repo = await store.reopen()
    assert await repo.load_table("t") == table("t", 1, deadline=5.5)
    assert await repo.load_active_tables() == [table("t", 1, deadline=5.5)]
    assert await repo.player_stats("chat", "u1", "gnav") == stats("u1", "U1", matches=1, wins=1)
    assert await repo.last_finished_match("t") == match("m1", "t")
    assert await repo.load_settings("c") == {"lives": 4}
    assert await repo.load_player("u1") == {"name": "U"}
    await repo.save_table(table("t", 2), expected_version=1)


# ---------------------------------------------------------------- finished parts (issue 17)
def _part(seq: int, owner: str = "m1") -> TablePart:
    return TablePart(seq, owner, {"seq": seq, "moves": [["Åse", "x"]] * (seq + 1)})


async def test_finished_parts_are_added_once_and_read_with_the_row(store: Store) -> None:
    """Parts saved with a row are read back with it by every load, in order; a save without
    parts keeps them; a later save adds only its own (append-only)."""
    repo = store.repo
    row = table("t:1", 1, table_id="id1")
    row.parts = [_part(0), _part(1)]
    await repo.save_table(row, expected_version=None)
    row = table("t:1", 2, table_id="id1")  # a move: no new part
    await repo.save_table(row, expected_version=1)
    row = table("t:1", 3, table_id="id1")
    row.parts = [_part(2)]
    await repo.save_table(row, expected_version=2)
    if store.reopen is not None:
        repo = await store.reopen()
    want = [_part(0), _part(1), _part(2)]
    loaded = await repo.load_table("t:1")
    assert loaded is not None and loaded.parts == want and loaded.version == 3
    by_id = await repo.load_table_by_id("id1")
    assert by_id is not None and by_id.parts == want
    (active,) = [r for r in await repo.load_active_tables() if r.key == "t:1"]
    assert active.parts == want
    other = table("t:2", 1)
    await repo.save_table(other, expected_version=None)
    loaded_other = await repo.load_table("t:2")
    assert loaded_other is not None and loaded_other.parts == []


async def test_a_part_of_seq_0_starts_the_keys_parts_afresh(store: Store) -> None:
    """A new match's first part replaces the parts of the match before at that key."""
    repo = store.repo
    row = table("t:1", 1)
    row.parts = [_part(0, "old"), _part(1, "old"), _part(2, "old")]
    await repo.save_table(row, expected_version=None)
    row = table("t:1", 2)
    row.parts = [_part(0, "new")]
    await repo.save_table(row, expected_version=1)
    loaded = await repo.load_table("t:1")
    assert loaded is not None and loaded.parts == [_part(0, "new")]


async def test_a_refused_save_adds_no_part(store: Store) -> None:
    repo = store.repo
    await repo.save_table(table("t:1", 1), expected_version=None)
    row = table("t:1", 2)
    row.parts = [_part(0)]
    with pytest.raises(ConflictError):
        await repo.save_table(row, expected_version=7)
    loaded = await repo.load_table("t:1")
    assert loaded is not None and loaded.parts == []
