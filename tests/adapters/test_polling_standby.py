"""Several `gnav-bot run` processes in polling mode on one PostgreSQL: one polls, the others
stand by, and one of them takes over when the poller dies.

Real processes against the fake Bot API (which answers a second concurrent long poll of one
token with 409 Conflict, as Telegram does) on a PostgreSQL schema of the test's own. Each
process reaches the fake through a base URL of its own (`FakeTelegram.client_url`), so the
fake's record tells whose each call was; times are the fake's (the test's event loop clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import re
import secrets
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import (
    CallbackAnswer,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
    RecordedCall,
)
from tests.storage.conftest import PG_DSN, fresh_pg_schema

ROOT = Path(__file__).resolve().parents[2]
#: Generous bounds for events that take well under a second (a loaded 2-core machine).
STARTED = 60.0
EVENT = 20.0
#: The standby polls within this long of the poller's death (issue 31), and play goes on.
FAILOVER = 2.0
PLAY_ON = 3.0


def bot_token() -> str:
    """A token of Telegram's shape for a bot id of its own (the polling lock is keyed by the
    bot's id on the whole database: tests running side by side never share one)."""
    bot_id = 1_000_000_000 + secrets.randbelow(8_000_000_000)
    return f"{bot_id}:AAH{secrets.token_urlsafe(32)[:32]}"


def dsn_with_schema(schema: str) -> str:
    """GNAV_DATABASE_URL for `schema` (asyncpg passes the query's settings to the server)."""
    joiner = "&" if "?" in PG_DSN else "?"
    return f"{PG_DSN}{joiner}search_path={schema}"


class BotProcess:
    """One `gnav-bot run` process; its log (stdout and stderr) is collected line by line."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process) -> None:
        self.name = name
        self.proc = proc
        self.lines: list[str] = []
        self._changed = asyncio.Event()
        assert proc.stdout is not None
        self._reader = asyncio.create_task(self._read(proc.stdout))

    @classmethod
    async def start(
        cls, name: str, tg: FakeTelegram, database_url: str, workdir: Path, **env: str
    ) -> BotProcess:
        """Start `python -m bot run` reaching the fake as client `name`."""
        base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_"))}
        for key in ("GNAV_DB", "WEB_PORT"):
            base.pop(key, None)
        base.update(
            TELEGRAM_TOKEN=tg.token,
            TELEGRAM_BASE_URL=tg.client_url(name),
            TELEGRAM_BASE_FILE_URL=tg.base_file_url,
            GNAV_DATABASE_URL=database_url,
            GNAV_BOT_DELAY="0",
            GNAV_THINK_PROCESSES="0",
            LOG_LEVEL="INFO",
            PYTHONUNBUFFERED="1",
            PYTHONPATH=os.pathsep.join([str(ROOT), base.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        )
        base.update(env)
        workdir.mkdir(parents=True, exist_ok=True)
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            cwd=workdir,  # no .env there: the environment alone
            env=base,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        return cls(name, proc)

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self.lines.append(line.decode(errors="replace").rstrip("\n"))
            self._changed.set()
            self._changed = asyncio.Event()
        self._changed.set()

    @property
    def text(self) -> str:
        """The log so far."""
        return "\n".join(self.lines)

    async def wait_log(self, pattern: str, timeout: float = EVENT) -> str:
        """Wait for a log line matching `pattern` (a regular expression); return it."""
        found = re.compile(pattern)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            for line in self.lines:
                if found.search(line):
                    return line
            if self._reader.done():
                raise AssertionError(f"{self.name} ended without {pattern!r}:\n{self.text}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"no {pattern!r} from {self.name} in {timeout} s:\n{self.text}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        self.proc.kill()

    async def stop(self, timeout: float = 30) -> int:
        """SIGTERM (if it still runs) and the exit status."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
        try:
            status = await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            self.proc.kill()
            status = await self.proc.wait()
        await asyncio.gather(self._reader, return_exceptions=True)
        return status


