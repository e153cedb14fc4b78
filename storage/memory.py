"""An in-memory `Repository`: a real implementation for tests and throw-away tables.

It keeps the same contract as the durable stores (optimistic versions, one "transaction" per
save) but loses everything when the process ends.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from bot.service.ports import (
    ConflictError,
    FinishedMatch,
    PlayerStats,
    StatDelta,
    TableRow,
)
from storage.common import add_stats, rank_top


class MemoryRepository:
    """Tables, settings, players, statistics and finished matches in dictionaries."""

    def __init__(self) -> None:
        self.tables: dict[str, TableRow] = {}
        self.settings: dict[str, dict[str, Any]] = {}
        self.players: dict[str, dict[str, Any]] = {}
        self.stats: dict[tuple[str, str], PlayerStats] = {}
        self.matches: list[FinishedMatch] = []
        self.saves = 0

    async def load_table(self, key: str) -> TableRow | None:
        """The stored table under `key`, if any (a copy)."""
        row = self.tables.get(key)
        return copy.deepcopy(row) if row else None

    async def load_active_tables(self) -> list[TableRow]:
        """Every table that is not closed."""
        return [copy.deepcopy(r) for r in self.tables.values() if r.status != "closed"]

    async def save_table(
        self,
        row: TableRow,
        *,
        expected_version: int | None,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
    ) -> None:
        """Store the table, statistics and finished match together, checking the version."""
        current = self.tables.get(row.key)
        stored = current.version if current else None
        if stored != expected_version:
            raise ConflictError(
                f"table {row.key}: stored version {stored}, expected {expected_version}"
            )
        self.tables[row.key] = copy.deepcopy(row)
        for delta in stats:
            add_stats(self.stats, delta)
        if finished is not None:
            self.matches.append(copy.deepcopy(finished))
        self.saves += 1

    async def load_settings(self, channel: str) -> dict[str, Any] | None:
        """The settings last used in a channel."""
        found = self.settings.get(channel)
        return dict(found) if found else None

    async def save_settings(self, channel: str, settings: dict[str, Any]) -> None:
        """Remember a channel's settings."""
        self.settings[channel] = dict(settings)

    async def load_player(self, user: str) -> dict[str, Any] | None:
        """What is known of a player."""
        found = self.players.get(user)
        return dict(found) if found else None

    async def save_player(self, user: str, data: dict[str, Any]) -> None:
        """Store what is known of a player."""
        self.players[user] = dict(data)

    async def player_stats(self, chat: str, user: str) -> PlayerStats | None:
        """One player's statistics in a chat."""
        found = self.stats.get((chat, user))
        return copy.copy(found) if found else None

    async def top(self, chat: str, limit: int = 10) -> list[PlayerStats]:
        """The chat's best players."""
        return rank_top([s for (c, _), s in self.stats.items() if c == chat], limit)

    async def last_finished_match(self, table_key: str) -> FinishedMatch | None:
        """The newest finished match of a table."""
        for match in reversed(self.matches):
            if match.table_key == table_key:
                return copy.deepcopy(match)
        return None

    async def close(self) -> None:
        """Nothing to release."""
