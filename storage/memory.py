"""An in-memory `Repository`: a real implementation for tests and throw-away tables.

It keeps the same contract as the durable stores (optimistic versions, one "transaction" per
save, documents stored as JSON so a state that SQLite or PostgreSQL would refuse or change is
refused or changed here too) but loses everything when the process ends.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from bot.service.ports import (
    Claim,
    ConflictError,
    FinishedMatch,
    OutBatch,
    OutMessage,
    PlayerStats,
    StatDelta,
    TablePart,
    TableRow,
)
from storage.common import (
    CLAIM_BATCH,
    DuplicateMatchError,
    combine,
    dump_json,
    load_json,
    message_payload,
    out_message,
    stat_rows,
)


def _json_copy(value: Any) -> Any:
    """A deep copy through JSON, as a durable store would return it (tuples become lists)."""
    return load_json(dump_json(value))


class MemoryRepository:
    """Tables, settings, players, statistics and finished matches in dictionaries."""

    #: One process's store: nothing of it changes but through this process's commits.
    shared = False

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
        #: Finished parts of tables' matches, by table key and seq (stored as JSON).
        self.parts: dict[str, dict[int, TablePart]] = {}
        self.saves = 0
        #: The outbox: undelivered messages by id (stored as JSON, as the durable stores do).
        self.outbox: dict[int, dict[str, Any]] = {}
        self._next_message = 0
        self.refs: dict[str, str | None] = {}
        self.timer_claims: dict[str, tuple[str, float]] = {}
        self.processes: dict[str, float] = {}
        #: chat -> (time, owner) of recent platform calls (`add_chat_call`).
        self.calls: dict[str, list[tuple[float, str]]] = {}
        #: name -> the owner holding that exclusive lock (`hold_exclusive`).
        self.exclusive: dict[str, str] = {}

    def _loaded(self, row: TableRow) -> TableRow:
        """A copy of a stored row with its finished parts."""
        out = copy.deepcopy(row)
        stored = self.parts.get(row.key, {})
        out.parts = [copy.deepcopy(stored[seq]) for seq in sorted(stored)]
        return out

    async def load_table(self, key: str) -> TableRow | None:
        """The stored table under `key`, if any (a copy)."""
        row = self.tables.get(key)
        return self._loaded(row) if row else None

    async def load_table_by_id(self, table_id: str) -> TableRow | None:
        """The stored table whose row carries `table_id`, if any (a copy)."""
        rows = [self.tables[k] for k in self._keys_by_id.get(table_id, ())]
        if not rows:
            return None
        rows.sort(key=lambda r: r.key)
        rows.sort(key=lambda r: (r.status == "closed", -r.updated_at))
        return self._loaded(rows[0])

    async def load_active_tables(self) -> list[TableRow]:
        """Every table that is not closed."""
        out = [self._loaded(r) for r in self.tables.values() if r.status != "closed"]
        for row in out:
            row.message_ref = self.refs.get(row.key)
        return out

    async def save_table(
        self,
        row: TableRow,
        *,
        expected_version: int | None,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
        messages: Sequence[OutMessage] = (),
        claim: Claim | None = None,
    ) -> OutBatch | None:
        """Store the table, statistics, finished match and messages together, checking the
        version; claim the table's messages with `claim` (see `Repository.save_table`)."""
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
        stored_row.parts = []
        new_parts = [TablePart(p.seq, p.owner, _json_copy(p.data)) for p in row.parts]
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
        if new_parts:  # append-only; a part of seq 0 starts the key's parts afresh
            parts = self.parts.setdefault(row.key, {})
            if new_parts[0].seq == 0:
                parts.clear()
            parts.update((p.seq, p) for p in new_parts)
        name_rows, counter_rows = stat_rows(stats)
        for chat, game, user, name in name_rows:
            self.stat_names[(chat, game, user)] = name
        for chat, game, user, counter, value in counter_rows:
            counters = self.stat_counters.setdefault((chat, game, user), {})
            counters[counter] = combine(counter, counters.get(counter), value)
        if stored_match is not None:
            self.matches.append(stored_match)
            self._match_ids.add(stored_match.match_id)
        self.saves += 1
        self.timer_claims.pop(row.key, None)
        return self._add(row.key, messages, claim)

    async def table_version(self, key: str) -> int | None:
        """The stored version of a table."""
        row = self.tables.get(key)
        return row.version if row else None

    def _add(
        self, key: str, messages: Sequence[OutMessage], claim: Claim | None
    ) -> OutBatch | None:
        now = claim.now if claim else 0.0
        for m in messages:
            self._next_message += 1
            self.outbox[self._next_message] = {
                "id": self._next_message,
                "table_key": key,
                "kind": m.kind,
                "target": m.user,
                "payload": _json_copy(message_payload(m)),
                "created_at": m.created_at or now,
                "claimed_by": None,
                "claimed_until": None,
                "attempts": 0,
            }
        if claim is None:
            return None
        return self._claim(key, claim)

    def _claim(self, key: str, claim: Claim) -> OutBatch | None:
        rows = sorted(
            (r for r in self.outbox.values() if r["table_key"] == key), key=lambda r: r["id"]
        )
        if any(
            r["claimed_by"] not in (None, claim.owner)
            and r["claimed_until"] > claim.now
            and not self._dead(r["claimed_by"], claim.now)
            for r in rows
        ):
            return None  # another owner delivers this table's messages
        # A private message not claimed by this owner before, with a newer one to the same
        # user waiting, is out of date: dropped (nobody is shown an old piece).
        newest: dict[str | None, int] = {}
        for r in rows:
            if r["kind"] == "tell":
                newest[r["target"]] = r["id"]
        for r in list(rows):
            if (
                r["kind"] == "tell"
                and r["claimed_by"] != claim.owner
                and newest[r["target"]] != r["id"]
            ):
                del self.outbox[r["id"]]
                rows.remove(r)
        if not rows:
            return None
        # Each lane's oldest: the private messages never wait behind the channel's batch.
        taken = sorted(
            [r for r in rows if r["kind"] != "tell"][:CLAIM_BATCH]
            + [r for r in rows if r["kind"] == "tell"][:CLAIM_BATCH],
            key=lambda r: r["id"],
        )
        for r in taken:
            if r["claimed_by"] != claim.owner:
                r["attempts"] += 1
            r["claimed_by"], r["claimed_until"] = claim.owner, claim.until
        return OutBatch(
            key,
            self.refs.get(key),
            [
                out_message(
                    r["id"],
                    key,
                    r["kind"],
                    r["target"],
                    _json_copy(r["payload"]),
                    r["created_at"],
                    r["attempts"],
                )
                for r in taken
            ],
            more=len(rows) > len(taken),
        )

    async def add_messages(
        self, table_key: str, messages: Sequence[OutMessage], claim: Claim | None = None
    ) -> OutBatch | None:
        """Add messages to a table's outbox without changing the table."""
        return self._add(table_key, messages, claim)

    async def finish_messages(
        self,
        table_key: str,
        done: Sequence[int],
        claim: Claim,
        *,
        ref: str | None = None,
        set_ref: bool = False,
    ) -> OutBatch | None:
        """Mark `done` delivered, store the new ref, claim the next messages."""
        for i in done:
            self.outbox.pop(i, None)
        if set_ref:
            self.refs[table_key] = ref
        return self._claim(table_key, claim)

    async def mark_delivered(
        self, done: Sequence[int], refs: Mapping[str, str | None] | None = None
    ) -> None:
        """Mark messages of any tables delivered and store tables' message references."""
        for i in done:
            self.outbox.pop(i, None)
        self.refs.update(refs or {})

    async def claim_stale_messages(self, claim: Claim, limit: int = 100) -> list[OutBatch]:
        """Claim the outboxes nobody holds."""
        held = {
            r["table_key"]
            for r in self.outbox.values()
            if r["claimed_by"] is not None
            and r["claimed_until"] > claim.now
            and not self._dead(r["claimed_by"], claim.now)
        }
        keys: list[str] = []
        for r in sorted(self.outbox.values(), key=lambda r: r["id"]):
            if r["table_key"] not in held and r["table_key"] not in keys:
                keys.append(r["table_key"])
        batches = [self._claim(k, claim) for k in keys[:limit]]
        return [b for b in batches if b is not None]

    async def claim_timers(
        self, claim: Claim, limit: int = 100, keys: Sequence[str] | None = None
    ) -> list[str]:
        """Claim due tables whose timer nobody holds."""
        due = sorted(
            (
                r
                for r in self.tables.values()
                if r.status != "closed"
                and r.deadline is not None
                and r.deadline <= claim.now
                and (keys is None or r.key in keys)
            ),
            key=lambda r: r.deadline or 0.0,
        )
        out = []
        for r in due:
            held = self.timer_claims.get(r.key)
            if held is not None and held[1] > claim.now and held[0] != claim.owner:
                continue
            self.timer_claims[r.key] = (claim.owner, claim.until)
            out.append(r.key)
            if len(out) >= limit:
                break
        return out

    def _dead(self, owner: str, now: float) -> bool:
        """Known dead: its heartbeat ended (a process that stopped cleanly is not known)."""
        until = self.processes.get(owner)
        return until is not None and until <= now

    async def live_processes(self, now: float) -> list[str]:
        """The owners whose heartbeat says they live at `now`."""
        return [o for o, t in self.processes.items() if t > now]

    async def chat_calls(self, chat: str, since: float, owner: str) -> list[float]:
        """Calls of other owners in `chat` since `since` (services sharing this store)."""
        return [at for at, who in self.calls.get(chat, ()) if at > since and who != owner]

    async def add_chat_call(self, chat: str, at: float, owner: str) -> None:
        """Record a call (kept for an hour)."""
        kept = [c for c in self.calls.get(chat, ()) if c[0] > at - 3600]
        kept.append((at, owner))
        self.calls[chat] = kept

    async def gone_processes(self, now: float) -> list[str]:
        """None known gone but by their heartbeat (the processes share this one)."""
        return []

    async def heartbeat(self, owner: str, now: float, until: float | None) -> int:
        """Say `owner` lives until `until` (None: it stops); how many others live now."""
        if until is None:
            self.processes.pop(owner, None)
        else:
            self.processes[owner] = until
        return sum(1 for o, t in self.processes.items() if o != owner and t > now)

    async def hold_exclusive(self, name: str, owner: str) -> bool:
        """The first owner to ask holds `name` until it releases it (services sharing this
        store in one process stand for processes)."""
        return self.exclusive.setdefault(name, owner) == owner

    async def release_exclusive(self, name: str, owner: str) -> None:
        """Free `name` if `owner` holds it."""
        if self.exclusive.get(name) == owner:
            del self.exclusive[name]

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
