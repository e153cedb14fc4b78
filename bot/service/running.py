"""How a command runs: in one unit of work on its table, run again when it lost a version race
to another process, its refusals answered in the table's language, and a store that is away or
lost answered with its clear line (in the table's language, known without the store)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from bot.service import tokens
from bot.service.game import GameRuleError
from bot.service.health import StoreHealth
from bot.service.i18n import LANGUAGES
from bot.service.ports import ConflictError, StoreLost, StoreUnavailable
from bot.service.replies import Reply, ServiceError
from bot.service.settings import SettingsError
from bot.service.table import Table, TableKey, User
from bot.service.texts import Catalogs
from bot.service.uow import Session, UnitOfWork

log = logging.getLogger(__name__)

#: How often a command that lost a version race to another process is run again (on the
#: table as that process stored it) before the user hears "please try again".
CONFLICT_RETRIES = 8

#: A command's work on its table's session: (session, user, *arguments) -> reply.
Handler = Callable[..., Awaitable[Reply]]
#: What a press's action asks for, on the session of the table its token names.
PressHandler = Callable[[Session, User, tokens.Token], Awaitable[Reply]]


class Runner:
    """Runs commands in units of work and turns refusals and outages into replies."""

    def __init__(
        self,
        uow: UnitOfWork,
        catalogs: Catalogs,
        health: StoreHealth,
        *,
        presses: Mapping[str, PressHandler],
        choose: Handler,
    ) -> None:
        self.uow = uow
        self.catalogs = catalogs
        self.health = health
        #: What a press's action asks for; any other action is one of the game's choices
        #: (`choose`: `Play.acted`).
        self.presses = presses
        self.choose = choose

    async def read(self, tk: TableKey, user: User | None, query: Awaitable[Reply]) -> Reply:
        """A query that reads the store outside a unit of work: refused once the store is
        lost, the clear line while it is away."""
        refused = self.refused_when_lost(tk)
        if refused is not None:
            query.close()  # type: ignore[attr-defined]
            return refused
        return await self.answered_when_away(tk, user, query)

    async def press(self, tk: TableKey, user: User, token: str | tokens.Token) -> Reply:
        """A button press: the token (as sent, or as the adapter already decoded it: it is
        decoded once) names the table (found by its id, wherever it was pressed), a version
        and the action; the command then runs in one unit of work on that table."""
        decoded = tokens.decode(token) if isinstance(token, str) else token
        # While the store is away the refusal speaks the language of the table the token
        # names (pressed in a private chat too), known without the store.
        table_id = decoded.table_id if decoded is not None else None
        found = self._pressed_at(tk, user, decoded)
        return await self.answered_when_away(tk, user, found, table_id)

    async def _pressed_at(self, tk: TableKey, user: User, decoded: tokens.Token | None) -> Reply:
        refused = self.refused_when_lost(tk)
        if refused is not None:
            return refused
        if decoded is None:
            settings = await self.uow.channel_settings(tk)
            cat = self.catalogs.catalog(settings.language, tk.platform)
            return Reply(cat.t("error.bad_button"), ok=False)
        found = await self.uow.key_of(decoded.table_id, tk)
        if found is None:
            settings = await self.uow.channel_settings(tk)
            cat = self.catalogs.catalog(settings.language, tk.platform)
            return Reply(cat.t("error.stale"), ok=False)
        if found != tk:
            # Pressed elsewhere (a private chat, an inline result): rights that belong to the
            # other chat (admin) do not carry over.
            tk, user = found, replace(user, admin=False)
        # The store's loss was answered above: the command's attempts follow at once.
        return await self._attempts(tk, user, self._pressed, decoded)

    async def _pressed(self, s: Session, user: User, token: tokens.Token) -> Reply:
        """The command a press asks for, on the table it was found at (loaded once)."""
        table = s.table
        if table is None or table.table_id != token.table_id or table.status == "closed":
            raise ServiceError("error.stale")
        handler = self.presses.get(token.action)
        if handler is not None:
            return await handler(s, user, token)
        return await self.choose(s, user, token.action, token.seq, token.arg)

    async def run(self, tk: TableKey, user: User | None, fn: Handler, *args: Any) -> Reply:
        """Run a command under the table's lock and commit it; refusals become replies in its
        language. A command that lost a race with another process runs again on the table
        that process stored (the user never hears of it, unless it keeps losing)."""
        refused = self.refused_when_lost(tk)
        if refused is not None:
            return refused
        return await self._attempts(tk, user, fn, *args)

    async def _attempts(self, tk: TableKey, user: User | None, fn: Handler, *args: Any) -> Reply:
        for attempt in range(CONFLICT_RETRIES):
            try:
                return await self._run_once(tk, user, fn, *args)
            except ConflictError as exc:
                log.info("table %s changed elsewhere, running again: %s", tk.key, exc)
                if attempt == CONFLICT_RETRIES - 1:
                    cat = self.catalogs.cat(self.uow.cached.get(tk.key))
                    return Reply(cat.t("error.conflict"), ok=False)
                await asyncio.sleep(0.005 * attempt)
            except StoreLost as exc:
                self.health.lost(exc)
                refused = self.refused_when_lost(tk)
                assert refused is not None
                return refused
            except StoreUnavailable as exc:
                # Nothing of the command was stored: nothing of it stays in memory either
                # (the unit of work dropped it; the table's language is still known).
                self.health.away(exc, "command")
                return self.unavailable_reply(tk, user)
        raise AssertionError("unreachable")

    async def _run_once(self, tk: TableKey, user: User | None, fn: Handler, *args: Any) -> Reply:
        async with self.uow.table(tk) as session:
            loaded = session.table
            try:
                reply: Reply = await fn(session, user, *args)
            except ServiceError as exc:  # what was saved before the refusal stays saved
                settings = await self.uow.channel_settings(tk) if loaded is None else None
                cat = self.catalogs.cat(self.uow.cached.get(tk.key), settings, tk.platform)
                text = cat.t(exc.code, **exc.params)
                return Reply(text, ok=False, literals=self._literals(tk, exc))
            except SettingsError as exc:
                text = self.catalogs.cat(loaded).t(exc.code, **exc.params)
                return Reply(text, ok=False, literals=self._literals(tk, exc))
            except GameRuleError as exc:
                cat = self.catalogs.cat(loaded)
                return Reply(cat.t(exc.key, rule=exc.rule, **exc.params), ok=False)
            reply.literals = (*reply.literals, *self._names_at(tk))
            return reply

    def unavailable_reply(
        self, tk: TableKey, user: User | None = None, table_id: str | None = None
    ) -> Reply:
        """The answer to a command the store could not take: nothing changed, try again soon.

        In the table's language, known without the store: the table `table_id` names (a
        press's token, wherever it was pressed: a private chat too), else the table at `tk`
        (cached, or as last seen: the cache is dropped on a failure, the language is not);
        only when this process never saw the table, the sender's."""
        language = self.refusal_language(tk, user, table_id)
        return Reply(
            self.catalogs.catalog(language, tk.platform).t("error.store_unavailable"), ok=False
        )

    def refusal_language(
        self, tk: TableKey, user: User | None = None, table_id: str | None = None
    ) -> str:
        """The language to refuse in while the store is away (see `unavailable_reply`)."""
        index = self.uow.index
        if table_id:
            key = index.key_of(table_id)
            table: Table | None = self.uow.cached.get(key) if key is not None else None
            if table is not None and table.table_id == table_id:
                return table.settings.language
            known = index.of_table(table_id)
            if known is not None:
                return known
        here = self.uow.cached.get(tk.key)
        if here is not None:
            return here.settings.language
        known = index.of_key(tk.key)
        if known is not None:
            return known
        if user is not None and user.language in LANGUAGES:
            return user.language
        return "en"

    async def answered_when_away(
        self,
        tk: TableKey,
        user: User | None,
        command: Awaitable[Reply],
        table_id: str | None = None,
    ) -> Reply:
        """`command`'s reply, or `unavailable_reply` when the store is away: for a command
        that reads or writes the store outside `run` (a press finding its table, statistics);
        `table_id`: the table a press's token names."""
        try:
            return await command
        except StoreUnavailable as exc:
            self.health.away(exc, "command")
            return self.unavailable_reply(tk, user, table_id)

    def refused_when_lost(self, tk: TableKey) -> Reply | None:
        """The refusal of every command once the store is lost (None while it is not)."""
        if self.health.store_lost is None:
            return None
        language = self.refusal_language(tk)
        return Reply(self.catalogs.catalog(language, tk.platform).t("error.store_lost"), ok=False)

    def _names_at(self, tk: TableKey) -> tuple[str, ...]:
        table = self.uow.cached.get(tk.key)
        return tuple(table.names) if table is not None else ()

    def _literals(self, tk: TableKey, exc: ServiceError | SettingsError) -> tuple[str, ...]:
        """What a refusal repeats of people's words: its text parameters and the seat names."""
        ours = ("known", "choices")  # the bot's own lists of words, not people's
        typed = tuple(v for k, v in exc.params.items() if isinstance(v, str) and k not in ours)
        return (*typed, *self._names_at(tk))


__all__ = ["CONFLICT_RETRIES", "Handler", "PressHandler", "Runner", "Session"]
