"""Lines from standard input without a thread the event loop has to wait for.

`run_in_executor(None, sys.stdin.readline)` leaves a thread blocked in `read()`: Ctrl-C then
cancels the match, but `asyncio.run` waits for that thread (until Enter) before it returns.
Here the loop watches the descriptor (`add_reader`) and reads only what is there, so a
cancelled read leaves nothing behind. A regular file (`< moves.txt`) cannot be watched and never
blocks, so it is read directly; where the loop cannot watch a pipe (Windows), a daemon thread
reads, which never holds up the exit.

In a terminal, `discard_typeahead()` drops what was typed before a prompt appeared, so keys
pressed during the bots' turns are not applied to a later question unseen. A pipe is read as
it is: every line counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from typing import IO

try:
    import termios
except ImportError:  # pragma: no cover - Windows
    termios = None  # type: ignore[assignment]

_CHUNK = 65536


class LineReader:
    """Reads lines from a file descriptor (standard input) inside the event loop."""

    def __init__(self, stream: IO[str]) -> None:
        self.fd = stream.fileno()
        self.tty = os.isatty(self.fd)
        try:
            self._regular = stat.S_ISREG(os.fstat(self.fd).st_mode)
        except OSError:
            self._regular = False
        self._buffer = bytearray()
        self._eof = False
        self._thread_read: asyncio.Future[bytes] | None = None

    async def readline(self) -> str | None:
        """The next line without its line break, or None once the input has ended."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return _text(line)
            if self._eof:
                if self._buffer:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return _text(line)
                return None
            data = await self._read()
            if data:
                self._buffer += data
            else:
                self._eof = True

    def discard_typeahead(self) -> None:
        """In a terminal: forget what was typed and not yet read (a pipe keeps every line)."""
        if not self.tty:
            return
        self._buffer.clear()
        if termios is not None:
            with contextlib.suppress(OSError, termios.error):
                termios.tcflush(self.fd, termios.TCIFLUSH)

    async def _read(self) -> bytes:
        if self._regular:
            return self._os_read()
        loop = asyncio.get_running_loop()
        if self._thread_read is None:
            ready: asyncio.Future[None] = loop.create_future()
            try:
                loop.add_reader(self.fd, _set, ready)
            except (OSError, ValueError, NotImplementedError):
                self._thread_read = _read_in_thread(loop, self.fd)
            else:
                try:
                    await ready
                finally:
                    loop.remove_reader(self.fd)
                return self._os_read()
        # A daemon thread reads; a cancelled wait keeps its future for the next call.
        data = await asyncio.shield(self._thread_read)
        self._thread_read = None
        return data

    def _os_read(self) -> bytes:
        try:
            return os.read(self.fd, _CHUNK)
        except OSError:  # e.g. the terminal went away (EIO): the input has ended
            return b""


def _text(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").strip()


def _set(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _read_in_thread(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.Future[bytes]:
    future: asyncio.Future[bytes] = loop.create_future()

    def deliver(data: bytes) -> None:
        if not future.done():
            future.set_result(data)

    def work() -> None:
        try:
            data = os.read(fd, _CHUNK)
        except OSError:
            data = b""
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(deliver, data)

    threading.Thread(target=work, name="gnav-stdin", daemon=True).start()
    return future
