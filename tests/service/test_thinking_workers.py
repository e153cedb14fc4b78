"""The thinking workers (bot/service/workers.py, issue 22): jobs run in child interpreters
that the event loop feeds itself, with no thread in the bot's process; each caller gets its own
answer, in order, whatever happens to the others; a worker that dies is replaced; no worker
outlives the bot."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import BrokenExecutor
from functools import partial
from pathlib import Path
from random import Random

import pytest

from bot.service.commands import Configure, Open, Start
from bot.service.table import TableKey
from bot.service.thinking import Thinking
from bot.service.workers import WorkerPool
from tests.service.conftest import ALICE, Harness

ROOT = Path(__file__).resolve().parents[2]


def _ended(pid: int) -> bool:
    """Whether process `pid` is gone (or a zombie nobody reaped: it runs nothing any more)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status


async def test_jobs_run_in_other_processes_and_each_caller_gets_its_own_answer() -> None:
    pool = WorkerPool(2)
    try:
        answers = await asyncio.gather(*(pool.run(partial(pow, 2, i)) for i in range(20)))
        assert answers == [2**i for i in range(20)]
        pids = set(await asyncio.gather(*(pool.run(os.getpid) for _ in range(6))))
        assert pids == pool.pids() and len(pids) == 2 and os.getpid() not in pids
    finally:
        await pool.close()


async def test_no_thread_in_the_bots_process_takes_part_in_thinking() -> None:
    """concurrent.futures' process pool keeps a manager and a feeder thread in the caller, each
    taking the interpreter lock from the event loop at every job; here only asyncio's watchers
    of the child processes' exits exist (asleep in waitpid), none per job."""
    before = set(threading.enumerate())
    pool = WorkerPool(2)
    try:
        jobs = [asyncio.ensure_future(pool.run(partial(time.sleep, 0.05))) for _ in range(8)]
        await pool.run(os.getpid)
        added = {t.name for t in set(threading.enumerate()) - before}
        assert all("waitpid-" in name for name in added), added
        await asyncio.gather(*jobs)
    finally:
        await pool.close()


async def test_a_strong_karnaval_seat_decides_the_same_in_a_worker_as_in_a_thread(
    harness: Harness,
) -> None:
    """Issue 22: the choice depends on the seed and the count of work only, not on where it
    is thought (the job is pickled into another interpreter and its answer back)."""
    svc = harness.service
    key = TableKey("test", "workers-karnaval")
    assert (await svc.handle(Open(key, ALICE))).ok
    assert (await svc.handle(Configure(key, ALICE, ["game=karnaval", "bots=2"]))).ok
    assert (await svc.handle(Start(key, ALICE))).ok
    await harness.settle()
    table = await harness.table(key)
    rules = svc.game_of(table)
    (seat, *_) = rules.deciders(table.match)
    workers, threads = Thinking(processes=1), Thinking(processes=0)
    try:
        for seed in range(3):
            in_worker = await workers.choose(rules, table.match, seat, Random(seed), "strong")
            in_thread = await threads.choose(rules, table.match, seat, Random(seed), "strong")
            assert in_worker == in_thread
            assert in_worker.key in {c.key for c in rules.choices(table.match, seat)}
        assert workers._workers is not None and os.getpid() not in workers._workers.pids()
    finally:
        await workers.close()
        await threads.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")
async def test_thinking_workers_run_under_sched_idle_and_plain_workers_do_not() -> None:
    """A niced worker still counts as a busy core, so the kernel puts threads the loop wakes on
    the loop's own core; a SCHED_IDLE worker's core counts as idle (workers.py)."""
    policy = partial(os.sched_getscheduler, 0)
    plain = WorkerPool(1)
    try:
        assert await plain.run(policy) == os.SCHED_OTHER
    finally:
        await plain.close()
    thinking = Thinking(processes=1)
    try:
        assert await thinking._run(policy) == os.SCHED_IDLE  # type: ignore[arg-type]
        assert await thinking._run(partial(os.getpriority, os.PRIO_PROCESS, 0)) >= 10  # type: ignore[arg-type]
    finally:
        await thinking.close()


