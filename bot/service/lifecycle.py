"""The service's life: resuming stored tables after a start, moving a chat's tables to its new
id, and a clean shutdown."""

from __future__ import annotations

import asyncio
import logging

from bot.service.deadlines import Deadlines
from bot.service.game import Games
from bot.service.health import StoreHealth
from bot.service.options import ALIVE_FOR, ServiceSettings
from bot.service.outgoing import Outgoing
from bot.service.ports import (
    ConflictError,
    OutMessage,
    StoreLost,
    TableRow,
    TableShot,
)
from bot.service.screens import Screens
from bot.service.table import Table, TableKey
from bot.service.texts import Catalogs
from bot.service.uow import UnitOfWork

log = logging.getLogger(__name__)


class Lifecycle:
    """Start, chat migration and shutdown."""

    def __init__(
        self,
        uow: UnitOfWork,
        *,
        games: Games,
        catalogs: Catalogs,
        settings: ServiceSettings,
        health: StoreHealth,
        outbox: Outgoing,
        screens: Screens,
        deadlines: Deadlines,
    ) -> None:
        self.uow = uow
        self.repo = uow.repo
        self.games = games
        self.catalogs = catalogs
        self.settings = settings
        self.health = health
        self.outbox = outbox
        self.screens = screens
        self.deadlines = deadlines

    async def resume(self) -> int:
        """After a start: deliver what was committed and not sent, then load every open
        table, re-arm its timer and tell its channel it was restored.

        With a shared store where other processes are alive, the tables never were without
        one: this process starts quietly (it serves whatever it is asked, and takes timers
        and messages over from processes that die). Returns how many tables were restored.
        """
        await self.outbox.bury_dead()  # a killed predecessor's claims end now
        now = self.settings.clock.now()
        others = await self.repo.heartbeat(self.outbox.owner, now, now + ALIVE_FOR)
        # A store of one process (SQLite, locked for `run`) has no other: a row left by the
        # process that died before this one is not a live one.
        if others and self.uow.shared:
            await self.outbox.sweep()
            return 0
        # Nobody else is alive: every claim in the store is a dead process's.
        await self.outbox.sweep(takeover=True)
        rows = await self.repo.load_active_tables()
        done = await asyncio.gather(*(self.settings.bounded(self._resume_one(row)) for row in rows))
        return sum(done)

    async def _resume_one(self, row: TableRow) -> bool:
        async with self.uow.lock(row.key):
            # A command may have loaded (and changed) the table since the rows were read.
            table = self.uow.cached.get(row.key)
            if table is None:
                try:
                    table = Table.from_row(row, self.games.rules)
                except (ValueError, KeyError) as exc:
                    log.error("table %s cannot be restored: %s", row.key, exc)
                    return False
            if table.status == "closed":
                return False
            self.uow.cached[row.key] = table
            # The outbox store's reference is the one delivered last; the table keeps a copy.
            self.outbox.set_ref(row.key, row.message_ref or table.message_ref)
            # A fresh deadline: nobody pays for the time the bot was down. The state version
            # (`seq`) stays, so the buttons of the messages already in the chat keep working
            # until the old message is frozen (its buttons removed) and the new one posted.
            self.deadlines.arm(table)
            note = self.catalogs.cat(table).t("note.restored")
            # The table as it is, in a new message, the old one without its buttons: both
            # shots of the table, rendered when delivered.
            table.message_no += 1
            shots = (
                TableShot(table.table_id, table.message_no, table.row_version or 0, note=note),
                TableShot(table.table_id, table.message_no, table.row_version or 0, buttons=False),
            )
            if not self.uow.shared and self.outbox.in_memory(row.key):
                # This process alone: nothing to store. Every start re-arms the timers, and a
                # crash before the notice went out restores the table again at the next one.
                notice = OutMessage(
                    "post_table", shots[0], freeze=shots[1], created_at=self.settings.clock.now()
                )
                self.outbox.deliver(row.key, [notice])
            else:
                try:
                    if self.uow.shared:  # timers are claimed through the store: deadline stored
                        self.uow.save(table)
                    self.outbox.post_table(row.key, *shots)
                    await self.uow.commit(row.key)
                except ConflictError:
                    self.uow.forget(row.key)  # another process changed it meanwhile: served
                    return False
                except BaseException:
                    self.uow.forget(row.key)
                    raise
            self.deadlines.schedule(table)
            return True

    async def migrate_chat(self, platform: str, old_chat: str, new_chat: str) -> int:
        """A chat got a new id (a Telegram group upgraded to a supergroup): its open tables,
        with their matches and lives, and its settings move to the new id.

        Returns how many tables moved.
        """
        old_prefix = f"{platform}:{old_chat}"
        moved = 0
        for row in await self.repo.load_active_tables():
            old_key = TableKey.parse(row.key)
            if old_key.platform != platform or old_key.chat != old_chat:
                continue
            new_key = TableKey(platform, new_chat, old_key.thread)
            async with self.uow.lock(row.key), self.uow.lock(new_key.key):
                table = await self.uow.load(row.key)
                if table is None or table.status == "closed":
                    continue
                existing = await self.repo.load_table(new_key.key)
                moved_table = Table.from_row(row, self.games.rules)
                moved_table.key = new_key
                moved_table.row_version = existing.version if existing else None
                self.uow.save(moved_table)
                table.status = "closed"
                table.closed_reason = "migrated"
                table.deadline = table.deadline_kind = None
                self.uow.save(table)
                self.uow.cached.pop(row.key, None)
                self.outbox.set_ref(new_key.key, None)
                self.deadlines.schedule(moved_table)
                self.screens.repost(moved_table, None)
                try:
                    await self.uow.commit(new_key.key)
                    await self.uow.commit(row.key)
                except BaseException:
                    self.uow.forget(new_key.key)
                    self.uow.forget(row.key)
                    raise
                moved += 1
        settings = await self.repo.load_settings(old_prefix)
        if settings is not None:
            await self.repo.save_settings(f"{platform}:{new_chat}", settings)
        return moved

    async def shutdown(self) -> None:
        """Let the messages under way go out, and say this process stops (so a process that
        starts next knows whether the tables were left without one)."""
        await self.outbox.drain()
        if self.health.store_lost is not None:
            return  # nothing can be stored
        try:
            await self.repo.heartbeat(self.outbox.owner, self.settings.clock.now(), None)
        except StoreLost as exc:
            self.health.lost(exc)
        except Exception as exc:
            log.warning("saying this process stops failed: %s", exc)
