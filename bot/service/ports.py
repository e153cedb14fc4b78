"""The service's ports: what it needs from storage, from a chat platform and from the clock.

Adapters and storage back-ends implement these `typing.Protocol`s; the service never imports
them. Screens are platform-neutral: text plus rows of buttons that carry opaque tokens.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Button:
    """A button: its label and the token a press sends back (at most 64 bytes, see tokens.py)."""

    label: str
    token: str
    #: How it looks: "primary", "secondary", "danger" or "success" (each platform's style).
    role: str = "secondary"
    #: A link button: opens this address instead of sending a token (the web table's page);
    #: `token` is then empty.
    url: str = ""
    #: What it does, for an adapter that adds something beside it (a link to the private
    #: chat): a table action ("join", "leave", "start", "view", "next", "hint") or a game's
    #: "choice".
    #: An adapter reads this, never the label (which is in the table's language).
    kind: str = "choice"


@dataclass(frozen=True, slots=True)
class Picture:
    """A picture that goes with a message (a score sheet): a PNG file and its text.

    `alt` says in text what the picture shows, for where no picture can be shown (a
    terminal); it is preformatted (columns kept), like a screen's `blocks`.
    """

    filename: str
    data: bytes
    alt: str = ""

    def __repr__(self) -> str:
        # The bytes are long: a fingerprint of them stands in (screens are compared by value).
        crc = zlib.crc32(self.data)
        return f"Picture({self.filename!r}, {len(self.data)} bytes, crc {crc:08x}, {self.alt!r})"


@dataclass(frozen=True, slots=True)
class Screen:
    """A platform-neutral message: plain text and rows of buttons.

    `literals` are the pieces of the text people chose (player names, values they typed):
    a platform shows them as typed, never as a link, a command, a mention or markup.
    `blocks` are preformatted pieces of the text (a score grid, on lines of their own): shown
    in monospace with their columns kept (Telegram's `pre`, a Discord code block).
    `image` is a picture posted with the message (a photo with the text as its caption, an
    attachment); it belongs to the message once posted: an edit changes its text and buttons
    only, and a platform without pictures shows the picture's `alt` text instead.
    `log` is the round's whole log, one entry a line, in order (the text shows the round's
    state and only the newest of these entries: `GameView.recent_events`): it only grows while
    a message shows one round, so a platform that cannot edit (a terminal) prints the
    entries it has not shown yet, without reading the text. A private message about a step
    of the round carries the round's log up to the event it tells of, so such a platform
    prints it right after that entry ("You drew 10" before the reveal the draw led to).
    `told` are lines of the text that repeat what the round's log has told (a reveal's cards
    and payments, when the game logs them as they happen): a chat shows them, each message
    stands on its own; a platform that printed that log as one story (a terminal) leaves
    them out, so it prints each line once.
    """

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    literals: tuple[str, ...] = ()
    blocks: tuple[str, ...] = ()
    image: Picture | None = None
    log: tuple[str, ...] = ()
    #: The language the screen is written in (a catalog language; "" when not known), for
    #: what an adapter adds in its own words (a button beside the screen's).
    language: str = ""
    told: tuple[str, ...] = ()


class Delivery(Enum):
    """What became of a private message."""

    DELIVERED = "delivered"
    UNREACHABLE = "unreachable"  # the platform refuses for good (never started, DMs closed)
    FAILED = "failed"  # a passing failure: network, rate limit past its retries


class MessageGone(Exception):
    """Raised by `Notifier.edit` when the message no longer exists (someone deleted it)."""


class Notifier(Protocol):
    """Sends what the service has to say. `channel` is a table key, `user` a user key."""

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Post a new public message; returns a reference for `edit`, or None when it failed."""
        ...

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Replace a posted message's text and buttons; an identical edit counts as success.

        False when the edit failed (it is not retried); MessageGone when the message was
        deleted, so the outbox posts the table message again.
        """
        ...

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Send a private message to one player."""
        ...


class PageLinks(Protocol):
    """Addresses of the web table (docs/web.md), for the link buttons the service shows."""

    def table_link(self, table_id: str, platform: str) -> str | None:
        """The public address of a table, as a chat of `platform` opens it (Telegram: the Mini
        App's `t.me` link); None when there is none."""
        ...

    def seat_link(self, table_id: str, user: str) -> str | None:
        """A player's own signed address of a table (to send to that player only); None when
        there is none."""
        ...

    def replay_link(self, table_id: str) -> str | None:
        """The address of the replay of a table's finished match; None when there is none."""
        ...


