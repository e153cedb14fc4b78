"""Read-only commands: status, statistics, the top list, export, rules and help."""

from __future__ import annotations

import json

from bot.service.game import Games, GameView, PrivateChoice
from bot.service.names import clean_name
from bot.service.options import ServiceSettings
from bot.service.ports import PlayerStats
from bot.service.replies import MAX_ALERT, MAX_TEXT, Reply, fit_text
from bot.service.screens import Screens
from bot.service.table import Table, TableKey, User
from bot.service.texts import Catalogs, game_key
from bot.service.uow import UnitOfWork
from bot.service.views import Phase, SeatView, TableView


class Queries:
    """Commands that only read."""

    def __init__(
        self,
        uow: UnitOfWork,
        games: Games,
        catalogs: Catalogs,
        settings: ServiceSettings,
        screens: Screens,
    ) -> None:
        self.uow = uow
        self.repo = uow.repo
        self.games = games
        self.catalogs = catalogs
        self.settings = settings
        self.screens = screens

    async def status(self, tk: TableKey, viewer: str | None = None) -> TableView | None:
        """The table in a channel as `viewer` (a user key) may see it, frozen: public facts
        and the viewer's own choices; None when the channel has no table."""
        async with self.uow.lock(tk.key):
            table = await self.uow.load(tk.key)
            return None if table is None else self._view(table, viewer)

    def open_tables(self) -> dict[str, int]:
        """Open tables this process holds, per game (the metrics)."""
        held: dict[str, int] = {}
        for table in self.uow.cached.values():
            if table.status != "closed":
                held[table.game] = held.get(table.game, 0) + 1
        return held

    async def table_state(self, tk: TableKey) -> Table | None:
        """The live table itself, hidden hands included: for tests, benchmarks and tools of
        the composition root, never for adapters (they get `status`)."""
        async with self.uow.lock(tk.key):
            return await self.uow.load(tk.key)

    def _view(self, table: Table, viewer: str | None) -> TableView:
        rules = self.games.rules_of(table)
        match = table.match
        phase: Phase
        deciders: tuple[int, ...] = ()
        if table.status in ("lobby", "closed"):
            phase = table.status
        elif match is None or rules.winners(match):
            phase = "finished"
        elif deciders := table.deciders_for(rules):
            phase = "round"
        else:
            phase = "between"
        seat = table.seat_of(viewer) if viewer is not None else None
        choices = table.choices_for(rules, seat) if seat in deciders else ()
        cat = self.catalogs.cat(table)
        view = self.games.view_of(table)
        labels = tuple(view.render_line(c.label, cat) for c in choices)
        return TableView(
            key=table.key,
            table_id=table.table_id,
            game=table.game,
            status=table.status,
            phase=phase,
            host=table.host,
            seats=tuple(
                SeatView(s.user, s.name, s.bot, match is None or s.in_match) for s in table.seats
            ),
            seq=table.seq,
            settings=table.settings,
            deciders=deciders,
            viewer=viewer,
            choices=choices,
            labels=labels,
        )

    async def choices_of(self, user: User, limit: int = 50) -> list[PrivateChoice]:
        """Every choice `user` may make now, at any table they sit at (Telegram's inline mode
        lists them for a person the bot cannot message privately). Tables this process holds."""
        found: list[PrivateChoice] = []
        for key in list(self.uow.cached):
            async with self.uow.lock(key):
                table = self.uow.cached.get(key)
                if table is None or table.status != "playing":
                    continue
                seat = table.seat_of(user.key)
                if seat is None or seat not in table.deciders_for(self.games.rules_of(table)):
                    continue
                cat = self.catalogs.cat(table)
                view = self.games.view_of(table)
                hand = fit_text(view.private_text(table.match, seat, cat), MAX_ALERT)
                for row in self.screens.choice_rows(table, [seat], cat):
                    found.extend(
                        PrivateChoice(b.token, b.label, hand, cat.t("inline.chosen")) for b in row
                    )
        return found[:limit]

    async def stats(self, tk: TableKey, user: User) -> Reply:
        """A player's statistics in this chat."""
        settings = await self.uow.current_settings(tk)
        cat = self.catalogs.catalog(settings.language, tk.platform)
        view = self.uow.channel_game(tk, settings)
        found = await self.repo.player_stats(tk.chat_key, user.key, view.name)
        if found is None:
            name = clean_name(user.name)
            return Reply(
                cat.t(game_key(cat, view.name, "stats.none"), name=name),
                public=True,
                literals=(name,),
            )
        text = view.render_stats(found.name, found.counters, cat)
        hinted = found.counters.get("hinted", 0)
        if hinted:  # issue 33: matches played at a table with hints on are marked
            text = f"{text}\n{cat.t('stats.hinted', matches=hinted)}"
        return Reply(
            text,
            public=True,
            literals=(found.name,),
        )

    async def top(self, tk: TableKey, limit: int = 10) -> Reply:
        """The chat's best players."""
        settings = await self.uow.current_settings(tk)
        cat = self.catalogs.catalog(settings.language, tk.platform)
        view = self.uow.channel_game(tk, settings)
        stats = await self.repo.chat_stats(tk.chat_key, view.name)
        rows = self._ranked(view, stats)[:limit]
        if not rows:
            return Reply(cat.t(game_key(cat, view.name, "top.none")), public=True)
        lines = [cat.t(game_key(cat, view.name, "top.title"))]
        for i, r in enumerate(rows, 1):
            lines.append(view.render_top_line(i, r.name, r.counters, cat))
        return Reply("\n".join(lines), public=True, literals=tuple(r.name for r in rows))

    @staticmethod
    def _ranked(view: GameView, rows: list[PlayerStats]) -> list[PlayerStats]:
        """Players who have played, best first by the game's key, then by name and user."""
        top_key = view.top_key
        played = [r for r in rows if any(r.counters.values())]
        return sorted(played, key=lambda r: (top_key(r.counters), r.name.casefold(), r.user))

    async def export(self, tk: TableKey) -> Reply:
        """The match record (MATCH_RECORD.md) of the current or last match, as a JSON file."""
        settings = await self.uow.current_settings(tk)
        cat = self.catalogs.catalog(settings.language, tk.platform)
        async with self.uow.lock(tk.key):
            table = await self.uow.load(tk.key)
            record = None
            match_id = None
            if table is not None and table.match is not None:
                # Never the round under way: its deal would show everyone's hidden piece.
                record = self.games.rules_of(table).record(table.match, public=True)
                match_id = table.match_id
        if record is None:
            found = await self.repo.last_finished_match(tk.key)
            if found is None:
                return Reply(cat.t("export.none"), ok=False)
            record, match_id = found.record, found.match_id
        body = json.dumps(record, ensure_ascii=False, indent=1).encode()
        text = cat.t("export.done")
        links = self.settings.links
        if links is not None and table is not None and table.status == "closed":
            # A finished match: its replay on the web table (docs/web.md, "Replays").
            link = links.replay_link(table.table_id)
            if link:
                text += "\n" + cat.t("web.export", url=link)
        return Reply(text, document=(f"gnav-{match_id}.json", body))

    async def sheet(self, tk: TableKey) -> Reply:
        """The whole score sheet of the current or last match here, as its game keeps it
        (`render_sheet`); a line saying there is none where the game keeps none."""
        settings = await self.uow.current_settings(tk)
        cat = self.catalogs.catalog(settings.language, tk.platform)
        async with self.uow.lock(tk.key):
            table = await self.uow.load(tk.key)
            sheet = None
            if table is not None and table.match is not None:
                view = self.games.view_of(table)
                sheet = view.render_sheet(table.match, table.names, self.catalogs.cat(table))
        if table is None or sheet is None:
            return Reply(cat.t("sheet.none"), ok=False)
        return Reply(sheet, public=True, literals=tuple(table.names), blocks=(sheet,))

    async def log(self, tk: TableKey) -> Reply:
        """The whole log of the round under way here (or of the last one), in the table's
        language, newest last: the table message shows the state and only the newest
        events (issue 30). A log longer than one message loses its oldest lines ("…")."""
        settings = await self.uow.current_settings(tk)
        cat = self.catalogs.catalog(settings.language, tk.platform)
        async with self.uow.lock(tk.key):
            table = await self.uow.load(tk.key)
            lines: list[str] = []
            if table is not None and table.match is not None and table.log:
                cat = self.catalogs.cat(table)
                lines = list(self.screens.round_log(table, cat))
        if table is None or not lines:
            return Reply(cat.t("log.none"), ok=False)
        title = cat.t(game_key(cat, table.game, "log.title"))
        size = len(title) + sum(len(line) + 1 for line in lines)
        cut = 0
        while size + 2 > MAX_TEXT and cut < len(lines) - 1:
            size -= len(lines[cut]) + 1
            cut += 1
        shown = [title, *(["…"] if cut else []), *lines[cut:]]
        text = fit_text("\n".join(shown), MAX_TEXT)
        return Reply(text, public=True, literals=tuple(table.names))  # public facts only

    async def rules_help(self, tk: TableKey) -> Reply:
        """The rules of the game the table plays (with its own settings)."""
        settings = await self.uow.current_settings(tk)
        table = self.uow.cached.get(tk.key)
        game = (
            table.game
            if table is not None and table.status != "closed"
            else self.games.named(settings)
        )
        own = self.games.own_settings(game, settings)
        return Reply(
            self.games.views[game].rules_text(
                self.catalogs.catalog(settings.language, tk.platform), own
            ),
            public=True,
        )

    async def help(self, tk: TableKey) -> Reply:
        """How to play with the bot, then the table's game's own lines (its catalog's
        `<game>.help`, e.g. what a timed-out choice counts as), when it has any."""
        settings = await self.uow.current_settings(tk)
        table = self.uow.cached.get(tk.key)
        game = (
            table.game
            if table is not None and table.status != "closed"
            else self.games.named(settings)
        )
        cat = self.catalogs.catalog(settings.language, tk.platform)
        text = cat.t("help.text")
        if cat.has(f"{game}.help"):
            text += "\n" + cat.t(f"{game}.help")
        return Reply(text, public=True)
