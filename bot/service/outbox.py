"""The transactional outbox: what tables say is stored with the state change that causes it,
then delivered in order per table and marked done.

A command stages its messages here, rendered (`edit_table`, `post_table`, `post`, `tell`); the
service's commit takes them (`take`) and stores them in the same transaction as the table
(`Repository.save_table(messages=...)`), claiming them for this process. Only then are they
delivered: one task per table sends them in order through the `Notifier` and marks them done
(`Repository.finish_messages`, which also claims whatever else the table has waiting, from any
process). Each message is marked before its lane sends the next (`flush`: one marking write at
a time, carrying what every lane sent meanwhile; the last of a batch is marked by the finish),
so a process killed at any moment has at most the message whose send was in flight, per lane,
sent again. Messages whose deliverer died are claimed again once its lease ran out or its
heartbeat ended (`sweep`; `bury_dead` ends the heartbeat of a process known gone at once: of
this host, its process id no longer runs; on PostgreSQL, its session with the store ended),
so whatever was committed goes out once the bot is back: at most once more, never lost.
When marking what was sent fails (the store is away), the sent ids and the reference of a
message posted are kept until a later marking succeeds (retried by the next commit's claim and
by the housekeeping's sweep), a claim handing them back meanwhile is skipped, and nothing more
of the table goes out until then: this process never sends a message twice, and a crash
meanwhile sends again only what went out before the failure.

Each destination has its own lane: a table's channel (its posts and table message, in order)
and each person's private chat (`_PrivateLane`: their private messages from any table, in
order, never behind a channel). What a channel's table message shows and when it is sent
(latest state wins: an edit waits for the channel's budget and is merged into a newer one;
unchanged edits skipped; the old message frozen) is the policy of `table_message.py`; this
module stores, claims, orders, retries and marks. After a crash only the newest private
message per (table, user) is sent, so nobody is left with an out-of-date screen.

Edits of the table message are stored as shots of the table (`TableShot`): the committing
process sends its rendering from the command; anyone else (another process, this one after a
restart) renders the committed table when delivering.

Where this process is the store's only one (SQLite, locked for `run`) nothing of a table
reaches the store but through its own commits, so edits of an open table and a restored
table's notice need no row: they are delivered from memory (`unstored`, `deliver`: the start
after a crash shows every open table anew). Delivered messages of all tables are then marked
together (`flush`, with the references of table messages posted), in no finish of their own.
"""

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
from typing import TYPE_CHECKING, TypeAlias

from bot.service.metrics import NO_METRICS, Recorder
from bot.service.ports import (
    Claim,
    Delivery,
    Notifier,
    OutBatch,
    OutMessage,
    Screen,
    StoreLost,
    StoreUnavailable,
    TableShot,
)
from bot.service.samples import Samples
from bot.service.table_message import (
    OnPosted,
    RenderShot,
    Shown,
    TableMessage,
    TableMessages,
    merge_private,
)

if TYPE_CHECKING:
    from bot.service.ports import Clock, Repository

log = logging.getLogger(__name__)

#: What a command stages for the table message: a screen, a shot of the table (rendered at
#: delivery), or a shot with its rendering by this process (sent as it is; the store keeps the
#: shot, which another process, or this one after a restart, renders when it delivers it).
Staged: TypeAlias = Shown | tuple[TableShot, Screen]

#: Called with (user key, delivery) after a private message.
OnTold = Callable[[str, Delivery], Awaitable[None]]

#: How long a claim on a table's outbox lasts without renewal (each batch renews it); after
#: it, another process (or this one restarted) delivers what is left.
LEASE = 15.0


def _at(shot: TableShot, version: int) -> TableShot:
    """`shot` committed with the table's stored `version`."""
    return TableShot(shot.table_id, shot.message, version, shot.note, shot.buttons)


def _retrieved(write: asyncio.Future[bool]) -> None:
    """Take a marking write's failure as seen (its callers hear it; one cancelled does not)."""
    if not write.cancelled():
        write.exception()


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
class _Intent:
    kind: str  # "edit", "post_table", "post", "tell"
    screen: Staged
    freeze: Shown | None = None
    user: str | None = None


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


