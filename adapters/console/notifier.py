"""A `Notifier` for the terminal: public messages and the player's private screens, printed.

A terminal cannot edit what it printed, so an edit of the table message prints only the
entries of the round's log (`Screen.log`) that are new since that message was last shown. Nor
can it show a picture: a message's picture (a score sheet) is printed as its text
(`Picture.alt`) under the message's first line, the PNG itself is not shown or written.

The terminal's table is told, not polling: every message delivered here wakes whoever waits
in `changed()` (the game loop of adapters/console/play.py), which then looks at the table once.

Private messages travel in a lane of their own (the outbox never holds them behind the
table's), but a terminal shows one story: a private line is printed after the public message
delivered next (the public event it belongs to: the deal, the swap, the round's last moves
before its reveal), or when the game loop has nothing more coming (`show_private`). One that
names its place in the round's log (`Screen.log`: the entries up to the event it tells of) is
printed right after that entry, and waits for it while it is still to come. A new message's
lines that repeat the round's log just printed (`Screen.told`) are left out of it.

The terminal's table view: the table message's compact state (the game's `render_status`,
the block a chat shows, with whose turn it is and the time left, `state_block`) is printed
when a new message is, again before the local player's question when it changed since it was
last printed (`show_state`), and whenever the player types `table`; the log's entries are
printed as they happen in between, so the same block is never printed twice in a row.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from bot.service.ports import Button, Delivery, Screen


def _choice_labels(buttons: Sequence[Sequence[Button]]) -> list[str]:
    return [b.label for row in buttons for b in row if b.kind == "choice" and not b.url]


def _holding(line: str) -> tuple[str, ...]:
    """What a line says one holds, compared as a set of words: the words after its last
    `: `, trump marks left out, in any order (the deal's `Your hand: K♣ 7♥` and a question's
    sorted `Your hand (* trump): 7♥* K♣` say the same)."""
    return tuple(sorted(w.strip("*") for w in line.rpartition(": ")[2].split()))


def private_lines(text: str, labels: Sequence[str] = ()) -> list[str]:
    """The lines of a private screen the terminal prints: without the line (after the first)
    that names every one of the question's choices (`labels`: the terminal lists them)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if not labels:
        return lines
    return lines[:1] + [line for line in lines[1:] if not all(label in line for label in labels)]


def state_block(screen: Screen) -> list[str]:
    """The table message's state as the terminal's table view prints it: its lines without
    the round log's newest entries it shows under the state, after its separator (the
    terminal printed those as they happened), but with what follows them (whose turn); a
    message that is no round's (a lobby, a deal's reveal and score sheet) is its whole text."""
    lines = [line for line in screen.text.split("\n") if line.strip()]
    if not screen.log or "—" not in lines:
        return lines  # no newest events under the state (the state says them all)
    cut = lines.index("—")
    logged = set(screen.log)
    return lines[:cut] + [line for line in lines[cut + 1 :] if line not in logged]


