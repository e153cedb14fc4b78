"""PostgreSQL storage over asyncpg: the shared store when several bot processes serve one bot.

Each `save_table` is one transaction on a pooled connection. The optimistic `version` column
makes a second process that read the same table version lose with ConflictError: its
`UPDATE ... WHERE version = $n` matches no row once the first has committed (READ COMMITTED
re-checks the condition against the committed row). PostgreSQL batches concurrent commits into
shared WAL flushes itself, so no group commit is needed on this side.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import asyncpg

from bot.service.ports import (
    Claim,
    ConflictError,
    FinishedMatch,
    OutBatch,
    OutMessage,
    PlayerStats,
    StatDelta,
    TableRow,
)
from storage.common import (
    CLAIM_BATCH,
    DuplicateMatchError,
    dump_json,
    group_stats,
    message_payload,
    more_in_lanes,
    one_line,
    out_message,
    raise_unavailable,
    stat_rows,
    table_parts,
)
from storage.migrations import migrate_postgres

_TABLE_COLUMNS = "key, version, status, deadline, updated_at, state, table_id"
#: A table's finished parts, read with its row in the same statement (`common.table_parts`).
_PARTS_COLUMN = (
    "(SELECT coalesce(jsonb_agg(jsonb_build_array(p.seq, p.owner, p.data)), '[]'::jsonb) "
    "FROM table_parts AS p WHERE p.table_key = t.key) AS parts"
)
_TABLE_SELECT = (
    "SELECT t.key, t.version, t.status, t.deadline, t.updated_at, t.state, t.table_id, "
    f"{_PARTS_COLUMN} FROM tables AS t"
)
#: Parts of seq 0 start a key's parts afresh; the others are added (append-only).
_DROP_PARTS = "DELETE FROM table_parts WHERE table_key = $1"
_UPSERT_PART = (
    "INSERT INTO table_parts (table_key, seq, owner, data) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT (table_key, seq) DO UPDATE SET owner = EXCLUDED.owner, data = EXCLUDED.data"
)

_INSERT_TABLE = (
    f"INSERT INTO tables ({_TABLE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) "
    "ON CONFLICT (key) DO NOTHING"
)
_UPDATE_TABLE = (
    "UPDATE tables SET version = $2, status = $3, deadline = $4, updated_at = $5, state = $6, "
    "table_id = $7, claimed_by = NULL, claimed_until = NULL WHERE key = $1 AND version = $8"
)
#: The advisory lock heartbeats take ("gnvp" in ASCII).
_HEARTBEAT_LOCK = 0x676E7670
#: A live process holds the session advisory lock (_HEARTBEAT_LOCK, hashtext(owner)) on a
#: connection of its own for as long as it runs: when the process dies, its connection
#: closes and the lock is gone at once, whatever its heartbeat says.
_LIVENESS_LOCK = "SELECT pg_advisory_lock($1::int, hashtext($2))"
#: Owners the processes table counts alive whose liveness lock nobody holds (their process,
#: or its host, is gone). A lock on (int4, int4) shows in pg_locks as classid, objid and
#: objsubid 2.
_GONE_PROCESSES = (
    "SELECT p.owner FROM processes AS p WHERE p.alive_until > $1 AND NOT EXISTS ("
    "SELECT 1 FROM pg_locks AS l WHERE l.locktype = 'advisory' AND l.granted "
    "AND l.objsubid = 2 AND l.classid = $2::bigint::oid "
    "AND l.objid = (hashtext(p.owner)::bigint & 4294967295)::oid "
    "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
)
#: The liveness connection asks the server to probe it often (TCP keepalive: idle 2 s, then
#: every 1 s, given up after 2 unanswered), so a host that vanishes without closing its
#: connection loses its lock within about 4 s too (no effect over a Unix socket, where a
#: process's death always closes it at once).
_LIVENESS_SETTINGS = {
    "tcp_keepalives_idle": "2",
    "tcp_keepalives_interval": "1",
    "tcp_keepalives_count": "2",
}
#: A named exclusive lock (`hold_exclusive`): a session advisory lock keyed by a 64-bit hash
#: of its name (this seed, "gnxl", keeps the key apart from the tables' outbox locks, hashed
#: with seed 7), taken on a connection of the holder's own with the liveness settings above:
#: the lock is free as soon as the holder's process dies, or within about 4 s of its host
#: vanishing. Two names share a key with a chance of 2^-64.
_EXCLUSIVE_SEED = 0x676E786C
_TRY_EXCLUSIVE = "SELECT pg_try_advisory_lock(hashtextextended($1, $2))"
_INSERT_MESSAGE = (
    "INSERT INTO outbox (table_key, kind, target, payload, created_at) VALUES ($1, $2, $3, $4, $5)"
)
#: The table's next undelivered messages, oldest first: each lane's oldest (the channel's,
#: the private ones), so a private message never waits behind the channel's batch.
_PENDING = (
    "(SELECT id, kind, target, payload, created_at, claimed_by, claimed_until, attempts "
    "FROM outbox WHERE table_key = $1 AND kind <> 'tell' ORDER BY id LIMIT $2) "
    "UNION ALL (SELECT id, kind, target, payload, created_at, claimed_by, claimed_until, "
    "attempts FROM outbox WHERE table_key = $1 AND kind = 'tell' ORDER BY id LIMIT $2) "
    "ORDER BY id"
)
#: Due tables nobody holds, claimed (rows another transaction holds are skipped, not waited on).
_CLAIM_TIMERS = (
    "UPDATE tables SET claimed_by = $1, claimed_until = $3 WHERE key IN ("
    "SELECT key FROM tables WHERE status <> 'closed' AND deadline <= $2 "
    "AND (claimed_until IS NULL OR claimed_until <= $2 OR claimed_by = $1) "
    "AND ($5::text[] IS NULL OR key = ANY($5::text[])) "
    "ORDER BY deadline LIMIT $4 FOR UPDATE SKIP LOCKED) RETURNING key"
)
_UPSERT_STAT_NAME = (
    'INSERT INTO stat_players (chat, game, "user", name) VALUES ($1, $2, $3, $4) '
    'ON CONFLICT (chat, game, "user") DO UPDATE SET name = EXCLUDED.name'
)
_UPSERT_STAT_COUNTER = (
    'INSERT INTO stat_counters (chat, game, "user", counter, value) VALUES ($1, $2, $3, $4, $5) '
    'ON CONFLICT (chat, game, "user", counter) '
    "DO UPDATE SET value = CASE WHEN left(EXCLUDED.counter, 5) = 'best_' "
    "THEN GREATEST(stat_counters.value, EXCLUDED.value) "
    "ELSE stat_counters.value + EXCLUDED.value END"
)
_SELECT_BY_ID = (
    f"{_TABLE_SELECT} WHERE t.table_id = $1 "
    "ORDER BY t.status = 'closed', t.updated_at DESC, t.key LIMIT 1"
)
#: A player's name and counters (one row per counter; a NULL counter when there is none).
_SELECT_STATS = (
    'SELECT p."user", p.name, c.counter, c.value FROM stat_players AS p '
    "LEFT JOIN stat_counters AS c "
    'ON c.chat = p.chat AND c.game = p.game AND c."user" = p."user" '
    "WHERE p.chat = $1 AND p.game = $2"
)
_INSERT_MATCH = (
    "INSERT INTO matches (match_id, chat, table_key, game, record, winners, finished_at) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7)"
)


class _JsonText(str):
    """JSON already encoded by `dump_json` (so a value that is not JSON fails before the query)."""


def _json(value: Any) -> _JsonText:
    return _JsonText(dump_json(value))


def _encode_jsonb(value: Any) -> str:
    return value if isinstance(value, _JsonText) else dump_json(value)


async def _init_connection(conn: asyncpg.Connection) -> None:
    """Exchange JSONB as Python values, encoded like every other back-end encodes them."""
    await conn.set_type_codec(
        "jsonb", encoder=_encode_jsonb, decoder=json.loads, schema="pg_catalog", format="text"
    )


class _Connection(asyncpg.Connection):
    """A pooled connection released without asyncpg's reset query (one round trip saved per
    use): this store leaves no session state behind (no LISTEN, no SET at run time, only
    transaction-scoped advisory locks; the migration's session lock is released by it)."""

    def get_reset_query(self) -> str:
        """Nothing to reset."""
        return ""


#: Server errors that say the server cannot serve now (it stops, starts, is in recovery, has
#: no room or no connection left), not that the request was wrong.
_AWAY = (
    asyncpg.PostgresConnectionError,  # class 08: connection exceptions
    asyncpg.InsufficientResourcesError,  # class 53: disk full, out of memory, connections
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.CannotConnectNowError,
    asyncpg.ReadOnlySQLTransactionError,  # a standby after a failover
)


#: Interface errors that are not a connection's trouble. The others ("connection is closed",
#: "cannot switch to state ...; another operation is in progress") come from a connection the
#: server ended under a query: the pool never shares a connection between two operations.
_MISCONFIGURED = (
    asyncpg.exceptions.ClientConfigurationError,
    asyncpg.exceptions.UnsupportedClientFeatureError,
    asyncpg.exceptions.UnsupportedServerFeatureError,
)


def unavailable_reason(exc: BaseException) -> str | None:
    """Why `exc` means the PostgreSQL server is away (one line), or None when it does not:
    the network (refused, reset, unreachable), a connection closed under a query, a
    connection or statement timeout, or a server that is shutting down, starting or full."""
    if isinstance(exc, _MISCONFIGURED):
        return None  # the client's settings, not an outage
    reached: tuple[type[BaseException], ...] = (OSError, TimeoutError, asyncio.TimeoutError)
    reached += (asyncpg.InterfaceError,)
    reached += (asyncpg.exceptions.InternalClientError,)  # a state the server's end confused
    if isinstance(exc, (*reached, asyncpg.PostgresConnectionError)):
        return f"the PostgreSQL store cannot be reached: {one_line(exc)}"
    if isinstance(exc, _AWAY):
        return f"the PostgreSQL store cannot serve now: {one_line(exc)}"
    return None


@raise_unavailable(unavailable_reason, skip=("close",))
class PostgresRepository:
    """The `Repository` in PostgreSQL. Open with `await PostgresRepository.open(dsn)`.

    A server that cannot be reached, or cannot serve (stopping, starting, disk full), makes
    every method raise StoreUnavailable; nothing of a write is stored then.
    """

    #: Several processes may serve one PostgreSQL store: cached tables are checked at load,
    #: timers are claimed through the store.
    shared = True

    def __init__(
        self,
        pool: asyncpg.Pool,
        connect: Callable[[], Awaitable[asyncpg.Connection]] | None = None,
    ) -> None:
        """Use `open`; this wraps an already-migrated pool (`connect`: opens a connection of
        its own, for the liveness lock)."""
        self._pool = pool
        self._closed = False
        self._connect = connect
        #: The connections holding the liveness locks of this process's owners (one, but
        #: for tests running several services on one store).
        self._alive: dict[str, asyncpg.Connection] = {}
        #: (name, owner) -> the connection of that exclusive lock and whether it holds it.
        self._exclusive: dict[tuple[str, str], tuple[asyncpg.Connection, bool]] = {}

    @classmethod
    async def open(
        cls,
        dsn: str,
        *,
        min_size: int = 0,
        max_size: int = 10,
        schema: str | None = None,
        server_settings: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        command_timeout: float | None = 30.0,
    ) -> PostgresRepository:
        """Connect a pool to `dsn` and migrate the schema.

        `schema` puts gnav-bot's tables in that (existing) schema by setting `search_path`;
        `server_settings` are passed to every connection. `synchronous_commit` is `on` unless
        given there: a save returns once its commit is flushed to the server's WAL, whatever
        the server's default. `connect_timeout` bounds each connection attempt,
        `command_timeout` each statement (None: no limit). `min_size` is 0 by default:
        connections are made when needed and kept while used (asyncpg keeps an idle one for
        5 minutes), and a server that is away is not reconnected to in the background (the
        pool's floor keeping logs a traceback at every try).
        """
        settings = {"synchronous_commit": "on", **(server_settings or {})}
        if schema is not None:
            settings["search_path"] = _quote_ident(schema)
        pool = await asyncpg.create_pool(
            dsn,
            min_size=min_size,
            max_size=max_size,
            init=_init_connection,
            connection_class=_Connection,
            server_settings=settings,
            timeout=connect_timeout,
            command_timeout=command_timeout,
        )
        try:
            async with pool.acquire() as conn:
                await migrate_postgres(conn)
        except BaseException:
            await pool.close()
            raise
        liveness = {**settings, **_LIVENESS_SETTINGS}

        async def connect() -> asyncpg.Connection:
            return await asyncpg.connect(
                dsn, server_settings=liveness, timeout=connect_timeout, command_timeout=10.0
            )

        return cls(pool, connect)

    @property
    def pool(self) -> asyncpg.Pool:
        """The connection pool (for health checks and tests)."""
        return self._pool

    # -- reads ------------------------------------------------------------------------------

    @staticmethod
    def _table_row(row: asyncpg.Record) -> TableRow:
        return TableRow(
            key=row["key"],
            version=row["version"],
            status=row["status"],
            state=row["state"],
            deadline=row["deadline"],
            updated_at=row["updated_at"],
            table_id=row["table_id"],
            parts=table_parts(row["parts"]),
        )

    async def load_table(self, key: str) -> TableRow | None:
        """The stored table under `key`, if any."""
        row = await self._pool.fetchrow(f"{_TABLE_SELECT} WHERE t.key = $1", key)
        return self._table_row(row) if row is not None else None

    async def load_table_by_id(self, table_id: str) -> TableRow | None:
        """The stored table carrying `table_id`: one not closed first, then the newest."""
        row = await self._pool.fetchrow(_SELECT_BY_ID, table_id)
        return self._table_row(row) if row is not None else None

    async def load_active_tables(self) -> list[TableRow]:
        """Every table that is not closed, by key, with its message's reference."""
        rows = await self._pool.fetch(
            "SELECT t.key, t.version, t.status, t.deadline, t.updated_at, t.state, t.table_id, "
            f"{_PARTS_COLUMN}, m.ref FROM tables AS t "
            "LEFT JOIN table_messages AS m ON m.table_key = t.key "
            "WHERE t.status <> 'closed' ORDER BY t.key"
        )
        out = []
        for r in rows:
            row = self._table_row(r)
            row.message_ref = r["ref"]
            out.append(row)
        return out

    async def load_settings(self, channel: str) -> dict[str, Any] | None:
        """The settings last used in a channel."""
        return await self._pool.fetchval("SELECT data FROM settings WHERE channel = $1", channel)

    async def load_player(self, user: str) -> dict[str, Any] | None:
        """What is known of a player."""
        return await self._pool.fetchval('SELECT data FROM players WHERE "user" = $1', user)

    async def player_stats(self, chat: str, user: str, game: str) -> PlayerStats | None:
        """One player's statistics of `game` in a chat."""
        rows = await self._pool.fetch(f'{_SELECT_STATS} AND p."user" = $3', chat, game, user)
        found = group_stats(game, rows)
        return found[0] if found else None

    async def chat_stats(self, chat: str, game: str) -> list[PlayerStats]:
        """Every player's statistics of `game` in a chat, by user."""
        return group_stats(game, await self._pool.fetch(_SELECT_STATS, chat, game))

    async def last_finished_match(self, table_key: str) -> FinishedMatch | None:
        """The newest finished match of a table (the one stored last)."""
        row = await self._pool.fetchrow(
            "SELECT match_id, chat, table_key, game, record, winners, finished_at FROM matches "
            "WHERE table_key = $1 ORDER BY seq DESC LIMIT 1",
            table_key,
        )
        if row is None:
            return None
        return FinishedMatch(
            match_id=row["match_id"],
            chat=row["chat"],
            table_key=row["table_key"],
            game=row["game"],
            record=row["record"],
            winners=row["winners"],
            finished_at=row["finished_at"],
        )

    # -- writes -----------------------------------------------------------------------------

    async def save_table(
        self,
        row: TableRow,
        *,
        expected_version: int | None,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
        messages: Sequence[OutMessage] = (),
        claim: Claim | None = None,
    ) -> OutBatch | None:
        """Store the table, statistics, finished match and messages in one transaction.

        Raises ConflictError when the stored version is not `expected_version` (None: the
        table must not exist yet), DuplicateMatchError when `finished.match_id` is already
        stored; in both cases nothing of this save is stored. Returns once committed.
        """
        table = (
            row.key,
            row.version,
            row.status,
            row.deadline,
            row.updated_at,
            _json(row.state),
            row.table_id,
        )
        name_params, counter_params = stat_rows(stats)
        record = winners = None
        if finished is not None:
            record, winners = _json(finished.record), _json(finished.winners)
        async with self._pool.acquire() as conn, conn.transaction():
            if expected_version is None:
                status = await conn.execute(_INSERT_TABLE, *table)
                stored = status == "INSERT 0 1"
            else:
                status = await conn.execute(_UPDATE_TABLE, *table, expected_version)
                stored = status == "UPDATE 1"
            if not stored:
                found = await conn.fetchval("SELECT version FROM tables WHERE key = $1", row.key)
                raise ConflictError(
                    f"table {row.key}: stored version {found}, expected {expected_version}"
                )
            if row.parts:
                if row.parts[0].seq == 0:
                    await conn.execute(_DROP_PARTS, row.key)
                await conn.executemany(
                    _UPSERT_PART, [(row.key, p.seq, p.owner, _json(p.data)) for p in row.parts]
                )
            if name_params:
                await conn.executemany(_UPSERT_STAT_NAME, name_params)
            if counter_params:
                await conn.executemany(_UPSERT_STAT_COUNTER, counter_params)
            if finished is not None:
                try:
                    await conn.execute(
                        _INSERT_MATCH,
                        finished.match_id,
                        finished.chat,
                        finished.table_key,
                        finished.game,
                        record,
                        winners,
                        finished.finished_at,
                    )
                except asyncpg.UniqueViolationError as exc:
                    raise DuplicateMatchError(
                        f"finished match {finished.match_id} is already stored"
                    ) from exc
            # The table's row is locked by the update above until the commit: messages get
            # their ids in commit order; the outbox lock keeps a deliverer's hand-over apart.
            return await _add_messages(conn, row.key, messages, claim)

    async def table_version(self, key: str) -> int | None:
        """The stored version of a table."""
        return await self._pool.fetchval("SELECT version FROM tables WHERE key = $1", key)

    async def add_messages(
        self, table_key: str, messages: Sequence[OutMessage], claim: Claim | None = None
    ) -> OutBatch | None:
        """Add messages to a table's outbox without changing the table."""
        async with self._pool.acquire() as conn, conn.transaction():
            return await _add_messages(conn, table_key, messages, claim)

    async def finish_messages(
        self,
        table_key: str,
        done: Sequence[int],
        claim: Claim,
        *,
        ref: str | None = None,
        set_ref: bool = False,
    ) -> OutBatch | None:
        """Mark `done` delivered (deleted), store the new ref, claim the next messages."""
        async with self._pool.acquire() as conn, conn.transaction():
            await _lock_outbox(conn, table_key)
            await _mark_delivered(conn, done, {table_key: ref} if set_ref else None)
            return await _claim(conn, table_key, claim)

    async def mark_delivered(
        self, done: Sequence[int], refs: Mapping[str, str | None] | None = None
    ) -> None:
        """Mark messages of any tables delivered (deleted) and store tables' message
        references, in one transaction."""
        if not done and not refs:
            return
        async with self._pool.acquire() as conn, conn.transaction():
            await _mark_delivered(conn, done, refs)

    async def claim_stale_messages(self, claim: Claim, limit: int = 100) -> list[OutBatch]:
        """Claim the outboxes of tables whose undelivered messages nobody holds."""
        # A claim of a process whose heartbeat ended holds nothing: its lease ends with it.
        keys = await self._pool.fetch(
            "SELECT o.table_key FROM outbox o LEFT JOIN processes p ON p.owner = o.claimed_by "
            "GROUP BY o.table_key HAVING bool_and(o.claimed_by IS NULL "
            "OR o.claimed_until <= $1 OR p.alive_until <= $1) "
            "ORDER BY min(o.id) LIMIT $2",
            claim.now,
            limit,
        )
        out: list[OutBatch] = []
        for record in keys:
            key = record["table_key"]
            async with self._pool.acquire() as conn, conn.transaction():
                locked = await conn.fetchval(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7))", key
                )
                if not locked:
                    continue  # a commit or another deliverer holds it now: theirs
                batch = await _claim(conn, key, claim)
                if batch is not None:
                    out.append(batch)
        return out

    async def claim_timers(
        self, claim: Claim, limit: int = 100, keys: Sequence[str] | None = None
    ) -> list[str]:
        """Claim due tables whose timer nobody holds (`FOR UPDATE SKIP LOCKED`)."""
        rows = await self._pool.fetch(
            _CLAIM_TIMERS,
            claim.owner,
            claim.now,
            claim.until,
            limit,
            list(keys) if keys is not None else None,
        )
        return [r["key"] for r in rows]

    async def live_processes(self, now: float) -> list[str]:
        """The owners whose heartbeat says they live at `now`."""
        rows = await self._pool.fetch("SELECT owner FROM processes WHERE alive_until > $1", now)
        return [r["owner"] for r in rows]

    async def chat_calls(self, chat: str, since: float, owner: str) -> list[float]:
        """When processes other than `owner` called the platform in `chat` since `since`."""
        rows = await self._pool.fetch(
            "SELECT at FROM chat_calls WHERE chat = $1 AND at > $2 AND owner <> $3 ORDER BY at",
            chat,
            since,
            owner,
        )
        return [r["at"] for r in rows]

    async def add_chat_call(self, chat: str, at: float, owner: str) -> None:
        """Record a call; calls of the chat older than an hour go."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "DELETE FROM chat_calls WHERE chat = $1 AND at < $2", chat, at - 3600
            )
            await conn.execute(
                "INSERT INTO chat_calls (chat, at, owner) VALUES ($1, $2, $3)", chat, at, owner
            )

    async def gone_processes(self, now: float) -> list[str]:
        """The owners whose heartbeat says they live at `now` but whose liveness lock is free:
        the connection their process held it on is closed (the process died, or the server
        gave up on its host), so they are gone, whatever their heartbeat says."""
        rows = await self._pool.fetch(_GONE_PROCESSES, now, _HEARTBEAT_LOCK)
        return [r["owner"] for r in rows]

    async def _hold_liveness(self, owner: str) -> None:
        """Hold `owner`'s liveness lock on a connection of its own (again, if it was lost)."""
        alive = self._alive.get(owner)
        if alive is not None and not alive.is_closed():
            return
        self._alive.pop(owner, None)
        if self._connect is None:
            return
        conn = await self._connect()
        try:
            await conn.execute(_LIVENESS_LOCK, _HEARTBEAT_LOCK, owner)
        except BaseException:
            conn.terminate()
            raise
        self._alive[owner] = conn

    async def _drop_liveness(self, owner: str) -> None:
        alive = self._alive.pop(owner, None)
        if alive is not None and not alive.is_closed():
            try:
                await asyncio.wait_for(alive.close(), 5.0)
            except Exception:
                alive.terminate()

    async def heartbeat(self, owner: str, now: float, until: float | None) -> int:
        """Record that `owner` lives until `until` (None: stopping); how many others live.

        A process saying it lives holds its liveness lock first (`gone_processes`); one that
        stops lets it go. (`until` <= `now` ends another owner's heartbeat: no lock of its.)"""
        if until is None:
            await self._drop_liveness(owner)
        elif until > now:
            await self._hold_liveness(owner)
        async with self._pool.acquire() as conn, conn.transaction():
            # One at a time: two processes starting together do not both find nobody alive.
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _HEARTBEAT_LOCK)
            if until is None:
                await conn.execute("DELETE FROM processes WHERE owner = $1", owner)
            else:
                await conn.execute(
                    "INSERT INTO processes (owner, alive_until) VALUES ($1, $2) "
                    "ON CONFLICT (owner) DO UPDATE SET alive_until = EXCLUDED.alive_until",
                    owner,
                    until,
                )
            await conn.execute("DELETE FROM processes WHERE alive_until < $1", now - 3600)
            return int(
                await conn.fetchval(
                    "SELECT count(*) FROM processes WHERE owner <> $1 AND alive_until > $2",
                    owner,
                    now,
                )
            )

    async def hold_exclusive(self, name: str, owner: str) -> bool:
        """Take or keep the lock `name` for `owner` on a connection of its own (see
        `_EXCLUSIVE_SEED`): once held, each call checks that its session still lives (one
        round trip); while another holds it, each call tries again on the same connection.
        A connection that fails is closed and the error raised (StoreUnavailable): whether
        the lock is still this owner's is unknown until a later call opens a new one."""
        key = (name, owner)
        conn, held = self._exclusive.get(key, (None, False))
        if conn is None or conn.is_closed():
            if self._connect is None:
                raise RuntimeError("this store was opened without its own connections")
            self._exclusive.pop(key, None)
            conn, held = await self._connect(), False
            self._exclusive[key] = (conn, False)
        try:
            if held:
                await conn.fetchval("SELECT 1")  # its session, and so its lock, lives
                return True
            held = bool(await conn.fetchval(_TRY_EXCLUSIVE, name, _EXCLUSIVE_SEED))
        except BaseException:
            self._exclusive.pop(key, None)
            conn.terminate()
            raise
        self._exclusive[key] = (conn, held)
        return held

    async def release_exclusive(self, name: str, owner: str) -> None:
        """Close the lock's connection (the server frees the lock with the session)."""
        conn, _ = self._exclusive.pop((name, owner), (None, False))
        if conn is not None and not conn.is_closed():
            try:
                await asyncio.wait_for(conn.close(), 5.0)
            except Exception:
                conn.terminate()

    async def save_settings(self, channel: str, settings: dict[str, Any]) -> None:
        """Remember a channel's settings (committed on return)."""
        await self._pool.execute(
            "INSERT INTO settings (channel, data) VALUES ($1, $2) "
            "ON CONFLICT (channel) DO UPDATE SET data = EXCLUDED.data",
            channel,
            _json(settings),
        )

    async def save_player(self, user: str, data: dict[str, Any]) -> None:
        """Store what is known of a player (committed on return)."""
        await self._pool.execute(
            'INSERT INTO players ("user", data) VALUES ($1, $2) '
            'ON CONFLICT ("user") DO UPDATE SET data = EXCLUDED.data',
            user,
            _json(data),
        )

    async def close(self) -> None:
        """Close the pool (waits for connections in use to be released)."""
        if not self._closed:
            self._closed = True
            for owner in list(self._alive):
                await self._drop_liveness(owner)
            for name, owner in list(self._exclusive):
                await self.release_exclusive(name, owner)
            await self._pool.close()


