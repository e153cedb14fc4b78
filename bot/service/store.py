"""The store's port: what the service asks of `storage/` (memory, SQLite, PostgreSQL), which
implements it; the values it keeps and hands back are ports.py's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bot.service.ports import (
    Claim,
    FinishedMatch,
    OutBatch,
    OutMessage,
    PlayerStats,
    StatDelta,
    TableRow,
)


class Repository(Protocol):
    """Durable storage for tables, settings, players, statistics and finished matches.

    `save_table` is one transaction: the table, the statistics and a finished match are either
    all stored or none is. It returns only once the data is durable.
    """

    #: Whether other processes share the store (PostgreSQL): a cached table is checked
    #: against the stored version at every load, timers are claimed through the store, and
    #: every message is stored with its commit.
    shared: bool

    async def load_table(self, key: str) -> TableRow | None:
        """The stored table under `key`, if any."""
        ...

    async def load_table_by_id(self, table_id: str) -> TableRow | None:
        """The stored table carrying `table_id`, if any.

        Several rows may carry one id (a table moved to a new chat id leaves a closed row
        behind): a table that is not closed wins, then the one updated last.
        """
        ...

    async def load_active_tables(self) -> list[TableRow]:
        """Every table that is not closed (to resume after a restart)."""
        ...

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
        """Store `row` (and append `row.parts`) if the stored version is `expected_version`
        (None: a new table).

        Raises ConflictError otherwise. `messages` are added to the table's outbox in the same
        transaction; with `claim`, they (and any earlier ones nobody holds) are claimed for
        delivery by `claim.owner` and returned, unless another owner's lease on the table's
        outbox is still running (then None: that owner delivers them after its own).
        Storing a row also releases the table's timer claim.
        """
        ...

    async def table_version(self, key: str) -> int | None:
        """The stored version of a table (a cheap check that a cached copy is current)."""
        ...

    async def add_messages(
        self, table_key: str, messages: Sequence[OutMessage], claim: Claim | None = None
    ) -> OutBatch | None:
        """Add messages to a table's outbox without changing the table (as `save_table`)."""
        ...

    async def finish_messages(
        self,
        table_key: str,
        done: Sequence[int],
        claim: Claim,
        *,
        ref: str | None = None,
        set_ref: bool = False,
    ) -> OutBatch | None:
        """Mark `done` delivered (and store the table message's new `ref` when `set_ref`),
        then claim the table's next undelivered messages for `claim.owner` unless another
        owner holds a running lease on them. None when nothing more is to be delivered."""
        ...

    async def mark_delivered(
        self, done: Sequence[int], refs: Mapping[str, str | None] | None = None
    ) -> None:
        """Mark messages of any tables delivered (deleted) and store tables' message
        references (`refs`: table key -> ref), in one transaction: the bulk marking of the
        store's only process."""
        ...

    async def claim_stale_messages(self, claim: Claim, limit: int = 100) -> list[OutBatch]:
        """Claim the outboxes of tables whose undelivered messages nobody holds (their
        deliverer died or never claimed them), up to `limit` tables, oldest first. A claim of
        a process known dead (its heartbeat ended) holds nothing, whatever its lease."""
        ...

    async def live_processes(self, now: float) -> list[str]:
        """The owners whose heartbeat says they live at `now`."""
        ...

    async def chat_calls(self, chat: str, since: float, owner: str) -> list[float]:
        """When processes other than `owner` called the platform in `chat` since `since`
        (`add_chat_call`): a budget per bot token shared by processes; [] where the store
        serves one process."""
        ...

    async def add_chat_call(self, chat: str, at: float, owner: str) -> None:
        """Record that `owner` called the platform in `chat` at `at` (forgotten after an
        hour); nothing where the store serves one process."""
        ...

    async def gone_processes(self, now: float) -> list[str]:
        """Of the owners whose heartbeat says they live at `now`, those the store knows are
        gone all the same (PostgreSQL: the session their process held is closed); [] where
        only the heartbeat tells."""
        ...

    async def claim_timers(
        self, claim: Claim, limit: int = 100, keys: Sequence[str] | None = None
    ) -> list[str]:
        """Claim tables whose deadline is due and whose timer nobody holds (of `keys` only,
        when given); each is acted on by the one owner that claimed it."""
        ...

    async def heartbeat(self, owner: str, now: float, until: float | None) -> int:
        """Record that process `owner` lives until `until` (None: it is stopping); returns
        how many other processes are alive at `now`."""
        ...

    async def hold_exclusive(self, name: str, owner: str) -> bool:
        """Take or keep the store-wide lock `name` for process `owner`: True while `owner`
        holds it (taken now, or still held), False while another process holds it.

        One holder among all the processes on the store, for a job only one of them may do
        (Telegram's long polling of one bot). PostgreSQL: a session advisory lock on a
        connection of the holder's own, so it is free the moment that process dies (its
        connection closes), whatever it was doing. A store of one process: always True.
        Raises StoreUnavailable when the store cannot tell (a holder may have lost it then).
        """
        ...

    async def release_exclusive(self, name: str, owner: str) -> None:
        """Let the lock `name` go (`owner` stops doing the job); nothing if it was not held."""
        ...

    async def load_settings(self, channel: str) -> dict[str, Any] | None:
        """The settings last used in a channel."""
        ...

    async def save_settings(self, channel: str, settings: dict[str, Any]) -> None:
        """Remember a channel's settings for its next table."""
        ...

    async def load_player(self, user: str) -> dict[str, Any] | None:
        """What is known of a player: name, private reachability, language."""
        ...

    async def save_player(self, user: str, data: dict[str, Any]) -> None:
        """Store what is known of a player."""
        ...

    async def player_stats(self, chat: str, user: str, game: str) -> PlayerStats | None:
        """One player's statistics of `game` in a chat."""
        ...

    async def chat_stats(self, chat: str, game: str) -> list[PlayerStats]:
        """The statistics of every player of `game` in a chat (by user; ranking is the game's)."""
        ...

    async def last_finished_match(self, table_key: str) -> FinishedMatch | None:
        """The newest finished match of a table."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
