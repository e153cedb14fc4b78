"""In-memory implementations of the service's ports for tests: a clock and a notifier.

They are real implementations (they keep state, refuse what a platform refuses), not mocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.service.ports import Delivery, MessageGone, Screen


class FakeClock:
    """A clock that moves only when told."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.t = start

    def now(self) -> float:
        """The current fake time."""
        return self.t

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.t += seconds


@dataclass
class Message:
    """A public message as the channel sees it."""

    channel: str
    ref: str
    screen: Screen
    edits: int = 0
    history: list[Screen] = field(default_factory=list)


class RecordingNotifier:
    """Keeps every message; users in `closed` cannot be reached privately."""

    def __init__(self) -> None:
        self.messages: dict[str, Message] = {}
        self.order: list[tuple[str, str, str]] = []  # (kind, channel or user, ref or text)
        self.private: dict[str, list[str]] = {}
        self.private_screens: dict[str, list[Screen]] = {}  # with their buttons
        self.closed: set[str] = set()
        self.tell_attempts: dict[str, int] = {}
        self._next = 0

    async def post(self, channel: str, screen: Screen) -> str | None:
        """A new message."""
        self._next += 1
        ref = f"m{self._next}"
        self.messages[ref] = Message(channel, ref, screen, history=[screen])
        self.order.append(("post", channel, ref))
        return ref

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Replace a message; identical edits change nothing and count as success."""
        msg = self.messages.get(message_ref)
        if msg is None or msg.channel != channel:
            raise MessageGone(message_ref)  # like a platform: that message is not there
        if msg.screen == screen:
            return True
        msg.screen = screen
        msg.edits += 1
        msg.history.append(screen)
        self.order.append(("edit", channel, message_ref))
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """A private message, refused for users with closed DMs."""
        self.tell_attempts[user] = self.tell_attempts.get(user, 0) + 1
        if user in self.closed:
            return Delivery.UNREACHABLE
        self.private.setdefault(user, []).append(screen.text)
        self.private_screens.setdefault(user, []).append(screen)
        self.order.append(("tell", user, screen.text))
        return Delivery.DELIVERED

    def posts(self, channel: str) -> list[Message]:
        """The channel's messages in order."""
        return [m for m in self.messages.values() if m.channel == channel]

    def last(self, channel: str) -> Message:
        """The newest message of a channel."""
        return self.posts(channel)[-1]

    def buttons(self, channel: str) -> dict[str, str]:
        """Label -> token of the newest message's buttons."""
        screen = self.last(channel).screen
        return {b.label: b.token for row in screen.buttons for b in row}