class Clock(Protocol):
    """Wall-clock time in seconds since the epoch (deadlines are stored in it)."""

    def now(self) -> float:
        """The current time."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        """`time.time()`."""
        return time.time()


@dataclass(slots=True)
class StatDelta:
    """What one round or match adds to a player's statistics of one game in one chat.

    `counters` maps the game's counter names (`GameView.stat_counters`) to what they grow by;
    a counter named `best_...` keeps the highest value given instead (a best game total).
    """

    chat: str
    user: str
    name: str
    game: str
    counters: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class PlayerStats:
    """A player's statistics of one game in one chat: the game's counters (absent ones are 0)."""

    user: str
    name: str
    game: str
    counters: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class FinishedMatch:
    """A match that ended, kept with its record for `export` and history."""

    match_id: str
    chat: str
    table_key: str
    game: str
    record: dict[str, Any]
    winners: list[str]
    finished_at: float


@dataclass(frozen=True, slots=True)
class TablePart:
    """A finished part of a table's match (a round that is over, with all its moves): a JSON
    object that never changes once stored, so that it is written once, not with every move.

    `seq`: its 0-based place among the parts of the match; `owner`: the match it belongs to
    (the table's `match_id`). See `TableRow.parts` and `bot.service.parts.PARTS`.
    """

    seq: int
    owner: str
    data: dict[str, Any]


@dataclass(slots=True)
class TableRow:
    """A stored table: its key, optimistic version and JSON state (opaque to storage).

    `parts` (append-only, opaque to storage too): when the row is loaded, every finished part
    stored under its key, by `seq`; when it is saved, the parts to add in the same transaction,
    each stored once and never rewritten. A part of `seq` 0 starts the key's parts afresh (a new
    match, or a table moved to this key): the parts stored under the key before are dropped.
    Saving a row without parts leaves the stored ones as they are.
    """

    key: str
    version: int
    status: str
    state: dict[str, Any]
    deadline: float | None = None
    updated_at: float = field(default=0.0)
    #: The table's random id (None for a row without one), to find the table by it.
    table_id: str | None = None
    #: The table message's reference as last delivered (the outbox store's), where known
    #: (`load_active_tables` fills it in).
    message_ref: str | None = None
    #: Finished parts: all of them when loaded, the ones to add when saved (see above).
    parts: list[TablePart] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TableShot:
    """The table message as the committed table shows it, rendered when it is delivered.

    The outbox stores this instead of a rendered screen wherever the table's current state is
    what is to be shown (an edit in place, a restored table's new message and the freeze of its
    old one): delivery renders it once, however many edits the platform's pace merged, and an
    edit sent again after a crash shows the newest state, never an older one. Notifiers never
    see one: the outbox renders it first.

    `table_id`: the table shown (a newer table at the same key does not stand in for it);
    `message`: which of the table's messages (its count of table messages posted): once a
    newer one was posted, this shot is out of date and not shown (the newer message's freeze
    of the old one shows how it ended); `version`: the table's stored version this shot was
    committed with (delivery renders that version or a newer one); `note`: a line above the
    table; `buttons`: with its buttons.
    """

    table_id: str
    message: int = 0
    version: int = 0
    note: str | None = None
    buttons: bool = True


@dataclass(slots=True)
class OutMessage:
    """One thing the bot must say, stored with the state change that causes it (the outbox).

    `kind`: "post_table" (a new table message; the old one is first edited to `freeze`),
    "edit" (the table message), "post" (a public message), "tell" (a private message to
    `user`). `id` is given by the store (increasing: the order of delivery per table);
    `attempts` counts how often it was claimed (more than one: a deliverer died holding it).
    `screen` and `freeze` are rendered screens, or `TableShot`s rendered at delivery (or
    earlier, by the process that committed them, which may keep that rendering in memory).
    """

    kind: str
    screen: Screen | TableShot
    user: str | None = None
    freeze: Screen | TableShot | None = None
    id: int = 0
    table_key: str = ""
    created_at: float = 0.0
    attempts: int = 0


@dataclass(slots=True)
class OutBatch:
    """Messages of one table claimed for delivery, oldest first, with the table message's
    reference as last delivered (by any process)."""

    table_key: str
    ref: str | None
    messages: list[OutMessage] = field(default_factory=list)
    #: The claim stopped at its batch size: the table may have more waiting in the store.
    more: bool = False


@dataclass(frozen=True, slots=True)
class Claim:
    """Who claims (a process id) and until when (the lease: after it, others may take over)."""

    owner: str
    now: float
    until: float


class PlatformError(Exception):
    """A chat platform cannot start (e.g. its token was rejected); the message is for people."""


class PlatformMisconfigured(PlatformError):
    """A platform refused the configuration itself (a token it rejects, a token that cannot be
    one, a webhook it does not accept): starting again will not help until the settings are
    fixed (`gnav-bot run` exits with EX_CONFIG, 78, which its supervisor does not restart)."""


class PlatformUnreachable(PlatformError):
    """A platform's servers could not be reached (no network, DNS, an outage): worth trying
    again, unlike a rejected token."""


class ConflictError(Exception):
    """The stored version is not the one the writer read: another process changed the table."""


class StoreError(Exception):
    """The store cannot be opened; the message is one line naming the store and the cause."""


class StoreUnavailable(Exception):
    """The store cannot be reached or written now (connection refused or lost, disk full, an
    I/O error), but may come back by itself: nothing of the write was stored. `reason` is one
    line for the log (never a password)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StoreLost(Exception):
    """The store went away under the running bot (its file deleted or replaced): nothing can
    be saved any more, and the process must stop so that its supervisor restarts it."""


class Repository(Protocol):
    """Durable storage for tables, settings, players, statistics and finished matches.

    `save_table` is one transaction: the table, the statistics and a finished match are either
    all stored or none is. It returns only once the data is durable.
    """

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
