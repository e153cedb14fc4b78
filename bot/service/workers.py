"""Worker processes that the event loop talks to itself: no thread in the bot's own process.

`concurrent.futures.ProcessPoolExecutor` keeps two threads in the calling process (its manager
thread and its call queue's feeder thread). Each job wakes both, and each wake-up takes the
interpreter lock from the event loop: with the loop busy serving tables, every bot decision
thought in a worker cost the loop about as much time in those threads as the decision's own
command (issue 22: `benchmarks/service.py --thinking`). Here each worker is a child interpreter
(`python -m bot.service.workers`) on two pipes that the event loop reads and writes itself
(asyncio's subprocess streams): a job costs the loop one pickling, one write and one read.

The protocol, in both directions: frames of a 4-byte big-endian length and a pickle. The bot
sends a job (a picklable callable with no arguments); the worker answers `(True, value)` or
`(False, exception)`. A worker serves one job at a time, in order; it ends when its input
closes (the bot stopped, or died: no worker outlives the bot), and it ignores SIGINT (a
Ctrl-C in a terminal reaches the whole process group: the bot decides when its workers stop).
What a job prints goes to the worker's standard error, never into the answers.

A pool started with `idle=True` runs its workers under Linux's `SCHED_IDLE` policy (elsewhere,
or where it is refused, they only lower their priority by `niceness`). A niced worker still
takes its share of a processor from the bot's own threads: worse, the kernel counts a core that
runs it as busy, so a thread the event loop wakes (the store's, say) is put on the loop's own
core rather than on the worker's. A core that runs only `SCHED_IDLE` work counts as idle: the
bot's threads take it at once, and the workers think on what nobody else wants (issue 22:
`benchmarks/service.py --compare`, strong against paced tables).

A worker gets its next jobs while it thinks (they wait in its pipe, in order), so it starts
each as soon as it answers the one before. A worker that dies (killed, out of memory) fails
the jobs it had with `BrokenExecutor`, and the next job starts a new one in its place.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import signal
import struct
import sys
from collections import deque
from collections.abc import Callable
from concurrent.futures import BrokenExecutor
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

_HEADER = struct.Struct(">I")
#: The folder that holds the `bot` package: a worker imports it from there even when the bot
#: runs from a checkout that is not installed.
_ROOT = str(Path(__file__).resolve().parents[2])
#: Seconds a stopping pool waits for a worker to end on its own before it is killed.
STOP_WAIT = 5.0


class _Worker:
    """One child interpreter, its two pipes, and the jobs sent to it, oldest first (it answers
    them in order, so it starts the next job as soon as it answers one: no round trip through a
    busy event loop in between)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pid = process.pid
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(cls, niceness: int, idle: bool) -> _Worker:
        env = dict(os.environ)
        path = env.get("PYTHONPATH")
        env["PYTHONPATH"] = _ROOT if not path else os.pathsep.join((_ROOT, path))
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.service.workers",
            str(niceness),
            *(["idle"] if idle else []),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )
        return cls(process)

    def send(self, data: bytes) -> asyncio.Future[Any]:
        """Send one pickled job; the future gets its value (or its exception)."""
        assert self.process.stdin is not None
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.append(answer)
        self.process.stdin.write(_HEADER.pack(len(data)) + data)
        return answer

    def alive(self) -> bool:
        return self.process.returncode is None and not self.reader.done()

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                (size,) = _HEADER.unpack(await stdout.readexactly(_HEADER.size))
                body = await stdout.readexactly(size)
                answer = self.waiting.popleft()
                if answer.done():  # its caller gave up waiting (cancelled)
                    continue
                try:
                    ok, value = pickle.loads(body)
                except Exception as exc:  # e.g. an exception type that cannot be rebuilt here
                    answer.set_exception(RuntimeError(f"a worker's answer was unreadable: {exc!r}"))
                    continue
                if ok:
                    answer.set_result(value)
                else:
                    answer.set_exception(value)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            # The worker ended (or the pool stops): every job it had fails.
            code = self.process.returncode
            while self.waiting:
                answer = self.waiting.popleft()
                if not answer.done():
                    answer.set_exception(
                        BrokenExecutor(f"thinking worker {self.pid} ended (exit code {code})")
                    )

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()

    async def stop(self) -> None:
        """Close its input (it ends after the jobs it has), wait, kill if it does not end."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), STOP_WAIT)
        except TimeoutError:
            self.kill()
            await self.process.wait()
        await self.reader


class WorkerPool:
    """`size` worker processes, started at the first job (or with `start`). A job goes to the
    worker with the fewest jobs waiting; the caller bounds how many are sent at once."""

    def __init__(self, size: int, *, niceness: int = 0, idle: bool = False) -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one process, not {size}")
        self.size = size
        self.niceness = niceness
        self.idle = idle
        self._workers: list[_Worker] = []
        self._starting = asyncio.Lock()
        self._closed = False

    async def start(self, warm: Callable[[], Any] | None = None) -> set[int]:
        """Start every worker not running and run `warm` in each (e.g. imports, so the first
        real job does not pay for them); returns the workers' process ids."""
        workers = await self._running()
        if warm is not None:
            data = pickle.dumps(warm, protocol=pickle.HIGHEST_PROTOCOL)
            await asyncio.gather(*(w.send(data) for w in workers))
        return {w.pid for w in workers}

    async def run(self, job: Callable[[], T]) -> T:
        """`job()` in a worker process (pickled there and back)."""
        data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        workers = await self._running()
        worker = min(workers, key=lambda w: len(w.waiting))
        value: T = await worker.send(data)
        return value

    def pids(self) -> set[int]:
        """The process ids of the workers running now."""
        return {w.pid for w in self._workers if w.alive()}

    async def close(self) -> None:
        """Stop every worker (each ends after the jobs it has); later jobs are refused."""
        self._closed = True
        async with self._starting:
            workers, self._workers = self._workers, []
        await asyncio.gather(*(w.stop() for w in workers))

    async def _running(self) -> list[_Worker]:
        """The workers, after starting any that is missing (a worker that died is replaced)."""
        if self._closed:
            raise BrokenExecutor("the thinking workers were stopped")
        if len(self._workers) == self.size and all(w.alive() for w in self._workers):
            return self._workers
        async with self._starting:
            for dead in [w for w in self._workers if not w.alive()]:
                self._workers.remove(dead)
                dead.kill()
                await dead.process.wait()
            while len(self._workers) < self.size and not self._closed:
                worker = await _Worker.spawn(self.niceness, self.idle)
                self._workers.append(worker)
                log.debug("thinking worker %d started", worker.pid)
            if self._closed:
                raise BrokenExecutor("the thinking workers were stopped")
            return self._workers


