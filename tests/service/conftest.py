"""Fixtures for service tests: a service over the in-memory ports, and helpers to drive it."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bot.games.registry import all_games
from bot.service.service import TableService
from bot.service.settings import TableSettings, game_settings
from bot.service.table import TableKey, User
from storage.memory import MemoryRepository
from tests.service.fakes import FakeClock, RecordingNotifier

CHANNEL = TableKey("test", "chat1")
ALICE = User("test:1", "Alice")
BOB = User("test:2", "Bob")
CARL = User("test:3", "Carl")
ADMIN = User("test:9", "Admin", admin=True)


def own(settings: TableSettings, game: str = "gnav") -> Any:
    """A game's own settings at a table (defaults for what was never chosen)."""
    return game_settings(settings, game, all_games()[game].rules.settings_model)


class Harness:
    """A service with its fake clock, notifier and repository."""

    def __init__(self, seed: int = 7, repo: MemoryRepository | None = None) -> None:
        self.clock = FakeClock()
        self.notifier = RecordingNotifier()
        self.repo = repo or MemoryRepository()
        self.service = self.make_service(seed)

    def make_service(self, seed: int = 7) -> TableService:
        """A service over this harness's ports (a restart builds a second one)."""
        return TableService(
            self.repo,
            self.notifier,
            clock=self.clock,
            rng=random.Random(seed),
            bot_delay=0.0,
            games=all_games(),
        )

    async def settle(self) -> None:
        """Run every due deadline (bots with no delay) and deliver every queued message."""
        while True:
            while await self.service.tick():
                pass
            # Bot seats of a thinking level decide away from the loop: wait for them, then
            # their tables are due again.
            if not await self.service.thinking.wait():
                break
        await self.service.outbox.drain()
        # In-memory ports never yield to the event loop: let other tasks (other tables) run.
        await asyncio.sleep(0)

    async def table(self, key: TableKey = CHANNEL):
        """The table as the service holds it."""
        return await self.service.table_state(key)

    async def current(self, key: TableKey = CHANNEL) -> User:
        """The user whose turn it is."""
        table = await self.table(key)
        seat = table.seats[table.match.turn]
        return User(seat.user, seat.name)


@pytest.fixture
def harness() -> Harness:
    """A fresh harness."""
    return Harness()