def getupdates_of(tg: FakeTelegram, client: str, since: float = float("-inf")) -> list[float]:
    """When `client`'s getUpdates calls arrived (the fake's clock), from `since` on."""
    return [c.time for c in tg.calls("getUpdates") if c.client == client and c.time >= since]


def conflicts(tg: FakeTelegram) -> int:
    """getUpdates answered 409 Conflict to a caller still there (not the long poll a killed
    process left, ended by the next one's: nobody reads that answer)."""
    return sum(1 for c in tg.calls("getUpdates") if c.error_code == 409 and not c.abandoned)


def poller(tg: FakeTelegram) -> str | None:
    """The client whose getUpdates came last."""
    polls = tg.calls("getUpdates")
    return polls[-1].client if polls else None


async def first_getupdates(tg: FakeTelegram, client: str, since: float) -> float:
    """Wait for `client`'s first getUpdates from `since` on; when it arrived."""
    times = await tg.wait_for(
        lambda: getupdates_of(tg, client, since), timeout=EVENT, what=f"{client} polling"
    )
    return times[0]


class Players:
    """Three people playing Gnav at a group table through the fake, pressing Stay in turn."""

    TURN = re.compile(r"▶ (\w+)'s turn")

    def __init__(self, tg: FakeTelegram) -> None:
        self.tg = tg
        self.people = {name: tg.add_user(name) for name in ("Alice", "Bob", "Carl")}
        self.group: FakeChat = tg.add_group("Failover", members=list(self.people.values()))
        #: The text of the table message as it was when last pressed: a newer one is awaited.
        self.pressed: str | None = None

    def table_message(self) -> FakeMessage | None:
        """The newest bot message of the group with buttons."""
        for msg in reversed(self.tg.messages_in(self.group, from_bot=True)):
            if any("callback_data" in b for b in msg.buttons()):
                return msg
        return None

    async def wait_table(self, contains: str, button: str, timeout: float = EVENT) -> FakeMessage:
        """Wait until the table message shows `contains` and has `button`."""

        def found() -> FakeMessage | None:
            msg = self.table_message()
            if msg is None or contains not in (msg.text or "") or msg.text == self.pressed:
                return None
            return msg if any(button in b["text"] for b in msg.buttons()) else None

        return await self.tg.wait_for(found, timeout=timeout, what=f"{contains!r} / {button!r}")

    async def press(self, who: FakeUser, msg: FakeMessage, label: str) -> CallbackAnswer:
        """`who` presses `label` on `msg`; wait for the bot's answer."""
        self.pressed = msg.text
        query = self.tg.user_presses_button(who, msg, label)

        def answered() -> CallbackAnswer | None:
            answer = self.tg.callback_answer(query)
            return answer if answer.answered else None

        return await self.tg.wait_for(answered, timeout=EVENT, what=f"the answer to {label}")

    async def open(self) -> None:
        """A table of three, started."""
        alice, bob, carl = self.people.values()
        self.tg.user_sends(alice, self.group, "/gnav")
        await self.tg.wait_for_message(self.group, contains="1. Alice", timeout=EVENT)
        for late in (bob, carl):
            self.tg.user_sends(late, self.group, "/gnav_join")
        lobby = await self.wait_table("3. ", "Start")
        await self.press(alice, lobby, "Start")

    async def turn(self, timeout: float = EVENT) -> tuple[str, FakeMessage]:
        """Whose turn the table message shows (once it shows one), and the message."""
        msg = await self.wait_table("'s turn", "Stay", timeout)
        match = self.TURN.search(msg.text or "")
        assert match is not None, msg.text
        return match.group(1), msg

    async def move(self, timeout: float = EVENT) -> tuple[str, CallbackAnswer]:
        """The person whose turn it is presses Stay; who it was and the bot's answer."""
        name, msg = await self.turn(timeout)
        return name, await self.press(self.people[name], msg, "Stay")


@pytest.fixture
async def schema() -> AsyncIterator[str]:
    """A fresh PostgreSQL schema (skipped, or failed under GNAV_REQUIRE_SERVICES=1, without)."""
    pytest.importorskip("asyncpg")
    async with fresh_pg_schema() as name:
        yield name


