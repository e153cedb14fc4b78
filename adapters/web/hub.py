"""Who watches which table, and the pushes after a commit (docs/web.md, "The push path").

The service calls `Hub.committed` after each table's commit (`TableService.subscribe`); a table
that has pages open is marked dirty, and one task per dirty table builds a fresh view for each
distinct viewer (spectators share one) and sends it to every page watching. Pushes of one table
are coalesced: a page gets the newest state, never a backlog. A commit made by another process
(a shared store) is noticed by `watch`, which compares the store's version of the watched tables
with the last one pushed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from bot.service.pages import PageView
from bot.service.ports import StoreUnavailable

log = logging.getLogger(__name__)

#: How often the versions of watched tables are compared with the store's (shared stores).
WATCH_INTERVAL = 0.25


class Socket(Protocol):
    """What the hub sends to: a page's WebSocket (aiohttp's `WebSocketResponse`)."""

    async def send_str(self, data: str, compress: int | None = None) -> None:
        """Send a text frame."""
        ...


class Views(Protocol):
    """Where the hub gets views (the table service)."""

    async def page_view(self, table_id: str, viewer: str | None = None) -> PageView | None:
        """One viewer's view of a table."""
        ...

    async def page_views(
        self, table_id: str, viewers: Sequence[str | None]
    ) -> dict[str | None, PageView] | None:
        """Several viewers' views of a table, built together."""
        ...


@dataclass(eq=False, slots=True)
class Page:
    """One open page: its socket, the proven viewer (None: a spectator), its table."""

    socket: Socket
    table_id: str
    viewer: str | None
    #: The version of the last view sent (pushes never go backwards).
    version: int = -1
    sent: int = 0
    #: Called with each payload sent (benchmarks and tests measure pushes with it).
    on_sent: Callable[[str], None] | None = field(default=None, repr=False)


def state_message(view: PageView) -> str:
    """The push of one view, as the page receives it."""
    return orjson.dumps({"type": "state", "view": view.data}).decode()


class Hub:
    """The open pages of one process, by table."""

    def __init__(
        self,
        views: Views,
        *,
        version_of: Callable[[str], Awaitable[int | None]] | None = None,
        interval: float = WATCH_INTERVAL,
    ) -> None:
        self.views = views
        #: Reads a table's stored version by its key (a shared store: other processes commit).
        self.version_of = version_of
        self.interval = interval
        self.pages: dict[str, set[Page]] = {}
        #: table id -> (table key, version last pushed), for the watch of a shared store.
        self.known: dict[str, tuple[str, int]] = {}
        self._dirty: set[str] = set()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._watch: asyncio.Task[None] | None = None

    def add(self, page: Page) -> None:
        """A page opened (its first view is sent by `send_first`)."""
        self.pages.setdefault(page.table_id, set()).add(page)

    def remove(self, page: Page) -> None:
        """A page closed."""
        pages = self.pages.get(page.table_id)
        if pages is not None:
            pages.discard(page)
            if not pages:
                del self.pages[page.table_id]
                self.known.pop(page.table_id, None)

    async def send_first(self, page: Page) -> PageView | None:
        """Send a page its first view; None when the table does not exist."""
        view = await self.views.page_view(page.table_id, page.viewer)
        if view is None:
            return None
        self.known.setdefault(page.table_id, (view.key, view.version))
        await self._send(page, view, state_message(view))
        return view

    def committed(self, key: str, table_id: str, version: int) -> None:
        """The service committed a table (`TableService.subscribe`): push where watched."""
        if table_id not in self.pages:
            return
        self.known[table_id] = (key, version)
        self.mark(table_id)

    def mark(self, table_id: str) -> None:
        """Push the newest view of a table to its pages (soon, once, however often marked)."""
        self._dirty.add(table_id)
        task = self._tasks.get(table_id)
        if task is None or task.done():
            self._tasks[table_id] = asyncio.get_running_loop().create_task(
                self._flush(table_id), name=f"web-push-{table_id}"
            )

    async def _flush(self, table_id: str) -> None:
        try:
            while table_id in self._dirty:
                self._dirty.discard(table_id)
                await self._push(table_id)
        except Exception:
            log.exception("pushing table %s to its pages failed", table_id)
        finally:
            self._tasks.pop(table_id, None)

    async def _push(self, table_id: str) -> None:
        pages = list(self.pages.get(table_id, ()))
        by_viewer: dict[str | None, list[Page]] = {}
        for page in pages:
            by_viewer.setdefault(page.viewer, []).append(page)
        if not by_viewer:
            return
        views = await self.views.page_views(table_id, list(by_viewer))
        if views is None:
            return
        # One after another, in this table's task: a socket's send returns at once unless its
        # buffer is full, and a task per page would cost more than the sends themselves.
        for viewer, group in by_viewer.items():
            view = views[viewer]
            self.known[table_id] = (view.key, view.version)
            text = state_message(view)
            for page in group:
                if view.version >= page.version:
                    await self._send(page, view, text)

    async def _send(self, page: Page, view: PageView, text: str) -> None:
        page.version = view.version
        try:
            await page.socket.send_str(text)
        except (ConnectionError, RuntimeError):
            self.remove(page)  # the page went away meanwhile
            return
        page.sent += 1
        if page.on_sent is not None:
            page.on_sent(text)

    def start_watch(self) -> None:
        """Watch the store for commits of other processes (when `version_of` is given)."""
        if self.version_of is not None and self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._watching(), name="web-watch")

    async def _watching(self) -> None:
        assert self.version_of is not None
        while True:
            await asyncio.sleep(self.interval)
            for table_id, (key, version) in list(self.known.items()):
                try:
                    stored = await self.version_of(key)
                except StoreUnavailable:
                    break  # the store is away (the service logs that once): next round
                except Exception:
                    log.exception("reading the version of %s failed", key)
                    continue
                if stored is not None and stored != version and table_id in self.pages:
                    self.known[table_id] = (key, stored)
                    self.mark(table_id)

    async def close(self) -> None:
        """Stop the watch and the pushes under way."""
        tasks = [t for t in (self._watch, *self._tasks.values()) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t


def payload(kind: str, **fields: Any) -> str:
    """A message to a page: `{"type": kind, ...}` as JSON text."""
    return orjson.dumps({"type": kind, **fields}).decode()
