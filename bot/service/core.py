"""The unit of work every command runs in: the table cache and one lock per table, one load
(one version check on a shared store), what the command stages, one commit; and what every part
of the service shares: the games, catalogs, players, and refusals turned into replies.

`UnitOfWork` knows no other part of the service; the parts (screens, lobby, play, timers,
queries, lifecycle) are handed it by `TableService` (service.py).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar, Unpack

from bot.service.game import Choice, Game, GameRuleError, GameRules, GameView
from bot.service.health import StoreHealth
from bot.service.i18n import LANGUAGES, Catalog, catalog, with_game_messages
from bot.service.names import clean_name
from bot.service.outbox import Outbox
from bot.service.ports import (
    Button,
    Clock,
    ConflictError,
    Delivery,
    FinishedMatch,
    Notifier,
    OutBatch,
    PageLinks,
    Repository,
    Screen,
    StatDelta,
    StoreLost,
    StoreUnavailable,
    SystemClock,
    TableShot,
)
from bot.service.settings import (
    SettingsError,
    TableSettings,
    game_settings,
    load_settings,
)
from bot.service.table import Table, TableKey, User
from bot.service.thinking import Thinking
from bot.service.views import TableView

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Longest table message text (Discord allows 2,000 characters, Telegram 4,096).
MAX_TEXT = 1900
#: Longest private popup (Telegram's callback alert allows 200 characters).
MAX_ALERT = 200
#: How often a command that lost a version race to another process is run again (on the
#: table as that process stored it) before the user hears "please try again".
CONFLICT_RETRIES = 8


class TableLanguages:
    """Each table's language as this process last saw it committed or loaded, kept apart
    from the table cache and from the store: a refusal while the store is away speaks the
    table's language even after its cached table was dropped, and a press from a private
    chat finds its table's language by the table id its token names.

    A bounded LRU (`size` tables): per process, forgotten only for tables long unseen."""

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

    def of_key(self, key: str) -> str | None:
        """The language of the table at `key`, when known."""
        return self._by_key.get(key)

    def of_table(self, table_id: str) -> str | None:
        """The language of the table with id `table_id`, when known."""
        key = self._key_of_id.get(table_id)
        return self._by_key.get(key) if key is not None else None


@dataclass(slots=True)
class Reply:
    """The answer to the person who sent a command.

    `public` replies are for the whole channel (stats, rules); others are for the sender only
    (an ephemeral message, a popup, or a reply where the platform has nothing private).
    `alert` asks for a popup (a private piece in the chat).
    """

    text: str
    ok: bool = True
    public: bool = False
    alert: bool = False
    document: tuple[str, bytes] | None = None
    #: Pieces of `text` people chose (names, values they typed): shown as typed, never as a
    #: link, a command, a mention or markup (see `Screen.literals`).
    literals: tuple[str, ...] = ()
    #: Buttons for the sender only (a private hand to choose from), where the platform can
    #: show them with a private reply (Discord's ephemeral message); a popup shows the text.
    buttons: tuple[tuple[Button, ...], ...] = ()
    #: Preformatted pieces of `text` (a score sheet, on lines of its own): shown in monospace
    #: with their columns kept where the platform can (as `Screen.blocks`).
    blocks: tuple[str, ...] = ()


class ServiceError(Exception):
    """A refused command; `code` is a catalog key."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class ServiceOptions(TypedDict, total=False):
    """How the service runs, beside its store, notifier and games: each one optional (its
    default in `UnitOfWork`), handed on as they are by `TableService(repo, notifier,
    games=..., **options)`."""

    #: The time (default: the system's).
    clock: Clock | None
    #: Chance: deals, bot seats' choices (default: seeded by the system).
    rng: random.Random | None
    #: Seconds a bot seat waits before it acts (1.5).
    bot_delay: float
    #: Seconds an untouched lobby stays open (600).
    lobby_idle: float
    #: Timeouts in a row that forfeit a seat's match (3).
    max_timeouts: int
    #: Deadlines handled at once (32).
    max_parallel: int
    #: This process's name in the outbox's claims (default: host, process id, a random tail).
    owner: str | None
    #: Seconds one store outage may last before the bot stops (None: it waits for ever).
    store_give_up: float | None
    #: Where bot seats think at their table's level (default: threads, no worker process).
    thinking: Thinking | None


