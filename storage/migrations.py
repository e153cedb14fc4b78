"""Schema migrations of the durable stores: numbered steps applied in order, each in a transaction.

SQLite keeps the applied version in `PRAGMA user_version` (written inside the step's transaction,
so a step and its version number land together). PostgreSQL keeps it in a `schema_version` table
and takes an advisory lock while migrating, so several bot processes starting together apply each
step once. A store newer than this code refuses to open (`SchemaTooNewError`) rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import aiosqlite
    import asyncpg


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: the version it brings the store to and its statements, run in order."""

    version: int
    description: str
    statements: tuple[str, ...]


class SchemaTooNewError(RuntimeError):
    """The store was migrated by a newer release than this one."""


class MigrationError(RuntimeError):
    """A migration step failed; the store stays at the previous version."""


#: The counter columns of the statistics table of versions 1 and 2 (Gnav's), which version 3
#: turns into rows of `stat_counters` under the game "gnav".
_GNAV_COUNTERS_V1 = ("matches", "wins", "rounds", "lives_lost", "times_paid", "refusals")

# JSON columns hold text written by `storage.common.dump_json`; a json_valid() CHECK would parse
# every saved state again and cost about a seventh of the group-commit rate.
SQLITE_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "tables, settings, players, statistics and finished matches",
        (
            """CREATE TABLE tables (
                key TEXT PRIMARY KEY NOT NULL,
                version INTEGER NOT NULL,
                status TEXT NOT NULL,
                deadline REAL,
                updated_at REAL NOT NULL,
                state TEXT NOT NULL
            )""",
            """CREATE TABLE settings (
                channel TEXT PRIMARY KEY NOT NULL,
                data TEXT NOT NULL
            )""",
            """CREATE TABLE players (
                user TEXT PRIMARY KEY NOT NULL,
                data TEXT NOT NULL
            )""",
            """CREATE TABLE stats (
                chat TEXT NOT NULL,
                user TEXT NOT NULL,
                name TEXT NOT NULL,
                matches INTEGER NOT NULL DEFAULT 0,
                wins INTEGER NOT NULL DEFAULT 0,
                rounds INTEGER NOT NULL DEFAULT 0,
                lives_lost INTEGER NOT NULL DEFAULT 0,
                times_paid INTEGER NOT NULL DEFAULT 0,
                refusals INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (chat, user)
            )""",
            # `seq` (an alias of the rowid, kept through VACUUM) orders a table's matches the
            # way they were stored; `match_id` is the natural key.
            """CREATE TABLE matches (
                seq INTEGER PRIMARY KEY,
                match_id TEXT NOT NULL UNIQUE,
                chat TEXT NOT NULL,
                table_key TEXT NOT NULL,
                game TEXT NOT NULL,
                record TEXT NOT NULL,
                winners TEXT NOT NULL,
                finished_at REAL NOT NULL
            )""",
        ),
    ),
    Migration(
        2,
        "indexes for resuming active tables and a table's newest finished match",
        (
            "CREATE INDEX tables_active ON tables (key) WHERE status <> 'closed'",
            "CREATE INDEX matches_by_table ON matches (table_key, seq)",
        ),
    ),
    Migration(
        3,
        "statistics per game: a player's name and one row per counter; Gnav's carried over",
        (
            """CREATE TABLE stat_players (
                chat TEXT NOT NULL,
                game TEXT NOT NULL,
                user TEXT NOT NULL,
                name TEXT NOT NULL,
                PRIMARY KEY (chat, game, user)
            ) WITHOUT ROWID""",
            """CREATE TABLE stat_counters (
                chat TEXT NOT NULL,
                game TEXT NOT NULL,
                user TEXT NOT NULL,
                counter TEXT NOT NULL,
                value INTEGER NOT NULL,
                PRIMARY KEY (chat, game, user, counter)
            ) WITHOUT ROWID""",
            "INSERT INTO stat_players (chat, game, user, name) "
            "SELECT chat, 'gnav', user, name FROM stats",
            "INSERT INTO stat_counters (chat, game, user, counter, value) "
            + " UNION ALL ".join(
                f"SELECT chat, 'gnav', user, '{c}', {c} FROM stats WHERE {c} <> 0"
                for c in _GNAV_COUNTERS_V1
            ),
            "DROP TABLE stats",
        ),
    ),
    Migration(
        4,
        "a table's random id in its own indexed column, to find a table by it",
        (
            "ALTER TABLE tables ADD COLUMN table_id TEXT",
            "UPDATE tables SET table_id = json_extract(state, '$.table_id') "
            "WHERE json_type(state, '$.table_id') = 'text'",
            # Not unique: a table moved to a new chat id keeps its id beside its closed stub,
            # and short random ids of tables closed long ago may meet a new one. The lookup
            # prefers the open table (see `load_table_by_id`).
            "CREATE INDEX tables_by_id ON tables (table_id)",
        ),
    ),
    Migration(
        5,
        "the transactional outbox, table message references, timer claims, live processes",
        (
            """CREATE TABLE outbox (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                table_key TEXT NOT NULL,
                kind TEXT NOT NULL,
                target TEXT,
                payload TEXT NOT NULL,
                created_at REAL NOT NULL,
                claimed_by TEXT,
                claimed_until REAL,
                attempts INTEGER NOT NULL DEFAULT 0
            )""",
            "CREATE INDEX outbox_by_table ON outbox (table_key, id)",
            """CREATE TABLE table_messages (
                table_key TEXT PRIMARY KEY NOT NULL,
                ref TEXT
            ) WITHOUT ROWID""",
            # The table message each open table edits, from now on kept by its deliverer.
            "INSERT INTO table_messages (table_key, ref) "
            "SELECT key, json_extract(state, '$.message_ref') FROM tables "
            "WHERE status <> 'closed' AND json_type(state, '$.message_ref') = 'text'",
            "ALTER TABLE tables ADD COLUMN claimed_by TEXT",
            "ALTER TABLE tables ADD COLUMN claimed_until REAL",
            "CREATE INDEX tables_due ON tables (deadline) WHERE status <> 'closed'",
            """CREATE TABLE processes (
                owner TEXT PRIMARY KEY NOT NULL,
                alive_until REAL NOT NULL
            ) WITHOUT ROWID""",
        ),
    ),
    Migration(
        6,
        "finished parts of a table's match, each stored once (append-only), read with the table",
        (
            # A rowid table: parts are several kilobytes each, too large for WITHOUT ROWID.
            """CREATE TABLE table_parts (
                table_key TEXT NOT NULL,
                seq INTEGER NOT NULL,
                owner TEXT NOT NULL,
                data TEXT NOT NULL,
                PRIMARY KEY (table_key, seq)
            )""",
        ),
    ),
)

