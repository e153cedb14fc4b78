"""An in-memory `Repository`: a real implementation for tests and throw-away tables.

It keeps the same contract as the durable stores (optimistic versions, one "transaction" per
save, documents stored as JSON so a state that SQLite or PostgreSQL would refuse or change is
refused or changed here too) but loses everything when the process ends.
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
from storage.common import DuplicateMatchError, add_stats, dump_json, load_json, rank_top


def _json_copy(value: Any) -> Any:
    """A deep copy through JSON, as a durable store would return it (tuples become lists)."""
    return load_json(dump_json(value))


class MemoryRepository:
    """Tables, settings, players, statistics and finished matches in dictionaries."""

    def __init__(self) -> None:
        self.tables: dict[str, TableRow] = {}
        self.settings: dict[str, dict[str, Any]] = {}
        self.players: dict[str, dict[str, Any]] = {}
        self.stats: dict[tuple[str, str], PlayerStats] = {}
        self.matches: list[FinishedMatch] = []
        self._match_ids: set[str] = set()
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
        # Check and encode everything before changing anything: all or nothing.
        if finished is not None and finished.match_id in self._match_ids:
            raise DuplicateMatchError(f"finished match {finished.match_id} is already stored")
        stored_row = copy.copy(row)
        stored_row.state = _json_copy(row.state)
        stored_match = None
        if finished is not None:
            stored_match = copy.copy(finished)
            stored_match.record = _json_copy(finished.record)
            stored_match.winners = _json_copy(finished.winners)
        self.tables[row.key] = stored_row
        for delta in stats:
            add_stats(self.stats, delta)
        if stored_match is not None:
            self.matches.append(stored_match)
            self._match_ids.add(stored_match.match_id)
        self.saves += 1

    async def load_settings(self, channel: str) -> dict[str, Any] | None:
        """The settings last used in a channel."""
        found = self.settings.get(channel)
        return copy.deepcopy(found) if found is not None else None

    async def save_settings(self, channel: str, settings: dict[str, Any]) -> None:
        """Remember a channel's settings."""
        self.settings[channel] = _json_copy(settings)

    async def load_player(self, user: str) -> dict[str, Any] | None:
        """What is known of a player."""
        found = self.players.get(user)
        return copy.deepcopy(found) if found is not None else None

    async def save_player(self, user: str, data: dict[str, Any]) -> None:
        """Store what is known of a player."""
        self.players[user] = _json_copy(data)

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