async def test_two_polling_processes_one_polls_the_other_takes_over_within_2_s(
    schema: str, tmp_path: Path
) -> None:
    url = dsn_with_schema(schema)
    async with FakeTelegram(token=bot_token()) as tg:
        loop = asyncio.get_running_loop()
        first = await BotProcess.start("a", tg, url, tmp_path / "a")
        processes = [first]
        try:
            await first.wait_log("telegram is running", STARTED)
            await first_getupdates(tg, "a", 0)
            second = await BotProcess.start("b", tg, url, tmp_path / "b")
            processes.append(second)
            await second.wait_log("telegram is running", STARTED)
            players = Players(tg)
            await players.open()
            # SIGKILL the poller just after a press was acknowledged.
            name, msg = await players.turn()
            answer = await players.press(players.people[name], msg, "Stay")
            assert not answer.show_alert, answer.text
            killed = loop.time()
            first.kill()
            # Until then the standby never called getUpdates: no 409 at all.
            assert conflicts(tg) == 0 and getupdates_of(tg, "b") == []
            took_over = await first_getupdates(tg, "b", killed)
            assert took_over - killed < FAILOVER, took_over - killed
            await first.wait_log(r"long polling: \S+ polls")
            await second.wait_log(r"another process polls for updates; \S+ stands by")
            await second.wait_log(r"long polling: \S+ polls, taking over")

            # Play goes on: a command sent at the kill is answered (in a private chat, so
            # that no group budget paces it) within 3 s of the kill.
            alice = players.people["Alice"]
            asked = tg.user_sends(alice, tg.private_chat(alice), "/gnav_help")
            await tg.wait_for_message(alice, after=asked.message_id, timeout=EVENT)
            assert loop.time() - killed < PLAY_ON, loop.time() - killed
            # The press acknowledged before the kill was applied: the group's table message
            # shows the next person's turn (sent when the group's budget allows, by the
            # process that took over), and their press is taken.
            following, shown = await players.turn()
            assert following != name
            answer = await players.press(players.people[following], shown, "Stay")
            assert not answer.show_alert, answer.text
            assert tg.calls("getUpdates")[-1].client == "b"
            assert conflicts(tg) == 0
        finally:
            for p in processes:
                # Not SIGTERM: a clean stop would wait for the group's budget to send the
                # last edit (the next test stops cleanly).
                with contextlib.suppress(ProcessLookupError):
                    p.kill()
                await p.stop()
    logs = "\n".join(p.text for p in processes)
    assert "Traceback" not in logs and "Conflict" not in logs, logs
    assert tg.token not in logs


async def test_a_poller_stopped_cleanly_hands_over_and_the_log_says_who_polls(
    schema: str, tmp_path: Path
) -> None:
    url = dsn_with_schema(schema)
    async with FakeTelegram(token=bot_token()) as tg:
        loop = asyncio.get_running_loop()
        first = await BotProcess.start("a", tg, url, tmp_path / "a")
        second: BotProcess | None = None
        try:
            await first.wait_log("telegram is running", STARTED)
            second = await BotProcess.start("b", tg, url, tmp_path / "b")
            await second.wait_log("telegram is running", STARTED)
            polls = await first.wait_log(r"long polling: \S+ polls")
            stands = await second.wait_log(r"stands by")
            owner = re.search(r"long polling: (\S+) polls", polls)
            assert owner is not None and owner.group(1) not in stands
            stopped = loop.time()
            assert await first.stop() == 0  # SIGTERM
            await first_getupdates(tg, "b", stopped)
            alice = tg.add_user("Alice")
            group = tg.add_group("After", members=[alice])
            tg.user_sends(alice, group, "/gnav_help")
            await tg.wait_for_message(group, timeout=EVENT)
        finally:
            await first.stop()
            if second is not None:
                await second.stop()
        assert conflicts(tg) == 0
        # One line each: polling, standing by, taking over.
        assert sum("long polling:" in line for line in first.lines) == 1
        assert sum("stands by" in line for line in second.lines) == 1
        assert sum("taking over" in line for line in second.lines) == 1


