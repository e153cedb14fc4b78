"""A table: one per channel (and thread), with its lobby, seats, settings, match and timer.

The table is the unit of locking and of storage: `to_row` / `from_row` turn it into the JSON
state a `Repository` keeps. The game's match is held as the game's own object in memory and
stored through the game's `dump`; the finished parts of a dump (`bot.service.parts.PARTS`) are
stored once each beside the row (`TableRow.parts`, append-only) and the row keeps their count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from bot.service.moves import Choice, LogLine, Outcome
from bot.service.parts import PARTS
from bot.service.ports import Screen, TablePart, TableRow
from bot.service.settings import TableSettings, load_settings

Status = Literal["lobby", "playing", "closed"]
DeadlineKind = Literal["lobby", "turn", "bot", "next"]

#: A seat's choice mark after it acted: never a real mark, so its version moves at the commit.
ACTED = "*"

#: Prefix of the user keys of bot seats.
BOT_PREFIX = "bot:"


class Codec(Protocol):
    """What a table asks of its game's rules (`bot/service/game.py`'s `GameRules`): its match
    in JSON and back, who decides, and a seat's choices."""

    def dump(self, match: Any) -> dict[str, Any]: ...
    def load(self, data: dict[str, Any]) -> Any: ...
    def deciders(self, match: Any) -> Sequence[int]: ...
    def choices(self, match: Any, seat: int) -> Sequence[Choice]: ...


@dataclass(frozen=True, slots=True)
class TableKey:
    """Where a table lives: platform, chat, and thread or forum topic when there is one."""

    platform: str
    chat: str
    thread: str | None = None
    #: The table's storage key, e.g. `telegram:-1001:42` (made once: every step reads it).
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        base = f"{self.platform}:{self.chat}"
        object.__setattr__(self, "key", f"{base}:{self.thread}" if self.thread else base)

    @property
    def chat_key(self) -> str:
        """The chat's key, for statistics shared by its threads."""
        return f"{self.platform}:{self.chat}"

    @classmethod
    def parse(cls, key: str) -> TableKey:
        """The inverse of `key`."""
        platform, _, rest = key.partition(":")
        chat, _, thread = rest.partition(":")
        return cls(platform, chat, thread or None)


@dataclass(frozen=True, slots=True)
class User:
    """Who sent a command: a user key (`telegram:123`), a display name, channel-admin rights,
    and the language the platform reports for the user, when it does."""

    key: str
    name: str
    admin: bool = False
    language: str | None = None


