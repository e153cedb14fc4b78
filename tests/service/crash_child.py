"""A process that plays a match through the service on SQLite until it is killed.

Used by test_crash.py: after every accepted command it prints one line
`COMMITTED <seq> <rounds> <actions in the round>`; the test kills it with SIGKILL mid-round.
"""

from __future__ import annotations

import asyncio
import random
import sys

from bot.games.registry import all_games
from bot.service.commands import Act, Configure, Open, Start
from bot.service.ports import Delivery, Screen
from bot.service.service import TableService
from bot.service.table import TableKey, User
from storage.sqlite import SqliteRepository

KEY = TableKey("test", "crash")
HUMAN = User("test:h", "Hanne")


class QuietNotifier:
    """Accepts every message and says nothing."""

    def __init__(self) -> None:
        self.count = 0

    async def post(self, channel: str, screen: Screen) -> str | None:
        """A new message reference."""
        self.count += 1
        return str(self.count)

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Always succeeds."""
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Always delivered."""
        return Delivery.DELIVERED


async def main(path: str) -> None:
    """Play until killed."""
    repo = await SqliteRepository.open(path)
    service = TableService(
        repo, QuietNotifier(), rng=random.Random(5), bot_delay=0.0, games=all_games()
    )
    await service.handle(Open(KEY, HUMAN))
    await service.handle(Configure(KEY, HUMAN, ["bots=3", "lives=9", "delay=0"]))
    await service.handle(Start(KEY, HUMAN))
    rng = random.Random(11)
    while True:
        await service.tick()
        table = await service.table_state(KEY)
        match = table.match
        if table.status == "closed":
            print("FINISHED", flush=True)
            await asyncio.sleep(60)
        if match.phase == "play" and table.seats[match.turn].user == HUMAN.key:
            reply = await service.handle(
                Act(KEY, HUMAN, rng.choice(match.legal_actions(match.turn)))
            )
            assert reply.ok, reply.text
        table = await service.table_state(KEY)
        log = table.match.history[-1]
        print("COMMITTED", table.seq, len(table.match.history), len(log.actions), flush=True)
        await asyncio.sleep(0.005)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
