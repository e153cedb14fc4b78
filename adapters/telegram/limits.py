"""Telegram's flood limits kept per destination, before sending: one lane per chat.

Telegram allows about 20 messages a minute in a group (sends and edits together), about one a
second in a private chat and about 30 a second for the whole bot; beyond them it answers 429
with `retry_after`. python-telegram-bot's `AIORateLimiter` spends a group's budget as a burst
of 20 and then one call every 3 s (a leaky bucket), which Telegram's own sliding minute refuses,
and on any 429 it pauses **every** request of the bot. `Lanes` instead:

- counts each chat's calls over the real sliding window (and the bot's over its second), and
  lets a call go only when the window has room: a 429 is the exception, not the pacing;
- pauses only the chat a 429 names (until its `retry_after`), never another chat, never an
  answer to a press (`answerCallbackQuery`, `answerInlineQuery`: no chat, no lane);
- tries a refused call again after every 429, without a limit (a deal's result must arrive;
  the notifier abandons calls when the platform stops), where `AIORateLimiter` gave up;
- tells a caller when a chat's lane has room (`ready`), so the outbox sends the newest table
  state then instead of an older one queued in the limiter; a table message's edits spread
  the room a group's window has left over the time until its calls leave it, so a burst (a
  round's last state and result, the next round's message) is not followed by most of a
  minute without a call, the table far behind the game; and an edit leaves the room the calls
  made without waiting for `ready` (posts, a deal's end) will need, at the pace they came
  (`_Lane.projected`): with deals of about 10 s and no next-deal delay their ends alone want
  most of a group's minute.

Reads (getChatMember...) spend no chat's budget. The budget is per bot token: several
processes on one token (one PostgreSQL store) keep a group's window together, each counting
the calls the others made in it lately (`SharedCalls`, the store's `chat_calls`) beside its
own; private chats and the bot's second are kept per process (see docs/scaling.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)

JSONResult = bool | dict[str, Any] | list[dict[str, Any]]

#: Bot API methods that post nothing in a chat: only the bot's overall budget counts them
#: (getMe, getUpdates... have no chat and are not limited at all).
READS = frozenset({"getChatMember", "getChat", "getChatAdministrators", "getMe"})
#: Answers to a user's query: not messages, never delayed.
ANSWERS = frozenset({"answerCallbackQuery", "answerInlineQuery", "answerWebAppQuery"})

#: Calls that put a message in a chat (sends and edits count alike).
SENDS = ("send", "edit", "copy", "forward")

#: Lanes of idle chats kept before they are forgotten.
_MEMORY = 4096
#: Seconds a look at (or a note of) other processes' calls may take: a store that hangs
#: never holds a call up for longer (its own calls still count).
SHARED_TIMEOUT = 1.0


@dataclass(frozen=True, slots=True)
class LaneLimits:
    """Telegram's budgets: `group` calls per `group_window` s in a group, `private` per
    `private_window` s in a private chat (about one a second: sent evenly, one per
    `private_window / private` s from one call's start to the next's, so the next screen
    never waits out a burst), `overall` per `overall_window` s for the bot. `margin` (a
    fraction) widens the group's and the bot's windows; a private chat's has none, since it
    is kept by this process alone and counted from answers, which come a round trip after
    Telegram counts the call (a group's window is also kept with other processes' calls, by
    wall-clock times of different hosts).

    `reserve`: calls of a group's window that a table message's edit never takes (`ready`
    keeps them for posts, so a deal's end goes out at once: its last state and its result,
    which, at the end of a Karnaval quarter, is the score sheet's picture and a text too long
    for its caption, three calls). Five are kept: a deal's end, the next deal's message and
    that deal's end, when it was over within a second or two, are seven calls (the result's
    freeze merged into it or put off while the budget is short: `Lanes.short`), all within
    10 s of a last move; with three kept and the freeze always sent, such an end waited up
    to 17.3 s for calls to leave the window. `horizon`: the seconds within which a deal's
    end is to reach the group; the budget is short when an edit now would leave the calls
    kept for posts still spent that long from now. Edits are also spread evenly (one per
    `group_window / group` s at most, and the room left spread over the time until the
    window's calls leave it: `_Lane.wait`), so the budget is never spent in a burst that
    would leave the group without a call for most of a minute."""

    group: int = 20
    group_window: float = 60.0
    private: int = 3
    private_window: float = 3.0
    overall: int = 30
    overall_window: float = 1.0
    margin: float = 0.02
    reserve: int = 5
    horizon: float = 10.0


class SharedCalls(Protocol):
    """The calls other processes on the same bot token made in a chat (times in wall-clock
    seconds), and this process's own, recorded for them."""

    async def others(self, chat: str, since: float) -> list[float]:
        """When other processes called the platform in `chat` since `since`."""
        ...

    async def record(self, chat: str, at: float) -> None:
        """This process called the platform in `chat` at `at`."""
        ...


class _Lane:
    """One destination's calls: when recent ones were answered (oldest first), how many are
    under way, when the newest one started, and how long a 429 paused it. A call counts in
    the window from its answer: Telegram counts it from its arrival, which is earlier, so the
    window kept here is never shorter. The even spacing between calls is kept from one call's
    start to the next's (the window, kept by answers, is what guards against a 429)."""

    __slots__ = (
        "busy",
        "first",
        "granted",
        "limit",
        "paused_until",
        "sent",
        "started",
        "unpaced",
        "window",
    )

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.sent: deque[float] = deque()
        self.busy = 0
        self.paused_until = 0.0
        self.started: float | None = None
        #: When the calls made without waiting for `Lanes.ready` were answered (a group's
        #: posts and a deal's end: they come whatever the budget), within the window.
        self.unpaced: deque[float] = deque()
        #: `Lanes.ready` let an edit go: the next call is that paced edit.
        self.granted = False
        #: When the lane's first call was answered (None: none yet).
        self.first: float | None = None

    def wait(
        self,
        now: float,
        limit: int | None = None,
        spacing: float = 0.0,
        others: Sequence[float] = (),
        spread: bool = False,
    ) -> float:
        """Seconds until one more call fits `limit` (the lane's own by default) and starts
        `spacing` s after the newest call started (0: now); `others`: calls other processes
        made in the chat (loop time), counted as this lane's.

        `spread`: the room left in the window is spread over the time until the calls in it
        leave it, as if calls were wanted from now on without end: a call waits until the
        step since the last one is as long as the steps the window could keep up after it.
        A burst that spent most of the window is then followed by calls at an even pace, not
        by the rest of the room at once and then nothing until the burst leaves the window."""
        limit = self.limit if limit is None else limit
        while self.sent and self.sent[0] <= now - self.window:
            self.sent.popleft()
        sent: Sequence[float] = self.sent
        if others:
            sent = sorted([*self.sent, *(t for t in others if t > now - self.window)])
        wait = self.paused_until - now
        last = max([*others, *([] if self.started is None else [self.started])], default=None)
        if last is not None and spacing > 0:
            wait = max(wait, last + spacing - now)
        if limit > 0 and len(sent) + self.busy >= limit:
            if len(sent) >= limit:
                wait = max(wait, sent[-limit] + self.window - now)
            else:  # calls under way fill it: they are answered soon
                wait = max(wait, self.window / max(limit, 1) / 10)
        if spread and last is not None and limit > 0:
            # This call (at t) is the first from now; the (room + i + 1)-th needs the
            # (i + 1)-th oldest call gone. At steps of (t - last) it comes at
            # t + (room + i) * (t - last), after that call leaves (at + window), if
            # t >= ((room + i) * last + at + window) / (room + i + 1).
            room = limit - len(sent) - self.busy
            for i, at in enumerate(sent):
                k = room + i
                if k >= 1:
                    wait = max(wait, (k * last + at + self.window) / (k + 1) - now)
        return max(0.0, wait)

    def projected(self, now: float, limit: int) -> float:
        """Seconds until one more paced call (a table message's edit) fits `limit` with the
        unpaced calls still to come: they are expected at the pace of the window's own (per
        second since the lane's first call, within the window), and an edit now is to leave
        room for them at every moment until it leaves the window itself: while the calls
        already made leave it, and until its end. 0: it fits now."""
        while self.unpaced and self.unpaced[0] <= now - self.window:
            self.unpaced.popleft()
        if not self.unpaced or self.first is None:
            return 0.0
        rate = len(self.unpaced) / max(min(self.window, now - self.first), self.window / 6)
        sent = [t for t in self.sent if t > now - self.window]
        # Just before the i-th oldest call leaves (at + window), it and the newer ones are in
        # the window, with the edit and the unpaced calls expected by then.
        moments = [(at + self.window, len(sent) - i) for i, at in enumerate(sent)]
        moments.append((now + self.window, 0))
        if all(kept + self.busy + 1 + rate * (at - now) <= limit for at, kept in moments):
            return 0.0
        # Looked at again when a call leaves the window (the pace or the room changes), at
        # least every even step (the pace is counted since the first call for a minute).
        leaves = min([*sent[:1], self.unpaced[0]]) + self.window - now
        return min(self.step, max(leaves, 0.001))

    @property
    def step(self) -> float:
        """The even step between calls: the window over its calls (0: no limit)."""
        return self.window / self.limit if self.limit > 0 else 0.0

    def idle(self, now: float) -> bool:
        return self.wait(now) == 0 and not self.sent and not self.busy


class Lanes(BaseRateLimiter[int]):
    """A rate limiter for python-telegram-bot with a lane per chat (see the module)."""

    def __init__(self, limits: LaneLimits | None = None) -> None:
        self.limits = limits or LaneLimits()
        lim = self.limits
        self._overall = _Lane(lim.overall, lim.overall_window * (1 + lim.margin))
        self._chats: dict[int | str, _Lane] = {}
        #: 429 answers received, per chat (0: a call without a chat); benchmarks, tests.
        self.floods: dict[int | str, int] = {}
        #: Other processes on the same bot token: a group's window is kept with their calls.
        self.shared: SharedCalls | None = None
        self._shared_failed = False

    async def _others(self, key: int | str, lane: _Lane, now: float) -> list[float]:
        """The calls other processes made in group `key` within the lane's window, in loop
        time (none for a private chat, or when no other process shares the token)."""
        shared = self.shared
        if shared is None or not _group(key):
            return []
        offset = time.time() - now
        try:
            found = await asyncio.wait_for(
                shared.others(str(key), now + offset - lane.window), SHARED_TIMEOUT
            )
        except Exception as exc:  # the store is away: this process's own calls still count
            if not self._shared_failed:
                log.warning("telegram: other processes' calls unknown (%s)", exc)
            self._shared_failed = True
            return []
        self._shared_failed = False
        return [t - offset for t in found]

    async def _record(self, key: int | str) -> None:
        """Tell the other processes of a call in group `key`, now."""
        if self.shared is None or not _group(key):
            return
        with contextlib.suppress(Exception):  # unknown to them: they meet a rare 429
            await asyncio.wait_for(self.shared.record(str(key), time.time()), SHARED_TIMEOUT)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def _lane(self, chat: int | str) -> _Lane:
        lane = self._chats.get(chat)
        if lane is None:
            if len(self._chats) >= _MEMORY:
                now = asyncio.get_running_loop().time()
                for key in [k for k, v in self._chats.items() if v.idle(now)]:
                    del self._chats[key]
            lim = self.limits
            group = _group(chat)
            limit = lim.group if group else lim.private
            window = lim.group_window * (1 + lim.margin) if group else lim.private_window
            lane = self._chats[chat] = _Lane(limit, window)
        return lane

    async def ready(self, chat_id: int | str) -> None:
        """Return once a call to `chat_id` would go at once: in a group, an edit of a table
        message (its lane has room beyond the calls kept for posts, `reserve`, the last call
        is one even step back, with `spread`, the room left lasts at that pace until the
        calls in the window leave it, and the calls to come unpaced still find room:
        `_Lane.projected`); in a private chat, the next message (one even step after the
        last started); and the bot has room. It takes nothing: the call that follows spends
        the budget (a group's next call counts as paced)."""
        loop = asyncio.get_running_loop()
        key = _chat_key(chat_id)
        lane = self._lane(key)
        limit, spacing = lane.limit, lane.step
        if lane.limit > 0 and _group(key):
            limit = max(1, lane.limit - self.limits.reserve)
        while True:
            now = loop.time()
            others = await self._others(key, lane, now)
            now = loop.time()
            wait = max(
                lane.wait(now, limit, spacing, others, spread=_group(key)),
                self._overall.wait(now),
                lane.projected(now, limit) if _group(key) else 0.0,
            )
            if wait <= 0:
                lane.granted = _group(key)
                return
            await asyncio.sleep(wait)

    def short(self, chat_id: int | str) -> bool:
        """Whether a group's budget is short now: an edit of its table message now would
        leave the calls kept for posts (`reserve`) still spent `horizon` s from now (this
        process's own calls, no pacing), or leave too little room for the posts and deal
        ends to come (`_Lane.projected`), so a call spared now is a deal's end sooner (the
        outbox then merges or puts off what it can). Never in a private chat."""
        key = _chat_key(chat_id)
        if not _group(key):
            return False
        lane = self._lane(key)
        if lane.limit <= 0:
            return False
        # The calls still in the window `horizon` s from now: the room kept for posts must
        # be free again by then, this call made.
        now = asyncio.get_running_loop().time()
        since = now + self.limits.horizon - lane.window
        kept = sum(1 for t in lane.sent if t > since)
        room = max(1, lane.limit - self.limits.reserve)
        # Or an edit now would leave no room for the posts and deal ends to come.
        return kept + lane.busy >= room or lane.projected(now, room) > 0

    async def _take(
        self, lanes: tuple[_Lane, ...], spacing: float = 0.0, key: int | str = 0
    ) -> None:
        """Wait until every lane has room (the first one, chat `key`'s, `spacing` s after its
        last call too, other processes' calls counted), then count a call under way in each."""
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            others = await self._others(key, lanes[0], now) if len(lanes) > 1 else []
            now = loop.time()
            wait = max(
                lanes[0].wait(now, spacing=spacing, others=others),
                *(lane.wait(now) for lane in lanes),
            )
            if wait <= 0:
                for lane in lanes:
                    lane.busy += 1
                    lane.started = now
                return
            await asyncio.sleep(wait)

    @staticmethod
    def _done(lanes: tuple[_Lane, ...], paced: bool = True) -> None:
        """A call was answered: it counts from now (in the chat's unpaced calls too, unless
        `paced`: an edit `ready` let go)."""
        now = asyncio.get_running_loop().time()
        for lane in lanes:
            lane.busy -= 1
            lane.sent.append(now)
        chat = lanes[0]
        if chat.first is None:
            chat.first = now
        if not paced:
            chat.unpaced.append(now)

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSONResult]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> JSONResult:
        """Send when the destination's lane has room; after a 429, pause that lane only and
        try again (every time: nothing is dropped here)."""
        chat_id = data.get("chat_id")
        lanes: tuple[_Lane, ...]
        key: int | str = 0
        spacing = 0.0
        if endpoint in READS:
            lanes = (self._overall,)
        elif endpoint not in ANSWERS and endpoint.startswith(SENDS):
            if chat_id is None:  # an inline message: no chat's lane, the bot's only
                lanes = (self._overall,)
            else:
                key = _chat_key(chat_id)
                lanes = (self._lane(key), self._overall)
                if not _group(key):
                    # A private chat is paced evenly: a burst would leave the next screen
                    # waiting for most of the window.
                    spacing = lanes[0].step
        else:
            return await callback(*args, **kwargs)
        loop = asyncio.get_running_loop()
        # A group's call `ready` did not let go comes whatever the budget (a post, a deal's
        # end): edits leave room for such calls at the pace they came (`_Lane.projected`).
        paced = len(lanes) < 2 or not _group(key) or lanes[0].granted
        if len(lanes) > 1:
            lanes[0].granted = False
        while True:
            await self._take(lanes, spacing, key)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                flood = exc
            finally:
                self._done(lanes, paced)  # answered, refused or failed: it counts the same
                if len(lanes) > 1:
                    await self._record(key)
            self.floods[key] = self.floods.get(key, 0) + 1
            after = flood._retry_after.total_seconds()  # int or timedelta in PTB 22
            log.info("telegram: %s to %s refused for %.1f s; sent again then", endpoint, key, after)
            if len(lanes) > 1:  # the chat's lane pauses; no other chat, no answer waits
                lanes[0].paused_until = max(lanes[0].paused_until, loop.time() + after)
            else:
                await asyncio.sleep(after)


def _group(chat: int | str) -> bool:
    """A group, a supergroup or a channel (a private chat's id is a user's, positive)."""
    return isinstance(chat, str) or chat < 0


def _chat_key(chat_id: object) -> int | str:
    with contextlib.suppress(TypeError, ValueError):
        return int(chat_id)  # type: ignore[call-overload]
    return str(chat_id)
