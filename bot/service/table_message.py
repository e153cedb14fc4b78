"""The table message's policy: what a channel is shown, and when (issue 17).

What a chat shows of a table is *state*, not a stream of events: "latest state wins". An edit of
the table message waits for its channel's budget (`PacedChannels.ready`, where the platform has
one) and then goes only if nothing newer was committed meanwhile: every state committed while the
budget was spent is merged into the newest, and a state never follows a newer one. An edit that
would show what the message shows already is skipped; a new table message freezes the old one first
(its buttons removed). While the channel's budget is short (`ShortBudget.short`: an edit now would
leave the calls kept for posts, or the room the posts to come need, spent), a freeze spares its
call for a deal's end (issue 31, point 5): a table message whose successor already waits (a deal's
result is held a moment for it: `HOLD`) is posted as that successor freezes it, the freeze not
sent; else the freeze is put off until an edit has room, after the new message (`thaw`). Posts (a
reveal, a deal's result, a picture) are events, sent in order: this module decides, outbox.py sends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TypeAlias

from bot.service.ports import (
    Clock,
    MessageGone,
    Notifier,
    OutMessage,
    PacedChannels,
    Screen,
    ShortBudget,
    TableShot,
    capable,
)
from bot.service.samples import Samples

log = logging.getLogger(__name__)

#: A screen, or a shot of the table (rendered at delivery).
Shown: TypeAlias = Screen | TableShot
#: Renders a table shot when it is delivered (None: the table it shows is gone).
RenderShot = Callable[[str, TableShot], Awaitable[Screen | None]]
#: Called with (table key, new message ref) after a table message was posted.
OnPosted = Callable[[str, str], Awaitable[None]]

#: Renderings at the commit kept per table for its delivery (more are rendered anew).
RENDERED_KEPT = 8

#: Seconds a new table message freezing no older one (a deal's result) waits, while its
#: channel's budget is short, for the next one that would freeze it (the next deal's message,
#: committed a moment later at no next-deal delay; only where the last one came that soon):
#: posted as that one leaves it, its freeze spares a call.
HOLD = 0.5

#: The longest text of private messages sent as one (`bot.service.replies.MAX_TEXT`, a text
#: every platform takes in one message).
MERGED_TEXT = 1900


def merge_private(screens: list[Shown]) -> tuple[int, Shown]:
    """What of a person's private messages of one table, waiting together, goes as one
    message: (how many of the first `screens`, the message). A private screen (one with
    buttons: the person's choices) is state, the newest wins: an older one waiting is out of
    date (its buttons are stale, its text shows less than the newer). A line without buttons
    (a hand dealt, what a step meant for the person) is an event: never dropped, it goes in
    the message, in order, above the screen that follows it. A run goes up to its last
    screen (a line after it waits for the next message, so a screen never looks newer than
    a line it predates) and as long as the text fits; a picture, or a shot of the table,
    goes alone."""
    first = screens[0]
    if not isinstance(first, Screen) or first.image is not None:
        return 1, first
    run: list[Screen] = []
    for s in screens:
        if not isinstance(s, Screen) or s.image is not None:
            break
        run.append(s)
    best: tuple[int, Shown] = (1, first)
    for n in range(2, len(run) + 1):
        merged = _merged(run[:n])
        if merged is None:
            break
        if run[n - 1].buttons or not any(s.buttons for s in run[:n]):
            best = (n, merged)
    return best


def _merged(run: list[Screen]) -> Screen | None:
    """`run` as one message (None: its text would not fit one). A line above the screen
    says only what the screen does not (issue 30: each thing once): its lines the screen
    shows too (the hand dealt, then the screen of the seat's turn showing that hand) are left
    out, and a line with nothing left goes."""
    newest = max((i for i, s in enumerate(run) if s.buttons), default=-1)
    parts = [s for i, s in enumerate(run) if not s.buttons or i == newest]
    shown = set(run[newest].text.splitlines()) if newest >= 0 else set()
    texts = []
    for s in parts:
        if s.buttons:
            texts.append(s.text)
            continue
        rest = [line for line in s.text.splitlines() if line not in shown]
        if any(line.strip() for line in rest):
            texts.append("\n".join(rest))
    text = "\n\n".join(texts)
    if len(text) > MERGED_TEXT:
        return None
    literals = tuple(dict.fromkeys(x for s in parts for x in s.literals))
    blocks = tuple(dict.fromkeys(x for s in parts for x in s.blocks))
    buttons = run[newest].buttons if newest >= 0 else ()
    return Screen(text, buttons, literals=literals, blocks=blocks, language=run[-1].language)


@dataclass(slots=True)
class TableMessage:
    """One table's message as this process knows it."""

    ref: str | None = None
    ref_known: bool = False
    #: The hash of what this process last showed in the message `ref` when it rendered it at
    #: delivery (an identical edit rendered at delivery is skipped; a hash, not the screen: a
    #: table's memory stays small). None: not known.
    shown: int | None = None
    #: Shots of the table rendered at their commit by this process (the store keeps only the
    #: shot): sent as rendered, so each message shows its own moment; the newest few only.
    rendered: dict[TableShot, Screen] = field(default_factory=dict)
    #: When the oldest state merged into the next edit was committed (None: none merged).
    stale_since: float | None = None
    #: A newer table message whose freeze `ref` shows already (it was posted frozen, its
    #: successor waiting): that message's freeze edit is not sent.
    frozen_for: OutMessage | None = None
    #: Older table messages still to freeze (reference, their last screen): posted past
    #: while the channel's budget was short, they are frozen when an edit has room.
    unfrozen: list[tuple[str, Screen]] = field(default_factory=list)
    #: When the newest table message freezing no older one (a deal's result) was committed,
    #: until a successor froze it; how soon after it the last such successor came (`HOLD`).
    unfreezing: float | None = None
    follows: float | None = None

    def adopt(self, ref: str | None) -> None:
        """The store's reference (another process may have posted or edited since: what the
        message shows is not known)."""
        self.ref, self.ref_known, self.shown = ref, True, None

    def keep_rendered(self, shot: TableShot, screen: Screen) -> None:
        """Keep `screen`, the rendering at its commit of `shot`, to send as it is."""
        self.rendered[shot] = screen
        while len(self.rendered) > RENDERED_KEPT:
            del self.rendered[next(iter(self.rendered))]


class TableMessages:
    """The policy: when an edit goes (budget, merge), what a message shows, freezes, posts."""

    def __init__(
        self, notifier: Notifier, render_shot: RenderShot, on_posted: OnPosted, clock: Clock
    ) -> None:
        self.notifier = notifier
        self.clock = clock
        self._render_shot = render_shot
        self._on_posted = on_posted
        #: How far behind the game a channel's message was when sent: from the commit of the
        #: oldest state it shows or merged away (benchmarks: the newest 10,000 kept).
        self.stale: Samples = Samples()

    @staticmethod
    def superseded(m: OutMessage, later: list[OutMessage]) -> bool:
        """An edit a newer edit (or a new table message freezing it) replaces."""
        if m.kind == "edit":
            for n in later:
                if n.kind == "edit":
                    return True
                if n.kind == "post_table":
                    return n.freeze is not None
        return False

    @staticmethod
    def followed_by_post(later: list[OutMessage]) -> bool:
        """A post (a deal's result, a new table message) follows: the edit before it ends
        what the post follows, and goes with it, unpaced."""
        return any(n.kind in ("post", "post_table") for n in later)

    def short(self, channel: str) -> bool:
        """Whether the channel's budget is short now: an edit would leave the calls it keeps
        for posts spent (`ShortBudget.short`, where the platform keeps a budget; else never)."""
        n = self.notifier
        return capable(n, ShortBudget) and n.short(channel)

    @staticmethod
    def freezer(m: OutMessage, later: list[OutMessage]) -> OutMessage | None:
        """The newer table message, already waiting, whose freeze ends the message `m` (a
        new table message) posts: the next table message after `m`, when it freezes the old
        one (edits between are of `m`'s message, which the freeze replaces)."""
        if m.kind != "post_table":
            return None
        for n in later:
            if n.kind == "post_table":
                return n if n.freeze is not None else None
        return None

    async def due(
        self,
        channel: str,
        tm: TableMessage,
        m: OutMessage,
        later: list[OutMessage],
        arrived: Callable[[], list[OutMessage]],
        more: asyncio.Event | None = None,
    ) -> bool:
        """Whether `m` is to be sent now. An edit of the table message waits for the
        channel's budget, then goes only if nothing newer came meanwhile (`arrived`: what was
        committed while it waited); else it is merged into the newer one. An edit a post
        follows (the last moves of a deal before its result) goes with the post, unpaced.

        `more` is set when a message of the channel arrives: an edit waiting for the budget
        stops waiting when a newer edit replaces it or a post comes (a deal's end then goes
        out at once, on the calls kept for posts, not after the paced edit's turn)."""
        if m.kind == "post_table":
            await self._hold(channel, tm, m, later, arrived, more)
            return True
        if m.kind != "edit":
            return True
        if not self.superseded(m, later):
            if self.followed_by_post(later):
                return True  # it ends what a post follows (a deal's last moves): no pacing
            notifier = self.notifier
            ready = notifier.ready if capable(notifier, PacedChannels) else None
            if ready is not None:

                def stop() -> bool:
                    newer = arrived()
                    return self.superseded(m, newer) or self.followed_by_post(newer)

                # An older message's freeze put off goes first, in the room it waits for.
                await self.thaw(channel, tm, stop, more)
                if not stop():
                    await self._until_ready(ready(channel), stop, more)
            newer = arrived()
            if not self.superseded(m, newer):
                return True
        if tm.stale_since is None or m.created_at < tm.stale_since:
            tm.stale_since = m.created_at
        return False

    async def _hold(
        self,
        channel: str,
        tm: TableMessage,
        m: OutMessage,
        later: list[OutMessage],
        arrived: Callable[[], list[OutMessage]],
        more: asyncio.Event | None,
    ) -> None:
        """Hold `m`, a new table message freezing no older one (a deal's result), up to
        `HOLD` s for the next one, while the budget is short and the last one came that soon:
        when it comes and freezes `m`'s, `m` is posted as it ends (`freezer`), and the
        freeze's call is spared for a deal's end (issue 31, point 5)."""
        if m.freeze is not None and tm.unfreezing is not None:
            tm.follows = m.created_at - tm.unfreezing  # how soon the successor came
        tm.unfreezing = m.created_at if m.freeze is None else None
        soon = m.freeze is None and tm.follows is not None and tm.follows <= HOLD
        if more is None or not soon or not self.short(channel):
            return
        if self.freezer(m, later) is None:
            stop = lambda: any(n.kind == "post_table" for n in later + arrived())  # noqa: E731
            await self._until_ready(asyncio.sleep(HOLD), stop, more)

    async def thaw(
        self,
        channel: str,
        tm: TableMessage,
        stop: Callable[[], bool],
        more: asyncio.Event | None,
    ) -> None:
        """Freeze the older table messages whose freeze was put off (`unfrozen`), oldest
        first, each when the channel has room for an edit (`PacedChannels.ready`), until `stop`
        says what arrived goes first (`more` tells of arrivals)."""
        n = self.notifier
        ready = n.ready if capable(n, PacedChannels) else None
        while tm.unfrozen and not stop():
            if ready is not None:
                await self._until_ready(ready(channel), stop, more)
                if stop():
                    return
            ref, freeze = tm.unfrozen.pop(0)
            await self._freeze(channel, ref, freeze)

    async def _freeze(self, channel: str, ref: str, freeze: Screen) -> None:
        """Show `freeze` (no buttons) in the older table message `ref`."""
        try:
            await self.notifier.edit(channel, ref, freeze)
        except Exception:  # the old message may be gone: nothing to freeze
            log.warning("freezing the old table message in %s failed", channel)

    async def _until_ready(
        self, ready: Awaitable[None], stop: Callable[[], bool], more: asyncio.Event | None
    ) -> None:
        """Wait for the channel's budget (`ready`), or until `stop` says what arrived
        meanwhile goes first (`more` tells of arrivals; None: the budget alone)."""
        room = asyncio.ensure_future(ready)
        try:
            while not room.done():
                if more is None:
                    await room
                    return
                if stop():
                    return
                more.clear()
                woke = asyncio.ensure_future(more.wait())
                try:
                    await asyncio.wait({room, woke}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    woke.cancel()
        finally:
            if not room.done():
                room.cancel()
                await asyncio.gather(room, return_exceptions=True)

    def sent(self, tm: TableMessage, m: OutMessage) -> None:
        """Note how far behind the game `m` (and what was merged into it) went out."""
        now = self.clock.now()
        oldest = m.created_at if tm.stale_since is None else min(tm.stale_since, m.created_at)
        self.stale.append(max(0.0, now - oldest))
        tm.stale_since = None

    async def screen(self, channel: str, tm: TableMessage, shown: Shown) -> Screen | None:
        """The screen to send: a table shot as rendered at its commit by this process, else
        rendered now (None: its table is gone, or its message is no longer the newest)."""
        if isinstance(shown, Screen):
            return shown
        rendered = tm.rendered.pop(shown, None)
        if rendered is not None:
            for older in [s for s in tm.rendered if s.version < shown.version]:
                del tm.rendered[older]  # shots merged into this one: never sent
            return rendered
        return await self._render_shot(channel, shown)

    async def send(
        self, channel: str, tm: TableMessage, m: OutMessage, later: list[OutMessage] | None = None
    ) -> bool:
        """Send a channel's message (an edit, a new table message, a post); True when a new
        table message was posted. `later`: the channel's messages waiting after `m`.

        While the channel's budget is short (`short`), a new table message whose successor
        waits already (`freezer`: a deal's result, and the next deal's message) is posted as
        that successor freezes it, the freeze not sent: the same as it ends, one call less;
        and the freeze of the old message a new one replaces is put off until an edit has
        room (`thaw`), so a deal's end that follows goes first (issue 31, point 5)."""
        n = self.notifier
        # Rendered now (not at its commit): it may show what the message shows already.
        fresh = isinstance(m.screen, TableShot) and m.screen not in tm.rendered
        screen = await self.screen(channel, tm, m.screen)
        if screen is None:
            return False  # a shot of a table that is gone: nothing to show
        if m.kind == "edit":
            if tm.ref is None:
                return await self._post_table_message(channel, tm, screen)
            shown = hash(screen) if fresh else None
            if shown is not None and shown == tm.shown:
                return False  # it shows that already (a shot of an unchanged table)
            try:
                await n.edit(channel, tm.ref, screen)
                tm.shown = shown
            except MessageGone:
                # Someone deleted the table message: post it again.
                return await self._post_table_message(channel, tm, screen)
            return False
        if m.kind == "post_table":
            # Its freeze shows already when the old message was posted as it ends.
            frozen, tm.frozen_for = tm.frozen_for is m, None
            freeze = None
            if m.freeze is not None and not frozen:
                freeze = await self.screen(channel, tm, m.freeze)
            old, short = tm.ref, self.short(channel)
            if old is not None and freeze is not None and not short:
                await self._freeze(channel, old, freeze)  # then post the new one anyway
            nxt = self.freezer(m, later or []) if short else None
            final = (
                None
                if nxt is None or nxt.freeze is None
                else await self.screen(channel, tm, nxt.freeze)
            )
            if final is not None:
                # As its successor leaves it: that freeze's text and buttons (none), under
                # this message's picture (an edit never changes a picture).
                screen = replace(final, image=screen.image)
            posted = await self._post_table_message(channel, tm, screen)
            tm.frozen_for = nxt if final is not None else None
            if old is not None and freeze is not None and short:
                tm.unfrozen.append((old, freeze))  # frozen when an edit has room (`thaw`)
            return posted
        await n.post(channel, screen)
        return False

    async def _post_table_message(self, channel: str, tm: TableMessage, screen: Screen) -> bool:
        """Post `screen` as the table message edited from now on."""
        ref = await self.notifier.post(channel, screen)
        tm.ref, tm.ref_known, tm.shown = ref, True, None
        if ref is not None:
            await self._on_posted(channel, ref)
        return True