class ConsoleNotifier:
    """Prints the table's messages; private messages go to the one local player."""

    def __init__(self, console: Console, player: str) -> None:
        self.console = console
        self.player = player
        #: The entries of its round's log each printed message has shown.
        self._shown: dict[str, tuple[str, ...]] = {}
        #: Private screens told and not yet printed.
        self._told: list[Screen] = []
        self._count = 0
        #: This process's own message references (a restored table's old message is not one).
        self._run = uuid.uuid4().hex[:8]
        #: What the hand printed last says (`_holding`), to print it once per question.
        self._held: tuple[str, ...] | None = None
        self._pushed: asyncio.Event | None = None
        #: The local player's newest private screen (what they hold, their choices).
        self.private: Screen | None = None
        #: The round log's entries of the message printed last, as far as printed.
        self._printed: tuple[str, ...] = ()
        #: The table message as it stands now (the newest post or edit of this process's).
        self.table: Screen | None = None
        #: The state block printed last (`state_block`), never printed twice in a row.
        self._state: list[str] | None = None

    def _event(self) -> asyncio.Event:
        if self._pushed is None:
            self._pushed = asyncio.Event()
        return self._pushed

    def _push(self) -> None:
        self._event().set()

    async def changed(self) -> None:
        """Wait until something was delivered since the last wait returned."""
        event = self._event()
        await event.wait()
        event.clear()

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Print a new message in full."""
        self._count += 1
        ref = f"{self._run}.{self._count}"
        self._shown[ref] = screen.log
        self.table = screen
        self._state = state_block(screen)  # the new message prints it in full below
        told = self._printed  # the round's log printed last: one story, each line once
        self._printed = screen.log
        self.console.print()
        lines = screen.text.split("\n")
        if told and screen.told:
            # The lines the round's log just printed (a reveal's cards and payments, when the
            # game logs them as they happen) are not repeated; a chat shows both messages.
            repeated = list(screen.told)
            kept = []
            for line in lines:
                if line in repeated:
                    repeated.remove(line)
                else:
                    kept.append(line)
            lines = kept
        if screen.image is not None and screen.image.alt:
            # What the picture shows, as text, under the message's heading (a score sheet
            # under its title, before the lines that follow it: the winners, what comes next).
            lines[1:1] = screen.image.alt.split("\n")
        # A private line told before this message and placed at no entry of a round's log
        # (what a player was dealt) comes before the round's first entry, which may name it:
        # "You were dealt Narr" before "«Bank, bank, bank!»" (cause before effect). A
        # question (a screen with choices) always follows the message it depends on.
        first = lines.index(screen.log[0]) if screen.log and screen.log[0] in lines else -1
        early = [
            s for s in self._told if not s.log and not _choice_labels(s.buttons) and first >= 0
        ]
        for n, line in enumerate(lines):
            if n == first:
                for told_early in early:
                    self._told.remove(told_early)
                    self._print_private(told_early)
            self.console.print(Text(line))
        self.show_private(waiting=False)
        self._push()
        return ref

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Print the entries the edit adds to the message's round log (the seats and the
        turn line are not repeated). An edit that turns the message into another screen (a
        lobby edited once the first round was dealt, a reveal once the table closed) adds no
        entries, and prints nothing; nor does an edit of a message this process never printed."""
        if message_ref not in self._shown:
            self._push()
            return True
        self.table = screen
        before = self._shown[message_ref]
        added = screen.log[len(before) :] if screen.log[: len(before)] == before else ()
        for n, line in enumerate(added, len(before) + 1):
            self.console.print(Text(line))
            self._printed = screen.log[:n]
            self._show_placed()  # a private line told of this entry comes right after it
        if added:
            self._shown[message_ref] = screen.log
            self.show_private(waiting=False)  # what the new entries meant for the local player
        self._push()
        return True

    def show_state(self, *, asked: bool = False) -> None:
        """Print the table's state block (`state_block`): before a question only when it is
        not the block printed last (the log's entries printed since say what changed); always
        when the player `asked` for it (`table`: their word stands between the two)."""
        if self.table is None:
            return
        block = state_block(self.table)
        if block == self._state and not asked:
            return
        self.console.print()
        for line in block:
            self.console.print(Text(line))
        self._state = block

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Show a private message to the local player."""
        if user != self.player:
            return Delivery.UNREACHABLE
        self.private = screen
        self._told.append(screen)
        self._push()
        return Delivery.DELIVERED

    def show_private(self, *, waiting: bool = True) -> None:
        """Print the private screens told since the last public message. `waiting=False`
        keeps back a screen whose entry of the round's log is still to be printed (more is
        coming); by default everything told is printed."""
        kept = []
        for screen in self._told:
            if not waiting and self._ahead(screen):
                kept.append(screen)
            else:
                self._print_private(screen)
        self._told = kept

    def _ahead(self, screen: Screen) -> bool:
        """Whether the entry `screen` follows is still to come in the message printed last."""
        printed = self._printed
        return len(screen.log) > len(printed) and screen.log[: len(printed)] == printed

    def _show_placed(self) -> None:
        """Print the private screens whose place is the entry just printed."""
        placed = [s for s in self._told if s.log and s.log == self._printed]
        for screen in placed:
            self._told.remove(screen)
            self._print_private(screen)

    def _print_private(self, screen: Screen) -> None:
        self.print_own(screen.text, _choice_labels(screen.buttons))

    def print_own(self, text: str, labels: Sequence[str] = (), *, asked: bool = False) -> None:
        """Print a private screen on one line, without its line of the question's choices
        (`labels`). A question's screen leaves out its first line, the hand, when it says the
        same cards as the hand printed last, unless the player `asked` for it (`hand`)."""
        lines = private_lines(text, labels)
        if not lines:
            return
        if labels or asked:
            held = _holding(lines[0])
            if held == self._held and not asked:
                lines = lines[1:]
            self._held = held
        else:
            self._held = _holding(lines[-1])  # a header, then its line (the deal's hand)
        if lines:
            self.console.print(Text("🔒 " + " · ".join(lines), style="bold"))
