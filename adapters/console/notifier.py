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
"""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.text import Text

from bot.service.ports import Delivery, Screen


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
        self._pushed: asyncio.Event | None = None
        #: The local player's newest private screen (what they hold, their choices).
        self.private: Screen | None = None
        #: The round log's entries of the message printed last, as far as printed.
        self._printed: tuple[str, ...] = ()

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
        ref = str(self._count)
        self._shown[ref] = screen.log
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
        for line in lines:
            self.console.print(Text(line))
        self.show_private(waiting=False)
        self._push()
        return ref

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Print the entries the edit adds to the message's round log (the seats and the
        turn line are not repeated). An edit that turns the message into another screen (a
        lobby edited once the first round was dealt, a reveal once the table closed) adds no
        entries, and prints nothing."""
        before = self._shown.get(message_ref, ())
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
        self.console.print(Text("🔒 " + screen.text.replace("\n", " · "), style="bold"))
