"""`gnav-bot run` without a network at start: the platforms' first contact is tried again.

"No network" is a local port where nothing listens; "the network came up" is a relay that
starts listening there and forwards to the fake Bot API or the fake Discord. Nothing here
reaches the internet.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from adapters.discord.platform import DiscordPlatform
from bot import runner
from bot.games.registry import all_games
from bot.service.ports import PlatformUnreachable
from bot.service.retry import retry_unreachable
from bot.service.service import TableService
from storage.memory import MemoryRepository
from tests.adapters.test_discord_play import World, bot_settings, fake_world
from tests.adapters.test_telegram_bench import settings_for
from tests.fakes.telegram_api import FakeTelegram

SECRET = "4242424242:AAH-retry-secret"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def _relay(port: int, target: int) -> AsyncIterator[None]:
    """Listen on `port` and forward every connection to `target` (the network is up)."""
    tasks: set[asyncio.Task[None]] = set()

    async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            dst.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target)
        for t in (pipe(reader, up_writer), pipe(up_reader, writer)):
            task = asyncio.ensure_future(t)
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _wait_for(condition: object, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        await asyncio.sleep(0.02)


# ----------------------------------------------------------------------------- the helper
async def test_retry_backs_off_doubling_up_to_the_longest_pause(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    tries: list[float] = []
    loop = asyncio.get_running_loop()

    async def attempt() -> str:
        tries.append(loop.time())
        if len(tries) < 5:
            raise PlatformUnreachable("no route")
        return "up"

    assert await retry_unreachable("test", attempt, 10, first=0.05, longest=0.1) == "up"
    pauses = [round(b - a, 2) for a, b in itertools.pairwise(tries)]
    assert pauses[0] >= 0.05 and pauses[1] >= 0.1 and all(p < 0.2 for p in pauses), pauses
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [f"try {n}" in r.getMessage() for n, r in enumerate(warnings, 1)] == [True] * 4


async def test_retry_gives_up_after_the_window_and_never_retries_other_errors() -> None:
    calls = 0

    async def unreachable() -> None:
        nonlocal calls
        calls += 1
        raise PlatformUnreachable("no route")

    with pytest.raises(PlatformUnreachable, match=r"no route \(gave up after \d+ tries"):
        await retry_unreachable("test", unreachable, 0.3, first=0.05)
    assert calls >= 3

    async def rejected() -> None:
        nonlocal calls
        calls += 1
        raise runner.PlatformError("token rejected")

    calls = 0
    with pytest.raises(runner.PlatformError, match="token rejected"):
        await retry_unreachable("test", rejected, 60)
    assert calls == 1


# ----------------------------------------------------------------------------- Telegram
async def test_telegram_no_network_at_start_then_the_network_comes_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    port = _free_port()
    async with FakeTelegram(token=SECRET) as tg:
        settings = settings_for(
            tg,
            telegram_base_url=f"http://127.0.0.1:{port}/bot",
            telegram_base_file_url=f"http://127.0.0.1:{port}/file/bot",
            gnav_db=str(tmp_path / "gnav.sqlite3"),
            startup_retry_seconds=60,
        )
        stop = asyncio.Event()
        run = asyncio.create_task(runner.run(settings, str(tmp_path / "x"), stop_event=stop))
        try:
            await _wait_for(lambda: "(try 1)" in caplog.text, "first failed try")
            assert not run.done()
            async with _relay(port, tg.port):
                await _wait_for(lambda: "telegram is running" in caplog.text, "start", 15)
                stop.set()
                assert await asyncio.wait_for(run, 15) == 0
        finally:
            stop.set()
            await asyncio.gather(run, return_exceptions=True)
    tries = [r for r in caplog.records if "cannot reach the Telegram Bot API" in r.getMessage()]
    assert tries and all(r.levelno == logging.WARNING for r in tries)
    assert SECRET not in caplog.text


async def test_telegram_unreachable_for_the_whole_window_exits_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    port = _free_port()
    async with FakeTelegram(token=SECRET) as tg:
        settings = settings_for(
            tg,
            telegram_base_url=f"http://127.0.0.1:{port}/bot",
            gnav_db=str(tmp_path / "gnav.sqlite3"),
            startup_retry_seconds=2.5,
        )
        began = time.monotonic()
        status = await asyncio.wait_for(runner.run(settings, str(tmp_path / "x")), 20)
    assert status == 2
    assert 2.4 < time.monotonic() - began < 10
    assert "(try 1); trying again in 1.0 s" in caplog.text
    assert "(try 2); trying again in 1." in caplog.text  # 2 s, but the window ends first
    assert "gave up after 3 tries" in caplog.text


async def test_sigterm_while_retrying_stops_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    port = _free_port()
    async with FakeTelegram(token=SECRET) as tg:
        settings = settings_for(
            tg,
            telegram_base_url=f"http://127.0.0.1:{port}/bot",
            gnav_db=str(tmp_path / "gnav.sqlite3"),
            startup_retry_seconds=600,
        )
        stop = asyncio.Event()
        run = asyncio.create_task(runner.run(settings, str(tmp_path / "x"), stop_event=stop))
        await _wait_for(lambda: "(try 1)" in caplog.text, "first failed try")
        began = time.monotonic()
        stop.set()
        assert await asyncio.wait_for(run, 5) == 0
    assert time.monotonic() - began < 1
    assert "stopping" in caplog.text


async def test_a_rejected_token_is_not_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with FakeTelegram(token=SECRET) as tg:
        settings = settings_for(
            tg,
            telegram_token="4242424242:AAH-wrong",
            gnav_db=str(tmp_path / "gnav.sqlite3"),
            startup_retry_seconds=600,
        )
        began = time.monotonic()
        assert await asyncio.wait_for(runner.run(settings, str(tmp_path / "x")), 10) == 78
    assert time.monotonic() - began < 3
    assert "Telegram rejected TELEGRAM_TOKEN" in caplog.text
    assert len(tg.calls("getMe")) == 1


# ----------------------------------------------------------------------------- Discord
@pytest.fixture
async def world() -> AsyncIterator[World]:
    async with fake_world() as w:
        yield w


async def test_discord_no_network_at_start_then_the_network_comes_up(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    port = _free_port()
    fake_port = int(world.fake.api_base.split(":")[2].split("/")[0])
    api = world.fake.api_base.replace(f":{fake_port}/", f":{port}/")
    monkeypatch.setattr(discord.http.Route, "BASE", api)
    platform = DiscordPlatform(
        bot_settings(world, startup_retry_seconds=60),
        client_options={"guild_ready_timeout": 0.05},
    )
    service = TableService(MemoryRepository(), platform.notifier, games=all_games())
    start = asyncio.create_task(platform.start(service))
    try:
        await _wait_for(lambda: "(try 1)" in caplog.text, "first failed try")
        assert not start.done()
        async with _relay(port, fake_port):
            await asyncio.wait_for(start, 15)
            assert platform.client is not None and platform.client.is_ready()
            await platform.stop()
    finally:
        if not start.done():
            start.cancel()
        await asyncio.gather(start, return_exceptions=True)
        await platform.stop()
    assert "Discord cannot be reached" in caplog.text
    assert "PyNaCl" not in caplog.text and "davey" not in caplog.text
