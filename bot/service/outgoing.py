"""What the jobs ask of the outbox (outbox.py): messages staged with the command under way,
and the deliveries a start, a stop and the housekeeping take care of. A Protocol, so the jobs
sit beside the outbox rather than above it (the service hands them the outbox itself)."""

from __future__ import annotations

from typing import Protocol

from bot.service.ports import OutMessage, Screen, TableShot


class Outgoing(Protocol):
    """The outbox as the jobs use it."""

    #: This process's name in the store's claims and heartbeats.
    owner: str

    def set_ref(self, channel: str, ref: str | None) -> None:
        """The table message currently edited in place, as stored with the table."""
        ...

    def edit_table(
        self, channel: str, screen: Screen | TableShot | tuple[TableShot, Screen]
    ) -> None:
        """Show `screen` in the table message."""
        ...

    def post_table(
        self,
        channel: str,
        screen: Screen | TableShot | tuple[TableShot, Screen],
        freeze: Screen | TableShot | None,
    ) -> None:
        """Post a new table message; the old one is edited to `freeze` first."""
        ...

    def post(self, channel: str, screen: Screen) -> None:
        """Post a new public message."""
        ...

    def tell(self, channel: str, user: str, screen: Screen) -> None:
        """Send a private message (in order with the table's messages)."""
        ...

    def in_memory(self, channel: str) -> bool:
        """Whether a message of `channel` may be delivered from memory, without a row."""
        ...

    def deliver(self, channel: str, messages: list[OutMessage]) -> None:
        """Deliver messages committed without a row, after what is queued."""
        ...

    async def bury_dead(self) -> int:
        """End the claims of processes known gone."""
        ...

    async def sweep(self, *, takeover: bool = False) -> int:
        """Claim and deliver what nobody delivers."""
        ...

    async def drain(self) -> None:
        """Wait until everything queued has gone out."""
        ...
