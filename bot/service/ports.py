"""The service's ports: what it needs from storage, from a chat platform and from the clock.

Adapters and storage back-ends implement these `typing.Protocol`s; the service never imports
them. Screens are platform-neutral: text plus rows of buttons that carry opaque tokens.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeGuard, TypeVar, runtime_checkable


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


@runtime_checkable
class PacedChannels(Protocol):
    """A notifier whose platform keeps a budget per channel (Telegram: edits per group): the
    table message's edit waits until `ready` (table_message.py). Declared by the notifiers
    that have it (`isinstance`), never looked up by name."""

    async def ready(self, channel: str) -> None:
        """Wait until the channel has room for a table message's edit."""
        ...


@runtime_checkable
class ShortBudget(Protocol):
    """A notifier whose platform can say that a channel's budget is short now: an edit would
    leave the calls it keeps for posts spent (Telegram's group minute); the table message then
    merges a finished deal's freeze with what follows (table_message.py)."""

    def short(self, channel: str) -> bool:
        """True when an edit in the channel now would spend the calls kept for posts."""
        ...


@runtime_checkable
class PacedPrivate(Protocol):
    """A notifier whose platform paces each private chat (Telegram: about one a second):
    what waits meanwhile goes as one message (outbox.py's private lanes)."""

    async def ready_private(self, user: str) -> None:
        """Wait until the user's private chat has room for a message."""
        ...


@runtime_checkable
class Refreshing(Protocol):
    """A notifier that can refresh a private view it showed in a chat (Discord's ephemeral
    "My hand"), so a player it cannot message directly is still told."""

    def refreshes(self, user: str) -> bool:
        """True when the user's private view in a chat can be refreshed now."""
        ...


_Capability = TypeVar("_Capability")
#: (a class, a capability Protocol) -> whether the class meets it: an `isinstance` against a
#: runtime-checkable Protocol walks its members each time (tens of thousands of instructions
#: on every command), so it is asked once per class (capabilities are methods of a class).
_CAPABLE: dict[tuple[type, type], bool] = {}


def capable(obj: object, capability: type[_Capability]) -> TypeGuard[_Capability]:
    """Whether `obj` declares `capability` (a runtime-checkable Protocol above)."""
    key = (type(obj), capability)
    known = _CAPABLE.get(key)
    if known is None:
        known = _CAPABLE[key] = isinstance(obj, capability)
    return known


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