POSTGRES_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "tables, settings, players, statistics and finished matches",
        (
            """CREATE TABLE tables (
                key TEXT PRIMARY KEY,
                version BIGINT NOT NULL,
                status TEXT NOT NULL,
                deadline DOUBLE PRECISION,
                updated_at DOUBLE PRECISION NOT NULL,
                state JSONB NOT NULL
            )""",
            """CREATE TABLE settings (
                channel TEXT PRIMARY KEY,
                data JSONB NOT NULL
            )""",
            """CREATE TABLE players (
                "user" TEXT PRIMARY KEY,
                data JSONB NOT NULL
            )""",
            """CREATE TABLE stats (
                chat TEXT NOT NULL,
                "user" TEXT NOT NULL,
                name TEXT NOT NULL,
                matches BIGINT NOT NULL DEFAULT 0,
                wins BIGINT NOT NULL DEFAULT 0,
                rounds BIGINT NOT NULL DEFAULT 0,
                lives_lost BIGINT NOT NULL DEFAULT 0,
                times_paid BIGINT NOT NULL DEFAULT 0,
                refusals BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (chat, "user")
            )""",
            """CREATE TABLE matches (
                match_id TEXT PRIMARY KEY,
                seq BIGINT GENERATED ALWAYS AS IDENTITY,
                chat TEXT NOT NULL,
                table_key TEXT NOT NULL,
                game TEXT NOT NULL,
                record JSONB NOT NULL,
                winners JSONB NOT NULL,
                finished_at DOUBLE PRECISION NOT NULL
            )""",
        ),
    ),
    Migration(
        2,
        "indexes for resuming active tables and a table's newest finished match",
        (
            "CREATE INDEX tables_active ON tables (key) WHERE status <> 'closed'",
            "CREATE INDEX matches_by_table ON matches (table_key, seq)",
        ),
    ),
    Migration(
        3,
        "statistics per game: a player's name and one row per counter; Gnav's carried over",
        (
            """CREATE TABLE stat_players (
                chat TEXT NOT NULL,
                game TEXT NOT NULL,
                "user" TEXT NOT NULL,
                name TEXT NOT NULL,
                PRIMARY KEY (chat, game, "user")
            )""",
            """CREATE TABLE stat_counters (
                chat TEXT NOT NULL,
                game TEXT NOT NULL,
                "user" TEXT NOT NULL,
                counter TEXT NOT NULL,
                value BIGINT NOT NULL,
                PRIMARY KEY (chat, game, "user", counter)
            )""",
            'INSERT INTO stat_players (chat, game, "user", name) '
            "SELECT chat, 'gnav', \"user\", name FROM stats",
            'INSERT INTO stat_counters (chat, game, "user", counter, value) '
            "SELECT s.chat, 'gnav', s.\"user\", c.counter, c.value FROM stats AS s "
            "CROSS JOIN LATERAL (VALUES "
            + ", ".join(f"('{c}', s.{c})" for c in _GNAV_COUNTERS_V1)
            + ") AS c (counter, value) WHERE c.value <> 0",
            "DROP TABLE stats",
        ),
    ),
    Migration(
        4,
        "a table's random id in its own indexed column, to find a table by it",
        (
            "ALTER TABLE tables ADD COLUMN table_id TEXT",
            "UPDATE tables SET table_id = state ->> 'table_id' "
            "WHERE jsonb_typeof(state -> 'table_id') = 'string'",
            # Not unique: a table moved to a new chat id keeps its id beside its closed stub,
            # and short random ids of tables closed long ago may meet a new one. The lookup
            # prefers the open table (see `load_table_by_id`).
            "CREATE INDEX tables_by_id ON tables (table_id)",
        ),
    ),
    Migration(
        5,
        "the transactional outbox, table message references, timer claims, live processes",
        (
            """CREATE TABLE outbox (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                table_key TEXT NOT NULL,
                kind TEXT NOT NULL,
                target TEXT,
                payload JSONB NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                claimed_by TEXT,
                claimed_until DOUBLE PRECISION,
                attempts INTEGER NOT NULL DEFAULT 0
            )""",
            "CREATE INDEX outbox_by_table ON outbox (table_key, id)",
            """CREATE TABLE table_messages (
                table_key TEXT PRIMARY KEY,
                ref TEXT
            )""",
            "INSERT INTO table_messages (table_key, ref) "
            "SELECT key, state ->> 'message_ref' FROM tables "
            "WHERE status <> 'closed' AND jsonb_typeof(state -> 'message_ref') = 'string'",
            "ALTER TABLE tables ADD COLUMN claimed_by TEXT",
            "ALTER TABLE tables ADD COLUMN claimed_until DOUBLE PRECISION",
            "CREATE INDEX tables_due ON tables (deadline) WHERE status <> 'closed'",
            """CREATE TABLE processes (
                owner TEXT PRIMARY KEY,
                alive_until DOUBLE PRECISION NOT NULL
            )""",
        ),
    ),
    Migration(
        6,
        "finished parts of a table's match, each stored once (append-only), read with the table",
        (
            """CREATE TABLE table_parts (
                table_key TEXT NOT NULL,
                seq INTEGER NOT NULL,
                owner TEXT NOT NULL,
                data JSONB NOT NULL,
                PRIMARY KEY (table_key, seq)
            )""",
        ),
    ),
    Migration(
        7,
        "calls each process made in a group chat lately: one bot token's budget, shared",
        (
            """CREATE TABLE chat_calls (
                chat TEXT NOT NULL,
                at DOUBLE PRECISION NOT NULL,
                owner TEXT NOT NULL
            )""",
            "CREATE INDEX chat_calls_by_chat ON chat_calls (chat, at)",
        ),
    ),
)


