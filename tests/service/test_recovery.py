"""Recovery is immediate (issue 17): a process killed with SIGKILL between a commit and its
delivery, then a restart on the same store (SQLite, PostgreSQL). What the dead process
committed goes out at once, not after its lease: the restarted service's clock is frozen at the
restart, so no lease can run out; its end comes from the dead process's stopped heartbeat (a
process of this host whose id no longer runs) or, alone on the store, from being alone. The
table message and the decider's private message show the committed state, and a press on the
current buttons is accepted."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.games.registry import all_games
from bot.service.commands import Press
from bot.service.service import TableService
from bot.service.timers import HOUSEKEEPING_INTERVAL
from tests.service.fakes import FakeClock
from tests.service.recovery_child import KEY, PEOPLE, open_store
from tests.service.test_outbox_crash import AnyRefNotifier
from tests.storage.conftest import fresh_pg_schema

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A store spec for the child and the restart (see recovery_child)."""
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'gnav.sqlite3'}"
        return
    async with fresh_pg_schema() as schema:
        yield f"postgres:{schema}"


def _killed_after_commit(spec: str) -> int:
    """Run the child until its undelivered press is committed, then SIGKILL it; the table's
    version it committed."""
    child, version = _committed(spec)
    _kill(child)
    return version


def _kill(child: subprocess.Popen[str]) -> None:
    """SIGKILL the child and reap it (its process id no longer runs)."""
    if child.poll() is None:
        os.kill(child.pid, signal.SIGKILL)
    child.wait()


def _committed(spec: str, *options: str) -> tuple[subprocess.Popen[str], int]:
    """Run the child until its undelivered press is committed: the child, still running,
    and the table's version it committed."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.service.recovery_child", spec, *options],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    version = None
    try:
        assert child.stdout is not None
        for line in child.stdout:  # blocks until the child says it committed (or dies)
            if line.startswith("COMMITTED"):
                version = int(line.split()[1])
                break
    finally:
        if version is None:
            _kill(child)
    assert version is not None, child.stderr.read() if child.stderr else "no output"
    return child, version


async def test_a_restart_after_sigkill_shows_the_committed_state_at_once(store: str) -> None:
    committed = _killed_after_commit(store)
    repo = await open_store(store)
    notifier = AnyRefNotifier()
    clock = FakeClock(time.time())  # frozen: no lease of the dead process ever runs out
    service = TableService(repo, notifier, clock=clock, bot_delay=60.0, games=all_games())
    started = time.monotonic()
    try:
        assert await service.resume() == 1
        await service.outbox.drain()
        table = await service.table_state(KEY)
        # What the child committed, stored once more on a shared store (the restored notice).
        assert table.row_version in (committed, committed + 1)
        # The table message shows the committed table.
        posted = [m for m in notifier.messages.values() if m.channel == KEY.key]
        assert posted and posted[-1].screen.text.endswith(service.render(table).text)
        # The decider's private message shows the committed state: its buttons are the
        # current choices, and pressing one is accepted.
        choices = {p: await service.choices_of(p) for p in PEOPLE}
        person = next(p for p in PEOPLE if choices[p])
        current = {c.token for c in choices[person]}
        screens = notifier.private_screens.get(person.key, [])
        assert screens, "the decider's private message was not delivered"
        shown = [b.token for row in screens[-1].buttons for b in row]
        assert shown and set(shown) <= current
        reply = await service.handle(Press(KEY, person, shown[0]))
        assert reply.ok, reply.text
        # A last guard only: the checks above wait for nothing but the store.
        assert time.monotonic() - started < 10
    finally:
        await service.shutdown()
        await asyncio.sleep(0)
        await repo.close()


async def test_a_live_process_takes_a_killed_process_of_another_host_over_at_once() -> None:
    """Several processes (issue 17, point 4): a process of another host (nothing here can see
    its process id) is killed with SIGKILL between a commit and its delivery. A live process on
    the same PostgreSQL, whose clock is frozen (the dead one's heartbeat and lease never run
    out for it), takes its messages over at its next housekeeping: the store ended the dead
    process's session, and with it the liveness lock that says it lives."""
    async with fresh_pg_schema() as schema:
        spec = f"postgres:{schema}"
        child, committed = _committed(spec, "elsewhere")
        try:
            repo = await open_store(spec)
            notifier = AnyRefNotifier()
            clock = FakeClock(time.time())
            service = TableService(repo, notifier, clock=clock, bot_delay=60.0, games=all_games())
            try:
                # The other process lives: this one starts quietly and takes nothing of its.
                assert await service.resume() == 0
                await service.timers.housekeeping()
                await service.outbox.drain()
                assert notifier.private_screens == {}
                _kill(child)
                # The server ends the dead process's session once it reads its socket's close
                # (at once, but in its own time): wait for that, not for a margin.
                for _ in range(400):
                    if await repo.gone_processes(clock.now()):
                        break
                    await asyncio.sleep(0.05)
                # One housekeeping interval later (of this process's clock: far from the dead
                # process's ALIVE_FOR or LEASE), its messages are this process's.
                clock.advance(HOUSEKEEPING_INTERVAL)
                await service.timers.housekeeping()
                await service.outbox.drain()
                table = await service.table_state(KEY)
                assert table.row_version == committed
                edited = [
                    text for kind, ch, text in notifier.order if kind == "edit" and ch == KEY.key
                ]
                assert edited and edited[-1].endswith(service.render(table).text)
                choices = {p: await service.choices_of(p) for p in PEOPLE}
                person = next(p for p in PEOPLE if choices[p])
                screens = notifier.private_screens.get(person.key, [])
                assert screens, "the decider's private message was not taken over"
                shown = [b.token for row in screens[-1].buttons for b in row]
                assert shown and set(shown) <= {c.token for c in choices[person]}
                assert (await service.handle(Press(KEY, person, shown[0]))).ok
            finally:
                await service.shutdown()
                await asyncio.sleep(0)
                await repo.close()
        finally:
            _kill(child)
