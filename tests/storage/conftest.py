"""Fixtures of the storage tests: a fresh store of each kind, and a PostgreSQL schema per test.

PostgreSQL comes from `GNAV_TEST_POSTGRES_DSN` (default: the local server with trust auth).
When it cannot be reached the PostgreSQL variants are skipped, or fail when
`GNAV_REQUIRE_SERVICES=1` (as in CI), so a missing service never passes silently there.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.service.store import Repository
from storage.memory import MemoryRepository
from storage.sqlite import SqliteRepository

PG_DSN = os.environ.get("GNAV_TEST_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRE_SERVICES = os.environ.get("GNAV_REQUIRE_SERVICES") == "1"


def redacted(dsn: str) -> str:
    """The DSN without its password, fit for a skip message."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def unavailable(reason: str) -> None:
    """Skip, or fail when the environment requires its services."""
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (GNAV_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


@contextlib.asynccontextmanager
async def fresh_pg_schema() -> AsyncIterator[str]:
    """Create a PostgreSQL schema with a random name, and drop it afterwards."""
    try:
        import asyncpg
    except ImportError as exc:  # the `postgres` extra is not installed
        unavailable(f"asyncpg is not installed: {exc}")
    try:
        admin = await asyncpg.connect(PG_DSN, timeout=5)
    except Exception as exc:
        unavailable(f"PostgreSQL not reachable at {redacted(PG_DSN)}: {exc!r}")
    name = f"gnav_test_{secrets.token_hex(6)}"
    try:
        await admin.execute(f'CREATE SCHEMA "{name}"')
        yield name
    finally:
        await admin.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        await admin.close()


@pytest.fixture
async def pg_schema() -> AsyncIterator[str]:
    """A fresh, empty PostgreSQL schema, dropped after the test."""
    async with fresh_pg_schema() as name:
        yield name


@dataclass
class Store:
    """A repository under test, and how to get more handles on the same data."""

    kind: str
    repo: Repository
    #: Another handle on the same data, as a second bot process would hold (memory: the same).
    open_another: Callable[[], Awaitable[Repository]]
    #: Close `repo` and open the store again (None for memory, which keeps nothing).
    reopen: Callable[[], Awaitable[Repository]] | None
    handles: list[Any] = field(default_factory=list)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh store of each kind."""
    kind: str = request.param
    handles: list[Any] = []

    if kind == "memory":
        memory = MemoryRepository()

        async def same() -> Repository:
            return memory

        yield Store(kind, memory, same, None, handles)
        return

    async with contextlib.AsyncExitStack() as stack:
        if kind == "sqlite":
            path = tmp_path / "db" / "gnav.sqlite3"

            async def opener() -> Repository:
                repo = await SqliteRepository.open(path)
                handles.append(repo)
                return repo

        else:
            from storage.postgres import PostgresRepository

            schema = await stack.enter_async_context(fresh_pg_schema())

            async def opener() -> Repository:
                repo = await PostgresRepository.open(PG_DSN, schema=schema, max_size=5)
                handles.append(repo)
                return repo

        # Close every handle before the schema is dropped.
        stack.push_async_callback(_close_all, handles)
        first = await opener()
        holder = Store(kind, first, opener, None, handles)

        async def reopen() -> Repository:
            await holder.repo.close()
            holder.repo = await opener()
            return holder.repo

        holder.reopen = reopen
        yield holder


async def _close_all(handles: list[Any]) -> None:
    for repo in handles:
        await repo.close()


# -- a store at schema version 2 (statistics as Gnav columns, no table id column) ----------

#: Gnav statistics rows of a version 2 store: (chat, user, name, matches, wins, rounds,
#: lives lost, times paid, refusals dealt). Zeros, a player with no counter, odd names.
V2_STATS = [
    ("tg:1", "tg:10", "Åse", 5, 2, 40, 9, 3, 7),
    ("tg:1", "tg:11", "Bjørn 🂡", 1, 0, 3, 3, 0, 0),
    ("tg:1", "tg:12", "Idle", 0, 0, 0, 0, 0, 0),
    ("tg:2", "tg:10", "Åse in another chat", 2**40, 1, 0, 0, 0, 2),
]
#: Tables of a version 2 store: key and state (table ids: one each, a duplicate, none, a number).
V2_TABLES = [
    ("tg:1", {"table_id": "aaa", "seats": []}),
    ("tg:2", {"table_id": "bbb"}),
    ("tg:3", {"table_id": "bbb"}),
    ("tg:4", {"old": True}),
    ("tg:5", {"table_id": 12}),
]


def v2_counters(row: tuple[Any, ...]) -> dict[str, int]:
    """The counters a version 2 statistics row becomes (zeros are not kept)."""
    names = ("matches", "wins", "rounds", "lives_lost", "times_paid", "refusals")
    return {n: v for n, v in zip(names, row[3:], strict=True) if v}
