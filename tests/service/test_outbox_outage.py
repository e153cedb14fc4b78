"""The outbox when the store fails while sent messages are marked, then comes back: nothing is
sent twice by the process that sent it (the sent ids and the posted message's reference are
kept until a marking succeeds; a claim handing them back meanwhile is skipped), and nothing
more of the table goes out until the marking succeeds (a crash meanwhile sends again only
what went out before the failure).

On every kind of store: the memory store said to be shared (as PostgreSQL is) with its
methods refusing while "away", SQLite on a full disk, PostgreSQL behind a cut network.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.service.commands import Act, Join, Open, Start
from bot.service.outbox import LEASE
from bot.service.ports import Screen, StoreUnavailable
from storage.memory import MemoryRepository
from storage.sqlite import SqliteRepository
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness
from tests.service.fakes import RecordingNotifier
from tests.storage.disk import fill, small_tmpfs
from tests.storage.gate import gated_postgres


class AwayMemoryRepository(MemoryRepository):
    """The memory store, shared by several processes (as PostgreSQL is), whose every public
    coroutine method raises StoreUnavailable while `away`."""

    shared = True
    away = False

    def __getattribute__(self, name: str) -> Any:
        attr = super().__getattribute__(name)
        if (
            not name.startswith("_")
            and inspect.iscoroutinefunction(attr)
            and object.__getattribute__(self, "away")
        ):

            async def refused(*args: Any, **kwargs: Any) -> Any:
                raise StoreUnavailable("the memory store is away (a test's fault)")

            return refused
        return attr


class CuttingNotifier(RecordingNotifier):
    """Runs `after_post` (once) right after a message is posted: the store goes away between
    the send and its marking."""

    def __init__(self) -> None:
        super().__init__()
        self.after_post: Callable[[], Awaitable[None]] | None = None
        self.edit_calls = 0

    async def post(self, channel: str, screen: Screen) -> str | None:
        ref = await super().post(channel, screen)
        hook, self.after_post = self.after_post, None
        if hook is not None:
            await hook()
        return ref

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        self.edit_calls += 1
        return await super().edit(channel, message_ref, screen)


@dataclass
class Fault:
    """A store of some kind, and how to make it fail and come back."""

    harness: Harness
    notifier: CuttingNotifier
    cut: Callable[[], Awaitable[None]]
    restore: Callable[[], Awaitable[None]]


def _harness(repo: Any) -> tuple[Harness, CuttingNotifier]:
    harness = Harness(repo=repo)
    notifier = CuttingNotifier()
    harness.notifier = notifier
    harness.service = harness.make_service()
    return harness, notifier


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def fault(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Fault]:
    """A service on a store of each kind that the test makes fail and come back."""
    if request.param == "memory":
        memory = AwayMemoryRepository()
        harness, notifier = _harness(memory)

        async def cut() -> None:
            memory.away = True

        async def restore() -> None:
            memory.away = False

        yield Fault(harness, notifier, cut, restore)
    elif request.param == "sqlite":
        with small_tmpfs(tmp_path) as disk:
            repo = await SqliteRepository.open(disk / "gnav.sqlite3")
            harness, notifier = _harness(repo)
            fillers: list[Path] = []

            async def fill_disk() -> None:
                fillers.append(fill(disk))

            async def free_disk() -> None:
                while fillers:
                    fillers.pop().unlink()

            try:
                yield Fault(harness, notifier, fill_disk, free_disk)
            finally:
                await free_disk()
                await harness.service.drain()
                await repo.close()
    else:
        async with gated_postgres() as (pg, gate):
            harness, notifier = _harness(pg)
            try:
                yield Fault(harness, notifier, gate.close, gate.open)
            finally:
                await gate.open()
                await harness.service.drain()


async def test_a_message_sent_before_its_marking_failed_is_never_sent_again(
    fault: Fault,
) -> None:
    harness, notifier = fault.harness, fault.notifier
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    await harness.settle()
    assert len(notifier.posts(CHANNEL.key)) == 1
    # The round's table message is posted; the store goes away before it is marked sent.
    notifier.after_post = fault.cut
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await svc.outbox.drain()  # the marking fails (the store is away)
    posted = notifier.posts(CHANNEL.key)
    assert len(posted) == 2 and notifier.after_post is None
    # Back, after the lease on the sent messages ran out: a command commits (its claim hands
    # the sent rows back), the housekeeping sweeps, play goes on.
    await fault.restore()
    harness.clock.advance(LEASE + 1)
    user = await harness.current()
    assert (await svc.handle(Join(CHANNEL, CARL))).ok is False  # a refusal: the match is under way
    assert (await svc.handle(Act(CHANNEL, user, "stay"))).ok
    await svc.timers.housekeeping()
    await harness.settle()
    harness.clock.advance(LEASE + 1)
    await svc.timers.housekeeping()
    await harness.settle()
    # The round's message was posted once; later edits went to it, not to the old one.
    assert [m.ref for m in notifier.posts(CHANNEL.key)] == [m.ref for m in posted]
    assert [kind for kind, *_ in notifier.order].count("post") == 2
    newest = notifier.posts(CHANNEL.key)[-1]
    assert newest.edits >= 1
    table = await harness.table()
    assert table.message_ref == newest.ref
    # Everything is marked: nothing waits in the store.
    assert await svc.outbox.flush()
    assert await svc.outbox.sweep() == 0
