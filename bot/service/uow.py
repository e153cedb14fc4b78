"""The unit of work every command runs in (cosmicpython's shape): the table cache, one lock
per table, the index from a table's id to its key, and

    async with uow.table(key) as session:   # the lock; the table loaded once
        ...                                 # session.table, .rules, .view, .texts; stage()
    # leaving: one commit (table, statistics, finished match and messages in one
    # transaction), then the outbox delivers; an exception drops what the command changed.

On a shared store (PostgreSQL) a cached table is checked against the stored version at every
load: one version query, a fresh read only when another process committed.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

from bot.service.game import GameRules, Games, GameView
from bot.service.health import StoreHealth
from bot.service.i18n import Catalog
from bot.service.ports import (
    Claim,
    Clock,
    FinishedMatch,
    OutBatch,
    OutMessage,
    Screen,
    StatDelta,
    TableShot,
)
from bot.service.readback import Readback
from bot.service.settings import TableSettings, load_settings
from bot.service.store import Repository
from bot.service.table import Table, TableKey
from bot.service.texts import Catalogs

log = logging.getLogger(__name__)

#: Renders a table message (the screens part): (table, buttons, note) -> screen.
RenderTable = Callable[[Table, bool, str | None], Screen]


class Staging(Protocol):
    """What the unit of work asks of the outbox: the messages a command staged, taken with
    its commit and handed back for delivery (`bot/service/outbox.py`)."""

    def take(self, channel: str, version: int = 0) -> list[OutMessage]: ...
    def unstored(self, channel: str, messages: list[OutMessage]) -> list[OutMessage]: ...
    def claim(self) -> Claim: ...
    def accept(self, batch: OutBatch | None, *, takeover: bool = False) -> None: ...
    def deliver(self, channel: str, messages: list[OutMessage]) -> None: ...
    def discard(self, channel: str) -> None: ...
    def set_ref(self, channel: str, ref: str | None) -> None: ...


class TableIndex:
    """Each table's key by its id, and its language, as this process last saw it committed or
    loaded, kept apart from the table cache and from the store: a press finds its table by the
    token's id without a scan, and a refusal while the store is away speaks the table's
    language even after its cached table was dropped.

    A bounded LRU (`size` tables): per process, forgotten only for tables long unseen (then
    the store finds the table by its id)."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._by_key: OrderedDict[str, str] = OrderedDict()
        self._key_of_id: OrderedDict[str, str] = OrderedDict()

    def note(self, key: str, table_id: str | None, language: str) -> None:
        """The table at `key` (with id `table_id`, when it has one) speaks `language`."""
        self._by_key[key] = language
        self._by_key.move_to_end(key)
        if table_id:
            self._key_of_id[table_id] = key
            self._key_of_id.move_to_end(table_id)
        for kept in (self._by_key, self._key_of_id):
            while len(kept) > self.size:
                kept.popitem(last=False)

    def key_of(self, table_id: str) -> str | None:
        """Where the table with id `table_id` was last seen."""
        return self._key_of_id.get(table_id)

    def of_key(self, key: str) -> str | None:
        """The language of the table at `key`, when known."""
        return self._by_key.get(key)

    def of_table(self, table_id: str) -> str | None:
        """The language of the table with id `table_id`, when known."""
        key = self._key_of_id.get(table_id)
        return self._by_key.get(key) if key is not None else None


class Session:
    """One command's hold on one table: the table (None when the channel has none), its
    game's rules and view, and its language's texts; `stage` saves with the command."""

    __slots__ = ("_uow", "key", "table")

    def __init__(self, uow: UnitOfWork, key: TableKey, table: Table | None) -> None:
        self._uow = uow
        self.key = key
        self.table = table

    @property
    def rules(self) -> GameRules:
        """The rules of the game the session's table plays."""
        assert self.table is not None, "a session without a table has no game"
        return self._uow.games.rules[self.table.game]

    @property
    def view(self) -> GameView:
        """The view of the game the session's table plays."""
        assert self.table is not None, "a session without a table has no game"
        return self._uow.games.views[self.table.game]

    @property
    def texts(self) -> Catalog:
        """The catalog the session's table speaks."""
        table = self.table
        assert table is not None, "a session without a table speaks its channel's"
        return self._uow.catalogs.catalog(table.settings.language, table.key.platform)

    def stage(
        self,
        table: Table | None = None,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
    ) -> None:
        """Save the session's table (or `table`, which becomes the session's), with statistics
        and a finished match: committed with the command's messages when the session ends."""
        if table is not None:
            self.table = table
        assert self.table is not None, "nothing to stage"
        self._uow.save(self.table, stats, finished)


