"""A process of the bot on PostgreSQL whose group budget is spent (used by test_lanes.py): it
opens a table, commits a run of posts to the group (a deal's results) and then a private
screen for its next player, sends none of them (the group's calls wait for the budget, the
private one never got its turn before the crash), says `READY`, and waits to be killed.

Arguments: the DSN, the schema.
"""

from __future__ import annotations

import asyncio
import sys

from bot.games.registry import all_games
from bot.service.commands import Open
from bot.service.ports import Delivery, Screen
from bot.service.service import TableService
from bot.service.table import TableKey, User
from storage.postgres import PostgresRepository

KEY = TableKey("test", "lanes")
HOST = User("test:l1", "Liv")
NEXT = User("test:l2", "Mats")
#: Group posts committed before the private screen: more than one claim's batch.
POSTS = 30


class SpentNotifier:
    """A platform whose calls never come back (the group's minute is spent)."""

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Never returns."""
        await asyncio.Event().wait()
        return None

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Never returns."""
        await asyncio.Event().wait()
        return False

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Never returns."""
        await asyncio.Event().wait()
        return Delivery.DELIVERED


async def main(dsn: str, schema: str) -> None:
    """Commit, say READY, wait to be killed."""
    repo = await PostgresRepository.open(dsn, schema=schema, max_size=3)
    service = TableService(repo, SpentNotifier(), bot_delay=0.0, games=all_games())  # type: ignore[arg-type]
    await service.resume()
    assert (await service.handle(Open(KEY, HOST))).ok
    work = service.uow
    async with work.lock(KEY.key):
        for i in range(POSTS):
            service.outbox.post(KEY.key, Screen(f"result {i}"))
        service.outbox.tell(KEY.key, NEXT.key, Screen("your turn, Mats"))
        await work.commit(KEY.key)
    print("READY", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