# ----------------------------------------------------------------------------- the store's lock
async def test_the_polling_lock_has_one_holder_and_is_free_when_its_session_ends(
    schema: str,
) -> None:
    import asyncpg

    from storage.postgres import PostgresRepository

    one = await PostgresRepository.open(PG_DSN, schema=schema, max_size=2)
    two = await PostgresRepository.open(PG_DSN, schema=schema, max_size=2)
    admin = await asyncpg.connect(PG_DSN)
    name = f"telegram-polling:{bot_token().partition(':')[0]}"
    try:
        assert await one.hold_exclusive(name, "host:1:a")
        assert await one.hold_exclusive(name, "host:1:a")  # still held: confirmed
        assert not await two.hold_exclusive(name, "host:2:b")
        assert not await two.hold_exclusive(name, "host:2:b")
        # Another bot on the same database is not held up.
        assert await two.hold_exclusive(f"{name}0", "host:2:b")
        # The holder's session ends (its process died, or its host vanished and the server's
        # keepalive gave up): the lock is free for the next try, and the old holder learns it
        # lost it (a new connection of its own, refused).
        ended = await admin.fetchval(
            "SELECT count(pg_terminate_backend(l.pid)) FROM pg_locks AS l, "
            "(SELECT hashtextextended($1, $2) AS k) AS h WHERE l.locktype = 'advisory' "
            "AND l.granted AND l.objsubid = 1 AND l.classid = ((h.k >> 32) & 4294967295)::oid "
            "AND l.objid = (h.k & 4294967295)::oid",
            name,
            0x676E786C,
        )
        assert ended == 1
        # pg_terminate_backend only signals the session: the lock goes when the backend has
        # exited. Wait for that event (the lock no longer granted), then take it.
        async with asyncio.timeout(30):  # a bound for a server that never ends it
            while await admin.fetchval(
                "SELECT count(*) FROM pg_locks AS l, (SELECT hashtextextended($1, $2) AS k) AS h "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
                "AND l.classid = ((h.k >> 32) & 4294967295)::oid "
                "AND l.objid = (h.k & 4294967295)::oid",
                name,
                0x676E786C,
            ):
                await asyncio.sleep(0.01)
        assert await two.hold_exclusive(name, "host:2:b")
        with contextlib.suppress(Exception):  # its connection was ended under it
            await one.hold_exclusive(name, "host:1:a")
        assert not await one.hold_exclusive(name, "host:1:a")
        # A holder that stops lets it go at once.
        await two.release_exclusive(name, "host:2:b")
        assert await one.hold_exclusive(name, "host:1:a")
    finally:
        await admin.close()
        await one.close()
        await two.close()


async def test_a_store_of_one_process_always_gives_it_the_lock(tmp_path: Path) -> None:
    from storage.memory import MemoryRepository
    from storage.sqlite import SqliteRepository

    sqlite = await SqliteRepository.open(tmp_path / "gnav.sqlite3", exclusive=True)
    try:
        for repo in (MemoryRepository(), sqlite):
            assert await repo.hold_exclusive("telegram-polling:1", "host:1:a")
            assert await repo.hold_exclusive("telegram-polling:1", "host:1:a")
            # Services sharing one store object in a test stand for processes.
            assert not await repo.hold_exclusive("telegram-polling:1", "host:1:b")
            await repo.release_exclusive("telegram-polling:1", "host:1:a")
            assert await repo.hold_exclusive("telegram-polling:1", "host:1:b")
    finally:
        await sqlite.close()