def _message_params(
    key: str, messages: Sequence[OutMessage], claim: Claim | None
) -> list[tuple[Any, ...]]:
    now = claim.now if claim is not None else time.time()
    return [(key, m.kind, m.user, _json(message_payload(m)), m.created_at or now) for m in messages]


#: The table message's reference, whether the table's outbox is held by another owner (a
#: running lease), and whether anything waits in it.
_OUTBOX_STATE = (
    "SELECT (SELECT ref FROM table_messages WHERE table_key = $1) AS ref, "
    "count(*) FILTER (WHERE claimed_by <> $2 AND claimed_until > $3) AS held, "
    "count(*) AS waiting FROM outbox WHERE table_key = $1"
)
#: Messages inserted already claimed by their committer, with their ids.
_INSERT_CLAIMED = (
    "INSERT INTO outbox (table_key, kind, target, payload, created_at, claimed_by, "
    "claimed_until, attempts) SELECT $1, k, t, p, c, $6, $7, 1 "
    "FROM unnest($2::text[], $3::text[], $4::jsonb[], $5::float8[]) AS m (k, t, p, c) "
    "RETURNING id"
)


async def _add_messages(
    conn: asyncpg.Connection, key: str, messages: Sequence[OutMessage], claim: Claim | None
) -> OutBatch | None:
    """Insert a commit's messages (the table's row is locked) and claim them when `claim`.

    The usual case, nothing else waiting in the table's outbox, takes two statements: the
    messages are inserted already claimed and returned as they are.
    """
    params = _message_params(key, messages, claim)
    if claim is None and not params:
        return None
    await _lock_outbox(conn, key)
    if claim is None:
        await conn.executemany(_INSERT_MESSAGE, params)
        return None
    state = await conn.fetchrow(_OUTBOX_STATE, key, claim.owner, claim.now)
    if state["held"] or state["waiting"] or not params:
        if params:
            await conn.executemany(_INSERT_MESSAGE, params)
        return None if state["held"] else await _claim(conn, key, claim)
    ids = await conn.fetch(
        _INSERT_CLAIMED,
        key,
        [p[1] for p in params],
        [p[2] for p in params],
        [p[3] for p in params],
        [p[4] for p in params],
        claim.owner,
        claim.until,
    )
    out = []
    for m, p, record in zip(messages, params, ids, strict=True):
        out.append(
            OutMessage(
                m.kind,
                m.screen,
                user=m.user,
                freeze=m.freeze,
                id=record["id"],
                table_key=key,
                created_at=p[4],
                attempts=1,
            )
        )
    return OutBatch(key, state["ref"], out)