def latest_version(steps: tuple[Migration, ...]) -> int:
    """The version a store has once every step is applied."""
    return max((m.version for m in steps), default=0)


def _check_steps(steps: tuple[Migration, ...]) -> None:
    versions = [m.version for m in steps]
    if versions != sorted(set(versions)) or (versions and versions[0] < 1):
        raise ValueError(f"migration versions must be increasing and positive: {versions}")


def _pending(
    steps: tuple[Migration, ...], current: int, target: int | None
) -> tuple[Migration, ...]:
    _check_steps(steps)
    newest = latest_version(steps)
    if current > newest:
        raise SchemaTooNewError(
            f"the store is at schema version {current}, this release knows up to {newest}"
        )
    goal = newest if target is None else target
    return tuple(m for m in steps if current < m.version <= goal)


async def sqlite_version(conn: aiosqlite.Connection) -> int:
    """The schema version of an SQLite database (0 for a new file)."""
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate_sqlite(
    conn: aiosqlite.Connection,
    *,
    target: int | None = None,
    steps: tuple[Migration, ...] = SQLITE_MIGRATIONS,
) -> int:
    """Bring an SQLite database to `target` (default: the newest step); returns its version.

    `conn` must be in autocommit mode (`isolation_level=None`): each step runs in its own
    `BEGIN IMMEDIATE` transaction, which also takes the write lock so that two processes opening
    the same file apply each step once.
    """
    applied = await sqlite_version(conn)
    for step in _pending(steps, applied, target):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have migrated meanwhile.
            if step.version <= await sqlite_version(conn):
                await conn.execute("ROLLBACK")
                continue
            for statement in step.statements:
                await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {int(step.version)}")
            await conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            if isinstance(exc, Exception):
                raise MigrationError(
                    f"SQLite migration {step.version} ({step.description}) failed: {exc}"
                ) from exc
            raise
    return await sqlite_version(conn)


