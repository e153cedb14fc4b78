"""Read-only commands: status, statistics, the top list, export, rules and help."""

from __future__ import annotations

import json

from bot.service.core import Reply, ServiceCore
from bot.service.table import Table, TableKey, User


class Queries(ServiceCore):
    """Commands that only read."""

    async def status(self, tk: TableKey) -> Table | None:
        """The table in a channel, if any (read-only use)."""
        async with self._lock(tk.key):
            return await self._load(tk.key)

    async def stats(self, tk: TableKey, user: User) -> Reply:
        """A player's statistics in this chat."""
        settings = await self._current_settings(tk)
        cat = self._catalog(settings.language, tk.platform)
        found = await self.repo.player_stats(tk.chat_key, user.key)
        if found is None:
            return Reply(cat.t("stats.none", name=user.name), public=True)
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
        )

    async def top(self, tk: TableKey, limit: int = 10) -> Reply:
        """The chat's best players."""
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
        return Reply("\n".join(lines), public=True)

    async def export(self, tk: TableKey) -> Reply:
        """The match record (MATCH_RECORD.md) of the current or last match, as a JSON file."""
        settings = await self._current_settings(tk)
        cat = self._catalog(settings.language, tk.platform)
        async with self._lock(tk.key):
            table = await self._load(tk.key)
            record = None
            match_id = None
            if table is not None and table.match is not None:
                # Never the round under way: its deal would show everyone's hidden piece.
                record = self.game_of(table).public_record(table.match)
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
            self.games[self.default_game].rules_text(
                self._catalog(settings.language, tk.platform), settings
            ),
            public=True,
        )

    async def help(self, tk: TableKey) -> Reply:
        """How to play with the bot."""
        settings = await self._current_settings(tk)
        return Reply(self._catalog(settings.language, tk.platform).t("help.text"), public=True)
