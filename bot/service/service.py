"""The table service: builds the parts that run a channel's table once, and runs every
command through one dispatcher (`handle`).

Every command is one unit of work (uow.py): the table loaded once under its lock, the game
asked, the table, record, statistics and messages committed in one transaction, and only
then what people are told delivered. Deadlines are stored with the table (a restart re-arms
them, with a fresh turn).

The parts are objects of their own, each handed what it uses in its constructor, never wired
after it (docs/design.md): the unit of work, games, catalogs, players, the store's health,
the settings, screens, deadlines and outbox; the jobs side by side: `Lobby`, `Play`,
`Timers`, `Queries`, `Lifecycle` and `Pages`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypedDict, Unpack

from bot.service import tokens
from bot.service.commands import (
    Act,
    AskHint,
    Command,
    Configure,
    Export,
    Help,
    Join,
    Kick,
    Leave,
    Log,
    NextRound,
    Open,
    Press,
    PrivateView,
    Rules,
    Sheet,
    Start,
    Stats,
    Stop,
    Top,
)
from bot.service.commits import Commits
from bot.service.deadlines import Deadlines
from bot.service.game import Game, GameRules, Games, GameView, PrivateChoice
from bot.service.health import StoreHealth
from bot.service.i18n import Catalog
from bot.service.lifecycle import Lifecycle
from bot.service.lobby import Lobby
from bot.service.metrics import NO_METRICS, Recorder
from bot.service.options import ServiceSettings
from bot.service.outbox import Outbox
from bot.service.pages import Pages, PageView
from bot.service.play import Play
from bot.service.players import Players
from bot.service.ports import Clock, Notifier, PageLinks, Screen, StoreLost
from bot.service.queries import Queries
from bot.service.readback import Readback
from bot.service.replies import MAX_ALERT, MAX_TEXT, Reply, ServiceError
from bot.service.running import PressHandler, Runner
from bot.service.screens import Screens
from bot.service.store import Repository
from bot.service.table import Table, TableKey, User
from bot.service.texts import Catalogs
from bot.service.thinking import Thinking
from bot.service.timers import Ahead, Timers
from bot.service.uow import UnitOfWork
from bot.service.views import TableView

__all__ = ["MAX_ALERT", "MAX_TEXT", "Reply", "ServiceError", "ServiceOptions", "TableService"]


class ServiceOptions(TypedDict, total=False):
    """How the service runs, beside its store, notifier and games: each one optional (its
    default in `ServiceSettings`, options.py): `TableService(repo, notifier, games=..., **o)`."""

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


class TableService:
    """The platform-neutral game manager: one table per channel."""

    def __init__(
        self,
        repo: Repository,
        notifier: Notifier,
        *,
        games: Mapping[str, Game],
        **options: Unpack[ServiceOptions],
    ) -> None:
        self.thinking = thinking = options.get("thinking") or Thinking()
        self.settings = settings = ServiceSettings(
            clock=options.get("clock"),
            rng=options.get("rng"),
            bot_delay=options.get("bot_delay", 1.5),
            lobby_idle=options.get("lobby_idle", 600.0),
            max_timeouts=options.get("max_timeouts", 3),
            max_parallel=options.get("max_parallel", 32),
        )
        self.repo = repo
        self.clock = settings.clock
        self.games_of = found = Games(games)
        self.games = found.rules
        self.deadlines = deadlines = Deadlines(found, settings)
        #: Whether the store answers, the outage under way (`/healthz` serves `snapshot()`).
        self.health = health = StoreHealth(
            settings.clock, give_up_after=options.get("store_give_up"), on_back=deadlines.wake.set
        )
        self.catalogs = catalogs = Catalogs(
            [v.messages for v in found.views.values()], settings.lobby_idle
        )
        self.players = players = Players(repo)
        readback = Readback()  # the outbox asks the unit of work through it (readback.py)
        self.outbox = outbox = Outbox(
            notifier,
            readback.posted,
            players.told,
            render_shot=readback.render_shot,
            repo=repo,
            clock=settings.clock,
            owner=options.get("owner"),
        )
        self.screens = screens = Screens(found, catalogs, settings, outbox)
        ahead = Ahead(games=found, settings=settings, thinking=thinking, deadlines=deadlines)
        self.commits = commits = Commits(ahead.committed)
        self.uow = uow = UnitOfWork(
            repo,
            outbox,
            games=found,
            catalogs=catalogs,
            health=health,
            clock=settings.clock,
            render=screens.render_table,
            readback=readback,
            committed=commits.told,
        )
        self.play = Play(
            uow,
            games=found,
            catalogs=catalogs,
            settings=settings,
            players=players,
            screens=screens,
            deadlines=deadlines,
            outbox=outbox,
            notifier=notifier,
        )
        self.lobby = Lobby(
            uow,
            games=found,
            catalogs=catalogs,
            settings=settings,
            players=players,
            screens=screens,
            deadlines=deadlines,
            steps=self.play,
        )
        self.timers = Timers(
            uow,
            games=found,
            catalogs=catalogs,
            settings=settings,
            health=health,
            outbox=outbox,
            ahead=ahead,
            deadlines=deadlines,
            steps=self.play,
        )
        self.queries = Queries(uow, found, catalogs, settings, screens)
        self.pages = Pages(uow, found, catalogs, settings, screens)
        self.lifecycle = Lifecycle(
            uow,
            games=found,
            catalogs=catalogs,
            settings=settings,
            health=health,
            outbox=outbox,
            screens=screens,
            deadlines=deadlines,
        )
        #: Where commands, deliveries and thinking are recorded (`use_metrics`).
        self.metrics: Recorder = NO_METRICS
        lobby, play, queries = self.lobby, self.play, self.queries
        #: What a press's action asks for (any other action is one of the game's choices).
        presses: dict[str, PressHandler] = {
            "join": lambda s, user, token: lobby.joined(s, user),
            "leave": lambda s, user, token: lobby.left(s, user),
            "start": lambda s, user, token: lobby.started(s, user),
            "view": lambda s, user, token: play.shown_to(s, user),
            "hint": lambda s, user, token: play.hinted(s, user),
            "next": lambda s, user, token: play.dealt(s, user, token.seq),
        }
        self.runner = runner = Runner(uow, catalogs, health, presses=presses, choose=play.acted)
        run = runner.run
        #: The one table of handlers: each command's type -> its handler.
        self._handlers: dict[type[Command], Callable[[Any], Awaitable[Reply]]] = {
            Open: lambda c: run(c.tk, c.user, lobby.opened, c.sit, c.game),
            Join: lambda c: run(c.tk, c.user, lobby.joined),
            Leave: lambda c: run(c.tk, c.user, lobby.left),
            Kick: lambda c: run(c.tk, c.user, lobby.kicked, c.who),
            Configure: lambda c: run(c.tk, c.user, lobby.configured, c.words),
            Start: lambda c: run(c.tk, c.user, lobby.started),
            Stop: lambda c: run(c.tk, c.user, lobby.stopped),
            Act: lambda c: run(c.tk, c.user, play.acted, c.action, c.seq, c.arg),
            NextRound: lambda c: run(c.tk, c.user, play.dealt, c.seq),
            PrivateView: lambda c: run(c.tk, c.user, play.shown_to),
            AskHint: lambda c: run(c.tk, c.user, play.hinted),
            Press: lambda c: runner.press(c.tk, c.user, c.token),
            Stats: lambda c: runner.read(c.tk, c.user, queries.stats(c.tk, c.user)),
            Top: lambda c: runner.read(c.tk, None, queries.top(c.tk, c.limit)),
            Export: lambda c: runner.read(c.tk, None, queries.export(c.tk)),
            Sheet: lambda c: runner.read(c.tk, None, queries.sheet(c.tk)),
            Log: lambda c: runner.read(c.tk, None, queries.log(c.tk)),
            Rules: lambda c: runner.answered_when_away(c.tk, None, queries.rules_help(c.tk)),
            Help: lambda c: runner.answered_when_away(c.tk, None, queries.help(c.tk)),
        }

    async def handle(self, command: Command) -> Reply:
        """Run `command` (a value of bot/service/commands.py) through its handler; its
        latency and answer are recorded under its kind."""
        start = time.perf_counter()
        ok: bool | None = None
        try:
            reply = await self._handlers[type(command)](command)
            ok = reply.ok
            return reply
        finally:
            self.metrics.command(command.kind, ok, time.perf_counter() - start)

    def use_metrics(self, recorder: Recorder) -> None:
        """Record commands (per kind), deliveries (per lane) and bot seats' thinking into
        `recorder` (the composition root's `bot.metrics.Metrics`)."""
        self.metrics = recorder
        self.outbox.metrics = recorder
        self.thinking.metrics = recorder

    # -- settings of the service, read and changed by adapters and the composition root ----

    @property
    def bot_delay(self) -> float:
        """Seconds a bot seat waits before it acts."""
        return self.settings.bot_delay

    @bot_delay.setter
    def bot_delay(self, value: float) -> None:
        self.settings.bot_delay = value

    @property
    def store_lost(self) -> StoreLost | None:
        """Set once the store went away: every command is refused from then on."""
        return self.health.store_lost

    @property
    def on_store_lost(self) -> Callable[[], None] | None:
        """Called once when the store goes away (the runner's stop)."""
        return self.health.on_lost

    @on_store_lost.setter
    def on_store_lost(self, value: Callable[[], None] | None) -> None:
        self.health.on_lost = value

    @property
    def command_prefix(self) -> dict[str, str]:
        """How each platform writes a sub-command in help texts."""
        return self.catalogs.command_prefix

    def set_command_prefix(self, platform: str, prefix: str) -> None:
        """How `platform` writes a sub-command in help texts ("/gnav_" on Telegram)."""
        self.catalogs.set_command_prefix(platform, prefix)

    def game_of(self, table: Table) -> GameRules:
        """The rules of the game `table` plays."""
        return self.games_of.rules_of(table)

    def view_of(self, table: Table) -> GameView:
        """The view of the game `table` plays (how its match looks)."""
        return self.games_of.view_of(table)

    def texts(self, table: Table | TableView) -> Catalog:
        """The catalog a table speaks."""
        return self.catalogs.of(table)

    def render(self, table: Table, *, buttons: bool = True, note: str | None = None) -> Screen:
        """The table message of `table` as it is now."""
        return self.screens.render(table, buttons=buttons, note=note)

    def subscribe(self, listener: Callable[[str, str, int], None]) -> None:
        """Run `listener(table key, table id, version)` after each table's commit (it must
        not block): an adapter made after the service registers here (adapters/web/hub.py)."""
        self.commits.subscribe(listener)

    @property
    def links(self) -> PageLinks | None:
        """Addresses of the web table for link buttons (None: not served)."""
        return self.settings.links

    @links.setter
    def links(self, value: PageLinks | None) -> None:
        self.settings.links = value

    def open_tables(self) -> dict[str, int]:
        """Open tables this process holds, per game (the metrics)."""
        return self.queries.open_tables()

    # -- what adapters read (no unit of work changes anything) ----------------------------

    async def page_view(self, table_id: str, viewer: str | None = None) -> PageView | None:
        """The table `table_id` as `viewer` (a user key; None: a spectator) sees it on the web
        table (docs/web.md); None when no table has that id."""
        return await self.pages.page_view(table_id, viewer)

    async def page_views(
        self, table_id: str, viewers: Sequence[str | None]
    ) -> dict[str | None, PageView] | None:
        """The table as each of `viewers` may see it on the web table, built together."""
        return await self.pages.page_views(table_id, viewers)

    async def replay_frames(self, table_id: str) -> dict[str, Any] | None:
        """The finished match of table `table_id` as the replay page's frames (None: none)."""
        return await self.pages.replay_frames(table_id)

    async def seat_at(self, table_id: str, user: str) -> tuple[TableKey, str] | None:
        """Where the table `table_id` lives and the name of `user`'s seat at it (a web press
        acts as that seat); None when no table has that id or no such seat."""
        return await self.pages.seat_at(table_id, user)

    async def status(self, tk: TableKey, viewer: str | None = None) -> TableView | None:
        """The table in a channel as `viewer` may see it, frozen; None when there is none."""
        return await self.queries.status(tk, viewer)

    async def table_state(self, tk: TableKey) -> Table | None:
        """The live table itself, hidden hands included: for tests, benchmarks and tools of
        the composition root, never for adapters (they get `status`)."""
        return await self.queries.table_state(tk)

    async def choices_of(self, user: User, limit: int = 50) -> list[PrivateChoice]:
        """Every choice `user` may make now, at any table they sit at."""
        return await self.queries.choices_of(user, limit)

    def unavailable_reply(
        self, tk: TableKey, user: User | None = None, token: str | tokens.Token | None = None
    ) -> Reply:
        """The clear line for a command the store could not take (nothing changed, try again
        soon) met outside a command; `token`: the button pressed (its table's language)."""
        decoded = tokens.decode(token) if isinstance(token, str) else token
        return self.runner.unavailable_reply(tk, user, decoded.table_id if decoded else None)

    async def reachable(self, user: str) -> bool | None:
        """Whether private messages reach `user` (None: not tried yet)."""
        return await self.players.reachable(user)

    async def player_reachable(self, user: User, reachable: bool = True) -> None:
        """An adapter learned that private messages now reach (or no longer reach) `user`."""
        await self.players.set_reachable(user, reachable)

    # -- the service's life ----------------------------------------------------------------

    async def tick(self) -> int:
        """Handle every deadline that is due; returns how many tables acted."""
        return await self.timers.tick()

    async def run(self) -> None:
        """Handle deadlines until cancelled (the bot's main loop)."""
        await self.timers.run()

    async def resume(self) -> int:
        """After a start: deliver what was left, restore every open table."""
        return await self.lifecycle.resume()

    async def migrate_chat(self, platform: str, old_chat: str, new_chat: str) -> int:
        """A chat got a new id: its open tables and settings move there."""
        return await self.lifecycle.migrate_chat(platform, old_chat, new_chat)

    async def shutdown(self) -> None:
        """Let the messages under way go out, say this process stops, stop the thinking."""
        await self.lifecycle.shutdown()
        await self.thinking.close()

    async def drain(self) -> None:
        """Wait until everything queued to be said has gone out (on stop, in tests)."""
        await self.outbox.drain()
