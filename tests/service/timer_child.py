"""A bot process that claims every due timer of a PostgreSQL schema and is then killed before
acting on them (used by test_shared_store.py): prints `CLAIMED <key> ...`, then waits."""

from __future__ import annotations

import asyncio
import sys
import time

from bot.service.ports import Claim
from bot.service.timers import TIMER_LEASE
from storage.postgres import PostgresRepository


async def main(dsn: str, schema: str) -> None:
    """Claim, say so, hang until killed."""
    repo = await PostgresRepository.open(dsn, schema=schema, max_size=2)
    now = time.time()
    keys = await repo.claim_timers(Claim("child", now, now + TIMER_LEASE))
    print("CLAIMED", *keys, flush=True)
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
