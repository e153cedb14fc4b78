"""SQLite specifics: pragmas, migrations, group commit, closing, and durability across SIGKILL."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bot.service.ports import (
    ConflictError,
    FinishedMatch,
    PlayerStats,
    StatDelta,
    StoreUnavailable,
    TableRow,
)
from storage.migrations import (
    SQLITE_MIGRATIONS,
    Migration,
    MigrationError,
    SchemaTooNewError,
    latest_version,
    migrate_sqlite,
)
from storage.sqlite import SqliteRepository, connect, raw_commit_rate
from tests.storage.conftest import V2_STATS, V2_TABLES, v2_counters

REPO_ROOT = Path(__file__).resolve().parents[2]
NEXT = latest_version(SQLITE_MIGRATIONS) + 1  # a version no step of this release has


def table(key: str, version: int, **state: Any) -> TableRow:
    """A table row whose state records its version."""
    return TableRow(key=key, version=version, status="playing", state={"v": version, **state})


async def writer_pragma(repo: SqliteRepository, name: str) -> Any:
    """A pragma as the writer connection sees it (asked on the writer's own thread)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(
        repo._executor, lambda: repo._writer.execute(f"PRAGMA {name}").fetchone()[0]
    )


def schema_objects(path: Path) -> set[str]:
    """Names of the tables and indexes in a database file."""
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}


async def test_open_creates_the_directory_and_uses_wal_with_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "gnav.db"
    repo = await SqliteRepository.open(path)
    try:
        assert path.exists()
        assert await writer_pragma(repo, "journal_mode") == "wal"
        assert await writer_pragma(repo, "synchronous") == 2  # FULL
        assert await writer_pragma(repo, "user_version") == latest_version(SQLITE_MIGRATIONS)
    finally:
        await repo.close()


async def test_normal_sync_is_an_option(tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "g.db", synchronous="NORMAL")
    try:
        assert await writer_pragma(repo, "synchronous") == 1  # NORMAL
    finally:
        await repo.close()
    with pytest.raises(ValueError):
        await SqliteRepository.open(tmp_path / "g.db", synchronous="OFF")  # type: ignore[arg-type]


async def test_a_version_1_database_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = await connect(path)
    assert await migrate_sqlite(conn, target=1) == 1
    await conn.execute(
        "INSERT INTO tables (key, version, status, deadline, updated_at, state) "
        "VALUES ('t', 4, 'playing', NULL, 1.5, '{\"old\":true}')"
    )
    await conn.execute(
        "INSERT INTO matches (match_id, chat, table_key, game, record, winners, finished_at) "
        "VALUES ('m', 'c', 't', 'gnav', '{}', '[\"u\"]', 2.0)"
    )
    await conn.close()
    assert "tables_active" not in schema_objects(path)

    repo = await SqliteRepository.open(path)
    try:
        assert await writer_pragma(repo, "user_version") == latest_version(SQLITE_MIGRATIONS)
        assert {"tables_active", "matches_by_table"} <= schema_objects(path)
        loaded = await repo.load_table("t")
        assert loaded == TableRow("t", 4, "playing", {"old": True}, None, 1.5)
        assert await repo.load_active_tables() == [loaded]
        found = await repo.last_finished_match("t")
        assert found == FinishedMatch("m", "c", "t", "gnav", {}, ["u"], 2.0)
        await repo.save_table(table("t", 5), expected_version=4)
    finally:
        await repo.close()