async def _mark_delivered(
    conn: asyncpg.Connection, done: Sequence[int], refs: Mapping[str, str | None] | None
) -> None:
    """Delete delivered messages and store tables' message references."""
    if done:
        await conn.execute("DELETE FROM outbox WHERE id = ANY($1::bigint[])", list(done))
    if refs:
        await conn.executemany(
            "INSERT INTO table_messages (table_key, ref) VALUES ($1, $2) "
            "ON CONFLICT (table_key) DO UPDATE SET ref = EXCLUDED.ref",
            list(refs.items()),
        )


async def _lock_outbox(conn: asyncpg.Connection, key: str) -> None:
    """Lock the table's outbox for this transaction: a commit adding messages and a deliverer
    handing the queue over are serialised (an advisory lock, not the table's row, so that
    deliveries never make a timer claim skip the table)."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", key)


async def _claim(conn: asyncpg.Connection, key: str, claim: Claim) -> OutBatch | None:
    """Claim the table's next undelivered messages unless another owner holds them.

    Private messages not claimed by this owner before (a dead process's, or committed while
    another held the table) are dropped when a newer one to the same user waits: nobody is
    sent an out-of-date piece.
    """
    rows = await conn.fetch(_PENDING, key, CLAIM_BATCH)
    if not rows:
        return None
    # Claims are taken oldest first, so a running lease shows among the oldest rows; it holds
    # unless its owner is known dead (its heartbeat ended).
    holders = {
        r["claimed_by"]
        for r in rows
        if r["claimed_by"] is not None
        and r["claimed_by"] != claim.owner
        and r["claimed_until"] > claim.now
    }
    if holders and await conn.fetchval(
        "SELECT count(*) FROM processes WHERE owner = ANY($1::text[]) AND alive_until <= $2",
        list(holders),
        claim.now,
    ) < len(holders):
        return None
    if any(r["kind"] == "tell" and r["claimed_by"] != claim.owner for r in rows):
        await conn.execute(
            "DELETE FROM outbox AS o WHERE table_key = $1 AND kind = 'tell' "
            "AND (claimed_by IS NULL OR claimed_by <> $2) AND EXISTS (SELECT 1 FROM outbox "
            "AS n WHERE n.table_key = o.table_key AND n.kind = 'tell' AND n.target = o.target "
            "AND n.id > o.id)",
            key,
            claim.owner,
        )
        rows = await conn.fetch(_PENDING, key, CLAIM_BATCH)
    await conn.execute(
        "UPDATE outbox SET claimed_by = $1, claimed_until = $2, "
        "attempts = attempts + CASE WHEN claimed_by = $1 THEN 0 ELSE 1 END "
        "WHERE id = ANY($3::bigint[])",
        claim.owner,
        claim.until,
        [r["id"] for r in rows],
    )
    ref = await conn.fetchval("SELECT ref FROM table_messages WHERE table_key = $1", key)
    return OutBatch(
        key,
        ref,
        [
            out_message(
                r["id"],
                key,
                r["kind"],
                r["target"],
                r["payload"],
                r["created_at"],
                r["attempts"] + (0 if r["claimed_by"] == claim.owner else 1),
            )
            for r in rows
        ],
        more=more_in_lanes(r["kind"] for r in rows),
    )


def _quote_ident(name: str) -> str:
    """`name` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'
