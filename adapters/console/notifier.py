"""A `Notifier` for the terminal: public messages and the player's private pieces, printed.

A terminal cannot edit what it printed, so an edit of the table message prints only the lines
that are new since that message was last shown. Nor can it show a picture: a message's picture
(a score sheet) is printed as its text (`Picture.alt`), the PNG itself is not shown or written.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from bot.service.ports import Delivery, Screen


class ConsoleNotifier:
    """Prints the table's messages; private messages go to the one local player."""

    def __init__(self, console: Console, player: str) -> None:
        self.console = console
        self.player = player
        self._shown: dict[str, list[str]] = {}
        self._count = 0

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Print a new message in full."""
        self._count += 1
        ref = str(self._count)
        lines = screen.text.split("\n")
        self._shown[ref] = lines
        self.console.print()
        for line in lines:
            self.console.print(Text(line))
        if screen.image is not None and screen.image.alt:
            for line in screen.image.alt.split("\n"):  # what the picture shows, as text
                self.console.print(Text(line))
        return ref

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Print the log lines the edit adds (the seat list and turn line are not repeated).

        An edit that turns the message into another screen (a lobby edited once the first
        round was dealt: the new round's message follows with those lines) prints nothing.
        """
        shown = self._shown.get(message_ref, [])
        before = _log_part(shown)
        lines = screen.text.split("\n")
        after = _log_part(lines)
        if lines[0] in shown and after[: len(before)] == before:
            for line in after[len(before) :]:
                self.console.print(Text(line))
        self._shown[message_ref] = lines
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Show a private message to the local player."""
        if user != self.player:
            return Delivery.UNREACHABLE
        self.console.print(Text("🔒 " + screen.text.replace("\n", " · "), style="bold"))
        return Delivery.DELIVERED


def _log_part(lines: list[str]) -> list[str]:
    """The round's log: the lines after the "—" separator, without the closing turn line."""
    if "—" not in lines:
        return []
    log = lines[lines.index("—") + 1 :]
    return [line for line in log if not line.startswith("▶ ")]
