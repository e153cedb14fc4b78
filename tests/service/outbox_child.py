"""A process that plays a match through the service on SQLite, with a slow platform, until it
is killed (used by test_outbox_crash.py).

Each message it sends is appended to the file `<db>.sent` (one JSON line, flushed) before the
next; after every accepted command it prints `COMMITTED <n>`.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path

from bot.games.registry import all_games
from bot.service.commands import Act, Configure, Join, Open, Start
from bot.service.ports import Delivery, Screen
from bot.service.service import TableService
from bot.service.table import TableKey, User
from storage.sqlite import SqliteRepository

KEY = TableKey("test", "outbox")
PEOPLE = [User("test:h1", "Hanne"), User("test:h2", "Ivar")]


class SlowNotifier:
    """Sends after a random pause and writes down what was sent."""

    def __init__(self, log: Path, rng: random.Random) -> None:
        self.log = log.open("a", encoding="utf-8")
        self.rng = rng
        self.count = 0

    async def _write(self, kind: str, target: str, screen: Screen) -> None:
        await asyncio.sleep(self.rng.random() * 0.012)
        self.log.write(json.dumps([kind, target, screen.text]) + "\n")
        self.log.flush()

    async def post(self, channel: str, screen: Screen) -> str | None:
        """A new message."""
        self.count += 1
        await self._write("post", channel, screen)
        return f"c{self.count}"

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """An edit."""
        await self._write("edit", channel, screen)
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """A private message."""
        await self._write("tell", user, screen)
        return Delivery.DELIVERED


async def main(path: str, seed: int) -> None:
    """Play until killed."""
    rng = random.Random(seed)
    repo = await SqliteRepository.open(path)
    notifier = SlowNotifier(Path(path + ".sent"), rng)
    service = TableService(
        repo, notifier, rng=random.Random(seed), bot_delay=0.0, games=all_games()
    )
    await service.handle(Open(KEY, PEOPLE[0]))
    await service.handle(Join(KEY, PEOPLE[1]))
    await service.handle(Configure(KEY, PEOPLE[0], ["bots=2", "lives=9", "delay=0"]))
    await service.handle(Start(KEY, PEOPLE[0]))
    n = 0
    while True:
        await service.tick()
        table = await service.table_state(KEY)
        if table.status == "closed":
            print("FINISHED", flush=True)
            await asyncio.sleep(60)
        match = table.match
        if match.phase == "play":
            seat = table.seats[match.turn]
            person = next((p for p in PEOPLE if p.key == seat.user), None)
            if person is not None:
                reply = await service.handle(
                    Act(KEY, person, rng.choice(match.legal_actions(match.turn)))
                )
                assert reply.ok, reply.text
        n += 1
        print("COMMITTED", n, flush=True)
        await asyncio.sleep(rng.random() * 0.003)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
