"""The commands adapters send, as values: each carries what the adapter already decoded (the
channel's table key, the sender, a press's decoded token, the words typed) and its `kind`,
the name commands are counted under. `TableService.handle(command)` runs each through one
table of handlers (service.py); adding a command is a value here, a handler, and its
adapters' lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from bot.service.table import TableKey, User
from bot.service.tokens import Token


@dataclass(frozen=True, slots=True)
class Command:
    """A command to the table service in a channel (`tk`)."""

    kind: ClassVar[str] = ""
    tk: TableKey


@dataclass(frozen=True, slots=True)
class Open(Command):
    """Open a table in the channel, or show the current one; `sit`: the opener sits down;
    `game`: a registered game instead of the channel's setting (`/karnaval`)."""

    kind: ClassVar[str] = "open"
    user: User
    sit: bool = True
    game: str | None = None


@dataclass(frozen=True, slots=True)
class Join(Command):
    """Sit down at the table's lobby (or take a seat back during a match)."""

    kind: ClassVar[str] = "join"
    user: User


@dataclass(frozen=True, slots=True)
class Leave(Command):
    """Leave the lobby, or forfeit the match under way."""

    kind: ClassVar[str] = "leave"
    user: User


@dataclass(frozen=True, slots=True)
class Kick(Command):
    """The host or a channel admin removes a seat (`who`: a name or a user key)."""

    kind: ClassVar[str] = "kick"
    user: User
    who: str


@dataclass(frozen=True, slots=True)
class Configure(Command):
    """Show (no `words`) or change the table's settings (`lives=5 timeout=90`)."""

    kind: ClassVar[str] = "configure"
    user: User
    words: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class Start(Command):
    """Start the match."""

    kind: ClassVar[str] = "start"
    user: User


@dataclass(frozen=True, slots=True)
class Stop(Command):
    """The host or a channel admin stops the table."""

    kind: ClassVar[str] = "stop"
    user: User


@dataclass(frozen=True, slots=True)
class Act(Command):
    """One of the game's choices for the sender's seat (typed: `seq` None)."""

    kind: ClassVar[str] = "act"
    user: User
    action: str
    seq: int | None = None
    arg: str | None = None


@dataclass(frozen=True, slots=True)
class NextRound(Command):
    """Deal the next round now instead of waiting for the delay."""

    kind: ClassVar[str] = "next_round"
    user: User
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class PrivateView(Command):
    """A seated player's private screen, for a popup or an ephemeral message."""

    kind: ClassVar[str] = "private_view"
    user: User


@dataclass(frozen=True, slots=True)
class AskHint(Command):
    """A seated person's hint at a table with `hints=on`, for the sender only."""

    kind: ClassVar[str] = "hint"
    user: User


@dataclass(frozen=True, slots=True)
class Press(Command):
    """A button pressed: its token as sent, or as the adapter already decoded it (decoded
    once). The token names the table (found by its id, wherever it was pressed)."""

    kind: ClassVar[str] = "press"
    user: User
    token: str | Token


@dataclass(frozen=True, slots=True)
class Stats(Command):
    """A player's statistics in this chat."""

    kind: ClassVar[str] = "stats"
    user: User


@dataclass(frozen=True, slots=True)
class Top(Command):
    """The chat's best players."""

    kind: ClassVar[str] = "top"
    limit: int = 10


@dataclass(frozen=True, slots=True)
class Export(Command):
    """The record of the current or last match, as a JSON file."""

    kind: ClassVar[str] = "export"


@dataclass(frozen=True, slots=True)
class Rules(Command):
    """The rules of the game the table plays."""

    kind: ClassVar[str] = "rules"


@dataclass(frozen=True, slots=True)
class Sheet(Command):
    """The whole score sheet of the table's match, where its game keeps one."""

    kind: ClassVar[str] = "sheet"


@dataclass(frozen=True, slots=True)
class Log(Command):
    """The whole log of the round under way (or the last one)."""

    kind: ClassVar[str] = "log"


@dataclass(frozen=True, slots=True)
class Help(Command):
    """How to play with the bot."""

    kind: ClassVar[str] = "help"
