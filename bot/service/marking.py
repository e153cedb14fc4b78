"""Marking what the outbox delivered (outbox.py): one marking write at a time, carrying
what every lane sent meanwhile (a group commit of the markings); a write the store refused
keeps its ids and references for the next, and holds back what was waiting behind them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bot.service.ports import StoreLost, StoreUnavailable

log = logging.getLogger("bot.service.outbox")


def _retrieved(write: asyncio.Future[bool]) -> None:
    """Take a marking write's failure as seen (its callers hear it; one cancelled does not)."""
    if not write.cancelled():
        write.exception()


class _Marks(Protocol):
    """What the markings ask of the store (`Repository.mark_delivered`, store.py)."""

    async def mark_delivered(
        self, done: Sequence[int], refs: Mapping[str, str | None] | None = None
    ) -> None: ...


class Markings:
    """The outbox's markings of delivered messages (its base: `Outbox` keeps the state)."""

    repo: _Marks
    _queues: dict[str, Any]
    _unacked: dict[str, list[int]]
    _refs: dict[str, str | None]
    _sent: set[int]
    _flushing: asyncio.Task[None] | None
    _writing: asyncio.Future[bool] | None
    _next_write: asyncio.Future[bool] | None
    _writer: asyncio.Task[None] | None

    def _resume(self) -> None:
        """What a failed marking held back goes on (the deliveries' own)."""
        raise NotImplementedError

    async def _mark_now(self, channel: str, done: list[int], posted: bool) -> bool:
        """Mark sent messages of `channel` (and store the table message's reference, when one
        was posted) in the next marking write, shared with every lane marking meanwhile, and
        wait for it. False when it failed: they stay kept for a later write (`flush`)."""
        if done:
            self._unacked.setdefault(channel, []).extend(done)
            self._sent.update(done)
        if posted:
            self._refs[channel] = self._queues[channel].view.ref
        try:
            return await self.flush()
        except Exception:  # StoreLost: the service stops; the next start delivers the rest
            return False

    def _flush_later(self) -> None:
        """Try marking what is kept unmarked soon (a task), unless that is under way."""
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush_soon())

    def _mark_soon(self, channel: str, done: list[int], posted: bool) -> None:
        """Keep delivered messages (and the table message's reference, when one was posted)
        to mark in the next bulk write, which every table's deliveries share."""
        if done:
            self._unacked.setdefault(channel, []).extend(done)
            self._sent.update(done)
        if posted:
            q = self._queues[channel]
            self._refs[channel] = q.view.ref
        if not (self._unacked or self._refs):
            return  # nothing to mark (an edit delivered from memory has no row)
        self._flush_later()

    async def _flush_soon(self) -> None:
        """Mark what was delivered once this turn's deliveries are done, and again while more
        come; a refused write leaves them for the next housekeeping round."""
        while self._unacked or self._refs:
            await asyncio.sleep(0)
            try:
                if not await self.flush():
                    return
            except StoreLost:
                return  # the service stops: the next start delivers them again

    def _unacked_of(self, channel: str) -> list[int]:
        """Take the delivered messages of `channel` still unmarked (marked with the next batch)."""
        ids = self._unacked.pop(channel, [])
        return ids

    async def flush(self) -> bool:
        """Mark every delivered message kept unmarked as done and store the references
        kept, in one write, and wait for it. False when the store refused (they stay kept,
        for the next).

        One marking write is under way at a time: what is kept while it runs goes with the
        next, which every lane asking meanwhile shares (a group commit of the markings)."""
        if not self._unacked and not self._refs:
            if self._writing is not None:  # what was kept before is being written
                return await asyncio.shield(self._writing)
            return True
        loop = asyncio.get_running_loop()
        if self._next_write is None:
            self._next_write = loop.create_future()
            self._next_write.add_done_callback(_retrieved)
        write = self._next_write
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write_markings())
        return await asyncio.shield(write)

    async def _write_markings(self) -> None:
        """Write the markings asked for, one write at a time, each with all kept by then."""
        while self._next_write is not None:
            await asyncio.sleep(0)  # the lanes finishing this turn join the write
            write, self._next_write = self._next_write, None
            self._writing = write
            try:
                ok = await self._write_kept()
            except asyncio.CancelledError:
                write.cancel()
                raise
            except BaseException as exc:  # StoreLost: every caller hears it
                write.set_exception(exc)
            else:
                write.set_result(ok)
            finally:
                self._writing = None

    async def _write_kept(self) -> bool:
        """One write marking what is kept unmarked (see `flush`)."""
        if not self._unacked and not self._refs:
            return True
        taken, self._unacked = self._unacked, {}
        refs, self._refs = self._refs, {}
        ids = [i for chunk in taken.values() for i in chunk]
        try:
            await self.repo.mark_delivered(ids, refs)
        except Exception as exc:
            for channel, chunk in taken.items():
                self._unacked.setdefault(channel, [])[:0] = chunk
            self._refs = {**refs, **self._refs}
            if isinstance(exc, StoreLost):
                raise
            if not isinstance(exc, StoreUnavailable):  # the service reports outages once
                log.warning("marking %d delivered messages failed: %s", len(ids), exc)
            return False
        self._sent.difference_update(ids)
        self._resume()
        return True
