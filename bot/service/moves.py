"""The values a game and the service exchange about moves: a log line, a seat's `Choice`, the
`Outcome` of a step, a `Hint`, a choice listed for a private pick, and the refusal of an
illegal choice (`GameRuleError`). Plain values: nothing of the service, so the table and the
game interface both build on them (game.py re-exports them for the games)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

#: A line of the round's log: a catalog key and its parameters (rendered per language).
LogLine = tuple[str, dict[str, Any]]

#: How a choice's button looks on each platform (primary, secondary, danger, success).
Role = Literal["primary", "secondary", "danger", "success"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal choice of one seat: an action, maybe an argument, and how to show it.

    `action` is `[a-z_]{1,12}` and `arg` `[0-9A-Za-z_.+-]{1,24}` (they travel in button tokens,
    see tokens.py); `label` is a catalog line; `row` groups buttons. Two choices are the same
    choice when their action and argument are: label, role and row only describe it.
    """

    action: str
    arg: str | None = None
    label: LogLine = ("", {})
    role: Role = "secondary"
    row: int = 0

    @property
    def key(self) -> tuple[str, str | None]:
        """What identifies the choice: its action and argument."""
        return (self.action, self.arg)


@dataclass(slots=True)
class Outcome:
    """What one step of a match (a deal, an action, a forfeit) produced, for the service."""

    log: list[LogLine] = field(default_factory=list)  # public lines, in order
    private: list[tuple[int, LogLine]] = field(default_factory=list)  # (seat, line) for one seat
    round_over: bool = False
    round_stats: dict[int, dict[str, int]] = field(default_factory=dict)  # seat -> counters
    #: Where each of `private`'s lines (in order) belongs in the story: how many of `log`'s
    #: lines come before it. A line without one (added to `private` directly) follows the
    #: whole step. A terminal prints it there: "You drew 10" before the reveal it led to.
    private_after: list[int] = field(default_factory=list)
    #: Seats the step put out of the match by the game's rules (Gnav: no lives left, N22);
    #: the service keeps them (`Seat.out`), as it keeps the seats that left.
    out: list[int] = field(default_factory=list)

    def tell(self, seat: int, line: LogLine) -> None:
        """A private line for `seat`, placed after the public lines logged so far."""
        self.private_after.append(len(self.log))
        self.private.append((seat, line))


@dataclass(frozen=True, slots=True)
class PrivateChoice:
    """One choice a person may make now, to list where the platform lets them pick privately
    inside a chat (Telegram's inline mode): its button token, label, what the seat holds, and
    the neutral text that appears in the chat when it is picked (it names no card)."""

    token: str
    label: str
    hand: str
    sent: str


@dataclass(frozen=True, slots=True)
class Hint:
    """What the `strong` level would choose for a seat (issue 33's hint for people learning),
    from that seat's own knowledge only: the choice (one of the seat's `choices`), the share
    of the sampled deals in which that choice comes through the round unharmed (no life lost,
    no chip paid), and how many deals were sampled."""

    choice: Choice
    share: float
    worlds: int


class GameRuleError(Exception):
    """A choice the game's rules refuse: the rule id, a catalog key and its parameters, so the
    refusal reads in the table's language; `message` is English, for logs and records."""

    def __init__(
        self, rule: str, key: str, params: dict[str, Any] | None = None, message: str = ""
    ) -> None:
        super().__init__(message or key)
        self.rule = rule
        self.key = key
        self.params = params or {}
        self.message = message or key
