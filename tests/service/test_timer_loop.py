"""The timer loop of the service ends when cancelled, whatever else happens at that moment."""

from __future__ import annotations

import asyncio

import pytest

from tests.service.conftest import Harness


@pytest.mark.parametrize("yields", range(6))
async def test_the_timer_loop_ends_when_cancelled_as_it_is_woken(yields: int) -> None:
    service = Harness().service
    task = asyncio.create_task(service.run())
    for _ in range(3):
        await asyncio.sleep(0)
    service.deadlines.wake.set()
    for _ in range(yields):
        await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2)
    assert done, "the timer loop swallowed its cancellation"
