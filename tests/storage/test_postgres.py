"""PostgreSQL specifics: migrations under an advisory lock, and two processes on one table."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.service.ports import ConflictError, FinishedMatch, PlayerStats, StatDelta, TableRow
from storage.migrations import (
    POSTGRES_MIGRATIONS,
    SchemaTooNewError,
    latest_version,
    migrate_postgres,
)
from tests.storage.conftest import PG_DSN, V2_STATS, V2_TABLES, v2_counters

asyncpg = pytest.importorskip("asyncpg")

from storage.postgres import PostgresRepository  # noqa: E402


async def _connect(schema: str) -> asyncpg.Connection:
    return await asyncpg.connect(PG_DSN, server_settings={"search_path": f'"{schema}"'})


async def _versions(schema: str) -> list[int]:
    conn = await _connect(schema)
    try:
        return [r["version"] for r in await conn.fetch("SELECT version FROM schema_version")]
    finally:
        await conn.close()


async def test_a_version_1_schema_is_upgraded(pg_schema: str) -> None:
    conn = await _connect(pg_schema)
    try:
        assert await migrate_postgres(conn, target=1) == 1
        await conn.execute(
            "INSERT INTO tables (key, version, status, deadline, updated_at, state) "
            """VALUES ('t', 4, 'playing', NULL, 1.5, '{"old": true}')"""
        )
        await conn.execute(
            "INSERT INTO matches (match_id, chat, table_key, game, record, winners, finished_at)"
            """ VALUES ('m', 'c', 't', 'gnav', '{}', '["u"]', 2.0)"""
        )
        indexes = "SELECT indexname FROM pg_indexes WHERE schemaname = $1"
        assert "tables_active" not in {r[0] for r in await conn.fetch(indexes, pg_schema)}
        repo = await PostgresRepository.open(PG_DSN, schema=pg_schema)
        try:
            assert await _versions(pg_schema) == list(
                range(1, latest_version(POSTGRES_MIGRATIONS) + 1)
            )
            assert {"tables_active", "matches_by_table"} <= {
                r[0] for r in await conn.fetch(indexes, pg_schema)
            }
            loaded = await repo.load_table("t")
            assert loaded == TableRow("t", 4, "playing", {"old": True}, None, 1.5)
            found = await repo.last_finished_match("t")
            assert found == FinishedMatch("m", "c", "t", "gnav", {}, ["u"], 2.0)
        finally:
            await repo.close()
    finally:
        await conn.close()


async def test_a_version_2_schema_keeps_every_statistic_and_finds_tables_by_id(
    pg_schema: str,
) -> None:
    conn = await _connect(pg_schema)
    try:
        assert await migrate_postgres(conn, target=2) == 2
        await conn.executemany(
            'INSERT INTO stats (chat, "user", name, matches, wins, rounds, lives_lost, '
            "times_paid, refusals) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            V2_STATS,
        )
        await conn.executemany(
            "INSERT INTO tables (key, version, status, deadline, updated_at, state) "
            "VALUES ($1, 3, 'playing', NULL, 1.5, $2::jsonb)",
            [(key, json.dumps(state)) for key, state in V2_TABLES],
        )
    finally:
        await conn.close()

    repo = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    try:
        assert await _versions(pg_schema) == list(range(1, latest_version(POSTGRES_MIGRATIONS) + 1))
        assert await repo.pool.fetchval("SELECT to_regclass('stats')") is None
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
            TableRow("new", 1, "lobby", {}),
            expected_version=None,
            stats=[StatDelta("tg:1", "tg:10", "Åse", "gnav", {"wins": 1, "refusals": 1})],
        )
        found = await repo.player_stats("tg:1", "tg:10", "gnav")
        assert found is not None
        assert found.counters == {**v2_counters(V2_STATS[0]), "wins": 3, "refusals": 8}
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


async def test_processes_starting_together_migrate_once(pg_schema: str) -> None:
    repos = await asyncio.gather(
        *(PostgresRepository.open(PG_DSN, schema=pg_schema) for _ in range(4))
    )
    try:
        assert await _versions(pg_schema) == list(range(1, latest_version(POSTGRES_MIGRATIONS) + 1))
        await repos[0].save_table(TableRow("t", 1, "lobby", {}), expected_version=None)
        assert await repos[3].load_table("t") == TableRow("t", 1, "lobby", {})
    finally:
        for repo in repos:
            await repo.close()


async def test_a_newer_schema_is_refused(pg_schema: str) -> None:
    await (await PostgresRepository.open(PG_DSN, schema=pg_schema)).close()
    conn = await _connect(pg_schema)
    try:
        await conn.execute("INSERT INTO schema_version (version, description) VALUES (99, 'x')")
    finally:
        await conn.close()
    with pytest.raises(SchemaTooNewError):
        await PostgresRepository.open(PG_DSN, schema=pg_schema)


async def test_two_pools_racing_on_one_table_many_times(pg_schema: str) -> None:
    """Two bot processes (two pools) keep writing the same table: each round one wins."""
    a = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    b = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    try:
        await a.save_table(TableRow("t", 1, "playing", {"n": 1}), expected_version=None)
        for version in range(1, 21):
            row = TableRow("t", version + 1, "playing", {"n": version + 1})
            results = await asyncio.gather(
                a.save_table(row, expected_version=version),
                b.save_table(row, expected_version=version),
                return_exceptions=True,
            )
            assert sorted(type(r).__name__ for r in results) == ["ConflictError", "NoneType"]
            assert any(isinstance(r, ConflictError) for r in results)
        assert (await b.load_table("t")) == TableRow("t", 21, "playing", {"n": 21})
    finally:
        await a.close()
        await b.close()


async def test_commits_are_synchronous_whatever_the_server_default(pg_schema: str) -> None:
    repo = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    try:
        assert await repo.pool.fetchval("SHOW synchronous_commit") == "on"
    finally:
        await repo.close()


async def test_a_process_whose_session_ended_is_gone_whatever_its_heartbeat(
    pg_schema: str,
) -> None:
    """Issue 17, point 4: a process that says it lives holds a liveness lock on a connection of
    its own; when that connection closes (the process died), the other processes' store counts
    it gone at once, though its heartbeat would run for seconds more. One that stops cleanly
    lets its lock go with its heartbeat row."""
    a = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    b = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    try:
        now = 1_000.0
        await a.heartbeat("host-a:1:aa", now, now + 10)
        await b.heartbeat("host-b:2:bb", now, now + 10)
        assert await b.gone_processes(now) == []
        a._alive["host-a:1:aa"].terminate()  # as a SIGKILL closes it
        for _ in range(400):  # the server ends the session once it reads the close
            if await b.gone_processes(now):
                break
            await asyncio.sleep(0.05)
        assert await b.gone_processes(now) == ["host-a:1:aa"]
        assert sorted(await b.live_processes(now)) == ["host-a:1:aa", "host-b:2:bb"]
        # Its next heartbeat takes the lock again: alive once more.
        await a.heartbeat("host-a:1:aa", now + 1, now + 11)
        assert await b.gone_processes(now + 1) == []
        await b.heartbeat("host-b:2:bb", now + 2, None)
        assert await a.gone_processes(now + 2) == []
    finally:
        await a.close()
        await b.close()


async def test_group_calls_are_shared_by_the_processes_of_one_store(pg_schema: str) -> None:
    """Issue 17, point 7: each process records its calls in a group (`add_chat_call`) and
    reads the others' within a window (`chat_calls`, its own left out); an hour on, a call
    is forgotten."""
    a = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    b = await PostgresRepository.open(PG_DSN, schema=pg_schema)
    try:
        await a.add_chat_call("-100", 1_000.0, "host:1:a")
        await a.add_chat_call("-100", 1_010.0, "host:1:a")
        await b.add_chat_call("-100", 1_020.0, "host:2:b")
        await b.add_chat_call("-200", 1_020.0, "host:2:b")
        assert await b.chat_calls("-100", 990.0, "host:2:b") == [1_000.0, 1_010.0]
        assert await b.chat_calls("-100", 1_005.0, "host:2:b") == [1_010.0]
        assert await a.chat_calls("-100", 990.0, "host:1:a") == [1_020.0]
        await a.add_chat_call("-100", 5_000.0, "host:1:a")
        assert await b.chat_calls("-100", 0.0, "host:2:b") == [5_000.0]
    finally:
        await a.close()
        await b.close()
