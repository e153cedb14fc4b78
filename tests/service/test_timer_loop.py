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


def test_the_wake_up_is_made_before_any_event_loop_and_serves_one_after_another() -> None:
    """The main loop's wake-up is made with the service (`deadlines.Wake`), before any event
    loop runs, and serves each loop that waits on it (an `asyncio.Event` binds to the first
    loop that waits on it and refuses the next one)."""
    from bot.service.deadlines import Wake

    wake = Wake()
    wake.set()  # before any loop: kept for the next wait

    async def woken() -> bool:
        await asyncio.wait_for(wake.wait(), 1)
        wake.clear()
        asyncio.get_running_loop().call_later(0.01, wake.set)
        await asyncio.wait_for(wake.wait(), 1)
        return wake.is_set()

    assert asyncio.run(woken())
    assert asyncio.run(woken())  # another event loop, the same wake-up
