"""Retrying a chat platform's first contact while its servers cannot be reached.

A bot started at boot may come up before the network does: the first contact (Telegram's getMe,
Discord's login) is tried again with a growing pause for a while, each try logged, while a
rejected token still fails at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.service.ports import PlatformUnreachable

log = logging.getLogger("gnav_bot")

T = TypeVar("T")

#: The first pause between two tries of a platform's first contact, and the longest.
RETRY_FIRST = 1.0
RETRY_LONGEST = 60.0


async def retry_unreachable(
    name: str,
    attempt: Callable[[], Awaitable[T]],
    window: float,
    *,
    first: float = RETRY_FIRST,
    longest: float = RETRY_LONGEST,
) -> T:
    """`attempt()` until it does not raise PlatformUnreachable, pausing `first` seconds, then
    twice as long each time up to `longest`, for at most `window` seconds in all (then its
    last PlatformUnreachable, saying how long it tried). Each failed try is logged (WARNING).
    Other errors (a rejected token) are raised at once; cancelling stops the tries."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    pause = first
    tries = 0
    while True:
        tries += 1
        try:
            return await attempt()
        except PlatformUnreachable as exc:
            left = began + window - loop.time()
            if left <= 0:
                if tries == 1:
                    raise
                raise PlatformUnreachable(
                    f"{exc} (gave up after {tries} tries in {loop.time() - began:.0f} s)"
                ) from None
            wait = min(pause, left)
            log.warning("%s: %s (try %d); trying again in %.1f s", name, exc, tries, wait)
            await asyncio.sleep(wait)
            pause = min(pause * 2, longest)
