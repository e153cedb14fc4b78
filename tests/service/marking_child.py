"""A process of the bot that is killed right after its N-th send (used by
test_outbox_crash.py): it opens a table and commits a run of group posts (a deal's results),
and its platform writes each message down (one JSON line, flushed) and, right after the N-th
post of that run, SIGKILLs its own process: the kill comes with the event, before the outbox
hears that the send returned.

Arguments: the send log, N, then `sqlite <path>` or `postgres <dsn> <schema>`.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from bot.games.registry import all_games
from bot.service.commands import Open
from bot.service.ports import Delivery, Screen
from bot.service.service import TableService
from bot.service.store import Repository
from bot.service.table import TableKey, User

KEY = TableKey("test", "marking")
HOST = User("test:m1", "Mari")
#: Group posts committed in one command: more than a claim's batch.
POSTS = 30


def result(i: int) -> str:
    """The text of the run's `i`-th post."""
    return f"result {i}"


class KillingNotifier:
    """Writes down every send; the process dies right after the N-th post of the run."""

    def __init__(self, log: Path, kill_after: int) -> None:
        self.log = log.open("a", encoding="utf-8")
        self.kill_after = kill_after
        self.results = 0
        self.count = 0

    async def _sent(self, kind: str, target: str, screen: Screen) -> None:
        await asyncio.sleep(0)  # a platform call yields to the loop
        self.log.write(json.dumps([kind, target, screen.text]) + "\n")
        self.log.flush()
        if kind == "post" and screen.text.startswith("result "):
            self.results += 1
            if self.results == self.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)

    async def post(self, channel: str, screen: Screen) -> str | None:
        """A new message."""
        self.count += 1
        await self._sent("post", channel, screen)
        return f"c{self.count}"

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """An edit."""
        await self._sent("edit", channel, screen)
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """A private message."""
        await self._sent("tell", user, screen)
        return Delivery.DELIVERED


async def _repo(args: list[str]) -> Repository:
    if args[0] == "sqlite":
        from storage.sqlite import SqliteRepository

        return await SqliteRepository.open(args[1])
    from storage.postgres import PostgresRepository

    return await PostgresRepository.open(args[1], schema=args[2], max_size=3)


async def main(log: str, kill_after: int, store: list[str]) -> None:
    """Commit the run and deliver it until killed."""
    repo = await _repo(store)
    notifier = KillingNotifier(Path(log), kill_after)
    service = TableService(repo, notifier, bot_delay=0.0, games=all_games())  # type: ignore[arg-type]
    await service.resume()
    assert (await service.handle(Open(KEY, HOST))).ok
    work = service.uow
    async with work.lock(KEY.key):
        for i in range(POSTS):
            service.outbox.post(KEY.key, Screen(result(i)))
        await work.commit(KEY.key)
    await service.outbox.drain()
    print("ALL SENT", flush=True)  # N was more than the run: the test's mistake
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3:]))