@dataclass(slots=True)
class Seat:
    """A seat at the table."""

    user: str
    name: str
    bot: bool = False
    timeouts: int = 0  # turns timed out in a row
    #: The seat's own version, carried by the buttons of its choices (see tokens.py).
    seq: int = 0
    #: The choices that version was given for (compared after every step).
    mark: str = ""
    #: The player left the match (or was made to: timeouts, a kick); the service plays its
    #: timeout choices while the game still has it decide, until it takes the seat back.
    #: A seat stored before the service kept this reads False: the game's own state still
    #: refuses what such a seat may no longer do.
    left: bool = False
    #: Put out of the match by the game's rules (`Outcome.out`: Gnav's lives, a broke player).
    out: bool = False

    @property
    def in_match(self) -> bool:
        """Still in the match: neither left nor put out."""
        return not (self.left or self.out)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`left` and `out` only when true: most seats never are)."""
        data: dict[str, Any] = {
            "user": self.user,
            "name": self.name,
            "bot": self.bot,
            "timeouts": self.timeouts,
            "seq": self.seq,
            "mark": self.mark,
        }
        if self.left:
            data["left"] = True
        if self.out:
            data["out"] = True
        return data


@dataclass(slots=True)
class TableCache:
    """What a process keeps beside a stored table, never stored: renderings, each seat's
    choices in the state now, the parts of the match already stored, the table message kept
    for the next deal, and whose turns timed out."""

    # Not stored: the round's log lines already rendered, and for which log (the list itself,
    # held: never another list at its address) and catalog (`Screens.round_log`).
    rendered_log: list[str] = field(default_factory=list)
    rendered_for: tuple[object, object] | None = None
    # Not stored: user key -> the state version their turn timed out at (a press of that
    # version's buttons is answered "your time ran out", not "out of date").
    timed_out: dict[str, int] = field(default_factory=dict)
    # Not stored: each seat's choices in the state of version `choices_seq`, built once per
    # state (a press's check, the seat's mark, keyboards and views all read them).
    choices: dict[int, tuple[Choice, ...]] = field(default_factory=dict)
    choices_seq: int = -1
    # Not stored: the seats deciding in the state of (`seq`, the match), asked once per state
    # (`Table.deciders_for`); forgotten when a step begins (`Play.after_step`).
    deciders: tuple[int, ...] = ()
    deciders_at: tuple[int, int] | None = None
    # Not stored in the row: where the match's finished parts are stored (the row's key and
    # the match), and how many: `to_row` hands the store only the parts after those.
    parts_stored: tuple[str, str | None, int] = ("", None, 0)
    # Not stored: the table message posted at a round's end (its buttons, no note), with the
    # row version and `seq` of the state it shows (that the posting command committed):
    # until the next deal, which freezes that very state (the screen without its buttons).
    kept_screen: tuple[int, int, Screen] | None = None
    # Not stored: the table message as last rendered in full (buttons, no note), with the
    # row version and `seq` of the state it shows: the web pages pushed after that commit
    # show the same message, not rendered again.
    shown: tuple[int, int, Screen] | None = None
    # Not stored: each seat's choices as its buttons say them (label, token), with the `seq`,
    # the seat's version and the catalog they were made in (`Screens.labelled`).
    labelled: dict[int, tuple[int, int, object, tuple[tuple[Choice, str, str], ...]]] = field(
        default_factory=dict
    )


@dataclass(slots=True)
class Table:
    """One table and everything needed to resume it after a restart."""

    key: TableKey
    table_id: str
    game: str
    settings: TableSettings
    status: Status = "lobby"
    host: str | None = None
    seats: list[Seat] = field(default_factory=list)
    seq: int = 0  # state version carried by button tokens
    created_at: float = 0.0
    updated_at: float = 0.0
    deadline: float | None = None
    deadline_kind: DeadlineKind | None = None
    match: Any = None
    match_id: str | None = None
    log: list[LogLine] = field(default_factory=list)  # the round's public lines
    message_ref: str | None = None  # the table message, edited in place
    #: How many table messages were posted (each new round's, a restored table's): a shot of
    #: an earlier one is out of date (that message's freeze shows how it ended).
    message_no: int = 0
    closed_reason: str | None = None
    row_version: int | None = None  # storage version last read or written
    #: What this process keeps beside the table and never stores (built again after a load).
    cache: TableCache = field(default_factory=TableCache)

    def seat_of(self, user: str) -> int | None:
        """The seat index of a user, if seated."""
        for i, seat in enumerate(self.seats):
            if seat.user == user:
                return i
        return None

    @property
    def names(self) -> list[str]:
        """Seat names in seat order."""
        return [s.name for s in self.seats]

    @property
    def humans(self) -> list[Seat]:
        """Seats of people."""
        return [s for s in self.seats if not s.bot]

    def deciders_for(self, rules: Codec) -> tuple[int, ...]:
        """The seats deciding in the table's state now, asked once per state (its version
        `seq` and its match): for where the state is settled (a command's check, the seats'
        versions, the deadline, the screens, the views), never between a step's moves (those
        ask the rules themselves)."""
        at = (self.seq, id(self.match))
        if self.cache.deciders_at != at:
            self.cache.deciders = tuple(rules.deciders(self.match))
            self.cache.deciders_at = at
        return self.cache.deciders

    def choices_for(self, rules: Codec, seat: int) -> tuple[Choice, ...]:
        """`seat`'s choices in the table's state now, built once per state: a step moves the
        table's version (`seq`) before anyone reads them again."""
        if self.cache.choices_seq != self.seq:
            self.cache.choices.clear()
            self.cache.choices_seq = self.seq
        found = self.cache.choices.get(seat)
        if found is None:
            found = self.cache.choices[seat] = tuple(rules.choices(self.match, seat))
        return found

    def put_out(self, outcome: Outcome) -> None:
        """Keep the seats a step of the game put out of the match (`Outcome.out`)."""
        for seat in outcome.out:
            self.seats[seat].out = True

    def to_row(self, rules: Codec) -> TableRow:
        """The storage row (its version is the next one)."""
        state = {
            "format": 1,
            "platform": self.key.platform,
            "chat": self.key.chat,
            "thread": self.key.thread,
            "table_id": self.table_id,
            "game": self.game,
            "settings": self.settings.stored(),
            "status": self.status,
            "host": self.host,
            "seats": [s.to_dict() for s in self.seats],
            "seq": self.seq,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "deadline": self.deadline,
            "deadline_kind": self.deadline_kind,
            "match": None,
            "match_id": self.match_id,
            "log": [[k, p] for k, p in self.log],
            "message_ref": self.message_ref,
            "message_no": self.message_no,
            "closed_reason": self.closed_reason,
        }
        new_parts: list[TablePart] = []
        if self.match is not None:
            dump = rules.dump(self.match)
            parts = dump.get(PARTS)
            if isinstance(parts, list):
                key, owner, stored = self.cache.parts_stored
                if (key, owner) != (self.key.key, self.match_id):
                    stored = 0  # a new match, or the table moved: its parts start afresh
                owner = self.match_id or ""
                new_parts = [
                    TablePart(seq, owner, part) for seq, part in enumerate(parts[stored:], stored)
                ]
                dump = {**dump, PARTS: len(parts)}  # the row keeps their count only
            state["match"] = dump
        return TableRow(
            key=self.key.key,
            version=(self.row_version or 0) + 1,
            status=self.status,
            state=state,
            deadline=self.deadline,
            updated_at=self.updated_at,
            table_id=self.table_id,
            parts=new_parts,
        )

    def parts_saved(self, row: TableRow) -> None:
        """`row` (from `to_row`) is stored: its parts count as stored from now on."""
        if row.parts:
            self.cache.parts_stored = (row.key, self.match_id, row.parts[-1].seq + 1)

    @classmethod
    def from_row(cls, row: TableRow, games: Mapping[str, Codec]) -> Table:
        """Rebuild a table from storage; its stored `game` picks its rules from `games`."""
        s = row.state
        if s.get("format") != 1:
            raise ValueError(f"table {row.key}: unknown state format {s.get('format')!r}")
        rules = games.get(s.get("game", ""))
        if rules is None:
            raise ValueError(f"table {row.key}: its game {s.get('game')!r} is not hosted here")
        match = s["match"]
        count = match.get(PARTS) if isinstance(match, dict) else None
        if isinstance(count, int):
            parts = [p for p in row.parts if p.owner == (s["match_id"] or "")][:count]
            if [p.seq for p in parts] != list(range(count)):
                raise ValueError(f"table {row.key}: {count} finished parts stored, not found")
            match = {**match, PARTS: [p.data for p in parts]}
        table = cls(
            key=TableKey(s["platform"], s["chat"], s["thread"]),
            table_id=s["table_id"],
            game=s["game"],
            settings=load_settings(s["settings"], s["game"]),
            status=s["status"],
            host=s["host"],
            seats=[Seat(**seat) for seat in s["seats"]],
            seq=s["seq"],
            created_at=s["created_at"],
            updated_at=s["updated_at"],
            deadline=s["deadline"],
            deadline_kind=s["deadline_kind"],
            match=None if match is None else rules.load(match),
            match_id=s["match_id"],
            log=[(k, p) for k, p in s["log"]],
            message_ref=s["message_ref"],
            # Table states stored before shots of the table (the outbox's v5) have no number.
            message_no=s.get("message_no", 0),
            closed_reason=s["closed_reason"],
            row_version=row.version,
        )
        if isinstance(count, int):
            table.cache.parts_stored = (row.key, s["match_id"], count)
        return table