def _serve(source: BinaryIO, answers: BinaryIO) -> None:
    """Answer jobs from `source` until it closes."""
    while True:
        head = source.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return  # the bot closed its end, or died
        (size,) = _HEADER.unpack(head)
        body = source.read(size)
        if len(body) < size:
            return
        try:
            answer: tuple[bool, Any] = (True, pickle.loads(body)())
        except BaseException as exc:  # every failure is the job's answer, the worker goes on
            answer = (False, exc)
        try:
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            problem = RuntimeError(f"the answer could not be pickled: {exc!r}")
            data = pickle.dumps((False, problem), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            answers.write(_HEADER.pack(len(data)) + data)
            answers.flush()
        except BrokenPipeError:
            return  # the bot is gone: nobody to answer


def main(argv: list[str]) -> None:
    """A worker: lower its priority by `argv[0]` (where allowed), take the `SCHED_IDLE` policy
    when `argv[1]` is "idle" (where there is one), then serve jobs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if argv and int(argv[0]):
        with contextlib.suppress(AttributeError, OSError):
            os.nice(int(argv[0]))
    if argv[1:2] == ["idle"]:
        with contextlib.suppress(AttributeError, OSError):  # Linux only; a sandbox may refuse
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a job prints goes to standard error, not into the answers
    sys.stdout = sys.stderr
    _serve(sys.stdin.buffer, answers)
    sys.stderr.flush()
    os._exit(0)  # nothing left to say (and an answer the bot can no longer take is dropped)


if __name__ == "__main__":
    main(sys.argv[1:])
