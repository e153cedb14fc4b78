"""Delivering what the outbox (outbox.py) holds: one lane per destination, a table's
channel (its posts and table message, in order, under table_message.py's policy) and each
person's private chat (their private messages from any table, in order, never behind a
channel); each message marked once sent (marking.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.service.marking import Markings
from bot.service.metrics import Recorder
from bot.service.ports import (
    Claim,
    Clock,
    Delivery,
    Notifier,
    OutMessage,
    PacedPrivate,
    Screen,
    StoreUnavailable,
    TableShot,
    capable,
)
from bot.service.samples import Samples
from bot.service.store import Repository
from bot.service.table_message import (
    RenderShot,
    TableMessage,
    TableMessages,
    merge_private,
)

log = logging.getLogger("bot.service.outbox")


#: Called with (user key, delivery) after a private message.
OnTold = Callable[[str, Delivery], Awaitable[None]]


#: How long a claim on a table's outbox lasts without renewal (each batch renews it); after
#: it, another process (or this one restarted) delivers what is left.
LEASE = 15.0


def process_id() -> str:
    """A name for this process, unique across hosts and restarts."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


#: The owners of the outboxes of this process (tests run several services in one).
_HERE: set[str] = set()


def _gone(owner: str) -> bool:
    """Whether the process `owner` names (see `process_id`) ran on this host and runs no more
    (its id is free, or is this process's own: a restart in a fresh container)."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return owner not in _HERE  # another service of this process lives; else a predecessor
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # it runs, under another user
        return False
    return False


@dataclass(slots=True)
class _Queue:
    """One table's messages claimed by this process, oldest first."""

    messages: deque[OutMessage] = field(default_factory=deque)
    #: The newest message queued, per lane (a claim repeats what is already here; the store
    #: claims each lane's oldest apart, so a private message may come before older posts).
    last_id: int = 0
    last_private_id: int = 0
    #: The table message: what it shows and what waits to be shown in it (its policy's).
    view: TableMessage = field(default_factory=TableMessage)
    more: bool = False  # the last claim stopped at its size: more may wait in the store
    #: Taken over from a dead process: its leases on the rest of this outbox do not count.
    takeover: bool = False
    #: A batch came with private messages only: the table's deliverer still finishes it (a
    #: shared store's claim is renewed and what else waits is claimed).
    finish: bool = False
    task: asyncio.Task[None] | None = None
    #: Set when a message joins `messages` (an edit waiting for the budget looks again).
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    #: Marking what was sent failed (the store is away): nothing more of the table's stored
    #: messages is sent until a marking succeeds (`flush`), so a crash meanwhile sends again
    #: only what went out before the failure.
    blocked: bool = False


@dataclass(slots=True)
class _PrivateLane:
    """One person's private messages, in order, from any table: (table key, message)."""

    waiting: deque[tuple[str, OutMessage]] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None
    #: Marking a message sent failed: nothing more goes until a marking succeeds (`flush`).
    blocked: bool = False