async def test_a_version_2_database_keeps_every_statistic_and_finds_tables_by_id(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v2.db"
    conn = await connect(path)
    assert await migrate_sqlite(conn, target=2) == 2
    await conn.executemany(
        "INSERT INTO stats (chat, user, name, matches, wins, rounds, lives_lost, times_paid, "
        "refusals) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        V2_STATS,
    )
    await conn.executemany(
        "INSERT INTO tables (key, version, status, deadline, updated_at, state) "
        "VALUES (?, 3, 'playing', NULL, 1.5, ?)",
        [(key, json.dumps(state)) for key, state in V2_TABLES],
    )
    await conn.close()

    repo = await SqliteRepository.open(path)
    try:
        assert await writer_pragma(repo, "user_version") == latest_version(SQLITE_MIGRATIONS)
        assert "stats" not in schema_objects(path)
        for row in V2_STATS:
            chat, user, name = row[:3]
            assert await repo.player_stats(chat, user, "gnav") == PlayerStats(
                user, name, "gnav", v2_counters(row)
            )
            assert await repo.player_stats(chat, user, "karnaval") is None
        assert [p.user for p in await repo.chat_stats("tg:1", "gnav")] == [
            "tg:10",
            "tg:11",
            "tg:12",
        ]
        # The counters go on growing where they were.
        await repo.save_table(
            table("new", 1),
            expected_version=None,
            stats=[StatDelta("tg:1", "tg:10", "Åse", "gnav", {"wins": 1, "refusals": 1})],
        )
        found = await repo.player_stats("tg:1", "tg:10", "gnav")
        assert found is not None and found.counters == {
            **v2_counters(V2_STATS[0]),
            "wins": 3,
            "refusals": 8,
        }

        # Table ids come from the state (a string only); a tie goes to the first key.
        rows = [await repo.load_table(key) for key, _ in V2_TABLES]
        assert [r.table_id if r else "gone" for r in rows] == ["aaa", "bbb", "bbb", None, None]
        assert await repo.load_table_by_id("aaa") == TableRow(
            "tg:1", 3, "playing", V2_TABLES[0][1], None, 1.5, "aaa"
        )
        assert await repo.load_table_by_id("bbb") == rows[1]
        assert await repo.load_table_by_id("12") is None
    finally:
        await repo.close()


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(SchemaTooNewError):
        await SqliteRepository.open(path)


async def test_a_failing_migration_step_leaves_the_previous_version(tmp_path: Path) -> None:
    steps = (
        *SQLITE_MIGRATIONS,
        Migration(NEXT, "broken", ("CREATE TABLE extra (x INTEGER)", "NOT SQL AT ALL")),
    )
    conn = await connect(tmp_path / "m.db")
    try:
        with pytest.raises(MigrationError):
            await migrate_sqlite(conn, steps=steps)
        assert [r[0] for r in await conn.execute_fetchall("PRAGMA user_version")] == [NEXT - 1]
        names = [r[0] for r in await conn.execute_fetchall("SELECT name FROM sqlite_master")]
        assert "extra" not in names
    finally:
        await conn.close()


async def test_concurrent_saves_share_transactions(tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "g.db")
    try:
        await asyncio.gather(
            *(repo.save_table(table(f"t{i}", 1), expected_version=None) for i in range(300))
        )
        assert repo.writes == 300
        assert repo.transactions < 30, repo.transactions
    finally:
        await repo.close()


async def test_max_batch_caps_a_transaction(tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "g.db", max_batch=10)
    try:
        await asyncio.gather(
            *(repo.save_table(table(f"t{i}", 1), expected_version=None) for i in range(100))
        )
        assert repo.writes == 100 and repo.transactions >= 10
    finally:
        await repo.close()


async def test_a_write_that_aborts_the_transaction_fails_alone(tmp_path: Path) -> None:
    """An operational error aborts the batch's transaction: the rest is retried without it."""
    repo = await SqliteRepository.open(tmp_path / "g.db")
    try:
        await repo.save_table(table("t", 1), expected_version=None)

        def broken(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO no_such_table VALUES (1)")

        results = await asyncio.gather(
            repo.save_table(table("before", 1), expected_version=None),
            repo.save_table(
                table("t", 2),
                expected_version=1,
                stats=[StatDelta("chat", "u", "U", "gnav", {"rounds": 1})],
            ),
            repo._submit(broken, compound=False),
            repo.save_table(table("t", 3), expected_version=2),
            repo.save_table(table("stale", 1), expected_version=5),
            return_exceptions=True,
        )
        assert results[:2] == [None, None] and results[3] is None
        assert isinstance(results[2], sqlite3.OperationalError)
        assert isinstance(results[4], ConflictError)
        assert repo.transactions == 2  # the first save, then the batch once retried
        assert await repo.load_table("before") == table("before", 1)
        assert await repo.load_table("t") == table("t", 3)
        stats = await repo.player_stats("chat", "u", "gnav")
        # Applied once, not once per attempt.
        assert stats is not None and stats.counters == {"rounds": 1}
    finally:
        await repo.close()


async def test_a_transaction_that_cannot_begin_acknowledges_nobody(tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "g.db", busy_timeout=0.05)
    blocker = sqlite3.connect(tmp_path / "g.db", timeout=0, isolation_level=None)
    try:
        # Another process holds the write lock longer than the busy timeout allows.
        blocker.execute("BEGIN IMMEDIATE")
        results = await asyncio.gather(
            repo.save_table(table("a", 1), expected_version=None),
            repo.save_table(table("b", 1), expected_version=None),
            return_exceptions=True,
        )
        # The store is away for now (locked by another), not the writes wrong.
        assert all(isinstance(r, StoreUnavailable) for r in results), results
        assert all("database is locked" in r.reason for r in results), results
        blocker.execute("ROLLBACK")
        assert await repo.load_table("a") is None
        await repo.save_table(table("a", 1), expected_version=None)
        assert await repo.load_table("a") == table("a", 1)
    finally:
        blocker.close()
        await repo.close()


async def test_close_commits_what_is_queued_and_refuses_more(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    repo = await SqliteRepository.open(path)
    saves = [
        asyncio.create_task(repo.save_table(table(f"t{i}", 1), expected_version=None))
        for i in range(50)
    ]
    await asyncio.sleep(0)  # the saves are queued
    await repo.close()
    await asyncio.gather(*saves)
    with pytest.raises(RuntimeError):
        await repo.save_table(table("late", 1), expected_version=None)
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    repo = await SqliteRepository.open(path)
    try:
        assert len(await repo.load_active_tables()) == 50
    finally:
        await repo.close()


async def test_a_conflict_reports_the_stored_version(tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "g.db")
    try:
        await repo.save_table(table("t", 3), expected_version=None)
        with pytest.raises(ConflictError, match="stored version 3, expected 2"):
            await repo.save_table(table("t", 3), expected_version=2)
    finally:
        await repo.close()


async def test_raw_commit_rate_measures_something(tmp_path: Path) -> None:
    rate = await raw_commit_rate(tmp_path / "raw.db", seconds=0.1)
    assert rate > 0
    assert "raw_commit_bench" not in schema_objects(tmp_path / "raw.db")


# -- durability across SIGKILL --------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from bot.service.ports import StatDelta, TableRow
    from storage.sqlite import SqliteRepository

    async def main(path: str, mode: str) -> None:
        repo = await SqliteRepository.open(path)
        if mode == "once":
            await repo.save_table(
                TableRow("last", 1, "playing", {"pad": "x" * 3000}),
                expected_version=None,
                stats=[StatDelta("chat", "u", "U", "gnav", {"rounds": 1})],
            )
            os.kill(os.getpid(), signal.SIGKILL)  # right after save_table returned

        async def play(i: int) -> None:
            version = None
            while True:
                new = (version or 0) + 1
                row = TableRow(f"t{i}", new, "playing", {"n": new, "pad": "x" * 3000})
                stats = [StatDelta("chat", "u", "U", "gnav", {"rounds": 1})]
                await repo.save_table(row, expected_version=version, stats=stats)
                version = new
                print(f"t{i} {new}", flush=True)

        await asyncio.gather(*(play(i) for i in range(20)))

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


async def _child(path: Path, mode: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        str(path),
        mode,
        cwd=REPO_ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_a_save_survives_sigkill_right_after_it_returned(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    proc = await _child(path, "once")
    _, err = await asyncio.wait_for(proc.communicate(), timeout=20)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    repo = await SqliteRepository.open(path)
    try:
        loaded = await repo.load_table("last")
        assert loaded is not None and loaded.state == {"pad": "x" * 3000}
        stats = await repo.player_stats("chat", "u", "gnav")
        assert stats is not None and stats.counters == {"rounds": 1}
    finally:
        await repo.close()


async def test_every_acknowledged_save_survives_sigkill_mid_stream(tmp_path: Path) -> None:
    """Twenty tables save as fast as they can; the process dies at an arbitrary moment."""
    path = tmp_path / "g.db"
    proc = await _child(path, "stream")
    assert proc.stdout is not None
    acknowledged: dict[str, int] = {}
    try:
        while sum(acknowledged.values()) < 600:
            line = await asyncio.wait_for(proc.stdout.readline(), timeout=20)
            if not line:
                assert proc.stderr is not None
                pytest.fail(f"the child ended early: {(await proc.stderr.read()).decode()}")
            key, version = line.decode().split()
            acknowledged[key] = int(version)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
    assert proc.returncode == -signal.SIGKILL

    repo = await SqliteRepository.open(path)
    try:
        total_rounds = 0
        for i in range(20):
            loaded = await repo.load_table(f"t{i}")
            acked = acknowledged.get(f"t{i}", 0)
            stored = loaded.version if loaded else 0
            assert stored >= acked, f"t{i}: acknowledged {acked}, stored {stored}"
            if loaded is not None:
                assert loaded.state["n"] == loaded.version
            total_rounds += stored
        stats = await repo.player_stats("chat", "u", "gnav")
        # Every stored table version carried one round: the statistics committed with it.
        assert stats is not None and stats.counters == {"rounds": total_rounds}
    finally:
        await repo.close()


async def test_processes_opening_a_new_file_together_migrate_once(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    repos = await asyncio.gather(*(SqliteRepository.open(path) for _ in range(4)))
    try:
        for repo in repos:
            assert await writer_pragma(repo, "user_version") == latest_version(SQLITE_MIGRATIONS)
        await repos[0].save_table(table("t", 1), expected_version=None)
        assert await repos[3].load_table("t") == table("t", 1)
    finally:
        for repo in repos:
            await repo.close()