#: Renders a table message (the screens part): (table, buttons, note) -> screen.
RenderTable = Callable[[Table, bool, str | None], Screen]


class UnitOfWork:
    """What every command runs in, and what the service's parts share: repository, clock,
    randomness, outbox, cached tables and their locks, known players."""

    def __init__(
        self,
        repo: Repository,
        notifier: Notifier,
        *,
        games: Mapping[str, Game],
        **options: Unpack[ServiceOptions],
    ) -> None:
        self.repo = repo
        #: Other processes may change tables (PostgreSQL): a cached table is checked against
        #: the stored version at every load, and timers are claimed through the store.
        self.shared = bool(getattr(repo, "shared", False))
        if not games:
            raise ValueError("the service needs at least one game")
        #: The games tables may play, by name: their rules (a table's stored `game` picks
        #: them) and their views (how a match looks).
        self.games: dict[str, GameRules] = {name: g.rules for name, g in games.items()}
        self.views: dict[str, GameView] = {name: g.view for name, g in games.items()}
        #: The game of a new table when the channel chose none: the first registered.
        self.default_game = next(iter(self.games))
        #: Catalogs per language with the games' own messages merged in (built when first used).
        self._catalogs: dict[str, Catalog] = {}
        self._bound: dict[tuple[str, str], Catalog] = {}
        self.clock: Clock = options.get("clock") or SystemClock()
        self.rng = options.get("rng") or random.Random()
        self.bot_delay = options.get("bot_delay", 1.5)
        #: Where bot seats think at their table's level, away from the event loop.
        self.thinking = options.get("thinking") or Thinking()
        self.lobby_idle = options.get("lobby_idle", 600.0)
        self.max_timeouts = options.get("max_timeouts", 3)
        # Deadlines handled at once: enough for commits to share a transaction, few enough
        # that each command is answered quickly when many tables are due together.
        self.parallel = asyncio.Semaphore(options.get("max_parallel", 32))
        #: The platforms' notifier (its optional capabilities are looked up on it).
        self.notifier = notifier
        self.outbox = Outbox(
            notifier,
            self._on_posted,
            self._on_told,
            render_shot=self.render_shot,
            repo=repo,
            clock=self.clock,
            owner=options.get("owner"),
        )
        #: Tables saved by the command under way, committed with its messages at its end.
        self._pending: dict[str, tuple[Table, list[StatDelta], FinishedMatch | None]] = {}
        self.cached: dict[str, Table] = {}
        #: Each table's language, known without the store or the cache (outage refusals).
        self.languages = TableLanguages()
        self._locks: dict[str, asyncio.Lock] = {}
        self.players: dict[str, dict[str, Any]] = {}
        #: The screens part's table renderer, for shots rendered at delivery (set by the
        #: service once its screens exist).
        self.render_table: RenderTable | None = None
        #: Set once the store went away under the bot (StoreLost): every command is refused
        #: from then on, and `on_store_lost` (the runner's stop) is called once.
        self.store_lost: StoreLost | None = None
        self.on_store_lost: Callable[[], None] | None = None
        #: Whether the store answers now (StoreUnavailable: away for a while, maybe back by
        #: itself), with the outage under way; a health endpoint serves its `snapshot()`.
        #: After `store_give_up` seconds of one outage the bot stops (as when it is lost).
        self.health = StoreHealth(self.clock, give_up_after=options.get("store_give_up"))
        #: Set by the main loop: woken when the store is back, so what waited goes at once.
        self.on_store_back: Callable[[], None] | None = None
        #: How each platform writes a sub-command in help texts: "/gnav_" + "stats" on
        #: Telegram, "/gnav " + "stats" on Discord. Adapters set their own.
        self.command_prefix: dict[str, str] = {"console": ""}
        #: Run after each table's commit with (table key, table id, version): the web table's
        #: pushes (adapters/web/hub.py). A listener must not block (it schedules its work).
        self.on_commit: list[Callable[[str, str, int], None]] = []
        #: Addresses of the web table, when it is served (docs/web.md); None: no link buttons.
        self.links: PageLinks | None = None

    def game_of(self, table: Table) -> GameRules:
        """The rules of the game `table` plays."""
        return self.games[table.game]

    def view_of(self, table: Table) -> GameView:
        """The view of the game `table` plays (how its match looks)."""
        return self.views[table.game]

    def game_named(self, settings: TableSettings) -> str:
        """The registered game `settings` choose (the default when none or an unknown one)."""
        return settings.game if settings.game in self.games else self.default_game

    def own_settings(self, game: str, settings: TableSettings) -> Any:
        """`game`'s own settings (its `settings_model`) at a table with `settings`."""
        return game_settings(settings, game, self.games[game].settings_model)

    def settings_models(self) -> dict[str, Any]:
        """Every registered game's own settings model, by name."""
        return {name: g.settings_model for name, g in self.games.items()}

    def texts(self, table: Table | TableView) -> Catalog:
        """The catalog a table speaks (its language, its platform, every game's texts)."""
        return self.catalog(table.settings.language, table.key.platform)

    def set_command_prefix(self, platform: str, prefix: str) -> None:
        """How `platform` writes a sub-command in help texts ("/gnav_" on Telegram)."""
        self.command_prefix[platform] = prefix
        self._bound.clear()  # catalogs bound with the old prefix

    def choices(self, table: Table, seat: int) -> tuple[Choice, ...]:
        """`seat`'s choices in the table's state now, built once per state: a step moves the
        table's version (`seq`) before anyone reads them again."""
        if table.choices_seq != table.seq:
            table.choices.clear()
            table.choices_seq = table.seq
        found = table.choices.get(seat)
        if found is None:
            found = table.choices[seat] = tuple(self.game_of(table).choices(table.match, seat))
        return found

    async def drain(self) -> None:
        """Wait until everything queued to be said has gone out (on stop, in tests)."""
        await self.outbox.drain()

    def channel_game(self, tk: TableKey, settings: TableSettings | None = None) -> GameView:
        """The view of the game a channel plays now: its open table's, else the one its
        settings choose."""
        table = self.cached.get(tk.key)
        if table is not None and table.status != "closed":
            return self.view_of(table)
        if settings is not None:
            return self.views[self.game_named(settings)]
        return self.views[self.default_game]

    @staticmethod
    def game_key(cat: Catalog, game: str, key: str) -> str:
        """The game's own version of a service message (`<game>.top.title`) when it has one."""
        own = f"{game}.{key}"
        return own if cat.has(own) else key

    def lock(self, key: str) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    async def load(self, key: str) -> Table | None:
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
        table = Table.from_row(row, self.games)
        if table.status != "closed":  # a closed table is read again when asked for (rarely)
            self.cached[key] = table
        self._note_language(table)
        self.outbox.set_ref(key, table.message_ref)
        return table

    def _note_language(self, table: Table) -> None:
        self.languages.note(table.key.key, table.table_id, table.settings.language)

    async def save(
        self,
        table: Table,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
    ) -> None:
        """Save the table (and its statistics and finished match) with the command: stored in
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
                self.store_answered()
        else:
            table, stats, finished = pending
            table.updated_at = self.clock.now()
            row = table.to_row(self.game_of(table))
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
            self._note_language(table)
            self.store_answered()
            for listener in self.on_commit:
                listener(key, table.table_id, row.version)
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
            assert self.render_table is not None, "the service sets its table renderer"
            return self.render_table(table, shot.buttons, shot.note)

    async def bounded(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` once one of the `max_parallel` places is free."""
        try:
            async with self.parallel:
                return await work
        except BaseException:
            work.close()  # cancelled before it began (a stop): no "never awaited" warning
            raise

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

    def cat(
        self,
        table: Table | None,
        settings: TableSettings | None = None,
        platform: str | None = None,
    ) -> Catalog:
        if table is not None:
            return self.catalog(table.settings.language, table.key.platform)
        return self.catalog(settings.language if settings else "en", platform or "")

    def catalog(self, language: str, platform: str) -> Catalog:
        """A language's catalog (the service's texts and every hosted game's), with the
        platform's own wording and way of writing commands."""
        bound = self._bound.get((language, platform))
        if bound is not None:
            return bound
        merged = self._catalogs.get(language)
        if merged is None:
            merged = self._catalogs[language] = with_game_messages(
                catalog(language), [v.messages for v in self.views.values()]
            )
        # One bound catalog per language and platform, kept: it remembers its lookups.
        bound = self._bound[(language, platform)] = merged.for_platform(platform).bind(
            c=self.command_prefix.get(platform, "/gnav "),
            minutes=round(self.lobby_idle / 60),
        )
        return bound

    async def channel_settings(self, tk: TableKey) -> TableSettings:
        settings = load_settings(await self.repo.load_settings(tk.key), self.default_game)
        if tk.key not in self.cached:  # a table's own settings win (noted with the table)
            self.languages.note(tk.key, None, settings.language)
        return settings

    async def run(
        self, tk: TableKey, user: User | None, fn: Callable[..., Awaitable[Reply]], *args: Any
    ) -> Reply:
        """Run a command under the table's lock and commit it; refusals become replies in its
        language. A command that lost a race with another process runs again on the table
        that process stored (the user never hears of it, unless it keeps losing)."""
        refused = await self.refused_when_lost(tk)
        if refused is not None:
            return refused
        async with self.lock(tk.key):
            for attempt in range(CONFLICT_RETRIES):
                try:
                    reply = await self._run_once(tk, user, fn, *args)
                    self.release_closed(tk.key)
                    return reply
                except ConflictError as exc:
                    self.forget(tk.key)
                    log.info("table %s changed elsewhere, running again: %s", tk.key, exc)
                    if attempt == CONFLICT_RETRIES - 1:
                        cat = self.cat(self.cached.get(tk.key))
                        return Reply(cat.t("error.conflict"), ok=False)
                    await asyncio.sleep(0.005 * attempt)
                except StoreLost as exc:
                    self.forget(tk.key)
                    self.lost(exc)
                    refused = await self.refused_when_lost(tk)
                    assert refused is not None
                    return refused
                except StoreUnavailable as exc:
                    # Nothing of the command was stored: nothing of it stays in memory either.
                    refused = self.unavailable_reply(tk, user)
                    self.forget(tk.key)
                    self.store_failed(exc, "command")
                    return refused
                except BaseException:
                    self.forget(tk.key)
                    raise
        raise AssertionError("unreachable")

    async def _run_once(
        self, tk: TableKey, user: User | None, fn: Callable[..., Awaitable[Reply]], *args: Any
    ) -> Reply:
        table = await self.load(tk.key)
        try:
            reply: Reply = await fn(tk, table, user, *args)
        except ServiceError as exc:
            await self.commit(tk.key)  # what was saved before the refusal stays saved
            cat = self.cat(
                self.cached.get(tk.key), await self._settings_if_none(table, tk), tk.platform
            )
            return Reply(cat.t(exc.code, **exc.params), ok=False, literals=self._literals(tk, exc))
        except SettingsError as exc:
            await self.commit(tk.key)
            cat = self.cat(table)
            return Reply(cat.t(exc.code, **exc.params), ok=False, literals=self._literals(tk, exc))
        except GameRuleError as exc:
            await self.commit(tk.key)
            cat = self.cat(table)
            return Reply(cat.t(exc.key, rule=exc.rule, **exc.params), ok=False)
        await self.commit(tk.key)
        reply.literals = (*reply.literals, *self._names_at(tk))
        return reply

    async def _settings_if_none(self, table: Table | None, tk: TableKey) -> TableSettings | None:
        if table is not None:
            return None
        return await self.channel_settings(tk)

    async def _on_posted(self, channel: str, ref: str) -> None:
        # The outbox stores the reference (with the delivery); the table keeps a copy.
        table = self.cached.get(channel)
        if table is not None:
            table.message_ref = ref

    async def _on_told(self, user: str, result: Delivery) -> None:
        if result is Delivery.FAILED:
            return
        reachable = result is Delivery.DELIVERED
        info = await self.player(user)
        if info.get("reachable") != reachable:
            info["reachable"] = reachable
            await self.repo.save_player(user, info)

    async def player(self, user: str) -> dict[str, Any]:
        info = self.players.get(user)
        if info is None:
            info = await self.repo.load_player(user) or {}
            self.players[user] = info
        return info

    async def remember(self, user: User) -> None:
        """Store a player's name and language when they are new or changed."""
        info = await self.player(user.key)
        name = clean_name(user.name)
        changed = info.get("name") != name
        if user.language and info.get("language") != user.language:
            info["language"] = user.language
            changed = True
        if changed:
            info["name"] = name
            await self.repo.save_player(user.key, info)

    async def reachable(self, user: str) -> bool | None:
        """Whether private messages reach `user` (None: not tried yet)."""
        return (await self.player(user)).get("reachable")

    async def player_reachable(self, user: User, reachable: bool = True) -> None:
        """An adapter learned that private messages now reach (or no longer reach) `user`."""
        info = await self.player(user.key)
        info["reachable"] = reachable
        info["name"] = clean_name(user.name)
        await self.repo.save_player(user.key, info)

    async def current_settings(self, tk: TableKey) -> TableSettings:
        table = self.cached.get(tk.key)
        if table is not None and table.status != "closed":
            return table.settings
        return await self.channel_settings(tk)

    def lost(self, exc: StoreLost) -> None:
        """The store is gone: log it once, refuse commands from now on, stop the bot."""
        if self.store_lost is not None:
            return
        self.store_lost = exc
        log.error("%s: refusing every command and stopping", exc)
        if self.on_store_lost is not None:
            self.on_store_lost()

    def store_failed(self, exc: StoreUnavailable, what: str, count: int = 1) -> None:
        """A write failed because the store is away: counted and (once) logged by `health`;
        an outage longer than the bot was told to wait stops it (as a lost store does)."""
        self.health.failed(exc, what, count)
        self.give_up_if_too_long()

    def give_up_if_too_long(self) -> None:
        """An outage under way longer than `store_give_up`: stop the bot (as when the store is
        lost; its exit status says it gave up). Checked at each failure and by the main loop."""
        health = self.health
        if self.store_lost is not None or not health.too_long():
            return
        health.gave_up = True
        lasted = health.give_up_after or 0.0
        self.lost(StoreLost(f"the store stayed unavailable for {lasted:.0f} s: {health.reason}"))

    def store_answered(self) -> None:
        """A write succeeded: an outage under way is over (logged once), and the main loop
        handles what waited at once."""
        if self.health.reason is not None and self.health.succeeded() and self.on_store_back:
            self.on_store_back()

    def unavailable_reply(
        self, tk: TableKey, user: User | None = None, table_id: str | None = None
    ) -> Reply:
        """The answer to a command the store could not take: nothing changed, try again soon.

        In the table's language, known without the store: the table `table_id` names (a
        press's token, wherever it was pressed: a private chat too), else the table at `tk`
        (cached, or as last seen: the cache is dropped on a failure, the language is not);
        only when this process never saw the table, the sender's."""
        return Reply(
            self.catalog(self.refusal_language(tk, user, table_id), tk.platform).t(
                "error.store_unavailable"
            ),
            ok=False,
        )

    def refusal_language(
        self, tk: TableKey, user: User | None = None, table_id: str | None = None
    ) -> str:
        """The language to refuse in while the store is away (see `unavailable_reply`)."""
        if table_id:
            for table in self.cached.values():
                if table.table_id == table_id:
                    return table.settings.language
            known = self.languages.of_table(table_id)
            if known is not None:
                return known
        here = self.cached.get(tk.key)
        if here is not None:
            return here.settings.language
        known = self.languages.of_key(tk.key)
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
            self.store_failed(exc, "command")
            return self.unavailable_reply(tk, user, table_id)

    async def refused_when_lost(self, tk: TableKey) -> Reply | None:
        if self.store_lost is None:
            return None
        language = self.refusal_language(tk)
        return Reply(self.catalog(language, tk.platform).t("error.store_lost"), ok=False)

    def _names_at(self, tk: TableKey) -> tuple[str, ...]:
        table = self.cached.get(tk.key)
        return tuple(table.names) if table is not None else ()

    def _literals(self, tk: TableKey, exc: ServiceError | SettingsError) -> tuple[str, ...]:
        """What a refusal repeats of people's words: its text parameters and the seat names."""
        ours = ("known", "choices")  # the bot's own lists of words, not people's
        typed = tuple(v for k, v in exc.params.items() if isinstance(v, str) and k not in ours)
        return (*typed, *self._names_at(tk))

    def host_name(self, table: Table) -> str:
        """How the host is called at the table (or was last seen), for refusals naming them."""
        for seat in table.seats:
            if seat.user == table.host:
                return seat.name
        info = self.players.get(table.host or "")
        return str(info.get("name") or "?") if info else "?"


