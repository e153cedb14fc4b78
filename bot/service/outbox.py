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
import logging
from dataclasses import dataclass
from typing import TypeAlias

from bot.service.delivery import (
    _HERE,
    LEASE,
    Deliveries,
    OnTold,
    _gone,
    _PrivateLane,
    _Queue,
    process_id,
)
from bot.service.metrics import NO_METRICS, Recorder
from bot.service.ports import (
    Claim,
    Clock,
    Notifier,
    OutBatch,
    OutMessage,
    Screen,
    StoreLost,
    StoreUnavailable,
    TableShot,
)
from bot.service.samples import Samples
from bot.service.store import Repository
from bot.service.table_message import OnPosted, RenderShot, Shown, TableMessages

log = logging.getLogger(__name__)

#: What a command stages for the table message: a screen, a shot of the table (rendered at
#: delivery), or a shot with its rendering by this process (sent as it is; the store keeps the
#: shot, which another process, or this one after a restart, renders when it delivers it).
Staged: TypeAlias = Shown | tuple[TableShot, Screen]


def _at(shot: TableShot, version: int) -> TableShot:
    """`shot` committed with the table's stored `version`."""
    return TableShot(shot.table_id, shot.message, version, shot.note, shot.buttons)


@dataclass(slots=True)
class _Intent:
    kind: str  # "edit", "post_table", "post", "tell"
    screen: Staged
    freeze: Shown | None = None
    user: str | None = None


class Outbox(Deliveries):
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
        self.alone = not repo.shared
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


__all__ = ["LEASE", "OnTold", "Outbox", "Staged", "process_id"]
