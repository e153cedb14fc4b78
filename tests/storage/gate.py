"""A network outage between the bot and its PostgreSQL server, for tests.

`TcpGate` forwards TCP connections from a local port to the server. Closing it refuses new
connections (ConnectionRefusedError, as a stopped server does) and cuts those open (the driver
meets a closed connection under its query); opening it again lets the same port through. The
store under test is the real PostgreSQL store over the real driver: only the wire is cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

from storage.postgres import PostgresRepository
from tests.storage.conftest import PG_DSN, fresh_pg_schema


@contextlib.asynccontextmanager
async def gated_postgres() -> AsyncIterator[tuple[PostgresRepository, TcpGate]]:
    """A PostgreSQL store (a fresh schema of the test server) whose connections pass a gate
    the test closes and opens (skipped where the server cannot be reached)."""
    async with fresh_pg_schema() as schema:
        parts = urlsplit(PG_DSN)
        gate = TcpGate(parts.hostname or "127.0.0.1", parts.port or 5432)
        await gate.open()
        repo = await PostgresRepository.open(
            gate.dsn(PG_DSN), schema=schema, connect_timeout=2.0, command_timeout=5.0
        )
        try:
            yield repo, gate
        finally:
            await gate.open()
            await repo.close()
            await gate.close()


class TcpGate:
    """A TCP forwarder to `host:port` that can be closed and opened again on one port."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.local_port = _free_port()
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        #: Connections let through since the start.
        self.connections = 0

    def dsn(self, dsn: str) -> str:
        """`dsn` pointed at the gate instead of the server."""
        parts = urlsplit(dsn)
        auth = parts.netloc.rpartition("@")[0]
        netloc = f"{auth}@127.0.0.1:{self.local_port}" if auth else f"127.0.0.1:{self.local_port}"
        return urlunsplit(parts._replace(netloc=netloc))

    async def open(self) -> None:
        """Let connections through (again)."""
        if self._server is None:
            self._server = await asyncio.start_server(
                self._link, "127.0.0.1", self.local_port, reuse_address=True
            )

    async def close(self) -> None:
        """Refuse new connections and cut every open one."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._links):
            writer.transport.abort()
        self._links.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.transport.abort()
            return
        self.connections += 1
        self._links.update((writer, up_writer))
        for src, dst in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pump(src, dst))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                dst.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
