"""One `Notifier` in front of several platforms: a key's prefix (`telegram:`...) picks one."""

from __future__ import annotations

from collections.abc import Mapping

from bot.service.ports import (
    Delivery,
    Notifier,
    PacedChannels,
    PacedPrivate,
    Refreshing,
    Screen,
    ShortBudget,
    capable,
)


class RoutingNotifier:
    """Sends each message through the notifier of the platform its key names."""

    def __init__(self, notifiers: Mapping[str, Notifier]) -> None:
        self.notifiers = dict(notifiers)

    def _for(self, key: str) -> Notifier | None:
        return self.notifiers.get(key.partition(":")[0])

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Post through the channel's platform."""
        n = self._for(channel)
        return None if n is None else await n.post(channel, screen)

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Edit through the channel's platform."""
        n = self._for(channel)
        return False if n is None else await n.edit(channel, message_ref, screen)

    async def ready(self, channel: str) -> None:
        """Wait until the channel's platform has room for a table message's edit, where the
        platform keeps a budget (`Notifier.ready`); at once otherwise."""
        n = self._for(channel)
        if capable(n, PacedChannels):
            await n.ready(channel)

    def short(self, channel: str) -> bool:
        """Whether the channel's platform says its budget is short now (`ShortBudget.short`:
        an edit would leave the calls it keeps for posts spent); never where it keeps none."""
        n = self._for(channel)
        return capable(n, ShortBudget) and n.short(channel)

    async def ready_private(self, user: str) -> None:
        """Wait until the user's platform has room for a private message to them, where it
        keeps a budget per private chat; at once otherwise."""
        n = self._for(user)
        if capable(n, PacedPrivate):
            await n.ready_private(user)

    def refreshes(self, user: str) -> bool:
        """True when the user's platform can refresh a private view it showed in a chat."""
        n = self._for(user)
        return capable(n, Refreshing) and n.refreshes(user)

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Tell through the user's platform."""
        n = self._for(user)
        return Delivery.FAILED if n is None else await n.tell(user, screen)