class TableScope:
    """One command's hold on a table (`UnitOfWork.table`): entering takes the table's lock and
    loads it once; leaving commits what was staged (then releases a closed table from the
    cache), or drops it when the command raised; the lock is released either way."""

    __slots__ = ("_lock", "_tk", "_uow")

    def __init__(self, uow: UnitOfWork, tk: TableKey) -> None:
        self._uow = uow
        self._tk = tk
        self._lock = uow.lock(tk.key)

    async def __aenter__(self) -> Session:
        await self._lock.acquire()
        try:
            return Session(self._uow, self._tk, await self._uow.load(self._tk.key))
        except BaseException:
            self._uow.forget(self._tk.key)
            self._lock.release()
            raise

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        key = self._tk.key
        try:
            if kind is not None:
                self._uow.forget(key)
                return
            try:
                await self._uow.commit(key)
            except BaseException:
                self._uow.forget(key)
                raise
            self._uow.release_closed(key)
        finally:
            self._lock.release()


class UnitOfWork:
    """The table cache, one lock per table, one load, what a command stages, one commit."""

    def __init__(
        self,
        repo: Repository,
        outbox: Staging,
        *,
        games: Games,
        catalogs: Catalogs,
        health: StoreHealth,
        clock: Clock,
        render: RenderTable,
        readback: Readback,
        committed: Callable[[Table], None],
    ) -> None:
        self.repo = repo
        #: Other processes may change tables (PostgreSQL): a cached table is checked against
        #: the stored version at every load, and timers are claimed through the store.
        self.shared = repo.shared
        self.outbox = outbox
        self.games = games
        self.catalogs = catalogs
        self.health = health
        self.clock = clock
        #: Tables saved by the command under way, committed with its messages at its end.
        self._pending: dict[str, tuple[Table, list[StatDelta], FinishedMatch | None]] = {}
        self.cached: dict[str, Table] = {}
        #: Each table's key by its id and its language, known without the store or the cache.
        self.index = TableIndex()
        self._locks: dict[str, asyncio.Lock] = {}
        #: Told of each table committed (commits.py: the bots' thinking ahead, then the web
        #: table's pushes). Must not block.
        self._committed = committed
        #: Renders a shot delivered (the screens'); the outbox asks through `readback`.
        self._render = render
        readback.serve(self)

    def lock(self, key: str) -> asyncio.Lock:
        """The lock of the table at `key` (one per table, made when first asked for)."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def table(self, tk: TableKey) -> TableScope:
        """`async with uow.table(tk) as session`: the table at `tk` under its lock, loaded
        once, as a session; leaving commits what the session staged (one transaction, then
        delivery), an exception drops it."""
        return TableScope(self, tk)

    async def load(self, key: str) -> Table | None:
        """The table at `key`: the cached one (on a shared store, checked against the stored
        version), else read from the store."""
        table = self.cached.get(key)
        if table is not None:
            if not self.shared or key in self._pending:
                return table
            # Another process may have committed since: a cheap version check, and a fresh
            # read only when it did.
            if await self.repo.table_version(key) == table.row_version:
                return table
            self.cached.pop(key, None)
        row = await self.repo.load_table(key)
        if row is None:
            return None
        table = Table.from_row(row, self.games.rules)
        if table.status != "closed":  # a closed table is read again when asked for (rarely)
            self.cached[key] = table
        self._note(table)
        self.outbox.set_ref(key, table.message_ref)
        return table

    def _note(self, table: Table) -> None:
        self.index.note(table.key.key, table.table_id, table.settings.language)

    async def key_of(self, table_id: str, here: TableKey) -> TableKey | None:
        """Where the open table with `table_id` lives: usually the chat pressed in (`here`),
        else where this process last saw it (the index), else where the store has it open;
        None when no open table has that id. Read without a lock: the command checks it
        again on its table."""
        cached = self.cached.get(here.key)
        if cached is not None and cached.table_id == table_id:
            return here
        known = self.index.key_of(table_id)
        if known is not None:
            cached = self.cached.get(known)
            if cached is not None and cached.table_id == table_id and cached.status != "closed":
                return cached.key
        row = await self.repo.load_table_by_id(table_id)
        if row is None or row.status == "closed":
            return None
        return TableKey.parse(row.key)

    def save(
        self,
        table: Table,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
    ) -> None:
        """Stage the table (and its statistics and finished match) with the command: stored in
        one transaction with every message the command stages, at its end (`commit`)."""
        key = table.key.key
        pending = self._pending.get(key)
        if pending is not None and pending[0] is table:
            pending[1].extend(stats)
            finished = finished or pending[2]
        else:
            pending = (table, [], None)
            pending[1].extend(stats)
        self._pending[key] = (table, pending[1], finished)
        self.cached[key] = table

    async def commit(self, key: str) -> None:
        """Commit what the command under way saved and staged for `key`, in one transaction,
        then deliver its messages. Nothing is said before it is stored."""
        pending = self._pending.pop(key, None)
        batch: OutBatch | None
        if pending is None:
            cached = self.cached.get(key)
            version = cached.row_version or 0 if cached is not None else 0
            messages = self.outbox.take(key, version)
            if not messages:
                return
            unstored = self.outbox.unstored(key, messages)
            batch = None
            if not unstored:
                batch = await self.repo.add_messages(key, messages, self.outbox.claim())
                self.health.answered()
        else:
            table, stats, finished = pending
            table.updated_at = self.clock.now()
            row = table.to_row(self.games.rules[table.game])
            messages = self.outbox.take(key, row.version)
            unstored = self.outbox.unstored(key, messages)
            # Messages delivered from memory: nothing to store or claim with the table.
            claim = None if unstored else self.outbox.claim()
            try:
                batch = await self.repo.save_table(
                    row,
                    expected_version=table.row_version,
                    stats=stats,
                    finished=finished,
                    messages=() if unstored else messages,
                    claim=claim,
                )
            except BaseException:
                # What is in memory was never stored: forget it, the store is the truth.
                self.cached.pop(key, None)
                raise
            table.row_version = row.version
            table.parts_saved(row)
            self.cached[key] = table
            self._note(table)
            self.health.answered()
            self._committed(table)
        self.outbox.accept(batch)
        if unstored:  # after what the store handed over: older, so first
            self.outbox.deliver(key, unstored)

    async def render_shot(self, key: str, shot: TableShot) -> Screen | None:
        """Render a table shot at its delivery, from the committed table (under the table's
        lock, so never a command's half-made change): the cached table when it is at least
        the shot's version, else the stored one. None when the table shown is gone, or its
        message is no longer the table's newest."""
        async with self.lock(key):
            table = self.cached.get(key)
            if table is None or (table.row_version or 0) < shot.version:
                table = await self.load(key)
            if table is None or table.table_id != shot.table_id:
                return None
            if table.message_no != shot.message:
                return None  # a newer table message was posted: this one is frozen by it
            return self._render(table, shot.buttons, shot.note)

    async def posted(self, channel: str, ref: str) -> None:
        """A table message was posted: the table keeps its reference (the outbox stores it)."""
        table = self.cached.get(channel)
        if table is not None:
            table.message_ref = ref

    def release_closed(self, key: str) -> None:
        """After a commit: a table that closed leaves the cache (the store keeps it), so a
        bot that meets group after group holds only the tables that are open."""
        table = self.cached.get(key)
        if table is not None and table.status == "closed" and key not in self._pending:
            del self.cached[key]

    def forget(self, key: str) -> None:
        """Drop what a failed command saved and staged, and the cached table."""
        self._pending.pop(key, None)
        self.outbox.discard(key)
        self.cached.pop(key, None)

    async def channel_settings(self, tk: TableKey) -> TableSettings:
        """The settings a channel keeps for its next table."""
        settings = load_settings(await self.repo.load_settings(tk.key), self.games.default)
        if tk.key not in self.cached:  # a table's own settings win (noted with the table)
            self.index.note(tk.key, None, settings.language)
        return settings

    async def current_settings(self, tk: TableKey) -> TableSettings:
        """The open table's settings, else the channel's."""
        table = self.cached.get(tk.key)
        if table is not None and table.status != "closed":
            return table.settings
        return await self.channel_settings(tk)

    def channel_game(self, tk: TableKey, settings: TableSettings | None = None) -> GameView:
        """The view of the game a channel plays now: its open table's, else the one its
        settings choose."""
        table = self.cached.get(tk.key)
        if table is not None and table.status != "closed":
            return self.games.views[table.game]
        if settings is not None:
            return self.games.views[self.games.named(settings)]
        return self.games.views[self.games.default]