# ----------------------------------------------------------------------------- a foreign poller
async def test_another_program_polling_the_token_costs_one_line_and_a_pause(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Someone polls the same token outside this store (a 409 the lock cannot prevent): one
    line, no traceback per call, and the bot polls again only after a pause."""
    caplog.set_level(logging.DEBUG)
    async with FakeTelegram(token=bot_token()) as tg:
        bench = await Bench(tg).start()

        def refused() -> list[RecordedCall]:
            return [
                c
                for c in tg.calls("getUpdates")
                if c.client is None and c.error_code == 409 and not c.abandoned
            ]

        try:
            await tg.wait_for(lambda: tg.calls("getUpdates"), what="polling")
            async with aiohttp.ClientSession() as http:
                for _ in range(3):  # each long poll ends the bot's, or is ended by it
                    url = f"{tg.client_url('outsider')}{tg.token}/getUpdates?timeout=1"
                    async with http.get(url) as answer:
                        await answer.read()
            await tg.wait_for(lambda: len(refused()) >= 2, what="two 409s")
        finally:
            await bench.stop()
    # (httpx's request lines are silenced in `gnav-bot run`: they hold the token's URL.)
    lines = [
        r
        for r in caplog.records
        if r.levelno >= logging.INFO and "409" in r.getMessage() and r.name != "httpx"
    ]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    # The bot polled again a second or more after each 409 (python-telegram-bot's pause).
    mine = [c for c in tg.calls("getUpdates") if c.client is None]
    for call, following in itertools.pairwise(mine):
        if call.error_code == 409 and call.finished is not None:
            assert following.time - call.finished >= 0.9, (call, following)


# ----------------------------------------------------------------------------- the store away
async def _until(condition: Any, what: str, timeout: float = EVENT) -> None:
    """Wait until `condition()` holds (looked at every 20 ms), at most `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        await asyncio.sleep(0.02)


async def test_a_poller_cut_off_from_the_store_keeps_polling_until_a_409_says_it_lost_the_lock(
    schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The poller's connections to PostgreSQL are cut (a network cut on its side only): it
    cannot tell whether it still holds the lock, so it keeps polling (its chats are answered
    through a store outage); the server ended its session, so the standby takes the lock and
    polls; the poller's next getUpdates meets that one's, and the 409 makes it stand by. They
    meet once, not in a loop."""
    from storage.postgres import PostgresRepository
    from tests.adapters.test_telegram_bench import settings_for
    from tests.storage.gate import TcpGate

    caplog.set_level(logging.INFO, logger="adapters.telegram.platform")
    server = urlsplit(PG_DSN)
    gates = [TcpGate(server.hostname or "127.0.0.1", server.port or 5432) for _ in range(2)]
    repos: list[PostgresRepository] = []
    benches: list[Bench] = []
    async with FakeTelegram(token=bot_token()) as tg:
        try:
            for gate, client in zip(gates, ("a", "b"), strict=True):
                await gate.open()
                repo = await PostgresRepository.open(
                    gate.dsn(PG_DSN), schema=schema, connect_timeout=2.0, command_timeout=5.0
                )
                repos.append(repo)
                settings = settings_for(tg, telegram_base_url=tg.client_url(client))
                benches.append(await Bench(tg, repo=repo, settings=settings).start())
            first, second = (b.platform for b in benches)
            assert first.polling is True and second.polling is False
            await first_getupdates(tg, "a", 0)

            await gates[0].close()
            cut = asyncio.get_running_loop().time()
            await first_getupdates(tg, "b", cut)  # the standby took the lock over
            await _until(lambda: first.polling is False, "the cut-off poller standing by")
            assert "cannot tell which process polls" in caplog.text
            alice = tg.add_user("Alice")
            asked = tg.user_sends(alice, tg.private_chat(alice), "/gnav_help")
            await tg.wait_for_message(alice, after=asked.message_id, timeout=EVENT)

            await gates[0].open()  # back: it finds the lock taken, and goes on standing by
            await _until(lambda: not first._lock_unknown, "the store answering the first again")
            assert first.polling is False and second.polling is True
            assert getupdates_of(tg, "a", tg.calls("getUpdates")[-1].time) == []
        finally:
            for bench in reversed(benches):
                await bench.stop()
            for repo in repos:
                await repo.close()
            for gate in gates:
                await gate.close()
    assert conflicts(tg) <= 1  # the cut-off poller's long poll, ended by the new poller's
    assert first.conflicts <= 1 and second.conflicts == 0
