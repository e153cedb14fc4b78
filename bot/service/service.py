"""The table service: one facade over the parts that run a channel's table.

Every command is one unit of work (core.py): its table's lock taken once, the table loaded
once, authorised, the game asked, then the table, record, statistics and messages committed
in one transaction; and then, only then, what people are told is delivered. Tables are
independent and proceed in parallel. Deadlines are stored with the table, so a restart
re-arms them (with a fresh turn: nobody pays for time the bot was down).

The parts are objects of their own, each handed the parts it uses (docs/design.md):

- `core.py`: `UnitOfWork`, the table cache and locks, load and commit, catalogs, players;
- `screens.py`: `Screens`, the table message and private screens;
- `deadlines.py`: `Deadlines`, a table's next deadline, queued;
- `play.py`: `Play`, choices, the steps after them, private messages, statistics;
- `lobby.py`: `Lobby`, open, join, leave, kick, settings, start, stop;
- `timers.py`: `Timers`, the main loop firing due deadlines;
- `queries.py`: `Queries`, status, stats, top, export, rules, help;
- `lifecycle.py`: `Lifecycle`, resume after a start, chat migration, shutdown;
- `pages.py`: `Pages`, the web table's per-viewer views (docs/web.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Unpack

from bot.service import tokens
from bot.service.core import (
    MAX_ALERT,
    MAX_TEXT,
    Reply,
    ServiceError,
    ServiceOptions,
    UnitOfWork,
)
from bot.service.deadlines import Deadlines
from bot.service.game import Game, GameRules, GameView, PrivateChoice
from bot.service.i18n import Catalog
from bot.service.lifecycle import Lifecycle
from bot.service.lobby import Lobby
from bot.service.metrics import NO_METRICS, Recorder, timed
from bot.service.pages import Pages, PageView
from bot.service.play import Play
from bot.service.ports import Notifier, PageLinks, Repository, Screen, StoreLost
from bot.service.queries import Queries
from bot.service.screens import Screens
from bot.service.table import Table, TableKey, User
from bot.service.timers import Timers
from bot.service.views import TableView

__all__ = ["MAX_ALERT", "MAX_TEXT", "Reply", "ServiceError", "ServiceOptions", "TableService"]


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
        self.work = UnitOfWork(repo, notifier, games=games, **options)
        self.screens = Screens(self.work)
        self.work.render_table = self.screens.render_table
        self.deadlines = Deadlines(self.work)
        self.play = Play(self.work, self.screens, self.deadlines)
        self.lobby = Lobby(self.work, self.screens, self.deadlines, self.play)
        self.timers = Timers(self.work, self.deadlines, self.play, self.lobby)
        self.queries = Queries(self.work, self.screens)
        self.pages = Pages(self.work, self.screens)
        self.lifecycle = Lifecycle(self.work, self.screens, self.deadlines)
        # What the composition root and tests read of the service.
        self.repo = self.work.repo
        self.games = self.work.games
        self.outbox = self.work.outbox
        self.clock = self.work.clock
        #: Whether the store answers now, and the outage under way (`/healthz` serves its
        #: `snapshot()`; `gave_up`: the bot stopped because the store stayed away too long).
        self.health = self.work.health
        #: Where commands, deliveries and thinking are recorded (`use_metrics`).
        self.metrics: Recorder = NO_METRICS

    def use_metrics(self, recorder: Recorder) -> None:
        """Record commands (per kind), deliveries (per lane) and bot seats' thinking into
        `recorder` (the composition root's `bot.metrics.Metrics`)."""
        self.metrics = recorder
        self.outbox.metrics = recorder
        self.work.thinking.metrics = recorder

    # -- settings of the service, read and changed by adapters and the composition root ----

    @property
    def bot_delay(self) -> float:
        """Seconds a bot seat waits before it acts."""
        return self.work.bot_delay

    @bot_delay.setter
    def bot_delay(self, value: float) -> None:
        self.work.bot_delay = value

    @property
    def store_lost(self) -> StoreLost | None:
        """Set once the store went away: every command is refused from then on."""
        return self.work.store_lost

    @property
    def on_store_lost(self) -> Callable[[], None] | None:
        """Called once when the store goes away (the runner's stop)."""
        return self.work.on_store_lost

    @on_store_lost.setter
    def on_store_lost(self, value: Callable[[], None] | None) -> None:
        self.work.on_store_lost = value

    @property
    def command_prefix(self) -> dict[str, str]:
        """How each platform writes a sub-command in help texts."""
        return self.work.command_prefix

    def set_command_prefix(self, platform: str, prefix: str) -> None:
        """How `platform` writes a sub-command in help texts ("/gnav_" on Telegram)."""
        self.work.set_command_prefix(platform, prefix)

    @property
    def default_game(self) -> str:
        """The game of a new table when the channel chose none."""
        return self.work.default_game

    def settings_models(self) -> dict[str, Any]:
        """Every registered game's own settings model, by name."""
        return self.work.settings_models()

    def game_of(self, table: Table) -> GameRules:
        """The rules of the game `table` plays."""
        return self.work.game_of(table)

    def view_of(self, table: Table) -> GameView:
        """The view of the game `table` plays (how its match looks)."""
        return self.work.view_of(table)

    def texts(self, table: Table | TableView) -> Catalog:
        """The catalog a table speaks."""
        return self.work.texts(table)

    def render(self, table: Table, *, buttons: bool = True, note: str | None = None) -> Screen:
        """The table message of `table` as it is now."""
        return self.screens.render(table, buttons=buttons, note=note)

    # -- the lobby -------------------------------------------------------------------------

    @timed("open")
    async def open(
        self, tk: TableKey, user: User, *, sit: bool = True, game: str | None = None
    ) -> Reply:
        """Open a table in the channel, or show the current one (see `Lobby.open`)."""
        return await self.lobby.open(tk, user, sit=sit, game=game)

    @timed("join")
    async def join(self, tk: TableKey, user: User) -> Reply:
        """Sit down at the table's lobby (or take a seat back during a match)."""
        return await self.lobby.join(tk, user)

    @timed("leave")
    async def leave(self, tk: TableKey, user: User) -> Reply:
        """Leave the lobby, or forfeit the match under way."""
        return await self.lobby.leave(tk, user)

    @timed("kick")
    async def kick(self, tk: TableKey, user: User, who: str) -> Reply:
        """The host or a channel admin removes a seat (by name or user key)."""
        return await self.lobby.kick(tk, user, who)

    @timed("configure")
    async def configure(self, tk: TableKey, user: User, words: Sequence[str]) -> Reply:
        """Show or change the table's settings."""
        return await self.lobby.configure(tk, user, words)

    @timed("start")
    async def start(self, tk: TableKey, user: User) -> Reply:
        """Start the match."""
        return await self.lobby.start(tk, user)

    @timed("stop")
    async def stop(self, tk: TableKey, user: User) -> Reply:
        """The host or a channel admin stops the table."""
        return await self.lobby.stop(tk, user)

    # -- play ------------------------------------------------------------------------------

    @timed("act")
    async def act(
        self,
        tk: TableKey,
        user: User,
        action: str,
        seq: int | None = None,
        arg: str | None = None,
    ) -> Reply:
        """One of the game's choices for the user's seat (typed: `seq` None)."""
        return await self.play.act(tk, user, action, seq, arg)

    @timed("next_round")
    async def next_round(self, tk: TableKey, user: User, seq: int | None = None) -> Reply:
        """Deal the next round now instead of waiting for the delay."""
        return await self.play.next_round(tk, user, seq)

    @timed("private_view")
    async def private_view(self, tk: TableKey, user: User) -> Reply:
        """A seated player's private screen, for a popup or an ephemeral message."""
        return await self.play.private_view(tk, user)

    @timed("hint")
    async def hint(self, tk: TableKey, user: User) -> Reply:
        """A seated person's hint at a table with `hints=on` (the terminal's `hint` word, the
        web page's button): what `strong` would choose, for the sender only."""
        return await self.play.hint(tk, user)

    @timed("press")
    async def press(self, tk: TableKey, user: User, token: str | tokens.Token) -> Reply:
        """A button press: the token (as sent, or as the adapter already decoded it: it is
        decoded once) names the table (found by its id, wherever it was pressed), a version
        and the action; the command then runs in one unit of work on that table (its lock
        taken once, loaded once)."""
        decoded = tokens.decode(token) if isinstance(token, str) else token
        # While the store is away the refusal speaks the language of the table the token
        # names (pressed in a private chat too), known without the store.
        table_id = decoded.table_id if decoded is not None else None
        return await self.work.answered_when_away(
            tk, user, self._press(tk, user, decoded), table_id
        )

    async def _press(self, tk: TableKey, user: User, decoded: tokens.Token | None) -> Reply:
        refused = await self.work.refused_when_lost(tk)
        if refused is not None:
            return refused
        if decoded is None:
            settings = await self.work.channel_settings(tk)
            return Reply(
                self.work.catalog(settings.language, tk.platform).t("error.bad_button"), ok=False
            )
        found = await self._key_of(decoded.table_id, tk)
        if found is None:
            settings = await self.work.channel_settings(tk)
            return Reply(
                self.work.catalog(settings.language, tk.platform).t("error.stale"), ok=False
            )
        if found != tk:
            # Pressed elsewhere (a private chat, an inline result): rights that belong to the
            # other chat (admin) do not carry over.
            tk, user = found, replace(user, admin=False)
        return await self.work.run(tk, user, self._pressed, decoded)

    async def _pressed(
        self, tk: TableKey, table: Table | None, user: User, token: tokens.Token
    ) -> Reply:
        """The command a press asks for, on the table it was found at (loaded once)."""
        if table is None or table.table_id != token.table_id or table.status == "closed":
            raise ServiceError("error.stale")
        action = token.action
        if action == "join":
            return await self.lobby.joined(tk, table, user)
        if action == "leave":
            return await self.lobby.left(tk, table, user)
        if action == "start":
            return await self.lobby.started(tk, table, user)
        if action == "view":
            return await self.play.shown_to(tk, table, user)
        if action == "hint":
            return await self.play.hinted(tk, table, user)
        if action == "next":
            return await self.play.dealt(tk, table, user, token.seq)
        return await self.play.acted(tk, table, user, action, token.seq, token.arg)

    async def _key_of(self, table_id: str, tk: TableKey) -> TableKey | None:
        """Where the table with `table_id` lives: usually the chat pressed in (`tk`), else
        wherever this process holds it, else where the store has it open; None when no open
        table has that id. Read without a lock: the command checks it again on its table."""
        here = self.work.cached.get(tk.key)
        if here is not None and here.table_id == table_id:
            return tk
        for cached in self.work.cached.values():
            if cached.table_id == table_id and cached.status != "closed":
                return cached.key
        row = await self.work.repo.load_table_by_id(table_id)
        if row is None or row.status == "closed":
            return None
        return TableKey.parse(row.key)

    # -- the web table ---------------------------------------------------------------------

    async def page_view(self, table_id: str, viewer: str | None = None) -> PageView | None:
        """The table `table_id` as `viewer` (a user key; None: a spectator) may see it on the
        web table (docs/web.md); None when no table has that id."""
        return await self.pages.page_view(table_id, viewer)

    async def page_views(
        self, table_id: str, viewers: Sequence[str | None]
    ) -> dict[str | None, PageView] | None:
        """The table as each of `viewers` may see it on the web table, built together."""
        return await self.pages.page_views(table_id, viewers)

    async def replay_frames(self, table_id: str) -> dict[str, Any] | None:
        """The finished match of table `table_id` as the replay page's frames (None: none)."""
        return await self.pages.replay_frames(table_id)

    @property
    def on_commit(self) -> list[Callable[[str, str, int], None]]:
        """Listeners run after each table's commit with (table key, table id, version)."""
        return self.work.on_commit

    @property
    def links(self) -> PageLinks | None:
        """Addresses of the web table for link buttons (None: not served)."""
        return self.work.links

    @links.setter
    def links(self, value: PageLinks | None) -> None:
        self.work.links = value

    def open_tables(self) -> dict[str, int]:
        """Open tables this process holds, per game (the metrics)."""
        held: dict[str, int] = {}
        for table in self.work.cached.values():
            if table.status != "closed":
                held[table.game] = held.get(table.game, 0) + 1
        return held

    # -- queries ---------------------------------------------------------------------------

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

    @timed("stats")
    async def stats(self, tk: TableKey, user: User) -> Reply:
        """A player's statistics in this chat."""
        return await self.work.answered_when_away(tk, user, self.queries.stats(tk, user))

    @timed("top")
    async def top(self, tk: TableKey, limit: int = 10) -> Reply:
        """The chat's best players."""
        return await self.work.answered_when_away(tk, None, self.queries.top(tk, limit))

    @timed("export")
    async def export(self, tk: TableKey) -> Reply:
        """The record of the current or last match, as a JSON file."""
        return await self.work.answered_when_away(tk, None, self.queries.export(tk))

    @timed("rules")
    async def rules_help(self, tk: TableKey) -> Reply:
        """The rules of the game the table plays."""
        return await self.work.answered_when_away(tk, None, self.queries.rules_help(tk))

    @timed("sheet")
    async def sheet(self, tk: TableKey) -> Reply:
        """The whole score sheet of the table's match, where its game keeps one."""
        return await self.work.answered_when_away(tk, None, self.queries.sheet(tk))

    @timed("log")
    async def log(self, tk: TableKey) -> Reply:
        """The whole log of the round under way (or the last one): the table message shows
        its state and newest events only."""
        return await self.work.answered_when_away(tk, None, self.queries.log(tk))

    @timed("help")
    async def help(self, tk: TableKey) -> Reply:
        """How to play with the bot."""
        return await self.work.answered_when_away(tk, None, self.queries.help(tk))

    def unavailable_reply(
        self, tk: TableKey, user: User | None = None, token: str | tokens.Token | None = None
    ) -> Reply:
        """The clear line for a command the store could not take (nothing changed, try again
        soon), for an adapter that met StoreUnavailable outside a command; `token`: the
        button pressed, whose table's language it speaks."""
        decoded = tokens.decode(token) if isinstance(token, str) else token
        return self.work.unavailable_reply(tk, user, decoded.table_id if decoded else None)

    async def reachable(self, user: str) -> bool | None:
        """Whether private messages reach `user` (None: not tried yet)."""
        return await self.work.reachable(user)

    async def player_reachable(self, user: User, reachable: bool = True) -> None:
        """An adapter learned that private messages now reach (or no longer reach) `user`."""
        await self.work.player_reachable(user, reachable)

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
        """Let the messages under way go out, and say this process stops (the bot seats'
        thinking pool stopped too)."""
        await self.lifecycle.shutdown()
        await self.work.thinking.close()

    async def drain(self) -> None:
        """Wait until everything queued to be said has gone out (on stop, in tests)."""
        await self.work.drain()