class Outbox:
    """Stages messages for the commit, then delivers the committed ones through a `Notifier`."""

    #: Where deliveries are recorded (`TableService.use_metrics`).
    metrics: Recorder = NO_METRICS

    def __init__(
        self,
        notifier: Notifier,
        on_posted: OnPosted,
        on_told: OnTold,
        *,
        render_shot: RenderShot,
        repo: Repository,
        clock: Clock,
        owner: str | None = None,
        lease: float = LEASE,
    ) -> None:
        self.notifier = notifier
        self.repo = repo
        self.clock = clock
        self.owner = owner or process_id()
        _HERE.add(self.owner)
        self.lease = lease
        self._render_shot = render_shot
        self._on_told = on_told
        #: The table message's policy (merge, skip unchanged, freeze, the channel's budget).
        self.policy = TableMessages(notifier, render_shot, on_posted, clock)
        self._staged: dict[str, list[_Intent]] = {}
        self._queues: dict[str, _Queue] = {}
        #: No other process delivers this store's messages (SQLite, locked for `run`).
        self.alone = not getattr(repo, "shared", False)
        #: Delivered messages not yet marked, per table (marked together by `flush`).
        self._unacked: dict[str, list[int]] = {}
        #: Table message references not yet stored (posted from memory; lazy marking; or
        #: a marking that failed): kept until stored, so the store's older one is not adopted.
        self._refs: dict[str, str | None] = {}
        #: Ids of messages sent and not yet known marked: never sent again by this process,
        #: whatever a claim of the store hands back before the marking succeeds.
        self._sent: set[int] = set()
        self._flushing: asyncio.Task[None] | None = None
        #: The marking write: the one under way, the next (what is kept now rides with it),
        #: and the task that writes them one after the other (`flush`).
        self._writing: asyncio.Future[bool] | None = None
        self._next_write: asyncio.Future[bool] | None = None
        self._writer: asyncio.Task[None] | None = None
        #: Seconds from commit to send of the newest messages sent (benchmarks: 10,000 kept).
        self.lags: Samples = Samples()
        #: How far behind the game each channel message went out (benchmarks).
        self.stale = self.policy.stale
        #: Private lanes, per user key: never behind a channel's messages.
        self._private: dict[str, _PrivateLane] = {}

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

    # -- staging (under the table's lock, before the commit) --------------------------------

    def set_ref(self, channel: str, ref: str | None) -> None:
        """The table message currently edited in place, as stored with the table (a hint
        until the outbox store says otherwise)."""
        view = self._queue_of(channel).view
        if not view.ref_known:
            view.ref = ref

    def edit_table(self, channel: str, screen: Staged) -> None:
        """Show `screen` in the table message; replaces an edit staged by the same command."""
        staged = self._staged.setdefault(channel, [])
        for intent in reversed(staged):
            if intent.kind == "post_table":
                break
            if intent.kind == "edit":
                intent.screen = screen
                return
        staged.append(_Intent("edit", screen))

    def post_table(self, channel: str, screen: Staged, freeze: Shown | None) -> None:
        """Post a new table message; the old one is edited to `freeze` (no buttons) first."""
        staged = self._staged.setdefault(channel, [])
        if staged and staged[-1].kind == "edit" and freeze is not None:
            staged.pop()  # the old message's last edit is superseded by its freeze
        staged.append(_Intent("post_table", screen, freeze=freeze))

    def post(self, channel: str, screen: Screen) -> None:
        """Post a new public message."""
        self._staged.setdefault(channel, []).append(_Intent("post", screen))

    def tell(self, channel: str, user: str, screen: Screen) -> None:
        """Send a private message (in order with the table's messages)."""
        self._staged.setdefault(channel, []).append(_Intent("tell", screen, user=user))

    def take(self, channel: str, version: int = 0) -> list[OutMessage]:
        """The messages staged for `channel`, as committed with the table's stored `version`
        (which their shots of the table show at least), and forget them."""
        out = []
        now = self.clock.now()
        for intent in self._staged.pop(channel, ()):
            screen = intent.screen
            freeze = intent.freeze
            if isinstance(screen, tuple):
                shot, rendered = screen
                screen = _at(shot, version)
                self._keep_rendered(channel, screen, rendered)
            elif isinstance(screen, TableShot):
                screen = _at(screen, version)
            if isinstance(freeze, TableShot):
                freeze = _at(freeze, version)
            out.append(
                OutMessage(intent.kind, screen, user=intent.user, freeze=freeze, created_at=now)
            )
        return out

    def _keep_rendered(self, channel: str, shot: TableShot, screen: Screen) -> None:
        self._queue_of(channel).view.keep_rendered(shot, screen)

    def unstored(self, channel: str, messages: list[OutMessage]) -> list[OutMessage]:
        """`messages` when they need no row in the store, else none: edits of an open table
        (shots of it) in a store of this process alone, with nothing older of the table's
        still to fetch. They are delivered from memory (`deliver`), after what is queued:
        a crash loses them, and the start after it shows every open table anew (`resume`
        freezes its message and posts it as it is), so nobody misses what they showed."""
        if not messages or not self.in_memory(channel):
            return []
        for m in messages:
            if m.kind != "edit" or not isinstance(m.screen, TableShot):
                return []
        return messages

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
        ready = getattr(self.notifier, "ready_private", None)
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

    def discard(self, channel: str) -> None:
        """Forget what a command that failed had staged."""
        self._staged.pop(channel, None)

    # -- delivery (after the commit) ---------------------------------------------------------

    def accept(self, batch: OutBatch | None, *, takeover: bool = False) -> None:
        """Deliver a batch claimed for this process (from a commit, a finish or a sweep);
        `takeover`: claimed from a dead process, whose leases on the rest are void."""
        if batch is None or not batch.messages:
            return
        q = self._queue_of(batch.table_key)
        idle = not q.messages and (q.task is None or q.task.done())
        if idle and (not q.view.ref_known or not self.alone) and batch.table_key not in self._refs:
            # Another process may have posted or edited since: what it shows is not known.
            # (Alone, what this process knows is newer than the store's: it stores refs lazily;
            # a reference posted and not yet stored is newer than the store's too.)
            q.view.adopt(batch.ref)
        q.more = q.more or batch.more
        q.takeover = q.takeover or takeover
        self._take(batch.table_key, q, batch.messages)
        self._start(batch.table_key, q)

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

    async def bury_dead(self) -> int:
        """Say which processes that the store counts alive are gone: of this host, those whose
        process id no longer runs; of any host, those whose session with the store ended
        (`Repository.gone_processes`: PostgreSQL closes a dead process's connection). Their
        heartbeat ends now, and with it their claims, so a restart (or a live process's next
        housekeeping) delivers what a killed process committed at once, not after its lease."""
        now = self.clock.now()
        try:
            owners = await self.repo.live_processes(now)
            ended = set(await self.repo.gone_processes(now)) if not self.alone else set()
        except StoreLost:
            raise
        except Exception as exc:  # the store may be briefly away: leases end by themselves
            log.warning("reading the live processes failed: %s", exc)
            return 0
        gone = [o for o in owners if o != self.owner and (o in ended or _gone(o))]
        for owner in gone:
            await self.repo.heartbeat(owner, now, now)
            log.info("process %s is gone: its messages are delivered now", owner)
        return len(gone)

    async def sweep(self, *, takeover: bool = False) -> int:
        """Claim and deliver what nobody holds (a dead deliverer's messages); how many tables.

        `takeover`: no other process is alive, so every claim is stale, leases or not.
        """
        if not await self.flush():
            return 0  # this process's own sent messages would look unsent: not now
        claim = self.claim()
        if takeover:
            claim = Claim(claim.owner, float("inf"), claim.until)
        try:
            batches = await self.repo.claim_stale_messages(claim)
        except (StoreLost, StoreUnavailable):
            raise  # the service's to report (once)
        except Exception as exc:  # the store may be briefly away: the next sweep tries again
            log.warning("claiming undelivered messages failed: %s", exc)
            return 0
        for batch in batches:
            self.accept(batch, takeover=takeover)
        return len(batches)

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
