"""A process that plays Karnaval through the service, then commits one press its platform never
delivers, and waits to be killed (used by test_recovery.py).

Usage: `python -m tests.service.recovery_child sqlite:<path> | postgres:<schema> [elsewhere]`.
It prints `COMMITTED <table version>` once the undelivered press is committed. `elsewhere`:
its process id names another host (nothing of this host can tell it died), and it says it
lives once more after that commit (its heartbeat is fresh when it is killed).
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import sys
import time

from bot.games.registry import all_games
from bot.service.commands import Configure, Join, Open, Press, Start
from bot.service.ports import Delivery, Screen
from bot.service.service import TableService
from bot.service.store import Repository
from bot.service.table import TableKey, User
from bot.service.timers import ALIVE_FOR

KEY = TableKey("test", "recovery")
PEOPLE = [User("test:r1", "Rita"), User("test:r2", "Sven"), User("test:r3", "Tora")]


class GateNotifier:
    """Sends at once until `hold` is set; from then on nothing ever goes out."""

    def __init__(self) -> None:
        self.hold = False
        self.count = 0

    async def _gate(self) -> None:
        if self.hold:
            await asyncio.Event().wait()

    async def post(self, channel: str, screen: Screen) -> str | None:
        """A new message reference."""
        await self._gate()
        self.count += 1
        return f"c{self.count}"

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """An edit."""
        await self._gate()
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """A private message."""
        await self._gate()
        return Delivery.DELIVERED


async def open_store(spec: str) -> Repository:
    """The store `spec` names (see the module)."""
    kind, _, where = spec.partition(":")
    if kind == "sqlite":
        from storage.sqlite import SqliteRepository

        return await SqliteRepository.open(where)
    from storage.postgres import PostgresRepository
    from tests.storage.conftest import PG_DSN

    return await PostgresRepository.open(PG_DSN, schema=where, max_size=4)


async def press_one(service: TableService, rng: random.Random) -> None:
    """The person who decides now presses one of their choices."""
    for person in PEOPLE:
        found = await service.choices_of(person)
        if found:
            reply = await service.handle(Press(KEY, person, rng.choice(found).token))
            assert reply.ok, reply.text
            return
    raise AssertionError("nobody decides")


async def main(spec: str, elsewhere: bool = False) -> None:
    """Play a few moves, then commit one more that is never delivered; wait to be killed."""
    repo = await open_store(spec)
    notifier = GateNotifier()
    owner = f"elsewhere:{os.getpid()}:{secrets.token_hex(3)}" if elsewhere else None
    service = TableService(
        repo, notifier, rng=random.Random(3), bot_delay=0.0, games=all_games(), owner=owner
    )
    await service.resume()  # says this process lives (the store's processes)
    assert (await service.handle(Open(KEY, PEOPLE[0], game="karnaval"))).ok
    for person in PEOPLE[1:]:
        assert (await service.handle(Join(KEY, person))).ok
    assert (await service.handle(Configure(KEY, PEOPLE[0], ["delay=0"]))).ok
    assert (await service.handle(Start(KEY, PEOPLE[0]))).ok
    rng = random.Random(5)
    for _ in range(6):
        await press_one(service, rng)
        await service.outbox.drain()
    notifier.hold = True
    await press_one(service, rng)
    table = await service.table_state(KEY)
    if elsewhere:
        now = time.time()
        await repo.heartbeat(service.outbox.owner, now, now + ALIVE_FOR)
    print("COMMITTED", table.row_version, flush=True)
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:] == ["elsewhere"]))