class Deliveries(Markings):
    """The outbox's lanes and their delivery (its base: `Outbox` keeps the state)."""

    # What the outbox keeps (set by `Outbox.__init__`).
    notifier: Notifier
    repo: Repository
    clock: Clock
    owner: str
    lease: float
    metrics: Recorder
    policy: TableMessages
    alone: bool
    lags: Samples
    _render_shot: RenderShot
    _on_told: OnTold
    _queues: dict[str, _Queue]  # the markings' state (`Markings`) declared there
    _private: dict[str, _PrivateLane]

    def _queue_of(self, channel: str) -> _Queue:
        """The table's queue, made when first needed (not made anew to be thrown away at
        every lookup: a queue holds an event, a deque and the table message's policy)."""
        q = self._queues.get(channel)
        if q is None:
            q = self._queues[channel] = _Queue()
        return q

    def claim(self) -> Claim:
        """This process's claim, from now for one lease."""
        now = self.clock.now()
        return Claim(self.owner, now, now + self.lease)

    def in_memory(self, channel: str) -> bool:
        """Whether a message of `channel` may be delivered from memory, without a row: this
        process alone delivers the store's messages, and none of the table's older ones
        still waits in the store (they go first)."""
        if not self.alone:
            return False
        q = self._queues.get(channel)
        return q is None or not (q.more or q.takeover)

    def deliver(self, channel: str, messages: list[OutMessage]) -> None:
        """Deliver messages committed without a row (see `unstored`), after what is queued."""
        q = self._queue_of(channel)
        for m in messages:
            self._queue(channel, q, m)
        self._start(channel, q)

    def _queue(self, channel: str, q: _Queue, m: OutMessage) -> None:
        """Queue `m`: a private message in its person's lane (it never waits for the
        channel), anything else in the table's queue, in order."""
        if m.kind == "tell" and m.user is not None:
            lane = self._private.setdefault(m.user, _PrivateLane())
            lane.waiting.append((channel, m))
            if lane.blocked:
                self._flush_later()  # resumed once its sent message is marked
            elif lane.task is None or lane.task.done():
                lane.task = asyncio.get_running_loop().create_task(self._tell_all(m.user, lane))
            if not self.in_memory(channel):
                q.finish = True  # the table's deliverer renews the claim and takes what waits
                q.arrived.set()  # a deliverer freezing older messages finishes first
            return
        q.messages.append(m)
        q.arrived.set()

    def _start(self, channel: str, q: _Queue) -> None:
        if q.blocked:
            # Resumed once what it sent is marked (`flush`): try that now (a commit just
            # succeeded, so the store may well be back).
            self._flush_later()
            return
        if (q.messages or q.finish) and (q.task is None or q.task.done()):
            q.task = asyncio.get_running_loop().create_task(self._drain(channel, q))

    async def _tell_all(self, user: str, lane: _PrivateLane) -> None:
        """Send a person's private messages in order; each is marked once sent. After a crash
        only the newest of a table's is sent: nobody is left with an out-of-date screen.

        Where the platform says when the person's chat has room (`ready_private`), what waits
        meanwhile goes as one message (`merge_private`: the newest private screen of a table
        wins, the lines before it go with it), so a spent private budget delays one message,
        not a queue of out-of-date screens."""
        notifier = self.notifier
        ready = notifier.ready_private if capable(notifier, PacedPrivate) else None
        while lane.waiting:
            if ready is not None:
                try:
                    await ready(user)
                except Exception:  # the platform is going: the send below says so
                    log.debug("waiting for room in %s's private chat failed", user)
            channel, m = lane.waiting.popleft()
            if m.attempts > 1 and any(c == channel for c, _ in lane.waiting):
                if m.id:  # a newer private message of the same table follows
                    self._mark_soon(channel, [m.id], False)
                continue
            run = [m]
            if isinstance(m.screen, Screen):
                while lane.waiting and lane.waiting[0][0] == channel:
                    nxt = lane.waiting[0][1]
                    if not isinstance(nxt.screen, Screen):
                        break
                    run.append(nxt)
                    lane.waiting.popleft()
            taken, screen = merge_private([r.screen for r in run])
            for rest in reversed(run[taken:]):  # they did not fit: sent next
                lane.waiting.appendleft((channel, rest))
            run = run[:taken]
            try:
                staged = screen
                shown = (
                    await self._render_shot(channel, staged)
                    if isinstance(staged, TableShot)
                    else staged
                )
                if shown is not None:
                    result = await self.notifier.tell(user, shown)
                    await self._on_told(user, result)
            except Exception:  # a platform failure must not stop the person's lane
                log.exception("a private message to %s failed", user)
            now = self.clock.now()
            for r in run:
                self.lags.append(max(0.0, now - r.created_at))
                self.metrics.delivered("private", self.lags.last)
            done = [r.id for r in run if r.id]
            if done and not await self._mark_now(channel, done, False):
                lane.blocked = True  # `_resume` goes on once the marking succeeded
                return
        if self._private.get(user) is lane and not lane.waiting:
            del self._private[user]

    def _take(self, channel: str, q: _Queue, messages: list[OutMessage]) -> None:
        """Queue claimed `messages` not queued or sent before (a claim repeats what this
        process holds, and, until their marking succeeds, what it sent)."""
        for m in messages:
            if m.id in self._sent:
                continue
            if m.kind == "tell":
                if m.id > q.last_private_id:
                    self._queue(channel, q, m)
                    q.last_private_id = m.id
            elif m.id > q.last_id:
                self._queue(channel, q, m)
                q.last_id = m.id

    async def _drain(self, channel: str, q: _Queue) -> None:
        """Send the table's queue; then freeze the older table messages whose freeze was put
        off while the channel's budget was short (`TableMessages.thaw`), as the budget lets,
        unless newer messages come, which go first."""
        while True:
            await self._send_queue(channel, q)
            if q.blocked or not q.view.unfrozen:
                return
            await self.policy.thaw(channel, q.view, lambda: bool(q.messages or q.finish), q.arrived)
            if not (q.messages or q.finish):
                return

    async def _send_queue(self, channel: str, q: _Queue) -> None:
        """Send what the table's queue holds, in order, marking it as it goes."""
        while (q.messages or q.finish) and not q.blocked:
            q.finish = False
            pending = list(q.messages)
            q.messages.clear()
            done: list[int] = []  # handled, not yet marked
            posted = False  # a table message posted since the last marking
            for i, m in enumerate(pending):
                later = pending[i + 1 :]
                sent = False
                if await self.policy.due(
                    channel, q.view, m, later, lambda: list(q.messages), q.arrived
                ):
                    try:
                        waiting = later + list(q.messages)
                        posted |= await self.policy.send(channel, q.view, m, waiting)
                    except Exception:  # a platform failure must not stop the table's queue
                        log.exception("sending to %s failed", channel)
                    sent = True
                    self.lags.append(max(0.0, self.clock.now() - m.created_at))
                    self.metrics.delivered("channel", self.lags.last)
                    self.policy.sent(q.view, m)
                if m.id:  # a message with a row (those delivered from memory have none)
                    done.append(m.id)
                    self._sent.add(m.id)
                if sent and later and (done or posted):
                    # Marked before the lane sends anything more (one write with every lane
                    # marking meanwhile): a crash sends again at most the message in flight.
                    if not await self._mark_now(channel, done, posted):
                        q.messages.extendleft(reversed(later))
                        q.blocked = True  # `_resume` goes on once the marking succeeded
                        q.more = q.takeover = False
                        return
                    done, posted = [], False
            if self.alone and not q.more and not q.takeover:
                # Nothing of the table waits in the store but through this process's own
                # commits: marked (with every lane's marking meanwhile) before the next send.
                if (done or posted) and not await self._mark_now(channel, done, posted):
                    q.blocked = True
                    return
                continue
            earlier = self._unacked_of(channel)
            # A reference kept to store lazily goes with this finish (the newest one).
            kept_ref = channel in self._refs
            self._refs.pop(channel, None)
            set_ref = posted or kept_ref
            q.more = False  # the finish claims what waits (a batch arriving meanwhile may say more)
            claim = self.claim()
            if q.takeover:  # the dead process's leases on the rest of the outbox are void
                claim = Claim(claim.owner, float("inf"), claim.until)
            try:
                nxt = await self.repo.finish_messages(
                    channel, earlier + done, claim, ref=q.view.ref, set_ref=set_ref
                )
            except Exception as exc:
                # Not marked: what was sent, and the reference of a message posted, are kept
                # to mark with the next write that succeeds (`flush`: the housekeeping's sweep
                # tries again), and are never sent again by this process: a claim handing
                # them back before that is skipped (`_sent`). Until then nothing more of the
                # table is sent, so a crash meanwhile sends again only what went out already.
                if set_ref:
                    self._refs.setdefault(channel, q.view.ref)
                ids = earlier + done
                if ids:
                    self._unacked.setdefault(channel, [])[:0] = ids
                if ids or set_ref:
                    q.blocked = True
                if not isinstance(exc, StoreUnavailable):  # the service reports outages once
                    log.warning("marking messages of %s delivered failed: %s", channel, exc)
                q.more = q.takeover = False
                return
            self._sent.difference_update(earlier)
            self._sent.difference_update(done)
            q.more = q.more or (nxt is not None and nxt.more)
            if nxt is None:
                q.takeover = False
            if nxt is not None:
                self._take(channel, q, nxt.messages)

    def _resume(self) -> None:
        """What a failed marking held back goes on (its sent messages are marked): a table's
        deliverer finishes the table, claiming what else waits; a private lane goes on."""
        for channel, q in self._queues.items():
            if q.blocked and channel not in self._unacked:
                q.blocked = False
                q.finish = True
                self._start(channel, q)
        for user, lane in list(self._private.items()):
            if lane.blocked and not self._unacked:
                lane.blocked = False
                if not lane.waiting:
                    del self._private[user]
                elif lane.task is None or lane.task.done():
                    lane.task = asyncio.get_running_loop().create_task(self._tell_all(user, lane))

    async def drain(self) -> None:
        """Wait until every queue is empty and every delivery is marked (tests, shutdown)."""
        while True:
            tasks = [q.task for q in self._queues.values() if q.task and not q.task.done()]
            tasks += [p.task for p in self._private.values() if p.task and not p.task.done()]
            if self._flushing is not None and not self._flushing.done():
                tasks.append(self._flushing)
            if self._writer is not None and not self._writer.done():
                tasks.append(self._writer)
            if not tasks:
                with contextlib.suppress(Exception):
                    await self.flush()  # a failure is logged: they are marked by a later flush
                busy = [q.task for q in self._queues.values()]
                busy += [p.task for p in self._private.values()]
                if not any(t and not t.done() for t in busy):
                    return
                continue
            await asyncio.gather(*tasks, return_exceptions=True)

    def waiting(self) -> dict[str, int]:
        """Messages claimed by this process and not sent yet, per lane (the metrics)."""
        return {
            "channel": sum(len(q.messages) for q in self._queues.values()),
            "private": sum(len(p.waiting) for p in self._private.values()),
        }