async def test_a_failing_job_answers_with_its_exception_and_the_worker_goes_on() -> None:
    pool = WorkerPool(1)
    try:
        with pytest.raises(ValueError, match="invalid literal"):
            await pool.run(partial(int, "seven"))
        (pid,) = pool.pids()
        assert await pool.run(partial(pow, 3, 2)) == 9
        assert pool.pids() == {pid}
    finally:
        await pool.close()


async def test_what_a_job_prints_never_reaches_the_answers() -> None:
    pool = WorkerPool(1)
    try:
        assert await pool.run(partial(print, "\x00\x00\x00\x05hello", flush=True)) is None
        assert await pool.run(partial(pow, 2, 10)) == 1024
    finally:
        await pool.close()


async def test_a_cancelled_caller_never_gets_its_answer_given_to_the_next_job() -> None:
    pool = WorkerPool(1)
    try:
        slow = asyncio.ensure_future(pool.run(partial(time.sleep, 0.2)))
        await asyncio.sleep(0)
        slow.cancel()
        assert await pool.run(partial(pow, 2, 5)) == 32  # not the slow job's None
        assert slow.cancelled()
    finally:
        await pool.close()


async def test_a_worker_killed_mid_job_fails_its_jobs_and_is_replaced() -> None:
    pool = WorkerPool(1)
    try:
        (pid,) = await pool.start()
        stuck = asyncio.ensure_future(pool.run(partial(time.sleep, 60)))
        behind = asyncio.ensure_future(pool.run(partial(pow, 2, 3)))
        await asyncio.sleep(0)
        os.kill(pid, signal.SIGKILL)
        for job in (stuck, behind):
            with pytest.raises(BrokenExecutor, match=f"worker {pid} ended"):
                await job
        assert await pool.run(partial(pow, 2, 4)) == 16
        (new,) = pool.pids()
        assert new != pid
    finally:
        await pool.close()


async def test_closing_ends_every_worker_and_refuses_later_jobs() -> None:
    pool = WorkerPool(2)
    pids = await pool.start()
    await pool.close()
    assert all(_ended(pid) for pid in pids)
    with pytest.raises(BrokenExecutor, match="stopped"):
        await pool.run(os.getpid)


def test_no_worker_outlives_a_bot_killed_with_sigkill() -> None:
    """The bot dies without a word (SIGKILL): its workers see their input close and end."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with subprocess.Popen(
        [sys.executable, "-m", "tests.service.workers_child"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        line = child.stdout.readline()
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2 and all(not _ended(p) for p in pids), line
        child.kill()
    deadline = time.monotonic() + 60  # a bound for a hung test, not a margin the test needs
    while not all(_ended(p) for p in pids):
        assert time.monotonic() < deadline, f"workers {pids} outlived the bot"
        time.sleep(0.01)


def _our_workers() -> set[int]:
    """This process's children that run a thinking worker."""
    found = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        ours = f"\nPPid:\t{os.getpid()}\n" in text and b"bot.service.workers" in cmdline
        if ours and "\nState:\tZ" not in text:
            found.add(int(status.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
async def test_stopping_thinking_never_starts_a_worker_for_a_job_that_waited() -> None:
    """A job waiting for a place when thinking stops is dropped: it must not start a new
    worker that nobody stops (it outlived the bot, and died writing to a closed pipe)."""
    thinking = Thinking(processes=1, concurrent=1)
    first = asyncio.ensure_future(thinking._run(partial(time.sleep, 0.2)))  # type: ignore[arg-type]
    waiting = asyncio.ensure_future(thinking._run(os.getpid))  # type: ignore[arg-type]
    while thinking._workers is None or not thinking._workers.pids():
        await asyncio.sleep(0.01)
    await thinking.close()
    results = await asyncio.gather(first, waiting, return_exceptions=True)
    assert results[0] is None  # the job under way finished
    assert isinstance(results[1], BrokenExecutor)
    assert _our_workers() == set()
