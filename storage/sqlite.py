"""SQLite storage, the embedded default: aiosqlite for reads, group commit for writes.

Every write goes through one writer task. It takes all the writes queued while the previous
transaction was committing and hands them, in one call, to the thread that owns the write
connection: `BEGIN IMMEDIATE`, each write (a compound save inside its own SAVEPOINT, so one that
fails leaves the others intact), one `COMMIT`. Only then does it resolve each caller's future:
`save_table` returns after its own data is durable, and many tables share one fsync. Reads use a
read-only aiosqlite connection; WAL lets them run while the writer commits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any, Literal, NamedTuple, ParamSpec, TypeVar

import aiosqlite

from bot.service.ports import (
    Claim,
    ConflictError,
    FinishedMatch,
    OutBatch,
    OutMessage,
    PlayerStats,
    StatDelta,
    StoreError,
    StoreLost,
    StoreUnavailable,
    TableRow,
)
from storage.common import (
    CLAIM_BATCH,
    DuplicateMatchError,
    dump_json,
    group_stats,
    load_json,
    message_payload,
    more_in_lanes,
    out_message,
    stat_rows,
    table_parts,
)
from storage.migrations import migrate_sqlite

log = logging.getLogger(__name__)

#: `FULL` fsyncs the WAL at every commit: a committed save survives power loss. `NORMAL` in WAL
#: mode survives a crash of the process (SIGKILL) but may lose the newest commits on power loss.
Synchronous = Literal["FULL", "NORMAL"]

_TABLE_COLUMNS = "key, version, status, deadline, updated_at, state, table_id"
#: A table's row and, in the same statement, its finished parts (`storage.common.table_parts`).
_TABLE_SELECT = (
    "SELECT t.key, t.version, t.status, t.deadline, t.updated_at, t.state, t.table_id, "
    "(SELECT json_group_array(json_array(p.seq, p.owner, json(p.data))) "
    "FROM table_parts AS p WHERE p.table_key = t.key) FROM tables AS t"
)
#: Parts of seq 0 start a key's parts afresh; the others are added (append-only).
_DROP_PARTS = "DELETE FROM table_parts WHERE table_key = ?"
_UPSERT_PART = (
    "INSERT INTO table_parts (table_key, seq, owner, data) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (table_key, seq) DO UPDATE SET owner = excluded.owner, data = excluded.data"
)

_INSERT_TABLE = (
    f"INSERT INTO tables ({_TABLE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (key) DO NOTHING"
)
_UPDATE_TABLE = (
    "UPDATE tables SET version = ?, status = ?, deadline = ?, updated_at = ?, state = ?, "
    "table_id = ?, claimed_by = NULL, claimed_until = NULL WHERE key = ? AND version = ?"
)
#: Private messages a newer one to the same user replaces, not yet claimed by this owner.
_DROP_STALE_TELLS = (
    "DELETE FROM outbox WHERE table_key = ?1 AND kind = 'tell' "
    "AND (claimed_by IS NULL OR claimed_by <> ?2) AND EXISTS (SELECT 1 FROM outbox AS n "
    "WHERE n.table_key = outbox.table_key AND n.kind = 'tell' AND n.target = outbox.target "
    "AND n.id > outbox.id)"
)
_INSERT_MESSAGE = (
    "INSERT INTO outbox (table_key, kind, target, payload, created_at) VALUES (?, ?, ?, ?, ?)"
)
_INSERT_CLAIMED = (
    "INSERT INTO outbox (table_key, kind, target, payload, created_at, claimed_by, "
    "claimed_until, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, 1)"
)
_WAITING_AND_REF = (
    "SELECT (SELECT 1 FROM outbox WHERE table_key = ?1 AND "
    "(claimed_by IS NULL OR claimed_by <> ?2 OR claimed_until <= ?3) LIMIT 1), "
    "(SELECT ref FROM table_messages WHERE table_key = ?1)"
)
_SELECT_ACTIVE = (
    "SELECT t.key, t.version, t.status, t.deadline, t.updated_at, t.state, t.table_id, "
    "(SELECT json_group_array(json_array(p.seq, p.owner, json(p.data))) "
    "FROM table_parts AS p WHERE p.table_key = t.key), m.ref "
    "FROM tables AS t LEFT JOIN table_messages AS m ON m.table_key = t.key "
    "WHERE t.status <> 'closed' ORDER BY t.key"
)
_UPSERT_REF = (
    "INSERT INTO table_messages (table_key, ref) VALUES (?, ?) "
    "ON CONFLICT (table_key) DO UPDATE SET ref = excluded.ref"
)
#: The table's next undelivered messages, oldest first: each lane's oldest (the channel's,
#: the private ones), so a private message never waits behind the channel's batch.
_PENDING = (
    "SELECT * FROM (SELECT id, kind, target, payload, created_at, claimed_by, claimed_until, "
    "attempts FROM outbox WHERE table_key = ?1 AND kind <> 'tell' ORDER BY id LIMIT ?2) "
    "UNION ALL SELECT * FROM (SELECT id, kind, target, payload, created_at, claimed_by, "
    "claimed_until, attempts FROM outbox WHERE table_key = ?1 AND kind = 'tell' "
    "ORDER BY id LIMIT ?2) ORDER BY id"
)
_UPSERT_STAT_NAME = (
    "INSERT INTO stat_players (chat, game, user, name) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (chat, game, user) DO UPDATE SET name = excluded.name"
)
_UPSERT_STAT_COUNTER = (
    "INSERT INTO stat_counters (chat, game, user, counter, value) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (chat, game, user, counter) DO UPDATE SET value = CASE "
    "WHEN substr(excluded.counter, 1, 5) = 'best_' THEN max(value, excluded.value) "
    "ELSE value + excluded.value END"
)
_SELECT_BY_ID = (
    f"{_TABLE_SELECT} WHERE t.table_id = ? "
    "ORDER BY t.status = 'closed', t.updated_at DESC, t.key LIMIT 1"
)
#: A player's name and counters (one row per counter; a NULL counter when there is none).
_SELECT_STATS = (
    "SELECT p.user, p.name, c.counter, c.value FROM stat_players AS p "
    "LEFT JOIN stat_counters AS c "
    "ON c.chat = p.chat AND c.game = p.game AND c.user = p.user "
    "WHERE p.chat = ? AND p.game = ?"
)
_INSERT_MATCH = (
    "INSERT INTO matches (match_id, chat, table_key, game, record, winners, finished_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


#: Pages the WAL grows to before SQLite checkpoints it by itself (SQLite's default).
WAL_AUTOCHECKPOINT = 1000
#: Bytes a WAL file is cut back to after a checkpoint (`journal_size_limit`): without it the
#: file keeps the largest size it ever reached, disk space the database cannot use.
JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024

#: SQLite's primary result codes that mean the disk or file is away for now, not that the
#: request is wrong: BUSY (another process holds the lock too long), READONLY (the file
#: system went read-only), IOERR, FULL, CANTOPEN, PROTOCOL (WAL locking), NOLFS.
_AWAY_CODES = {5: "busy", 8: "read-only", 10: "I/O error", 13: "full", 14: "cannot open"}
_AWAY_CODES.update({15: "locking protocol", 22: "no large files"})
_AWAY_WORDS: tuple[str, ...] = ("disk is full", "disk i/o error", "unable to open")
_AWAY_WORDS += ("database is locked", "readonly database", "read-only")
#: Result codes (and words) that say the disk has no room.
_FULL_CODE = 13


def _away_kind(exc: BaseException) -> str | None:
    """Which outage an SQLite error is ("full", "I/O error"...), or None: not an outage."""
    if not isinstance(exc, sqlite3.OperationalError):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in _AWAY_CODES:
        return _AWAY_CODES[code & 0xFF]
    words = str(exc).lower()
    if "disk is full" in words:
        return "full"
    return "away" if any(w in words for w in _AWAY_WORDS) else None


def _pragmas(synchronous: Synchronous, *, read_only: bool) -> list[str]:
    if synchronous not in ("FULL", "NORMAL"):
        raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
    pragmas = [f"PRAGMA synchronous = {synchronous}"]
    if read_only:
        pragmas.append("PRAGMA query_only = ON")
    return pragmas


def _check_wal(path: str | os.PathLike[str], rows: Sequence[Any]) -> None:
    if not rows or str(rows[0][0]).lower() != "wal":
        raise RuntimeError(f"SQLite refused WAL journal mode for {path}: {list(rows)}")


async def connect(
    path: str | os.PathLike[str],
    *,
    synchronous: Synchronous = "FULL",
    busy_timeout: float = 10.0,
    read_only: bool = False,
) -> aiosqlite.Connection:
    """An aiosqlite connection in autocommit mode with the pragmas every gnav-bot connection uses.

    WAL journal, the given `synchronous` level, a busy timeout for other processes holding the
    write lock; `read_only` connections refuse writes (`query_only`).
    """
    pragmas = _pragmas(synchronous, read_only=read_only)
    conn = await aiosqlite.connect(os.fspath(path), isolation_level=None, timeout=busy_timeout)
    try:
        # Switching a new file to WAL needs a moment of exclusive access; when several
        # processes open it together SQLite may answer "locked" without waiting: try again.
        give_up = time.monotonic() + busy_timeout
        while True:
            try:
                mode = list(await conn.execute_fetchall("PRAGMA journal_mode = WAL"))
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > give_up:
                    raise
                await asyncio.sleep(0.01)
        _check_wal(path, mode)
        for pragma in pragmas:
            await conn.execute(pragma)
    except BaseException:
        await conn.close()
        raise
    return conn


def _connect_sync(
    path: str | os.PathLike[str], *, synchronous: Synchronous, busy_timeout: float
) -> sqlite3.Connection:
    """The writer's plain sqlite3 connection (autocommit; transactions are explicit)."""
    pragmas = _pragmas(synchronous, read_only=False)
    conn = sqlite3.connect(os.fspath(path), isolation_level=None, timeout=busy_timeout)
    try:
        give_up = time.monotonic() + busy_timeout
        while True:  # as in connect(): a new file's switch to WAL may answer "locked"
            try:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchall()
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > give_up:
                    raise
                time.sleep(0.01)
        _check_wal(path, mode)
        for pragma in pragmas:
            conn.execute(pragma)
        # The writer checkpoints (automatically, and after a full disk): its WAL is cut back.
        conn.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT}")
    except BaseException:
        conn.close()
        raise
    return conn


