"""The bench for Telegram end-to-end tests: the real PTB Application on a fake Bot API.

`Bench` runs a `TelegramPlatform` (python-telegram-bot 22, rate limiter included) against a
`FakeTelegram` over HTTP, with the real `TableService` and a repository, as `gnav-bot run`
composes them, plus helpers to act as users and to wait for what the bot does. Flood limits
are loosened here (`TEST_LIMITS`) so a match takes seconds; production keeps Telegram's.
A `StackedRandom` stacks the deck so that a test knows who holds what.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest

from adapters.telegram.platform import TelegramLimits, TelegramPlatform
from bot.config import BotSettings
from bot.games.gnav.engine.pieces import FULL_SET, Rank
from bot.games.registry import all_games
from bot.service.service import TableService
from bot.service.store import Repository
from bot.service.table import TableKey
from storage.memory import MemoryRepository
from tests.fakes.telegram_api import (
    WAIT,
    CallbackAnswer,
    ChatRef,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
)

#: Loose limits for tests: no pacing, a group budget a match never reaches, short polls.
TEST_LIMITS = TelegramLimits(
    overall_per_second=10_000,
    group_per_minute=100_000,
    chat_interval=0.0,
    poll_timeout=1,
    drain_timeout=5.0,
)


class StackedRandom(random.Random):
    """A seeded `random.Random` with a stacked deck: each shuffle puts planned pieces on top.

    `dealer` is the first dealer (the first `randrange`); `deals` are the tops of the next
    shuffles (dealt from the dealer's left, then the bag's top). Legitimate in a test: the
    service takes any `random.Random`.
    """

    def __init__(
        self, seed: int = 1, *, dealer: int | None = None, deals: Sequence[Sequence[int]] = ()
    ) -> None:
        super().__init__(seed)
        self.first_dealer = dealer
        self.deals = [list(d) for d in deals]

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        """The planned first dealer once, then ordinary draws."""
        if self.first_dealer is not None:
            dealer, self.first_dealer = self.first_dealer, None
            return dealer
        return super().randrange(*args, **kwargs)

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        """Shuffle, then move the next planned pieces to the top, in order."""
        super().shuffle(x)
        if self.deals:
            top = self.deals.pop(0)
            rest = list(x)
            for rank in top:
                rest.remove(int(rank))
            x[:] = [int(r) for r in top] + rest


def settings_for(tg: FakeTelegram, **overrides: Any) -> BotSettings:
    """Settings pointing at the fake (no .env file is read)."""
    values: dict[str, Any] = {
        "telegram_token": tg.token,
        "telegram_base_url": tg.base_url,
        "telegram_base_file_url": tg.base_file_url,
        "telegram_mode": "polling",
        "gnav_bot_delay": 0.0,
    }
    values.update(overrides)
    return BotSettings(_env_file=None, **values)  # type: ignore[call-arg]


class Bench:
    """A fake Telegram, the service and the platform, started and stopped together."""

    def __init__(
        self,
        tg: FakeTelegram,
        *,
        repo: Repository | None = None,
        rng: random.Random | None = None,
        limits: TelegramLimits = TEST_LIMITS,
        settings: BotSettings | None = None,
    ) -> None:
        self.tg = tg
        self.repo: Repository = repo or MemoryRepository()
        self.rng = rng or random.Random(7)
        self.limits = limits
        self.settings = settings or settings_for(tg)
        self.platform = TelegramPlatform(self.settings, limits=limits)
        self.service = TableService(
            self.repo, self.platform.notifier, rng=self.rng, bot_delay=0.0, games=all_games()
        )
        self._timers: asyncio.Task[None] | None = None

    async def start(self, *, resume: bool = False) -> Bench:
        """Start as `gnav-bot run` does: resume stored tables, the platform, the timers."""
        if resume:
            await self.service.resume()
        await self.platform.start(self.service)
        self._timers = asyncio.create_task(self.service.run(), name="bench-timers")
        return self

    async def stop(self) -> None:
        """Stop as `gnav-bot run` does on SIGTERM."""
        await self.platform.stop()
        if self._timers is not None:
            self._timers.cancel()
            await asyncio.gather(self._timers, return_exceptions=True)
        await self.service.shutdown()

    # ------------------------------------------------------------------ acting as users
    def say(self, user: FakeUser, chat: ChatRef, text: str, **kwargs: Any) -> FakeMessage:
        """`user` writes in `chat` (commands get their bot_command entity)."""
        return self.tg.user_sends(user, chat, text, **kwargs)

    def table_message(self, chat: ChatRef, thread: int | None = None) -> FakeMessage | None:
        """The live table message: the newest bot message of the chat that has buttons."""
        for msg in reversed(self.tg.messages_in(chat, thread_id=thread, from_bot=True)):
            if any("callback_data" in b for b in msg.buttons()):
                return msg
        return None

    async def wait_table(
        self,
        chat: ChatRef,
        contains: str = "",
        *,
        button: str | None = None,
        thread: int | None = None,
        timeout: float = WAIT,
    ) -> FakeMessage:
        """Wait until the table message shows `contains` (and has a `button`)."""

        def found() -> FakeMessage | None:
            msg = self.table_message(chat, thread)
            if msg is None or contains not in (msg.text or ""):
                return None
            if button is not None and not any(button in b["text"] for b in msg.buttons()):
                return None
            return msg

        return await self.tg.wait_for(
            found, timeout=timeout, what=f"a table message with {contains!r} / {button!r}"
        )

    async def press(
        self,
        user: FakeUser,
        chat: ChatRef,
        label: str,
        *,
        thread: int | None = None,
        when: str = "",
        message: FakeMessage | None = None,
    ) -> CallbackAnswer:
        """`user` presses `label` on the table message once it shows `when`; wait for the answer.

        `when` matters: the table message is edited after the previous press is answered, and
        a press of the keyboard as it was before is (rightly) stale.
        """
        msg = message or await self.wait_table(chat, when, button=label, thread=thread)
        query = self.tg.user_presses_button(user, msg, label)
        return await self.answered(query)

    async def answered(self, query: str) -> CallbackAnswer:
        """Wait until the bot answered a callback query."""
        return await self.tg.wait_for(
            lambda: self.tg.callback_answer(query).answered and self.tg.callback_answer(query),
            what=f"the answer to callback {query}",
        )

    async def reply_to(
        self, chat: ChatRef, command: FakeMessage, timeout: float = WAIT
    ) -> FakeMessage:
        """Wait for the bot's reply to a user's message."""
        return await self.tg.wait_for(
            lambda: next(
                (
                    m
                    for m in self.tg.messages_in(chat, from_bot=True)
                    if m.reply_to_message_id == command.message_id
                ),
                None,
            ),
            timeout=timeout,
            what=f"a reply to message {command.message_id}",
        )

    async def dm(self, user: FakeUser, contains: str, after: int = 0) -> FakeMessage:
        """Wait for a private message to `user` containing `contains`."""
        return await self.tg.wait_for_message(user, contains=contains, after=after)

    async def table(self, chat: FakeChat, thread: int | None = None) -> Any:
        """The service's table for a chat."""
        return await self.service.table_state(
            TableKey("telegram", str(chat.id), str(thread) if thread else None)
        )

    async def eventually(
        self, check: Callable[[], Awaitable[object]], *, timeout: float = WAIT, what: str = ""
    ) -> None:
        """Wait until an async `check` returns something truthy (service state, say)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not await check():
            if loop.time() > deadline:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what or check}")
            await asyncio.sleep(0.01)

    async def idle(self) -> None:
        """Every update fetched and handled, every queued message sent."""
        await self.tg.wait_until_fetched()
        await asyncio.sleep(0.05)  # handlers run as tasks: let them take their locks
        await self.service.outbox.drain()


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """A running fake Bot API server."""
    async with FakeTelegram() as fake:
        yield fake


# ----------------------------------------------------------------------------- the bench itself
def test_stacked_random_puts_planned_pieces_on_top_and_keeps_the_set() -> None:
    rng = StackedRandom(3, dealer=2, deals=[[Rank.DRAGON, Rank.I, Rank.DRAGON]])
    assert rng.randrange(5) == 2
    pieces = list(FULL_SET)
    rng.shuffle(pieces)
    assert pieces[:3] == [Rank.DRAGON, Rank.I, Rank.DRAGON]
    assert sorted(pieces) == sorted(FULL_SET)
    again = list(FULL_SET)
    rng.shuffle(again)  # no plan left: an ordinary shuffle
    assert sorted(again) == sorted(FULL_SET)


async def test_bench_starts_and_stops_the_real_application(tg: FakeTelegram) -> None:
    bench = await Bench(tg).start()
    try:
        assert tg.calls("getMe")[0].ok
        await tg.wait_for(lambda: tg.calls("getUpdates"), what="polling")
    finally:
        await bench.stop()
    assert bench.platform.app is None