def lobby_table(table: Table | None) -> Table:
    """`table` while its lobby is open, else the refusal."""
    if table is None or table.status == "closed":
        raise ServiceError("error.no_table")
    if table.status != "lobby":
        raise ServiceError("error.started")
    return table


def active_table(table: Table | None) -> Table:
    """`table` while it is open (lobby or match), else the refusal."""
    if table is None or table.status == "closed":
        raise ServiceError("error.no_table")
    return table


def playing_table(table: Table | None) -> Table:
    """`table` while its match is under way, else the refusal."""
    if table is None or table.status == "closed" or table.match is None:
        raise ServiceError("error.no_match")
    if table.status != "playing":
        raise ServiceError("error.no_match")
    return table


def authorise(table: Table, user: User) -> None:
    """Refuse `user` unless they host `table` or administer its channel."""
    if user.key != table.host and not user.admin:
        raise ServiceError("error.not_host")


def fit_lines(lines: Sequence[str], limit: int, keep: Sequence[str] = ()) -> str:
    """`lines` joined within `limit` characters: the oldest lines after the first (the log) go
    first, never the first line (the header) nor a preformatted block in `keep` (a score
    grid: cut, it would lose its columns); "…" marks where lines were left out."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    if not keep:
        return fit_text(text, limit)
    head, rest = lines[0], list(lines[1:])
    kept = set(keep)
    size = len(text)
    dropped = False
    i = 0
    while size + (2 if not dropped else 0) > limit and i < len(rest):
        if rest[i] in kept:
            i += 1
            continue
        size -= len(rest[i]) + 1
        del rest[i]
        dropped = True
    out = "\n".join([head, *(["…"] if dropped else []), *rest])
    # Still too long (a block alone over the limit): the end is cut, the header kept.
    return out if len(out) <= limit else out[: limit - 1] + "…"


def fit_text(text: str, limit: int) -> str:
    """Keep the end of a long text (the newest lines) within `limit` characters."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    head = lines[0]
    rest = lines[1:]
    while rest and len(head) + 2 + sum(len(x) + 1 for x in rest) > limit:
        rest.pop(0)
    out = "\n".join([head, "…", *rest])
    return out if len(out) <= limit else out[: limit - 1] + "…"


def new_id(length: int = 6) -> str:
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    return "".join(secrets.choice(alphabet) for _ in range(length))