_HEADER = b"SQLite format 3\x00"


def lock_exclusive(path: Path) -> Any:
    """Take an exclusive `flock` on the database file itself (released when the returned
    handle is closed, or when the process dies; SQLite's own locks are POSIX record locks,
    which a BSD `flock` does not touch on Linux). StoreError, one line, when another process
    holds it."""
    import fcntl

    handle = open(path, "rb")  # noqa: SIM115 - held open for the store's lifetime
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StoreError(
            f"the SQLite store {path} is in use by another gnav-bot process: SQLite serves "
            "one process; run several on PostgreSQL (GNAV_DATABASE_URL)"
        ) from None
    except OSError:
        handle.close()
        raise
    return handle


def _identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def _check_file(path: Path) -> None:
    """Refuse a file that is not a whole SQLite database before SQLite opens (and may write
    to) it: another kind of file, or one cut short. A missing or empty file is a new store."""
    try:
        with open(path, "rb") as f:
            header = f.read(100)
            size = os.fstat(f.fileno()).st_size
    except FileNotFoundError:
        return
    if size == 0:
        return
    if len(header) < 100 or not header.startswith(_HEADER):
        raise sqlite3.DatabaseError("the file is not a SQLite database (corrupted?)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    change_counter = int.from_bytes(header[24:28], "big")
    pages = int.from_bytes(header[28:32], "big")
    valid_for = int.from_bytes(header[92:96], "big")
    if page_size < 512 or page_size & (page_size - 1):
        raise sqlite3.DatabaseError("the file's SQLite header is damaged (corrupted?)")
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return  # a checkpoint cut short (SIGKILL) is completed from the WAL when SQLite opens
    if size % page_size or (change_counter == valid_for and pages and size < pages * page_size):
        raise sqlite3.DatabaseError(
            f"the file is truncated ({size} bytes; its header says {pages} pages of {page_size})"
        )


def _open_failure(path: Path, exc: BaseException) -> str:
    """One line naming the store and why it cannot be opened."""
    if isinstance(exc, FileExistsError | NotADirectoryError):
        return f"cannot open the SQLite store {path}: {path.parent} is not a folder"
    strerror = exc.strerror if isinstance(exc, OSError) else None
    cause = strerror or str(exc) or type(exc).__name__
    if "readonly" in cause or "read-only" in cause:
        cause = f"it is read-only ({cause})"
    return f"cannot open the SQLite store {path}: {cause}"


#: A write as the writer thread runs it, on the write connection inside the open transaction.
WriteFn = Callable[[sqlite3.Connection], None]


class _Write(NamedTuple):
    """A queued write: how to apply it, whether it needs a savepoint, and who waits for it
    (made with `_new`: one per commit, at C speed)."""

    apply: WriteFn
    compound: bool
    future: asyncio.Future[None]


#: Builds a `_Write` from its three fields at C speed (NamedTuple's own __new__ is Python code).
_new = tuple.__new__


_P = ParamSpec("_P")
_T = TypeVar("_T")


def _settle(future: asyncio.Future[_T], result: _T, error: BaseException | None) -> None:
    """On the event loop: hand a job's outcome to whoever waits for it (if anyone still does)."""
    if future.done():  # its waiter was cancelled
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class _WriterThread(Executor):
    """The write connection's one thread: runs the jobs handed to it, in order.

    `run` is the writer's own way (a batch to commit): its outcome comes back to the event
    loop in one `call_soon_threadsafe`, not through a `concurrent.futures.Future` chained to
    an asyncio one as `run_in_executor` does (each batch, many Python calls less). `submit`
    makes it an `Executor` for anything else (opening and closing the connection)."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        # A daemon: a store nobody closed does not keep the interpreter from exiting (what
        # it had not committed is lost, as in a crash).
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()

    def run(self, loop: asyncio.AbstractEventLoop, fn: Callable[[_T], Any], arg: _T) -> Any:
        """`fn(arg)` on the thread, as a future of `loop` (awaited there)."""
        future = loop.create_future()

        def job() -> None:
            try:
                result, error = fn(arg), None
            except BaseException as exc:  # handed to the waiter, as run_in_executor does
                result, error = None, exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, future, result, error)

        self._jobs.put(job)
        return future

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """`fn(*args, **kwargs)` on the thread (`Executor.submit`)."""
        future: Future[_T] = Future()

        def job() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(result)

        self._jobs.put(job)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """End the thread after the jobs already handed to it."""
        self._jobs.put(None)
        if wait and self._thread is not threading.current_thread():
            self._thread.join()


def _read_reason(exc: BaseException) -> str | None:
    """Why a failed read means the SQLite store is away (one line), or None."""
    if _away_kind(exc) is None:
        return None
    return f"the SQLite store cannot be read: {' '.join(str(exc).split())}"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _megabytes(size: float) -> str:
    return f"{size / 1_048_576:.1f} MB"


class SqliteRepository:
    """The `Repository` in one SQLite file. Open with `await SqliteRepository.open(path)`.

    Use it from the event loop that opened it, and `close()` it: close commits the writes
    still queued. A write whose caller is cancelled before its batch starts is dropped; once
    its batch has started it may still commit, as with any database whose answer was not
    awaited. A full disk or an I/O error fails the writes under way with StoreUnavailable
    (nothing of them stored); after a write failed for space, and after writes succeed again,
    the WAL is checkpointed and cut back (TRUNCATE), so that freed space holds the database.
    """

    #: One process's store (locked for `run`): nothing of it changes but through its commits.
    shared = False

    def __init__(
        self,
        path: Path,
        reader: aiosqlite.Connection,
        writer: sqlite3.Connection,
        executor: _WriterThread,
        *,
        max_batch: int,
    ) -> None:
        """Use `open`; this only wires already-opened connections."""
        self.path = path
        self._reader = reader
        self._writer = writer  # used only on `executor`'s one thread
        self._executor = executor
        self._max_batch = max_batch
        #: Writes queued for the next transaction, oldest first; the writer's wake-up while
        #: it waits for one (a plain list and one future: the writer takes them all at once).
        self._waiting: list[_Write] = []
        self._wake: asyncio.Future[None] | None = None
        self._closing = False
        #: The exclusive lock file of `open(exclusive=True)`, held until `close`.
        self._lock_file: Any = None
        #: Committed write transactions and the writes they carried (for benchmarks and tests).
        self.transactions = 0
        self.writes = 0
        #: (device, inode) of the database file when opened: a commit checks it is still
        #: there (deleted or replaced under the bot, commits would go nowhere anyone reads).
        self._identity: tuple[int, int] | None = None
        #: A write failed for space and the disk has not had the room the store needs since:
        #: every commit checkpoints the WAL (on the writer thread only).
        self._short_of_space = False
        #: The writer's busy timeout (ms), restored after a quick checkpoint.
        self._busy_ms = 10_000
        #: name -> the owner holding that exclusive lock (`hold_exclusive`): a store of one
        #: process keeps it in memory.
        self._exclusive: dict[str, str] = {}
        self._writer_task = asyncio.create_task(self._write_loop(), name=f"sqlite-writer:{path}")

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        synchronous: Synchronous = "FULL",
        busy_timeout: float = 10.0,
        max_batch: int = 256,
        exclusive: bool = False,
    ) -> SqliteRepository:
        """Open (creating the file and its directory) and migrate the database at `path`.

        `synchronous="FULL"` (default) makes every acknowledged save survive power loss;
        `"NORMAL"` is faster on slow disks and still survives a crash of the process.
        `busy_timeout` (seconds) is how long to wait for another process's write lock;
        `exclusive` (for `gnav-bot run`) locks the database file for as long as the store is
        open, so a second bot process on the same file refuses to start (StoreError):
        SQLite serves one process; several share PostgreSQL.
        `max_batch` caps how many writes share one transaction: smaller batches let the writer
        thread commit one batch while the event loop prepares the next (256 keeps the fsyncs
        few and the p99 latency of 1,000 busy tables near half that of one 1,000-write batch).
        """
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        _pragmas(synchronous, read_only=False)  # validate before touching the disk
        file = Path(path)
        if str(path) == ":memory:" or str(path).startswith("file:"):
            raise ValueError("SqliteRepository needs a file path (use MemoryRepository instead)")
        lock_file = None
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            _check_file(file)  # before SQLite may write to it
            reader = await connect(file, synchronous=synchronous, busy_timeout=busy_timeout)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(_open_failure(file, exc)) from None
        if exclusive:
            try:
                lock_file = lock_exclusive(file)  # before anything is written
            except BaseException as exc:
                await reader.close()
                if isinstance(exc, OSError):
                    raise StoreError(_open_failure(file, exc)) from None
                raise
        executor = _WriterThread("sqlite-writer")
        try:
            await migrate_sqlite(reader)
            await reader.execute("PRAGMA query_only = ON")
            writer = await asyncio.get_running_loop().run_in_executor(
                executor,
                lambda: _connect_sync(file, synchronous=synchronous, busy_timeout=busy_timeout),
            )
            identity = _identity(file)
        except BaseException as exc:
            await reader.close()
            executor.shutdown(wait=False)
            if lock_file is not None:
                lock_file.close()
            if isinstance(exc, OSError | sqlite3.Error):
                raise StoreError(_open_failure(file, exc)) from None
            raise
        repo = cls(file, reader, writer, executor, max_batch=max_batch)
        repo._identity = identity
        repo._lock_file = lock_file
        repo._busy_ms = int(busy_timeout * 1000)
        # A disk already short of the room the WAL may take: checkpoint after every commit.
        repo._short_of_space = repo._free_space() < repo.space_needed()
        return repo

    # -- reads ------------------------------------------------------------------------------

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Every read goes through here: an error that means the store is away (the disk, the
        file) is raised as StoreUnavailable, any other as it is. (The writes' failures are
        the writer's to translate: `_write_loop`.)"""
        try:
            return list(await self._reader.execute_fetchall(sql, params))
        except Exception as exc:
            reason = _read_reason(exc)
            if reason is None:
                raise
            raise StoreUnavailable(reason) from exc

    @staticmethod
    def _table_row(row: Sequence[Any]) -> TableRow:
        key, version, status, deadline, updated_at, state, table_id, parts = row
        return TableRow(
            key=key,
            version=version,
            status=status,
            state=load_json(state),
            deadline=deadline,
            updated_at=updated_at,
            table_id=table_id,
            parts=table_parts(parts),
        )

    async def load_table(self, key: str) -> TableRow | None:
        """The stored table under `key`, if any."""
        rows = await self._fetchall(f"{_TABLE_SELECT} WHERE t.key = ?", (key,))
        return self._table_row(rows[0]) if rows else None

    async def load_table_by_id(self, table_id: str) -> TableRow | None:
        """The stored table carrying `table_id`: one not closed first, then the newest."""
        rows = await self._fetchall(_SELECT_BY_ID, (table_id,))
        return self._table_row(rows[0]) if rows else None

    async def load_active_tables(self) -> list[TableRow]:
        """Every table that is not closed, by key, with its message's reference."""
        rows = await self._fetchall(_SELECT_ACTIVE)
        out = []
        for r in rows:
            row = self._table_row(r[:-1])
            row.message_ref = r[-1]
            out.append(row)
        return out

    async def load_settings(self, channel: str) -> dict[str, Any] | None:
        """The settings last used in a channel."""
        rows = await self._fetchall("SELECT data FROM settings WHERE channel = ?", (channel,))
        return load_json(rows[0][0]) if rows else None

    async def load_player(self, user: str) -> dict[str, Any] | None:
        """What is known of a player."""
        rows = await self._fetchall("SELECT data FROM players WHERE user = ?", (user,))
        return load_json(rows[0][0]) if rows else None

    async def player_stats(self, chat: str, user: str, game: str) -> PlayerStats | None:
        """One player's statistics of `game` in a chat."""
        rows = await self._fetchall(f"{_SELECT_STATS} AND p.user = ?", (chat, game, user))
        found = group_stats(game, rows)
        return found[0] if found else None

    async def chat_stats(self, chat: str, game: str) -> list[PlayerStats]:
        """Every player's statistics of `game` in a chat, by user."""
        return group_stats(game, await self._fetchall(_SELECT_STATS, (chat, game)))

    async def last_finished_match(self, table_key: str) -> FinishedMatch | None:
        """The newest finished match of a table (the one stored last)."""
        rows = await self._fetchall(
            "SELECT match_id, chat, table_key, game, record, winners, finished_at FROM matches "
            "WHERE table_key = ? ORDER BY seq DESC LIMIT 1",
            (table_key,),
        )
        if not rows:
            return None
        match_id, chat, key, game, record, winners, finished_at = rows[0]
        return FinishedMatch(
            match_id=match_id,
            chat=chat,
            table_key=key,
            game=game,
            record=load_json(record),
            winners=load_json(winners),
            finished_at=finished_at,
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
        key = row.key
        table_params = (
            row.version,
            row.status,
            row.deadline,
            row.updated_at,
            dump_json(row.state),
            row.table_id,
        )
        name_params, counter_params = stat_rows(stats)
        match_params = (
            (
                finished.match_id,
                finished.chat,
                finished.table_key,
                finished.game,
                dump_json(finished.record),
                dump_json(finished.winners),
                finished.finished_at,
            )
            if finished is not None
            else None
        )
        message_params = _message_params(key, messages, claim)
        part_params = [(key, p.seq, p.owner, dump_json(p.data)) for p in row.parts]
        result: list[OutBatch | None] = [None]

        def apply(conn: sqlite3.Connection) -> None:
            if expected_version is None:
                cursor = conn.execute(_INSERT_TABLE, (key, *table_params))
            else:
                cursor = conn.execute(_UPDATE_TABLE, (*table_params, key, expected_version))
            if cursor.rowcount != 1:
                found = conn.execute("SELECT version FROM tables WHERE key = ?", (key,)).fetchone()
                raise ConflictError(
                    f"table {key}: stored version {found[0] if found else None}, "
                    f"expected {expected_version}"
                )
            if part_params:
                if part_params[0][1] == 0:
                    conn.execute(_DROP_PARTS, (key,))
                conn.executemany(_UPSERT_PART, part_params)
            if name_params:
                conn.executemany(_UPSERT_STAT_NAME, name_params)
            if counter_params:
                conn.executemany(_UPSERT_STAT_COUNTER, counter_params)
            if match_params is not None:
                try:
                    conn.execute(_INSERT_MATCH, match_params)
                except sqlite3.IntegrityError as exc:
                    raise DuplicateMatchError(
                        f"finished match {match_params[0]} is already stored"
                    ) from exc
            result[0] = _add_messages(conn, key, messages, message_params, claim)

        # A savepoint only where a write can fail half-way: a duplicate match after the
        # statistics. A version conflict fails before anything changed, and the messages'
        # inserts fail only as the whole transaction does (I/O), so they need none.
        await self._submit(apply, compound=bool(name_params) or match_params is not None)
        return result[0]

    async def table_version(self, key: str) -> int | None:
        """The stored version of a table."""
        rows = await self._fetchall("SELECT version FROM tables WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    async def add_messages(
        self, table_key: str, messages: Sequence[OutMessage], claim: Claim | None = None
    ) -> OutBatch | None:
        """Add messages to a table's outbox without changing the table."""
        params = _message_params(table_key, messages, claim)
        result: list[OutBatch | None] = [None]

        # No savepoint: these statements fail only as the whole transaction does.
        def apply(conn: sqlite3.Connection) -> None:
            result[0] = _add_messages(conn, table_key, messages, params, claim)

        await self._submit(apply, compound=False)
        return result[0]

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
        ids = [(i,) for i in done]
        result: list[OutBatch | None] = [None]

        # No savepoint: these statements fail only as the whole transaction does.
        def apply(conn: sqlite3.Connection) -> None:
            if ids:
                conn.executemany("DELETE FROM outbox WHERE id = ?", ids)
            if set_ref:
                conn.execute(_UPSERT_REF, (table_key, ref))
            result[0] = _claim(conn, table_key, claim)

        await self._submit(apply, compound=False)
        return result[0]

    async def mark_delivered(
        self, done: Sequence[int], refs: Mapping[str, str | None] | None = None
    ) -> None:
        """Mark messages of any tables delivered (deleted) and store tables' message
        references, in one transaction."""
        ids = [(i,) for i in done]
        ref_params = list((refs or {}).items())

        def apply(conn: sqlite3.Connection) -> None:
            conn.executemany("DELETE FROM outbox WHERE id = ?", ids)
            conn.executemany(_UPSERT_REF, ref_params)

        if ids or ref_params:
            # Its own write, not one waiting for the next commit: the outbox marks each
            # message before its lane sends the next (it groups the lanes' markings itself,
            # and the writer commits them with whatever else is queued).
            await self._submit(apply, compound=False)

    async def claim_stale_messages(self, claim: Claim, limit: int = 100) -> list[OutBatch]:
        """Claim the outboxes of tables whose undelivered messages nobody holds."""
        # Usually there are none: a read, not a write transaction, finds that out.
        stale = await self._fetchall(
            "SELECT 1 FROM outbox WHERE claimed_by IS NULL OR claimed_until <= ? LIMIT 1",
            (claim.now,),
        )
        if not stale:
            return []
        result: list[OutBatch] = []

        def apply(conn: sqlite3.Connection) -> None:
            result.clear()
            keys = conn.execute(
                "SELECT table_key FROM outbox GROUP BY table_key "
                "HAVING max(CASE WHEN claimed_by IS NOT NULL AND claimed_until > ? "
                "THEN 1 ELSE 0 END) = 0 ORDER BY min(id) LIMIT ?",
                (claim.now, limit),
            ).fetchall()
            for (key,) in keys:
                batch = _claim(conn, key, claim)
                if batch is not None:
                    result.append(batch)

        await self._submit(apply, compound=True)
        return list(result)

    async def claim_timers(
        self, claim: Claim, limit: int = 100, keys: Sequence[str] | None = None
    ) -> list[str]:
        """Claim due tables whose timer nobody holds (one process: always this one)."""
        result: list[str] = []

        def apply(conn: sqlite3.Connection) -> None:
            result.clear()
            rows = conn.execute(
                "SELECT key FROM tables WHERE status <> 'closed' AND deadline <= ? "
                "AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ?) "
                "ORDER BY deadline",
                (claim.now, claim.now, claim.owner),
            ).fetchall()
            wanted = set(keys) if keys is not None else None
            found = [k for (k,) in rows if wanted is None or k in wanted][:limit]
            conn.executemany(
                "UPDATE tables SET claimed_by = ?, claimed_until = ? WHERE key = ?",
                [(claim.owner, claim.until, k) for k in found],
            )
            result.extend(found)

        await self._submit(apply, compound=True)
        return list(result)

    async def live_processes(self, now: float) -> list[str]:
        """The owners whose heartbeat says they live at `now` (a store of one process: a row
        of another is one that died; `resume` takes everything over)."""
        rows = await self._fetchall("SELECT owner FROM processes WHERE alive_until > ?", (now,))
        return [str(r[0]) for r in rows]

    async def chat_calls(self, chat: str, since: float, owner: str) -> list[float]:
        """None: the store serves one process, whose lanes count all its calls."""
        return []

    async def add_chat_call(self, chat: str, at: float, owner: str) -> None:
        """Nothing to share (one process)."""

    async def gone_processes(self, now: float) -> list[str]:
        """None known gone but by their heartbeat (a store of one process: `resume` takes
        over what a predecessor left)."""
        return []

    async def hold_exclusive(self, name: str, owner: str) -> bool:
        """The first owner to ask holds `name` until it releases it: the store serves one
        process (`run` locks the file), so its one `gnav-bot run` always holds it."""
        return self._exclusive.setdefault(name, owner) == owner

    async def release_exclusive(self, name: str, owner: str) -> None:
        """Free `name` if `owner` holds it."""
        if self._exclusive.get(name) == owner:
            del self._exclusive[name]

    async def heartbeat(self, owner: str, now: float, until: float | None) -> int:
        """Record that `owner` lives until `until` (None: stopping); how many others live."""
        result = [0]

        def apply(conn: sqlite3.Connection) -> None:
            if until is None:
                conn.execute("DELETE FROM processes WHERE owner = ?", (owner,))
            else:
                conn.execute(
                    "INSERT INTO processes (owner, alive_until) VALUES (?, ?) "
                    "ON CONFLICT (owner) DO UPDATE SET alive_until = excluded.alive_until",
                    (owner, until),
                )
            conn.execute("DELETE FROM processes WHERE alive_until < ?", (now - 3600,))
            row = conn.execute(
                "SELECT count(*) FROM processes WHERE owner <> ? AND alive_until > ?",
                (owner, now),
            ).fetchone()
            result[0] = int(row[0])

        await self._submit(apply, compound=True)
        return result[0]

    async def save_settings(self, channel: str, settings: dict[str, Any]) -> None:
        """Remember a channel's settings (committed on return)."""
        params = (channel, dump_json(settings))

        def apply(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO settings (channel, data) VALUES (?, ?) "
                "ON CONFLICT (channel) DO UPDATE SET data = excluded.data",
                params,
            )

        await self._submit(apply, compound=False)

    async def save_player(self, user: str, data: dict[str, Any]) -> None:
        """Store what is known of a player (committed on return)."""
        params = (user, dump_json(data))

        def apply(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO players (user, data) VALUES (?, ?) "
                "ON CONFLICT (user) DO UPDATE SET data = excluded.data",
                params,
            )

        await self._submit(apply, compound=False)

    async def _submit(self, apply: WriteFn, *, compound: bool) -> None:
        """Queue a write and wait until the transaction carrying it has committed."""
        if self._closing:
            raise RuntimeError(f"SqliteRepository {self.path} is closed")
        if self._writer_task.done():
            raise RuntimeError(f"the writer of {self.path} has stopped")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(_new(_Write, (apply, compound, future)))
        wake = self._wake
        if wake is not None:  # the writer waits for a write: it runs at the loop's next turn
            self._wake = None
            if not wake.done():  # (done: the writer was cancelled)
                wake.set_result(None)
        await future

    async def _write_loop(self) -> None:
        """Take every queued write, commit them in one transaction, then answer each caller.

        The writer runs at the event loop's turn after the first write was queued, so every
        write queued in that turn goes with it (up to `max_batch`); the writes queued while a
        transaction commits go with the next. `close` ends it once nothing waits."""
        loop = asyncio.get_running_loop()
        waiting = self._waiting
        while True:
            if not waiting:
                if self._closing:
                    return
                self._wake = wake = loop.create_future()
                await wake
                continue
            batch = waiting[: self._max_batch]
            del waiting[: self._max_batch]
            # A caller cancelled before its write began: it was never acknowledged, skip it.
            batch = [w for w in batch if not w.future.done()]
            if not batch:
                continue
            try:
                outcomes = await self._executor.run(loop, self._commit_batch, batch)
            except asyncio.CancelledError:
                for write in batch:
                    if not write.future.done():
                        write.future.set_exception(RuntimeError("the SQLite writer was cancelled"))
                raise
            except Exception as exc:
                # Beginning or committing failed (I/O error, full disk, lock timeout):
                # nothing of this batch is stored, and every caller hears so. An outage is
                # the service's to report (once), not one line per transaction here.
                error: Exception = exc
                kind = _away_kind(exc)
                if kind is None:
                    log.error("SQLite write transaction of %d writes failed: %s", len(batch), exc)
                else:
                    error = StoreUnavailable(self._write_reason(exc, kind))
                for write in batch:
                    if write.future.done():
                        continue
                    write.future.set_exception(error)
                continue
            self.writes += outcomes.count(None)
            for write, outcome in zip(batch, outcomes, strict=True):
                if write.future.done():
                    continue
                if outcome is None:
                    write.future.set_result(None)
                else:
                    write.future.set_exception(outcome)

    def _commit_batch(self, batch: list[_Write]) -> list[Exception | None]:
        """On the writer thread: commit the batch in one transaction; each write's own outcome.

        A write that aborts the transaction (an operational error while applying it) fails
        alone: the transaction is rolled back and the rest of the batch retried without it.
        A failure to begin or to commit fails the whole batch (raised), as does a full disk
        or an I/O error while applying a write. A full disk is met by a checkpoint that folds
        the WAL into the database and cuts it back, and the batch is tried once more.
        """
        for attempt in (1, 2):
            try:
                outcomes = self._commit_writes(batch)
                break
            except Exception as exc:
                if _away_kind(exc) != "full":
                    raise
                self._short_of_space = True
                if not self._checkpoint() or attempt == 2:
                    raise
        if self._short_of_space:
            # Writing again after a full disk: the WAL is folded into the database and cut
            # back after each commit until the disk has the room the store needs.
            self._checkpoint()
            self._short_of_space = self._free_space() < self.space_needed()
        return outcomes

    def _commit_writes(self, batch: list[_Write]) -> list[Exception | None]:
        outcomes: list[Exception | None] = [None] * len(batch)
        pending = list(range(len(batch)))
        while pending:
            aborted_by = self._transaction(batch, pending, outcomes)
            if aborted_by is None:
                break
            error = outcomes[aborted_by]
            if error is not None and _away_kind(error) is not None:
                raise error  # the disk, not this write: the rest would fail as well
            log.warning("SQLite write failed, retrying the rest: %s", error)
            pending.remove(aborted_by)
        return outcomes

    def _checkpoint(self) -> bool:
        """On the writer thread: checkpoint the WAL and truncate it (readers in the way are
        waited for briefly only; the next commit tries again). Whether it was done."""
        conn = self._writer
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.execute("PRAGMA busy_timeout = 200")
            try:
                row = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        except sqlite3.Error:
            return False
        return row is not None and row[0] == 0  # not blocked by a reader

    def _free_space(self) -> int:
        """Bytes free for this process on the store's disk (0 when it cannot be told)."""
        try:
            st = os.statvfs(self.path.parent)
        except OSError:
            return 0
        return st.f_bavail * st.f_frsize

    def space_needed(self) -> int:
        """Free disk space the store needs to keep writing (bytes): its WAL at its largest
        between checkpoints, and room for the database to grow (a tenth, at least 1 MB)."""
        return self._wal_bound() + max(1_048_576, _size(self.path) // 10)

    def _wal_bound(self) -> int:
        """The WAL's largest size between two automatic checkpoints (bytes)."""
        page = 4096
        with contextlib.suppress(OSError, ValueError), open(self.path, "rb") as f:
            header = f.read(18)
            if len(header) == 18:
                page = int.from_bytes(header[16:18], "big")
                page = 65536 if page == 1 else page
        return max(JOURNAL_SIZE_LIMIT, WAL_AUTOCHECKPOINT * page)

    def _write_reason(self, exc: BaseException, kind: str) -> str:
        """One line for the log: what failed, and for a full disk how much room the store
        needs, how much it takes now and how much is free."""
        words = " ".join(str(exc).split())
        reason = f"the SQLite store {self.path} cannot write: {words}"
        if kind != "full":
            return reason
        wal = _size(Path(f"{self.path}-wal"))
        return (
            f"{reason}; it needs about {_megabytes(self.space_needed())} free on its disk "
            f"(the database is {_megabytes(_size(self.path))}, its write-ahead log "
            f"{_megabytes(wal)} and up to {_megabytes(self._wal_bound())}), "
            f"{_megabytes(self._free_space())} free now"
        )

    def _transaction(
        self, batch: list[_Write], indexes: list[int], outcomes: list[Exception | None]
    ) -> int | None:
        """Apply `batch[i]` for `indexes` in one transaction and commit.

        Returns None once committed, or the index of the write that aborted the transaction
        (rolled back; that write's outcome is its error, the others' must be recomputed).
        """
        conn = self._writer
        if conn.in_transaction:  # left open by an earlier failure that could not roll back
            conn.execute("ROLLBACK")
        self._check_still_there()
        conn.execute("BEGIN IMMEDIATE")
        try:
            for i in indexes:
                try:
                    outcomes[i] = self._apply_one(conn, batch[i])
                except Exception as exc:
                    outcomes[i] = exc
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    return i
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
        self.transactions += 1
        return None

    def _check_still_there(self) -> None:
        """StoreLost when the database file was deleted or replaced since it was opened
        (one stat per transaction: cheap next to its fsync)."""
        if self._identity is None:
            return
        try:
            now = _identity(self.path)
        except FileNotFoundError:
            raise StoreLost(f"the SQLite store {self.path} was deleted while the bot ran") from None
        except OSError as exc:
            raise StoreLost(f"the SQLite store {self.path} cannot be checked: {exc}") from None
        if now != self._identity:
            raise StoreLost(f"the SQLite store {self.path} was replaced while the bot ran")

    @staticmethod
    def _apply_one(conn: sqlite3.Connection, write: _Write) -> Exception | None:
        """Apply one write inside the open transaction; its own failure is returned, not raised.

        A conflict, a duplicate match or a constraint only undoes this write (its savepoint, or
        SQLite's statement rollback for a one-statement write). An operational failure (I/O
        error, full disk) or one that ended the transaction is raised: the transaction aborts.
        """
        if write.compound:
            conn.execute("SAVEPOINT save")
        try:
            write.apply(conn)
        except sqlite3.OperationalError:
            raise
        except Exception as exc:
            if not conn.in_transaction:
                raise
            if write.compound:
                conn.execute("ROLLBACK TO save")
                conn.execute("RELEASE save")
            return exc
        if write.compound:
            conn.execute("RELEASE save")
        return None

    async def close(self) -> None:
        """Commit what is queued, stop the writer and close both connections."""
        if self._closing:
            return
        self._closing = True
        if not self._writer_task.done():
            wake = self._wake
            if wake is not None and not wake.done():  # waiting for a write: none comes, it ends
                self._wake = None
                wake.set_result(None)
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer_task
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._executor, self._close_writer)
        finally:
            self._executor.shutdown(wait=True)
            await self._reader.close()
            if self._lock_file is not None:
                self._lock_file.close()  # releases the lock

    def _close_writer(self) -> None:
        # Fold the WAL back into the database file so a closed store is one file.
        with contextlib.suppress(sqlite3.Error):
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._writer.close()


def _message_params(
    key: str, messages: Sequence[OutMessage], claim: Claim | None
) -> list[tuple[Any, ...]]:
    now = claim.now if claim is not None else time.time()
    return [
        (key, m.kind, m.user, dump_json(message_payload(m)), m.created_at or now) for m in messages
    ]


def _add_messages(
    conn: sqlite3.Connection,
    key: str,
    messages: Sequence[OutMessage],
    params: list[tuple[Any, ...]],
    claim: Claim | None,
) -> OutBatch | None:
    """Insert a commit's messages and claim them when `claim`. The usual case, nothing else
    waiting in the table's outbox, inserts them already claimed and returns them as they are."""
    if claim is None:
        if params:
            conn.executemany(_INSERT_MESSAGE, params)
        return None
    # Messages of the table this owner holds (claimed, lease running: in its queue, or
    # delivered edits not yet marked) do not stand in the way: the deliverer takes the new
    # ones after them, in id order. Anyone else's (or nobody's) do.
    waiting, ref = conn.execute(_WAITING_AND_REF, (key, claim.owner, claim.now)).fetchone()
    if waiting or not params:
        if params:
            conn.executemany(_INSERT_MESSAGE, params)
        return _claim(conn, key, claim)
    out = []
    for m, p in zip(messages, params, strict=True):
        cursor = conn.execute(_INSERT_CLAIMED, (*p, claim.owner, claim.until))
        assert cursor.lastrowid is not None
        out.append(
            OutMessage(
                m.kind,
                m.screen,
                user=m.user,
                freeze=m.freeze,
                id=cursor.lastrowid,
                table_key=key,
                created_at=p[4],
                attempts=1,
            )
        )
    return OutBatch(key, ref, out)


def _claim(conn: sqlite3.Connection, key: str, claim: Claim) -> OutBatch | None:
    """Claim the next undelivered messages of a table unless another owner holds them.

    Private messages not claimed by this owner before (a dead process's, or committed while
    another held the table) are dropped when a newer one to the same user waits: nobody is
    sent an out-of-date piece.
    """
    rows = conn.execute(_PENDING, (key, CLAIM_BATCH)).fetchall()
    if not rows:
        return None
    # Claims are taken oldest first, so a running lease shows among the oldest rows.
    if any(r[5] is not None and r[5] != claim.owner and r[6] > claim.now for r in rows):
        return None
    if any(r[1] == "tell" and r[5] != claim.owner for r in rows):
        conn.execute(_DROP_STALE_TELLS, (key, claim.owner))
        rows = conn.execute(_PENDING, (key, CLAIM_BATCH)).fetchall()
    conn.executemany(
        "UPDATE outbox SET claimed_by = ?, claimed_until = ?, "
        "attempts = attempts + CASE WHEN claimed_by = ? THEN 0 ELSE 1 END WHERE id = ?",
        [(claim.owner, claim.until, claim.owner, r[0]) for r in rows],
    )
    ref = conn.execute("SELECT ref FROM table_messages WHERE table_key = ?", (key,)).fetchone()
    return OutBatch(
        key,
        ref[0] if ref else None,
        [
            out_message(
                r[0],
                key,
                r[1],
                r[2],
                load_json(r[3]),
                r[4],
                r[7] + (0 if r[5] == claim.owner else 1),
            )
            for r in rows
        ],
        more=more_in_lanes(r[1] for r in rows),
    )


async def raw_commit_rate(
    path: str | os.PathLike[str],
    seconds: float = 2.0,
    *,
    payload_bytes: int = 3072,
    synchronous: Synchronous = "FULL",
    rows: int = 1000,
) -> float:
    """Single-row committed transactions per second on one aiosqlite connection, in sequence.

    The baseline group commit is measured against: the same pragmas as `SqliteRepository`
    (WAL, `synchronous`), and for each transaction one upsert of a `payload_bytes` text into
    one of `rows` rows followed by `commit()`, each awaited before the next. Uses a scratch
    table `raw_commit_bench` in the database at `path` (created if missing), dropped afterwards.
    """
    conn = await connect(path, synchronous=synchronous)
    # connect() gives autocommit; the plain aiosqlite way is an implicit BEGIN and commit().
    conn.isolation_level = "DEFERRED"
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS raw_commit_bench (k INTEGER PRIMARY KEY, v TEXT NOT NULL)"
        )
        await conn.commit()
        payload = "x" * payload_bytes
        sql = (
            "INSERT INTO raw_commit_bench (k, v) VALUES (?, ?) "
            "ON CONFLICT (k) DO UPDATE SET v = excluded.v"
        )
        for i in range(min(rows, 50)):  # warm the page cache and the statement cache
            await conn.execute(sql, (i, payload))
            await conn.commit()
        count = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            await conn.execute(sql, (count % rows, payload))
            await conn.commit()
            count += 1
            if time.perf_counter() >= deadline:
                break
        elapsed = time.perf_counter() - start
        await conn.execute("DROP TABLE raw_commit_bench")
        await conn.commit()
        return count / elapsed
    finally:
        await conn.close()