#: The advisory lock key PostgreSQL migrations hold (an arbitrary constant: "gnav" in ASCII).
POSTGRES_MIGRATION_LOCK = 0x676E6176


async def postgres_version(conn: asyncpg.Connection) -> int:
    """The schema version of the PostgreSQL schema on `conn`'s search path (0 when new)."""
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    value = await conn.fetchval("SELECT max(version) FROM schema_version")
    return int(value or 0)


async def migrate_postgres(
    conn: asyncpg.Connection,
    *,
    target: int | None = None,
    steps: tuple[Migration, ...] = POSTGRES_MIGRATIONS,
) -> int:
    """Bring the PostgreSQL schema on the search path to `target` (default: newest).

    Holds a session advisory lock for the whole run, so concurrent callers wait and then find
    the work done; each step and its `schema_version` row commit in one transaction.
    """
    _check_steps(steps)
    await conn.execute("SELECT pg_advisory_lock($1)", POSTGRES_MIGRATION_LOCK)
    try:
        await conn.execute(
            """CREATE TABLE IF NOT EXISTS schema_version (
                version INTEGER PRIMARY KEY,
                description TEXT NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )"""
        )
        applied = await postgres_version(conn)
        for step in _pending(steps, applied, target):
            try:
                async with conn.transaction():
                    for statement in step.statements:
                        await conn.execute(statement)
                    await conn.execute(
                        "INSERT INTO schema_version (version, description) VALUES ($1, $2)",
                        step.version,
                        step.description,
                    )
            except Exception as exc:
                raise MigrationError(
                    f"PostgreSQL migration {step.version} ({step.description}) failed: {exc}"
                ) from exc
        return await postgres_version(conn)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", POSTGRES_MIGRATION_LOCK)
