"""The table service: lobby, seats, turns, timers, private pieces and announcements.

Every command runs under its table's lock: load -> authorise -> game -> commit (state, record
and statistics in one transaction) -> then, and only then, queue what people are told. Tables
are independent and proceed in parallel. Deadlines are stored with the table, so a restart
re-arms them (with a fresh turn: nobody pays for time the bot was down).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import json
import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import RuleError
from bot.games.gnav.game import GnavRules
from bot.service import tokens
from bot.service.game import GameRules, LogLine, Outcome
from bot.service.i18n import Catalog, catalog
from bot.service.names import clean_name, unique_name
from bot.service.outbox import Outbox
from bot.service.ports import (
    Button,
    Clock,
    ConflictError,
    Delivery,
    FinishedMatch,
    Notifier,
    Repository,
    Screen,
    StatDelta,
    StoreLost,
    SystemClock,
    TableRow,
)
from bot.service.settings import (
    SettingsError,
    TableSettings,
    apply_changes,
    echo,
    load_settings,
    parse_changes,
)
from bot.service.table import BOT_PREFIX, Seat, Table, TableKey, User

log = logging.getLogger(__name__)

#: Longest table message text (Discord allows 2,000 characters, Telegram 4,096).
MAX_TEXT = 1900
#: Longest private popup (Telegram's callback alert allows 200 characters).
MAX_ALERT = 200


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


class ServiceError(Exception):
    """A refused command; `code` is a catalog key."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class TableService:
    """The platform-neutral game manager: one table per channel."""

    def __init__(
        self,
        repo: Repository,
        notifier: Notifier,
        *,
        rules: GameRules | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        bot_delay: float = 1.5,
        lobby_idle: float = 600.0,
        max_timeouts: int = 3,
        max_parallel: int = 32,
    ) -> None:
        self.repo = repo
        self.rules: GameRules = rules or GnavRules()
        self.clock: Clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.bot_delay = bot_delay
        self.lobby_idle = lobby_idle
        self.max_timeouts = max_timeouts
        # Deadlines handled at once: enough for commits to share a transaction, few enough
        # that each command is answered quickly when many tables are due together.
        self._parallel = asyncio.Semaphore(max_parallel)
        self.outbox = Outbox(notifier, self._on_posted, self._on_told)
        self._tables: dict[str, Table] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._players: dict[str, dict[str, Any]] = {}
        self._heap: list[tuple[float, str]] = []
        self._wake: asyncio.Event | None = None
        self._unsaved_refs: set[str] = set()
        #: Set once the store went away under the bot (StoreLost): every command is refused
        #: from then on, and `on_store_lost` (the runner's stop) is called once.
        self.store_lost: StoreLost | None = None
        self.on_store_lost: Callable[[], None] | None = None
        #: How each platform writes a sub-command in help texts: "/gnav_" + "stats" on
        #: Telegram, "/gnav " + "stats" on Discord. Adapters set their own.
        self.command_prefix: dict[str, str] = {"console": ""}

    # ================================================================= plumbing
    def _lock(self, key: str) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    async def _load(self, key: str) -> Table | None:
        table = self._tables.get(key)
        if table is not None:
            return table
        row = await self.repo.load_table(key)
        if row is None:
            return None
        table = Table.from_row(row, self.rules)
        self._tables[key] = table
        self.outbox.set_ref(key, table.message_ref)
        return table

    async def _save(
        self,
        table: Table,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
    ) -> None:
        """Commit the table (and its statistics and finished match) before anything is said."""
        table.updated_at = self.clock.now()
        row = table.to_row(self.rules)
        try:
            await self.repo.save_table(
                row, expected_version=table.row_version, stats=stats, finished=finished
            )
        except BaseException:
            # What is in memory was never stored: forget it, the store is the truth.
            self._tables.pop(table.key.key, None)
            raise
        table.row_version = row.version
        self._tables[table.key.key] = table
        self._unsaved_refs.discard(table.key.key)

    def _cat(
        self,
        table: Table | None,
        settings: TableSettings | None = None,
        platform: str | None = None,
    ) -> Catalog:
        if table is not None:
            return self._catalog(table.settings.language, table.key.platform)
        return self._catalog(settings.language if settings else "en", platform or "")

    def _catalog(self, language: str, platform: str) -> Catalog:
        """A language's catalog, with the platform's way of writing commands."""
        return catalog(language).bind(
            c=self.command_prefix.get(platform, "/gnav "),
            minutes=round(self.lobby_idle / 60),
        )

    async def _channel_settings(self, tk: TableKey) -> TableSettings:
        return load_settings(await self.repo.load_settings(tk.key))

    def _lost(self, exc: StoreLost) -> None:
        """The store is gone: log it once, refuse commands from now on, stop the bot."""
        if self.store_lost is not None:
            return
        self.store_lost = exc
        log.error("%s: refusing every command and stopping", exc)
        if self.on_store_lost is not None:
            self.on_store_lost()

    async def _refused_when_lost(self, tk: TableKey) -> Reply | None:
        if self.store_lost is None:
            return None
        table = self._tables.get(tk.key)
        language = table.settings.language if table is not None else "en"
        return Reply(self._catalog(language, tk.platform).t("error.store_lost"), ok=False)

    async def _run(self, tk: TableKey, user: User | None, fn: Any, *args: Any) -> Reply:
        """Run a command under the table's lock; refusals become replies in its language."""
        refused = await self._refused_when_lost(tk)
        if refused is not None:
            return refused
        async with self._lock(tk.key):
            table = await self._load(tk.key)
            try:
                reply: Reply = await fn(tk, table, user, *args)
                reply.literals = (*reply.literals, *self._names_at(tk))
                return reply
            except ServiceError as exc:
                cat = self._cat(
                    self._tables.get(tk.key), await self._settings_if_none(table, tk), tk.platform
                )
                return Reply(
                    cat.t(exc.code, **exc.params), ok=False, literals=self._literals(tk, exc)
                )
            except SettingsError as exc:
                cat = self._cat(table)
                return Reply(
                    cat.t(exc.code, **exc.params), ok=False, literals=self._literals(tk, exc)
                )
            except RuleError as exc:
                cat = self._cat(table)
                return Reply(cat.t("error.rule", rule=exc.rule, message=exc.message), ok=False)
            except ConflictError:
                cat = self._cat(table)
                return Reply(cat.t("error.conflict"), ok=False)
            except StoreLost as exc:
                self._lost(exc)
                refused = await self._refused_when_lost(tk)
                assert refused is not None
                return refused

    def _names_at(self, tk: TableKey) -> tuple[str, ...]:
        table = self._tables.get(tk.key)
        return tuple(table.names) if table is not None else ()

    def _literals(self, tk: TableKey, exc: ServiceError | SettingsError) -> tuple[str, ...]:
        """What a refusal repeats of people's words: its text parameters and the seat names."""
        ours = ("known", "choices")  # the bot's own lists of words, not people's
        typed = tuple(v for k, v in exc.params.items() if isinstance(v, str) and k not in ours)
        return (*typed, *self._names_at(tk))

    async def _settings_if_none(self, table: Table | None, tk: TableKey) -> TableSettings | None:
        if table is not None:
            return None
        return await self._channel_settings(tk)

    # ================================================================= screens
    def _token(self, table: Table, action: str) -> str:
        return tokens.encode(table.table_id, table.seq, action)

    def render(
        self,
        table: Table,
        *,
        buttons: bool = True,
        note: str | None = None,
        view: str = "auto",
    ) -> Screen:
        """The table message: lobby, round under way, reveal, or the end.

        `view` "round" shows the round's log even after its reveal (the frozen round message).
        """
        cat = self._cat(table)
        lines: list[str] = []
        if note:
            lines.append(note)
        rows: list[tuple[Button, ...]] = []
        s = table.settings
        if table.status == "lobby":
            lines.append(cat.t("lobby.title", profile=s.profile, lives=s.lives))
            lines.append(cat.t("lobby.settings", timeout=s.turn_timeout, bots=s.bots))
            for i, seat in enumerate(table.seats, 1):
                host = cat.t("lobby.host_mark") if seat.user == table.host else ""
                lines.append(f"{i}. {seat.name}{host}")
            lines.append(cat.t("lobby.hint", seated=len(table.seats), max=self.rules.max_players))
            rows.append(
                (
                    Button(cat.t("button.join"), self._token(table, "join")),
                    Button(cat.t("button.leave"), self._token(table, "leave")),
                    Button(cat.t("button.start"), self._token(table, "start")),
                )
            )
        elif table.match is not None:
            match = table.match
            rules = self.rules
            names = table.names
            in_round = rules.in_round(match)
            if in_round or view == "round":
                lines.extend(self._round_lines(table, cat))
            else:
                lines.extend(rules.render_reveal(match, names, cat))
            if table.status == "closed":
                lines.append(cat.t(f"closed.{table.closed_reason or 'stopped'}"))
            elif view == "round" and not in_round:
                pass  # the frozen message of a round that has ended
            elif in_round:
                turn = rules.turn(match)
                assert turn is not None
                lines.append(cat.t("turn.now", name=names[turn], seconds=s.turn_timeout))
                rows.append(
                    (
                        Button(cat.t("button.stay"), self._token(table, "stay")),
                        Button(cat.t("button.swap"), self._token(table, "swap")),
                    )
                )
                rows.append((Button(cat.t("button.piece"), self._token(table, "piece")),))
            elif not rules.finished(match):
                lines.append(cat.t("next.in", seconds=s.next_round_delay))
                rows.append((Button(cat.t("button.next"), self._token(table, "next")),))
        else:
            lines.append(cat.t(f"closed.{table.closed_reason or 'stopped'}"))
        return Screen(
            _fit("\n".join(lines), MAX_TEXT),
            tuple(rows) if buttons else (),
            literals=tuple(table.names),
        )

    def _round_lines(self, table: Table, cat: Catalog) -> list[str]:
        lines = self.rules.render_status(table.match, table.names, cat)
        if table.log:
            lines.append("—")
            # The log only grows during a round: render each line once per language.
            cache = table.rendered_log
            if table.rendered_for != (id(table.log), cat.language) or len(cache) > len(table.log):
                cache.clear()
                table.rendered_for = (id(table.log), cat.language)
            for line in table.log[len(cache) :]:
                cache.append(self.rules.render_line(line, cat))
            lines.extend(cache)
        return lines

    def _show(self, table: Table) -> None:
        self.outbox.edit_table(table.key.key, self._lazy(table.key.key))

    def _repost(self, table: Table, freeze: Screen | None, note: str | None = None) -> None:
        self.outbox.post_table(table.key.key, self._lazy(table.key.key, note), freeze)

    def _lazy(self, key: str, note: str | None = None) -> Callable[[], Awaitable[Screen | None]]:
        """Render the table when its message goes out: under its lock, so what is shown is
        what was committed, and once for any number of coalesced edits."""

        async def render() -> Screen | None:
            async with self._lock(key):
                table = self._tables.get(key)
                return None if table is None else self.render(table, note=note)

        return render

    # ================================================================= outbox callbacks
    async def _on_posted(self, channel: str, ref: str) -> None:
        # Kept in memory and stored with the table's next commit (or at shutdown): a table
        # restored without it posts a fresh message anyway, so nothing is lost meanwhile.
        table = self._tables.get(channel)
        if table is not None and table.message_ref != ref:
            table.message_ref = ref
            self._unsaved_refs.add(channel)

    async def _on_told(self, user: str, result: Delivery) -> None:
        if result is Delivery.FAILED:
            return
        reachable = result is Delivery.DELIVERED
        info = await self._player(user)
        if info.get("reachable") != reachable:
            info["reachable"] = reachable
            await self.repo.save_player(user, info)

    async def _player(self, user: str) -> dict[str, Any]:
        info = self._players.get(user)
        if info is None:
            info = await self.repo.load_player(user) or {}
            self._players[user] = info
        return info

    async def _remember(self, user: User) -> None:
        """Store a player's name and language when they are new or changed."""
        info = await self._player(user.key)
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
        return (await self._player(user)).get("reachable")

    async def player_reachable(self, user: User, reachable: bool = True) -> None:
        """An adapter learned that private messages now reach (or no longer reach) `user`."""
        info = await self._player(user.key)
        info["reachable"] = reachable
        info["name"] = clean_name(user.name)
        await self.repo.save_player(user.key, info)

    # ================================================================= lobby
    async def open(self, tk: TableKey, user: User, *, sit: bool = True) -> Reply:
        """Open a table in the channel, or show the current one.

        The opener is the host and sits down, unless `sit` is false: then the host only
        watches (a table of bot seats, a demonstration, a benchmark).
        """
        return await self._run(tk, user, self._open, sit)

    async def _open(self, tk: TableKey, table: Table | None, user: User, sit: bool) -> Reply:
        now = self.clock.now()
        if table is not None and table.status != "closed":
            self._repost(table, self.render(table, buttons=False))
            return Reply(self._cat(table).t("open.shown"))
        settings = await self._channel_settings(tk)
        fresh = Table(
            key=tk,
            table_id=_new_id(),
            game=self.rules.name,
            settings=settings,
            status="lobby",
            host=user.key,
            seats=[Seat(user.key, clean_name(user.name))] if sit else [],
            created_at=now,
            row_version=table.row_version if table else None,
            message_ref=None,
        )
        fresh.seq = (table.seq + 1) if table else 0
        await self._remember(user)
        self._arm(fresh)
        await self._save(fresh)
        self._repost(fresh, None)  # the old table's message already shows how it ended
        self._schedule(fresh)
        return Reply(self._cat(fresh).t("open.opened"))

    async def join(self, tk: TableKey, user: User) -> Reply:
        """Sit down at the table's lobby."""
        return await self._run(tk, user, self._join)

    async def _join(self, tk: TableKey, table: Table | None, user: User) -> Reply:
        table = self._lobby(table)
        cat = self._cat(table)
        if table.seat_of(user.key) is not None:
            raise ServiceError("join.already")
        if len(table.seats) >= self.rules.max_players:
            raise ServiceError("join.full", max=self.rules.max_players)
        name = unique_name(clean_name(user.name), table.names)
        await self._remember(user)  # know its private reachability before the first deal
        table.seats.append(Seat(user.key, name))
        if table.host is None:
            table.host = user.key
        await self._commit_lobby(table)
        return Reply(cat.t("join.done", name=name))

    async def leave(self, tk: TableKey, user: User) -> Reply:
        """Leave the lobby, or forfeit the match under way."""
        return await self._run(tk, user, self._leave)

    async def _leave(self, tk: TableKey, table: Table | None, user: User) -> Reply:
        table = self._active(table)
        cat = self._cat(table)
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.not_seated")
        if table.status == "lobby":
            await self._unseat_from_lobby(table, seat)
            return Reply(cat.t("leave.done"))
        await self._forfeit(table, seat, note=("note.left", {"p": table.seats[seat].name}))
        return Reply(cat.t("leave.forfeit"))

    async def kick(self, tk: TableKey, user: User, who: str) -> Reply:
        """The host or a channel admin removes a seat (by name or user key)."""
        return await self._run(tk, user, self._kick, who)

    async def _kick(self, tk: TableKey, table: Table | None, user: User, who: str) -> Reply:
        table = self._active(table)
        cat = self._cat(table)
        self._authorise(table, user)
        seat = _find_seat(table, who)
        if seat is None:
            raise ServiceError("kick.unknown", name=echo(who))
        name = table.seats[seat].name
        if table.status == "lobby":
            await self._unseat_from_lobby(table, seat)
            return Reply(cat.t("kick.done", name=name), public=True, literals=(name,))
        await self._forfeit(table, seat, note=("note.kicked", {"p": name}))
        return Reply(cat.t("kick.done", name=name), public=True, literals=(name,))

    async def configure(self, tk: TableKey, user: User, words: Sequence[str]) -> Reply:
        """Show or change the table's settings (`lives=5 timeout=90 rules=tradisjonell`)."""
        return await self._run(tk, user, self._configure, list(words))

    async def _configure(
        self, tk: TableKey, table: Table | None, user: User, words: list[str]
    ) -> Reply:
        active = table is not None and table.status != "closed"
        current = table.settings if active and table else await self._channel_settings(tk)
        cat = self._cat(table if active else None, current, tk.platform)
        if not words:
            return Reply(_settings_text(current, cat), public=True)
        # Anyone may read the settings; changing them is for the host of the open table or a
        # channel admin (with no table open, for an admin only: the next table inherits them).
        if active and table is not None:
            if user.key != table.host and not user.admin:
                raise ServiceError("settings.error.not_host", host=self._host_name(table))
        elif not user.admin:
            raise ServiceError("settings.error.admin_only")
        changes = parse_changes(words)
        playing = active and table is not None and table.status == "playing"
        if playing and set(changes) - {"language"}:
            raise ServiceError("settings.error.in_match")
        new = apply_changes(current, changes)
        await self.repo.save_settings(tk.key, new.model_dump())
        if active and table is not None:
            table.settings = new
            table.seq += 1
            self._arm(table, keep=True)
            await self._save(table)
            self._show(table)
            self._schedule(table)
        cat = self._catalog(new.language, tk.platform)
        return Reply(_settings_text(new, cat), public=True)

    async def start(self, tk: TableKey, user: User) -> Reply:
        """Start the match: bot seats are added, the first dealer drawn, the first deal made."""
        return await self._run(tk, user, self._start)

    async def _start(self, tk: TableKey, table: Table | None, user: User) -> Reply:
        table = self._lobby(table)
        cat = self._cat(table)
        self._authorise(table, user)
        bots = min(table.settings.bots, self.rules.max_players - len(table.seats))
        for i in range(1, bots + 1):
            name = unique_name(cat.t("bot.name", n=i), table.names)
            table.seats.append(Seat(f"{BOT_PREFIX}{table.table_id}:{i}", name, bot=True))
        if len(table.seats) < self.rules.min_players:
            del table.seats[len(table.seats) - bots :]
            raise ServiceError("start.too_few", min=self.rules.min_players)
        lobby_freeze = self.render(table, buttons=False)
        table.status = "playing"
        table.match = self.rules.new_match(table.names, table.settings, self.rng)
        table.match_id = _new_id(10)
        outcome = self.rules.start_round(table.match, self.rng)
        table.log = list(outcome.log)
        await self._after_step(table, outcome, freeze=lobby_freeze, new_round=True)
        return Reply(cat.t("start.done"))

    async def stop(self, tk: TableKey, user: User) -> Reply:
        """The host or a channel admin stops the table (the match so far is kept for export)."""
        return await self._run(tk, user, self._stop)

    async def _stop(self, tk: TableKey, table: Table | None, user: User) -> Reply:
        table = self._active(table)
        cat = self._cat(table)
        self._authorise(table, user)
        finished = None
        if table.match is not None:
            finished = self._finished_match(table, winners=[])
        await self._close(table, "stopped", finished)
        return Reply(cat.t("stop.done"), public=True)

    # ================================================================= play
    async def act(self, tk: TableKey, user: User, action: str, seq: int | None = None) -> Reply:
        """Stay or swap for the player whose turn it is (`seq`: the pressed button's version)."""
        return await self._run(tk, user, self._act, action, seq)

    async def _act(
        self, tk: TableKey, table: Table | None, user: User, action: str, seq: int | None
    ) -> Reply:
        table = self._playing(table)
        cat = self._cat(table)
        if seq is not None and seq != table.seq:
            if table.timed_out.get(user.key) == seq:
                raise ServiceError("error.timed_out")
            raise ServiceError("error.stale")
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.not_seated")
        match = table.match
        if not self.rules.in_round(match):
            raise ServiceError("error.between_rounds")
        turn = self.rules.turn(match)
        if turn != seat:
            assert turn is not None
            raise ServiceError("error.not_your_turn", name=table.seats[turn].name)
        if action not in ("stay", "swap"):
            raise ServiceError("error.unknown_action", action=action)
        outcome = self.rules.act(match, seat, action)
        table.seats[seat].timeouts = 0
        table.log.extend(outcome.log)
        await self._after_step(table, outcome)
        return Reply(cat.t(f"act.{action}"))

    async def next_round(self, tk: TableKey, user: User, seq: int | None = None) -> Reply:
        """Deal the next round now instead of waiting for the delay."""
        return await self._run(tk, user, self._next_round, seq)

    async def _next_round(
        self, tk: TableKey, table: Table | None, user: User, seq: int | None
    ) -> Reply:
        table = self._playing(table)
        cat = self._cat(table)
        if seq is not None and seq != table.seq:
            raise ServiceError("error.stale")
        if table.seat_of(user.key) is None and not user.admin:
            raise ServiceError("error.not_seated")
        if self.rules.in_round(table.match):
            raise ServiceError("next.already")
        await self._deal(table)
        return Reply(cat.t("next.done"))

    async def my_piece(self, tk: TableKey, user: User) -> Reply:
        """A seated player's piece, for a popup or an ephemeral message (always works)."""
        return await self._run(tk, user, self._my_piece)

    async def _my_piece(self, tk: TableKey, table: Table | None, user: User) -> Reply:
        table = self._playing(table)
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.not_seated")
        text = self.rules.piece_text(table.match, seat, self._cat(table))
        return Reply(_fit(text, MAX_ALERT), alert=True)

    async def press(self, tk: TableKey, user: User, token: str) -> Reply:
        """A button press: the token names the table, its version and the action."""
        refused = await self._refused_when_lost(tk)
        if refused is not None:
            return refused
        decoded = tokens.decode(token)
        if decoded is None:
            settings = await self._channel_settings(tk)
            return Reply(
                self._catalog(settings.language, tk.platform).t("error.bad_button"), ok=False
            )
        async with self._lock(tk.key):
            table = await self._load(tk.key)
        if table is None or table.table_id != decoded.table_id:
            settings = await self._channel_settings(tk)
            return Reply(self._catalog(settings.language, tk.platform).t("error.stale"), ok=False)
        action = decoded.action
        if action == "join":
            return await self.join(tk, user)
        if action == "leave":
            return await self.leave(tk, user)
        if action == "start":
            return await self.start(tk, user)
        if action == "piece":
            return await self.my_piece(tk, user)
        if action == "next":
            return await self.next_round(tk, user, decoded.seq)
        return await self.act(tk, user, action, decoded.seq)

    # ================================================================= information
    async def status(self, tk: TableKey) -> Table | None:
        """The table in a channel, if any (read-only use)."""
        async with self._lock(tk.key):
            return await self._load(tk.key)

    async def stats(self, tk: TableKey, user: User) -> Reply:
        """A player's statistics in this chat."""
        refused = await self._refused_when_lost(tk)
        if refused is not None:
            return refused
        settings = await self._current_settings(tk)
        cat = self._catalog(settings.language, tk.platform)
        found = await self.repo.player_stats(tk.chat_key, user.key)
        if found is None:
            name = clean_name(user.name)
            return Reply(cat.t("stats.none", name=name), public=True, literals=(name,))
        return Reply(
            cat.t(
                "stats.line",
                name=found.name,
                matches=found.matches,
                wins=found.wins,
                rounds=found.rounds,
                lives_lost=found.lives_lost,
                times_paid=found.times_paid,
                refusals=found.refusals,
            ),
            public=True,
            literals=(found.name,),
        )

    async def top(self, tk: TableKey, limit: int = 10) -> Reply:
        """The chat's best players."""
        refused = await self._refused_when_lost(tk)
        if refused is not None:
            return refused
        settings = await self._current_settings(tk)
        cat = self._catalog(settings.language, tk.platform)
        rows = await self.repo.top(tk.chat_key, limit)
        if not rows:
            return Reply(cat.t("top.none"), public=True)
        lines = [cat.t("top.title")]
        for i, r in enumerate(rows, 1):
            lines.append(
                cat.t(
                    "top.line",
                    n=i,
                    name=r.name,
                    wins=r.wins,
                    matches=r.matches,
                    lives_lost=r.lives_lost,
                    rounds=r.rounds,
                )
            )
        return Reply("\n".join(lines), public=True, literals=tuple(r.name for r in rows))

    async def export(self, tk: TableKey) -> Reply:
        """The match record (MATCH_RECORD.md) of the current or last match, as a JSON file."""
        refused = await self._refused_when_lost(tk)
        if refused is not None:
            return refused
        settings = await self._current_settings(tk)
        cat = self._catalog(settings.language, tk.platform)
        async with self._lock(tk.key):
            table = await self._load(tk.key)
            record = None
            match_id = None
            if table is not None and table.match is not None:
                # Never the round under way: its deal would show everyone's hidden piece.
                record = self.rules.public_record(table.match)
                match_id = table.match_id
        if record is None:
            found = await self.repo.last_finished_match(tk.key)
            if found is None:
                return Reply(cat.t("export.none"), ok=False)
            record, match_id = found.record, found.match_id
        body = json.dumps(record, ensure_ascii=False, indent=1).encode()
        return Reply(cat.t("export.done"), document=(f"gnav-{match_id}.json", body))

    async def rules_help(self, tk: TableKey) -> Reply:
        """The rules of the table's profile."""
        settings = await self._current_settings(tk)
        return Reply(
            self.rules.rules_text(self._catalog(settings.language, tk.platform), settings.profile),
            public=True,
        )

    async def help(self, tk: TableKey) -> Reply:
        """How to play with the bot."""
        settings = await self._current_settings(tk)
        return Reply(self._catalog(settings.language, tk.platform).t("help.text"), public=True)

    async def _current_settings(self, tk: TableKey) -> TableSettings:
        table = self._tables.get(tk.key)
        if table is not None and table.status != "closed":
            return table.settings
        return await self._channel_settings(tk)

    # ================================================================= steps
    async def _after_step(
        self,
        table: Table,
        *steps: Outcome,
        freeze: Screen | None = None,
        new_round: bool = False,
    ) -> None:
        """Settle automatic moves, commit, then tell people (in that order)."""
        outcomes = list(steps)
        if not any(o.round_over for o in outcomes):
            outcomes.extend(self._settle(table))
        stats: list[StatDelta] = []
        finished = None
        round_over = any(o.round_over for o in outcomes)
        for o in outcomes:
            stats.extend(self._stat_deltas(table, o))
        match_over = self.rules.finished(table.match)
        round_freeze = None
        if round_over:
            round_freeze = self.render(table, buttons=False, view="round")
        if match_over:
            finished = self._finished_match(table, winners=self.rules.winners(table.match))
            stats.extend(self._match_deltas(table))
            table.status = "closed"
            table.closed_reason = "finished"
        elif self._no_humans_left(table):
            finished = self._finished_match(table, winners=[])
            stats.extend(self._match_deltas(table))
            table.status = "closed"
            table.closed_reason = "humans_out"
        table.seq += 1
        self._arm(table)
        await self._save(table, stats=stats, finished=finished)
        # Committed: now people may be told.
        for o in outcomes:
            self._tell_private(table, o)
        if new_round:
            self._repost(table, freeze)
        elif round_over:
            self._repost(table, round_freeze)
        else:
            self._show(table)
        self._schedule(table)

    def _settle(self, table: Table) -> list[Outcome]:
        """Seats that forfeited during the round stay when their turn comes (no waiting)."""
        outcomes = []
        match = table.match
        while self.rules.in_round(match):
            turn = self.rules.turn(match)
            assert turn is not None
            if not self.rules.leaving(match, turn):
                break
            o = self.rules.act(match, turn, self.rules.timeout_action(match, turn))
            table.log.extend(o.log)
            outcomes.append(o)
        return outcomes

    async def _deal(self, table: Table) -> None:
        freeze = self.render(table, buttons=False)
        outcome = self.rules.start_round(table.match, self.rng)
        table.log = list(outcome.log)
        await self._after_step(table, outcome, freeze=freeze, new_round=True)

    async def _forfeit(self, table: Table, seat: int, note: LogLine) -> None:
        match = table.match
        if not self.rules.in_match(match, seat):
            raise ServiceError("error.already_out")
        table.log.append(note)
        outcome = self.rules.forfeit(match, seat)
        table.log.extend(outcome.log)
        await self._after_step(table, outcome)

    def _tell_private(self, table: Table, outcome: Outcome) -> None:
        if not outcome.private:
            return
        cat = self._cat(table)
        for seat, line in outcome.private:
            s = table.seats[seat]
            if s.bot:
                continue
            info = self._players.get(s.user)
            if info is not None and info.get("reachable") is False:
                continue  # never retry a player the platform refused for good
            text = cat.t(
                "private.header", round=self.rules.round_number(table.match), table=table.key.key
            )
            text = f"{text}\n{self.rules.render_line(line, cat)}"
            self.outbox.tell(table.key.key, s.user, Screen(text, literals=tuple(table.names)))

    def _no_humans_left(self, table: Table) -> bool:
        humans = [i for i, s in enumerate(table.seats) if not s.bot]
        if not humans:
            return False
        return not any(self.rules.in_match(table.match, i) for i in humans)

    def _stat_deltas(self, table: Table, outcome: Outcome) -> list[StatDelta]:
        out = []
        for seat, counters in outcome.round_stats.items():
            s = table.seats[seat]
            if s.bot:
                continue
            out.append(StatDelta(chat=table.key.chat_key, user=s.user, name=s.name, **counters))
        return out

    def _match_deltas(self, table: Table) -> list[StatDelta]:
        winners = set(self.rules.winners(table.match))
        return [
            StatDelta(
                chat=table.key.chat_key,
                user=s.user,
                name=s.name,
                matches=1,
                wins=1 if i in winners else 0,
            )
            for i, s in enumerate(table.seats)
            if not s.bot
        ]

    def _finished_match(self, table: Table, winners: list[int]) -> FinishedMatch:
        assert table.match_id is not None
        return FinishedMatch(
            match_id=table.match_id,
            chat=table.key.chat_key,
            table_key=table.key.key,
            game=table.game,
            record=self.rules.record(table.match),
            winners=[table.seats[i].name for i in winners],
            finished_at=self.clock.now(),
        )

    # ================================================================= timers
    def _arm(self, table: Table, keep: bool = False) -> None:
        """Set the table's next deadline from its state (stored with it)."""
        now = self.clock.now()
        if keep and table.deadline is not None and table.deadline_kind != "lobby":
            return
        if table.status == "lobby":
            table.deadline, table.deadline_kind = now + self.lobby_idle, "lobby"
        elif table.status == "playing":
            match = table.match
            if self.rules.in_round(match):
                turn = self.rules.turn(match)
                assert turn is not None
                if table.seats[turn].bot:
                    table.deadline, table.deadline_kind = now + self.bot_delay, "bot"
                else:
                    deadline = now + table.settings.turn_timeout
                    table.deadline, table.deadline_kind = deadline, "turn"
            else:
                table.deadline = now + table.settings.next_round_delay
                table.deadline_kind = "next"
        else:
            table.deadline, table.deadline_kind = None, None

    def _schedule(self, table: Table) -> None:
        if table.deadline is not None:
            heapq.heappush(self._heap, (table.deadline, table.key.key))
            if self._wake is not None:
                self._wake.set()

    async def tick(self) -> int:
        """Handle every deadline that is due; returns how many tables acted."""
        now = self.clock.now()
        due: list[str] = []
        seen: set[str] = set()
        while self._heap and self._heap[0][0] <= now:
            _, key = heapq.heappop(self._heap)
            if key not in seen:
                seen.add(key)
                due.append(key)
        if not due:
            return 0
        results = await asyncio.gather(
            *(self._bounded(self._on_deadline(key)) for key in due), return_exceptions=True
        )
        acted = 0
        for key, result in zip(due, results, strict=True):
            if isinstance(result, StoreLost):
                self._lost(result)  # no retry: nothing can be stored any more
            elif isinstance(result, BaseException):
                log.error("deadline of %s failed", key, exc_info=result)
                heapq.heappush(self._heap, (now + 1.0, key))  # try again a little later
            elif result:
                acted += 1
        return acted

    async def _bounded(self, work: Any) -> Any:
        async with self._parallel:
            return await work

    def next_deadline(self) -> float | None:
        """The earliest scheduled deadline."""
        return self._heap[0][0] if self._heap else None

    async def _on_deadline(self, key: str) -> bool:
        async with self._lock(key):
            table = await self._load(key)
            if table is None or table.deadline is None:
                return False
            now = self.clock.now()
            if table.deadline > now:
                self._schedule(table)  # re-armed later than this entry
                return False
            kind = table.deadline_kind
            if kind == "lobby":
                await self._close(table, "expired")
                return True
            if table.status != "playing":
                return False
            match = table.match
            if kind == "next":
                if not self.rules.in_round(match):
                    await self._deal(table)
                return True
            turn = self.rules.turn(match)
            if turn is None:
                return False
            seat = table.seats[turn]
            if kind == "bot" and seat.bot:
                action = self.rules.bot_action(match, turn, self.rng)
                outcome = self.rules.act(match, turn, action)
                table.log.extend(outcome.log)
                await self._after_step(table, outcome)
                return True
            # A person's turn timed out: it counts as "stay" (T3: a Narr holder swaps).
            action = self.rules.timeout_action(match, turn)
            seat.timeouts += 1
            table.timed_out[seat.user] = table.seq
            table.log.append((f"note.timeout_{action}", {"p": seat.name}))
            outcomes = [self.rules.act(match, turn, action)]
            table.log.extend(outcomes[0].log)
            if seat.timeouts >= self.max_timeouts and self.rules.in_match(match, turn):
                table.log.append(("note.timeouts_forfeit", {"p": seat.name, "n": seat.timeouts}))
                if not self.rules.finished(match):
                    outcomes.append(self.rules.forfeit(match, turn))
                    table.log.extend(outcomes[1].log)
            await self._after_step(table, *outcomes)
            return True

    async def run(self) -> None:
        """Handle deadlines until cancelled (the bot's main loop runs this as a task)."""
        self._wake = asyncio.Event()
        while True:
            await self.tick()
            nxt = self.next_deadline()
            delay = 1.0 if nxt is None else max(0.0, min(1.0, nxt - self.clock.now()))
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def resume(self) -> int:
        """Load every open table after a start: re-arm timers and tell the channels."""
        rows = await self.repo.load_active_tables()
        done = await asyncio.gather(*(self._bounded(self._resume_one(row)) for row in rows))
        return sum(done)

    async def _resume_one(self, row: TableRow) -> bool:
        async with self._lock(row.key):
            # A command may have loaded (and changed) the table since the rows were read.
            table = self._tables.get(row.key)
            if table is None:
                try:
                    table = Table.from_row(row, self.rules)
                except (ValueError, KeyError) as exc:
                    log.error("table %s cannot be restored: %s", row.key, exc)
                    return False
            if table.status == "closed":
                return False
            self._tables[row.key] = table
            self.outbox.set_ref(row.key, table.message_ref)
            # A fresh deadline: nobody pays for the time the bot was down. It is not stored
            # now (every start re-arms again), and the state version stays, so the buttons
            # of the messages already in the chat keep working.
            self._arm(table)
            note = self._cat(table).t("note.restored")
            self._repost(table, None, note=note)
            self._schedule(table)
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
            async with self._lock(row.key), self._lock(new_key.key):
                table = await self._load(row.key)
                if table is None or table.status == "closed":
                    continue
                existing = await self.repo.load_table(new_key.key)
                moved_table = Table.from_row(row, self.rules)
                moved_table.key = new_key
                moved_table.row_version = existing.version if existing else None
                await self._save(moved_table)
                table.status = "closed"
                table.closed_reason = "migrated"
                table.deadline = table.deadline_kind = None
                await self._save(table)
                self._tables.pop(row.key, None)
                self.outbox.set_ref(new_key.key, None)
                self._schedule(moved_table)
                self._repost(moved_table, None)
                moved += 1
        settings = await self.repo.load_settings(old_prefix)
        if settings is not None:
            await self.repo.save_settings(f"{platform}:{new_chat}", settings)
        return moved

    async def shutdown(self) -> None:
        """Let queued messages go out and store the references of the newest table messages."""
        await self.outbox.drain()
        if self.store_lost is not None:
            return  # nothing can be stored
        for key in list(self._unsaved_refs):
            async with self._lock(key):
                table = self._tables.get(key)
                if table is None:
                    continue
                try:
                    await self._save(table)
                except ConflictError:
                    log.warning("table %s changed elsewhere; its message ref was not stored", key)
                except StoreLost as exc:
                    self._lost(exc)
                    return

    # ================================================================= helpers
    def _lobby(self, table: Table | None) -> Table:
        if table is None or table.status == "closed":
            raise ServiceError("error.no_table")
        if table.status != "lobby":
            raise ServiceError("error.started")
        return table

    def _active(self, table: Table | None) -> Table:
        if table is None or table.status == "closed":
            raise ServiceError("error.no_table")
        return table

    def _playing(self, table: Table | None) -> Table:
        if table is None or table.status == "closed" or table.match is None:
            raise ServiceError("error.no_match")
        if table.status != "playing":
            raise ServiceError("error.no_match")
        return table

    def _authorise(self, table: Table, user: User) -> None:
        if user.key != table.host and not user.admin:
            raise ServiceError("error.not_host")

    def _host_name(self, table: Table) -> str:
        """How the host is called at the table (or was last seen), for refusals naming them."""
        for seat in table.seats:
            if seat.user == table.host:
                return seat.name
        info = self._players.get(table.host or "")
        return str(info.get("name") or "?") if info else "?"

    async def _unseat_from_lobby(self, table: Table, seat: int) -> None:
        """Free a lobby seat; the host's role passes on; an empty lobby closes."""
        gone = table.seats.pop(seat)
        if gone.user == table.host:
            humans = table.humans
            table.host = humans[0].user if humans else None
        if table.seats:
            await self._commit_lobby(table)
        else:
            await self._close(table, "empty")

    async def _close(
        self, table: Table, reason: str, finished: FinishedMatch | None = None
    ) -> None:
        """Close the table for `reason` (a `closed.*` message) and show it."""
        table.status = "closed"
        table.closed_reason = reason
        table.deadline = table.deadline_kind = None
        table.seq += 1
        await self._save(table, finished=finished)
        self._show(table)

    async def _commit_lobby(self, table: Table) -> None:
        table.seq += 1
        self._arm(table)
        await self._save(table)
        self._show(table)
        self._schedule(table)


def _fit(text: str, limit: int) -> str:
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


def _new_id(length: int = 6) -> str:
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _find_seat(table: Table, who: str) -> int | None:
    """The seat `who` names: a user key, else exactly its name, else its name in any case.

    Several seats matching only in case (`Alice`, `alice`) are refused, listing them.
    """
    who = who.strip()
    for i, s in enumerate(table.seats):
        if s.user == who:
            return i
    wanted = [clean_name(who)]
    if who.startswith("@"):
        wanted.append(clean_name(who[1:]))
    for name in wanted:
        for i, s in enumerate(table.seats):
            if s.name == name:
                return i
    for name in wanted:
        folded = name.casefold()
        found = [i for i, s in enumerate(table.seats) if s.name.casefold() == folded]
        if len(found) == 1:
            return found[0]
        if found:
            names = ", ".join(table.seats[i].name for i in found)
            raise ServiceError("kick.ambiguous", name=echo(who), names=names)
    return None


def _settings_text(s: TableSettings, cat: Catalog) -> str:
    return cat.t(
        "settings.show",
        profile=s.profile,
        lives=s.lives,
        timeout=s.turn_timeout,
        language=s.language,
        delay=s.next_round_delay,
        bots=s.bots,
    )
