"""Ordered, coalescing delivery of what tables say, after their commands are committed.

Each table has one queue drained by one task, so its messages arrive in order and a slow
platform never holds the table's lock. Edits of the table message coalesce: when several are
waiting, only the newest is sent (the chat stays calm, the flood limits are respected).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeAlias

from bot.service.ports import Delivery, MessageGone, Notifier, Screen

log = logging.getLogger(__name__)


#: A screen, or a coroutine function that renders the table's current, committed screen when
#: the message is about to go out (so coalesced edits are rendered once, off the command path).
LazyScreen: TypeAlias = Screen | Callable[[], Awaitable[Screen | None]]


@dataclass(slots=True)
class _Job:
    kind: str  # "edit" (the table message), "post_table", "post", "tell"
    screen: LazyScreen
    freeze: Screen | None = None  # post_table: the old table message's last screen
    user: str | None = None


#: Called with (table key, new message ref) after a table message was posted.
OnPosted = Callable[[str, str], Awaitable[None]]
#: Called with (user key, delivery) after a private message.
OnTold = Callable[[str, Delivery], Awaitable[None]]


class Outbox:
    """Per-table queues in front of a `Notifier`."""

    def __init__(self, notifier: Notifier, on_posted: OnPosted, on_told: OnTold) -> None:
        self.notifier = notifier
        self._on_posted = on_posted
        self._on_told = on_told
        self._queues: dict[str, deque[_Job]] = {}
        self._refs: dict[str, str | None] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def set_ref(self, channel: str, ref: str | None) -> None:
        """The table message currently edited in place (from storage, after a restart)."""
        self._refs[channel] = ref

    def edit_table(self, channel: str, screen: LazyScreen) -> None:
        """Show `screen` in the table message; replaces an edit still waiting."""
        queue = self._queues.setdefault(channel, deque())
        for job in reversed(queue):
            if job.kind == "post_table":
                break
            if job.kind == "edit":
                # One waiting edit of the same message is enough: it shows the newest screen
                # (private messages queued between them do not split them).
                job.screen = screen
                self._kick(channel)
                return
        queue.append(_Job("edit", screen))
        self._kick(channel)

    def post_table(self, channel: str, screen: LazyScreen, freeze: Screen | None) -> None:
        """Post a new table message; the old one is edited to `freeze` (no buttons) first."""
        queue = self._queues.setdefault(channel, deque())
        if queue and queue[-1].kind == "edit" and freeze is not None:
            queue.pop()  # the old message's last edit is superseded by its freeze
        queue.append(_Job("post_table", screen, freeze=freeze))
        self._kick(channel)

    def post(self, channel: str, screen: Screen) -> None:
        """Post a new public message."""
        self._queues.setdefault(channel, deque()).append(_Job("post", screen))
        self._kick(channel)

    def tell(self, channel: str, user: str, screen: Screen) -> None:
        """Send a private message (queued with the table's messages, in order)."""
        self._queues.setdefault(channel, deque()).append(_Job("tell", screen, user=user))
        self._kick(channel)

    def _kick(self, channel: str) -> None:
        task = self._tasks.get(channel)
        if task is None or task.done():
            self._tasks[channel] = asyncio.get_running_loop().create_task(self._drain(channel))

    async def _drain(self, channel: str) -> None:
        queue = self._queues[channel]
        while queue:
            job = queue.popleft()
            try:
                await self._send(channel, job)
            except Exception:  # a platform failure must not stop the table's queue
                log.exception("sending to %s failed", channel)

    async def _send(self, channel: str, job: _Job) -> None:
        n = self.notifier
        if not isinstance(job.screen, Screen):
            screen = await job.screen()
            if screen is None:
                return  # the table is gone
            job.screen = screen
        if job.kind == "edit":
            ref = self._refs.get(channel)
            if ref is None:
                await self._post_table_message(channel, job.screen)
            else:
                try:
                    await n.edit(channel, ref, job.screen)
                except MessageGone:
                    # Someone deleted the table message: post it again.
                    await self._post_table_message(channel, job.screen)
        elif job.kind == "post_table":
            old = self._refs.get(channel)
            if old is not None and job.freeze is not None:
                try:
                    await n.edit(channel, old, job.freeze)
                except Exception:  # the old message may be gone: post the new one anyway
                    log.warning("freezing the old table message in %s failed", channel)
            await self._post_table_message(channel, job.screen)
        elif job.kind == "post":
            await n.post(channel, job.screen)
        else:
            assert job.user is not None and isinstance(job.screen, Screen)
            result = await n.tell(job.user, job.screen)
            await self._on_told(job.user, result)

    async def _post_table_message(self, channel: str, screen: Screen) -> None:
        """Post `screen` as the table message edited from now on."""
        ref = await self.notifier.post(channel, screen)
        self._refs[channel] = ref
        if ref is not None:
            await self._on_posted(channel, ref)

    async def drain(self) -> None:
        """Wait until every queue is empty (tests, shutdown)."""
        while True:
            tasks = [t for t in self._tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)
