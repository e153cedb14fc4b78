"""Several service instances on one store, as several bot processes: SQLite refuses a second
process; on PostgreSQL any instance serves any table, each press applies once, each timer
fires once, and a process that dies leaves its timers and messages to the others."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.games.registry import all_games
from bot.service.commands import Act, Configure, Join, NextRound, Open, Press, Start
from bot.service.ports import StoreError
from bot.service.service import TableService
from bot.service.table import User
from storage.sqlite import SqliteRepository
from tests.service.conftest import ALICE, BOB, CHANNEL
from tests.service.fakes import FakeClock, RecordingNotifier
from tests.service.test_outbox import HeldNotifier
from tests.storage.conftest import PG_DSN, fresh_pg_schema


async def test_sqlite_refuses_a_second_process_for_run(tmp_path: Path) -> None:
    db = tmp_path / "gnav.sqlite3"
    first = await SqliteRepository.open(db, exclusive=True)
    try:
        with pytest.raises(StoreError, match="in use by another gnav-bot process") as caught:
            await SqliteRepository.open(db, exclusive=True)
        assert "\n" not in str(caught.value) and "PostgreSQL" in str(caught.value)
    finally:
        await first.close()
    again = await SqliteRepository.open(db, exclusive=True)  # the lock went with the first
    await again.close()


class Cluster:
    """Service instances on one PostgreSQL schema, one shared clock and one platform."""

    def __init__(self, schema: str) -> None:
        self.schema = schema
        self.clock = FakeClock()
        self.notifier = RecordingNotifier()
        self.repos: list = []

    async def instance(self, notifier=None, seed: int = 1) -> TableService:  # type: ignore[no-untyped-def]
        from storage.postgres import PostgresRepository

        repo = await PostgresRepository.open(PG_DSN, schema=self.schema, max_size=4)
        self.repos.append(repo)
        return TableService(
            repo,
            notifier or self.notifier,
            clock=self.clock,
            rng=random.Random(seed),
            bot_delay=1.0,
            games=all_games(),
        )


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with fresh_pg_schema() as schema:
        c = Cluster(schema)
        try:
            yield c
        finally:
            for repo in c.repos:
                await repo.close()


async def _playing(a: TableService, b: TableService, words: list[str]) -> None:
    assert (await a.handle(Open(CHANNEL, ALICE))).ok
    assert (await b.handle(Join(CHANNEL, BOB))).ok  # the other process sees the lobby
    assert (await a.handle(Configure(CHANNEL, ALICE, words))).ok
    reply = await b.handle(Start(CHANNEL, ALICE))
    assert reply.ok, reply.text


def _mover(table) -> User:  # type: ignore[no-untyped-def]
    seat = table.seats[table.match.turn]
    return User(seat.user, seat.name)


async def test_two_processes_serve_one_table_in_alternation(cluster: Cluster) -> None:
    a, b = await cluster.instance(seed=1), await cluster.instance(seed=2)
    await _playing(a, b, ["lives=9"])
    services = [a, b]
    for step in range(12):
        svc = services[step % 2]
        table = await svc.table_state(CHANNEL)  # never an out-of-date copy
        other = await services[(step + 1) % 2].table_state(CHANNEL)
        assert table.seq == other.seq
        if table.match.phase != "play":
            assert (await svc.handle(NextRound(CHANNEL, ALICE))).ok
            continue
        before = table.seq
        reply = await svc.handle(Act(CHANNEL, _mover(table), "stay"))
        assert reply.ok, reply.text
        assert (await services[(step + 1) % 2].table_state(CHANNEL)).seq == before + 1
    for svc in services:
        await svc.outbox.drain()
    # Each commit's messages went out once, in order: one table message, edited in place.
    assert cluster.notifier.order.count(("post", CHANNEL.key, "m1")) == 1


async def test_the_same_press_in_two_processes_applies_once(cluster: Cluster) -> None:
    a, b = await cluster.instance(seed=1), await cluster.instance(seed=2)
    await _playing(a, b, ["lives=9"])
    for _ in range(5):
        table = await a.table_state(CHANNEL)
        await b.table_state(CHANNEL)  # both hold the current copy
        if table.match.phase != "play":
            assert (await a.handle(NextRound(CHANNEL, ALICE))).ok
            continue
        user = _mover(table)
        before = table.seq
        version = table.seats[table.match.turn].seq
        token = f"g:{table.table_id}:{version}:stay"
        replies = await asyncio.gather(
            a.handle(Press(CHANNEL, user, token)), b.handle(Press(CHANNEL, user, token))
        )
        assert sorted(r.ok for r in replies) == [False, True]
        refused = next(r for r in replies if not r.ok)
        assert "try again" not in refused.text  # the race was retried, not shown
        assert (await b.table_state(CHANNEL)).seq == before + 1


async def test_a_timer_fires_once_across_two_processes(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = await cluster.instance(seed=1), await cluster.instance(seed=2)
    await _playing(a, b, ["lives=9", "timeout=30"])
    before = (await a.table_state(CHANNEL)).seq
    cluster.clock.advance(31)  # the turn timed out
    acted = await asyncio.gather(a.tick(), b.tick())
    assert sorted(acted) == [0, 1]
    after = await b.table_state(CHANNEL)
    assert after.seq == before + 1  # one timeout applied, not two
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_a_process_killed_holding_timers_leaves_them_to_another(cluster: Cluster) -> None:
    a, b = await cluster.instance(seed=1), await cluster.instance(seed=2)
    await _playing(a, b, ["lives=9", "timeout=30"])
    before = (await b.table_state(CHANNEL)).seq
    cluster.clock.advance(31)
    # Process a claims the due timer, then dies before acting on it.
    from bot.service.ports import Claim
    from bot.service.timers import TIMER_LEASE

    now = cluster.clock.now()
    assert await a.repo.claim_timers(Claim("dead", now, now + TIMER_LEASE)) == [CHANNEL.key]
    assert await b.tick() == 0  # held: not b's
    cluster.clock.advance(TIMER_LEASE + 0.1)
    assert await b.tick() == 1  # the lease ran out: b takes it over
    assert (await b.table_state(CHANNEL)).seq == before + 1


async def test_messages_of_a_dead_process_are_delivered_by_another(cluster: Cluster) -> None:
    held = HeldNotifier()
    a = await cluster.instance(held, seed=1)
    b = await cluster.instance(seed=2)
    assert await a.resume() == 0  # the first process: nothing to restore yet
    assert (await a.handle(Open(CHANNEL, ALICE))).ok  # committed; a's platform never answers
    assert (await a.handle(Join(CHANNEL, BOB))).ok
    # A process joining while another lives posts nothing and takes nothing over.
    assert await b.resume() == 0
    await b.outbox.drain()
    assert cluster.notifier.order == []
    # a dies; once its lease ran out, b's sweep delivers what a committed, in order.
    from bot.service.outbox import LEASE

    cluster.clock.advance(LEASE + 1)
    assert await b.outbox.sweep() == 1
    await b.outbox.drain()
    posted = cluster.notifier.last(CHANNEL.key)
    assert "2. Bob" in posted.screen.text
    assert [k for k, _, _ in cluster.notifier.order] == ["post", "edit"]
    held.gate.set()


async def test_a_process_killed_with_sigkill_holding_timers_leaves_them(tmp_path: Path) -> None:
    """A real process claims the due timers and is killed; another process acts on them
    within a few seconds of the lease (real clock)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from bot.service.timers import TIMER_LEASE
    from storage.postgres import PostgresRepository

    root = Path(__file__).resolve().parents[2]
    async with fresh_pg_schema() as schema:
        repo = await PostgresRepository.open(PG_DSN, schema=schema, max_size=4)
        try:
            svc = TableService(repo, RecordingNotifier(), bot_delay=0.0, games=all_games())
            assert (await svc.handle(Open(CHANNEL, ALICE))).ok
            assert (await svc.handle(Configure(CHANNEL, ALICE, ["bots=2", "lives=9"]))).ok
            assert (await svc.handle(Start(CHANNEL, ALICE))).ok
            table = await svc.table_state(CHANNEL)
            if table.seats[table.match.turn].user == ALICE.key:
                assert (await svc.handle(Act(CHANNEL, ALICE, "stay"))).ok  # a bot's turn now
            before = (await svc.table_state(CHANNEL)).seq
            child = subprocess.Popen(
                [sys.executable, "-m", "tests.service.timer_child", PG_DSN, schema],
                cwd=root,
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONPATH": str(root)},
            )
            try:
                assert child.stdout is not None
                line = child.stdout.readline()
                assert line.split() == ["CLAIMED", CHANNEL.key], line
                os.kill(child.pid, signal.SIGKILL)
            finally:
                if child.poll() is None:
                    child.kill()
                child.wait()
            killed = time.monotonic()
            acted_at = None
            while time.monotonic() - killed < TIMER_LEASE + 5:
                if await svc.tick():
                    acted_at = time.monotonic() - killed
                    break
                await asyncio.sleep(0.1)
            assert acted_at is not None, "nobody took the timer over"
            assert (await svc.table_state(CHANNEL)).seq > before
        finally:
            await repo.close()
