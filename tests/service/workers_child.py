"""A bot process that starts its thinking workers, says their process ids, and waits to be
killed (tests/service/test_thinking_workers.py: no worker outlives the bot)."""

from __future__ import annotations

import asyncio
import sys

from bot.service.workers import WorkerPool


async def main() -> None:
    pool = WorkerPool(2)
    pids = await pool.start()
    print(" ".join(str(p) for p in sorted(pids)), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
