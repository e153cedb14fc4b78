"""What the outbox reads back of the committed tables when it delivers.

The unit of work stages each command's messages in the outbox and commits them with the
table; the outbox, delivering (now, or later: another process's messages, this one's after a
restart), renders a shot of a table from the committed table and hands back the reference of
a table message it posted, which the table keeps. Each of the two needs the other, so neither
can be handed the other when it is made. `Readback` closes that one cycle at construction:
the service makes it first and hands it to the outbox (which asks through it) and to the unit
of work (which answers through it from its constructor on, `serve`). Nothing is assigned to a
part after it is built.
"""

from __future__ import annotations

from typing import Protocol

from bot.service.ports import Screen, TableShot


class TableReader(Protocol):
    """What answers the outbox's questions about committed tables (the unit of work)."""

    async def render_shot(self, key: str, shot: TableShot) -> Screen | None: ...
    async def posted(self, channel: str, ref: str) -> None: ...


class Readback:
    """The outbox's questions about committed tables, answered by the unit of work."""

    def __init__(self) -> None:
        self._reader: TableReader | None = None

    def serve(self, reader: TableReader) -> None:
        """`reader` answers from now on (the unit of work, from its constructor; once)."""
        if self._reader is not None:
            raise RuntimeError("the committed tables are read back by one unit of work")
        self._reader = reader

    async def render_shot(self, key: str, shot: TableShot) -> Screen | None:
        """`shot` of the table at `key` rendered from the committed table (None: the table
        it shows is gone, or its message is no longer the table's newest; or no unit of
        work reads them)."""
        if self._reader is None:
            return None
        return await self._reader.render_shot(key, shot)

    async def posted(self, channel: str, ref: str) -> None:
        """A table message was posted at `channel` as `ref`: the table keeps the reference."""
        if self._reader is not None:
            await self._reader.posted(channel, ref)
