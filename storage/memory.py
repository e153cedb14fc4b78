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
from storage.common import DuplicateMatchError, dump_json, load_json, stat_rows


def _json_copy(value: Any) -> Any:
    """A deep copy through JSON, as a durable store would return it (tuples become lists)."""
    return load_json(dump_json(value))


class MemoryRepository:
    """Tables, settings, players, statistics and finished matches in dictionaries."""

    def __init__(self) -> None:
        self.tables: dict[str, TableRow] = {}
        self.settings: dict[str, dict[str, Any]] = {}
        self.players: dict[str, dict[str, Any]] = {}
        #: Statistics: the player's name per (chat, game, user), and that player's counters.
        self.stat_names: dict[tuple[str, str, str], str] = {}
        self.stat_counters: dict[tuple[str, str, str], dict[str, int]] = {}
        self.matches: list[FinishedMatch] = []
        self._match_ids: set[str] = set()
        self._keys_by_id: dict[str, set[str]] = {}  # table id -> keys of rows carrying it
        self.saves = 0

    async def load_table(self, key: str) -> TableRow | None:
        """The stored table under `key`, if any (a copy)."""
        row = self.tables.get(key)
        return copy.deepcopy(row) if row else None

    async def load_table_by_id(self, table_id: str) -> TableRow | None:
        """The stored table whose row carries `table_id`, if any (a copy)."""
        rows = [self.tables[k] for k in self._keys_by_id.get(table_id, ())]
        if not rows:
            return None
        rows.sort(key=lambda r: r.key)
        rows.sort(key=lambda r: (r.status == "closed", -r.updated_at))
        return copy.deepcopy(rows[0])

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
        if current is not None and current.table_id is not None:
            self._keys_by_id[current.table_id].discard(row.key)
        if row.table_id is not None:
            self._keys_by_id.setdefault(row.table_id, set()).add(row.key)
        self.tables[row.key] = stored_row
        name_rows, counter_rows = stat_rows(stats)
        for chat, game, user, name in name_rows:
            self.stat_names[(chat, game, user)] = name
        for chat, game, user, counter, value in counter_rows:
            counters = self.stat_counters.setdefault((chat, game, user), {})
            counters[counter] = counters.get(counter, 0) + value
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

    async def player_stats(self, chat: str, user: str, game: str) -> PlayerStats | None:
        """One player's statistics of `game` in a chat."""
        name = self.stat_names.get((chat, game, user))
        if name is None:
            return None
        counters = dict(self.stat_counters.get((chat, game, user), {}))
        return PlayerStats(user=user, name=name, game=game, counters=counters)

    async def chat_stats(self, chat: str, game: str) -> list[PlayerStats]:
        """Every player's statistics of `game` in a chat, by user."""
        users = sorted(u for (c, g, u) in self.stat_names if c == chat and g == game)
        return [p for u in users if (p := await self.player_stats(chat, u, game)) is not None]

    async def last_finished_match(self, table_key: str) -> FinishedMatch | None:
        """The newest finished match of a table."""
        for match in reversed(self.matches):
            if match.table_key == table_key:
                return copy.deepcopy(match)
        return None

    async def close(self) -> None:
        """Nothing to release."""
