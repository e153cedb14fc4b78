"""Running the Telegram bot for real: tokens, logs, stopping, webhook mode and `gnav-bot run`.

The platform and the `gnav-bot run` process talk to the fake Bot API on 127.0.0.1; nothing
here reaches Telegram.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import aiohttp
import pytest

from adapters.telegram.platform import TelegramPlatform
from bot import runner
from bot.config import BotSettings, discord_token_problem, telegram_token_problem
from bot.games.registry import all_games
from bot.service.ports import (
    FinishedMatch,
    OutBatch,
    PlatformError,
    Screen,
    StatDelta,
    TableRow,
)
from bot.service.service import TableService
from bot.service.table import TableKey
from storage.memory import MemoryRepository
from storage.sqlite import SqliteRepository
from tests.adapters.test_telegram_bench import TEST_LIMITS, Bench, settings_for
from tests.fakes.telegram_api import FakeTelegram

#: A token that is easy to spot in a log.
SECRET = "4242424242:AAH-very_secret-token-value"


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """A running fake Bot API server with a recognisable token."""
    async with FakeTelegram(token=SECRET) as fake:
        yield fake


# ----------------------------------------------------------------------------- start errors
async def test_missing_token_is_a_clear_error(tg: FakeTelegram) -> None:
    platform = TelegramPlatform(settings_for(tg, telegram_token=None), limits=TEST_LIMITS)
    svc = TableService(MemoryRepository(), platform.notifier, games=all_games())
    with pytest.raises(PlatformError, match="TELEGRAM_TOKEN is not set"):
        await platform.start(svc)


@pytest.mark.parametrize("token", ["4242424242:AAH-wrong", "not-a-token"])
async def test_rejected_token_is_a_clear_error_without_the_token(
    tg: FakeTelegram, token: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    platform = TelegramPlatform(settings_for(tg, telegram_token=token), limits=TEST_LIMITS)
    svc = TableService(MemoryRepository(), platform.notifier, games=all_games())
    with pytest.raises(PlatformError) as err:
        await platform.start(svc)
    assert "Telegram rejected TELEGRAM_TOKEN" in str(err.value)
    assert token not in str(err.value) and err.value.__cause__ is None
    assert token not in caplog.text
    # Messages queued for this platform fail at once instead of waiting for it forever.
    assert await platform.notifier.post("telegram:-1", Screen("hello")) is None


async def test_unreachable_api_is_a_clear_error(tg: FakeTelegram) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    # One try: tests/adapters/test_startup_retry.py tries again.
    settings = settings_for(
        tg, telegram_base_url=f"http://127.0.0.1:{port}/bot", startup_retry_seconds=0
    )
    platform = TelegramPlatform(settings, limits=TEST_LIMITS)
    with pytest.raises(PlatformError, match="cannot reach the Telegram Bot API") as err:
        await platform.start(TableService(MemoryRepository(), platform.notifier, games=all_games()))
    assert SECRET not in str(err.value)


async def test_the_token_never_reaches_a_log(
    tg: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    bench = await Bench(tg).start()
    try:
        alice = tg.add_user("Alice")
        group = tg.add_group("Logs", members=[alice])
        bench.say(alice, group, "/gnav")
        await bench.wait_table(group, "Alice")
        logging.getLogger("somewhere").warning("a careless line: %s", SECRET)
    finally:
        await bench.stop()
    # httpx logs every request URL, which holds the token: it was scrubbed on the way.
    assert "<token>" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET.split(":")[1] not in caplog.text


# ----------------------------------------------------------------------------- stopping
class SlowRepository(MemoryRepository):
    """Saving a table takes a while, so a command is surely under way when the stop comes."""

    def __init__(self) -> None:
        super().__init__()
        self.slow = False
        self.saving = asyncio.Event()

    async def save_table(
        self,
        row: TableRow,
        *,
        expected_version: int | None,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
        **outbox: object,
    ) -> OutBatch | None:
        if self.slow:
            self.saving.set()
            await asyncio.sleep(0.3)
        return await super().save_table(
            row, expected_version=expected_version, stats=stats, finished=finished, **outbox
        )


async def test_stop_lets_commands_under_way_finish_and_delivers_what_they_said(
    tg: FakeTelegram,
) -> None:
    repo = SlowRepository()
    bench = await Bench(tg, repo=repo).start()
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("Stopping", members=[alice, bob])
    try:
        bench.say(alice, group, "/gnav")
        lobby = await bench.wait_table(group, "Alice", button="Join")
        repo.slow = True
        bench.say(bob, group, "/gnav_join")
        await asyncio.wait_for(repo.saving.wait(), 5)
    finally:
        await bench.stop()  # what SIGTERM does
    row = await repo.load_table(f"telegram:{group.id}")
    assert row is not None and [s["name"] for s in row.state["seats"]] == ["Alice", "Bob"]
    assert "2. Bob" in (lobby.text or "")  # the edit went out before the bot closed


async def test_a_group_out_of_message_budget_stalls_neither_other_chats_nor_the_stop(
    tg: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    limits = dataclasses.replace(TEST_LIMITS, group_per_minute=2, drain_timeout=0.5)
    bench = await Bench(tg, limits=limits).start()
    alice = tg.add_user("Alice")
    busy = tg.add_group("Busy", members=[alice])
    calm = tg.add_group("Calm", members=[alice])
    try:
        for _ in range(14):
            bench.say(alice, busy, "/gnav_rules")
        # Two replies spend the busy group's budget for a minute; at most ten wait, and the
        # answers beyond are combined with them (none is dropped).
        await tg.wait_for(lambda: len(tg.bot_messages(busy)) == 2, what="two replies")
        await tg.wait_until_fetched()
        asked = bench.say(alice, calm, "/gnav_help")
        await bench.reply_to(calm, asked, timeout=3)  # another group is not held up
        handlers = bench.platform.handlers
        assert handlers is not None
        await tg.wait_for(lambda: "answers combined" in caplog.text, what="answers combined")
        assert 0 < handlers.replies.waiting(busy.id) <= 10
    finally:
        started = asyncio.get_running_loop().time()
        await bench.stop()  # the waiting replies are abandoned after drain_timeout
        assert asyncio.get_running_loop().time() - started < 3
    assert len(tg.bot_messages(busy)) == 2


# ----------------------------------------------------------------------------- webhook mode
async def test_webhook_mode_receives_updates_with_the_secret_only(tg: FakeTelegram) -> None:
    pytest.importorskip("tornado", reason="python-telegram-bot[webhooks] is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = settings_for(
        tg,
        telegram_mode="webhook",
        telegram_webhook_url="https://gnav.example.org/tg/hook",
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=port,
        telegram_webhook_secret="hook-secret",
    )
    bench = await Bench(tg, settings=settings).start()
    try:
        assert tg.webhook_url == "https://gnav.example.org/tg/hook"
        assert tg.webhook_secret_token == "hook-secret"
        alice = tg.add_user("Alice")
        group = tg.add_group("Hooked", members=[alice])
        bench.say(alice, group, "/gnav")
        update = tg.pending_updates()[-1]  # what Telegram would POST to the webhook
        url = f"http://127.0.0.1:{port}/tg/hook"
        async with aiohttp.ClientSession() as http:
            async with http.post(url, json=update) as refused:
                assert refused.status == 403  # no secret: not Telegram
            headers = {"X-Telegram-Bot-Api-Secret-Token": "hook-secret"}
            async with http.post(url, json=update, headers=headers) as accepted:
                assert accepted.status == 200
        await bench.wait_table(group, "1. Alice", button="Join")
        assert not tg.calls("getUpdates")  # no polling in webhook mode
    finally:
        await bench.stop()


# ----------------------------------------------------------------------------- gnav-bot run
async def test_runner_reports_a_rejected_token_and_exits_78(
    tg: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = settings_for(tg, telegram_token="4242424242:AAH-wrong", gnav_db=str(tmp_path / "g"))
    status = await runner.run(settings, str(tmp_path / "default.sqlite3"))
    assert status == 78 == os.EX_CONFIG  # a configuration error: not restarted
    assert [c.status for c in tg.calls("getMe")] == [401]
    assert "Telegram rejected TELEGRAM_TOKEN" in caplog.text
    assert "AAH-wrong" not in caplog.text


def _env(tg: FakeTelegram, tmp_path: Path, token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_"))}
    env.update(
        TELEGRAM_TOKEN=token,
        TELEGRAM_BASE_URL=tg.base_url,
        TELEGRAM_BASE_FILE_URL=tg.base_file_url,
        GNAV_DB=str(tmp_path / "gnav.sqlite3"),
        LOG_LEVEL="DEBUG",
        PYTHONUNBUFFERED="1",
    )
    env.pop("GNAV_DATABASE_URL", None)
    return env


async def _gnav_bot_run(tmp_path: Path, env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=tmp_path,  # no .env there: the environment alone
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_gnav_bot_run_with_a_rejected_token_prints_a_clean_error_and_exits_78(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    bad = "4242424242:AAH-not-the-right-one"
    proc = await _gnav_bot_run(tmp_path, _env(tg, tmp_path, bad))
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    text = (out + err).decode()
    assert proc.returncode == 78, text
    assert [c.status for c in tg.calls()] == [401]  # the fake said Unauthorized
    assert "Telegram rejected TELEGRAM_TOKEN" in text
    assert "Traceback" not in text
    assert "AAH-not-the-right-one" not in text


@pytest.mark.parametrize(
    ("name", "token"),
    [
        ("TELEGRAM_TOKEN", "bad"),
        ("TELEGRAM_TOKEN", "bot4242424242:AAH-copied-from-a-url"),
        ("TELEGRAM_TOKEN", '"4242424242:AAH-in-quotes"'),
        ("TELEGRAM_TOKEN", "0042:AAH-leading-zero"),
        ("DISCORD_TOKEN", "Bot MTIz.NDU2.Nzg5"),
        ("DISCORD_TOKEN", "4242424242:AAH-a-telegram-token"),
    ],
)
async def test_gnav_bot_run_with_a_token_that_cannot_be_one_exits_78_without_a_call(
    tg: FakeTelegram, tmp_path: Path, name: str, token: str
) -> None:
    env = _env(tg, tmp_path, SECRET)
    env[name] = token
    proc = await _gnav_bot_run(tmp_path, env)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    text = (out + err).decode()
    assert proc.returncode == 78, text
    assert tg.calls() == []  # no network call: the fake saw no request
    assert not (tmp_path / "gnav.sqlite3").exists()  # nor was the store opened
    assert f"{name} is not a" in text and token not in text
    assert "Traceback" not in text and text.count("ERROR") == 1, text


@pytest.mark.parametrize(
    "token",
    ["4242424242:AAH-very_secret-token-value", "1:a", f"{2**54 - 1}:{'x' * 35}"],
)
def test_a_telegram_token_of_the_server_s_shape_passes(token: str) -> None:
    settings = BotSettings(_env_file=None, telegram_token=token)  # type: ignore[call-arg]
    assert settings.token_problems() == []


@pytest.mark.parametrize(
    "token", ["", "  ", "4242424242", ":AAH", f"{2**54}:AAH", "1:" + "x" * 79, "1:a b", "1:a/b"]
)
def test_a_telegram_token_of_another_shape_is_refused(token: str) -> None:
    settings = BotSettings(_env_file=None, telegram_token=token)  # type: ignore[call-arg]
    expected = [] if not token.strip() else [telegram_token_problem(token.strip())]
    assert settings.token_problems() == expected
    assert all(token.strip() not in p for p in expected if token.strip())


def test_a_discord_token_is_three_base64url_parts() -> None:
    assert discord_token_problem("MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhIjKl.abc-DEF_ghi") is None
    for wrong in ("x", "a.b", "a.b.c.d", "a..c", "Bot a.b.c", "a.b.c "):
        assert discord_token_problem(wrong) is not None, wrong


async def test_gnav_bot_run_stops_cleanly_on_sigterm_and_keeps_the_table(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    proc = await _gnav_bot_run(tmp_path, _env(tg, tmp_path, SECRET))
    try:
        await tg.wait_for(lambda: tg.calls("getUpdates"), timeout=30, what="polling")
        alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
        group = tg.add_group("For real", members=[alice, bob])
        tg.user_sends(alice, group, "/gnav")
        lobby = await tg.wait_for_message(group, contains="1. Alice", timeout=10)
        tg.user_sends(bob, group, "/gnav_join")
        await tg.wait_for(lambda: "2. Bob" in (lobby.text or ""), timeout=10, what="Bob seated")
        proc.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = (out + err).decode()
    assert proc.returncode == 0, text
    assert "Traceback" not in text and "Exception" not in text
    assert SECRET not in text and SECRET.split(":")[1] not in text
    assert "telegram is running" in text and "stopping" in text
    repo = await SqliteRepository.open(str(tmp_path / "gnav.sqlite3"))
    try:
        tables = await repo.load_active_tables()
    finally:
        await repo.close()
    key = TableKey("telegram", str(group.id)).key
    assert [t.key for t in tables] == [key]
    assert [s["name"] for s in tables[0].state["seats"]] == ["Alice", "Bob"]
    assert json.dumps(tables[0].state)  # stored whole


# ----------------------------------------------------------------------------- deploy/
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_env_example_lists_every_setting_and_loads_as_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in BotSettings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    text = (DEPLOY / "env.example").read_text(encoding="utf-8")
    for name in BotSettings.model_fields:
        assert f"{name.upper()}=" in text, name
    settings = BotSettings(_env_file=str(DEPLOY / "env.example"))  # type: ignore[call-arg]
    assert settings.platforms == []  # empty tokens start nothing
    # Plain KEY=value lines: what docker --env-file and systemd's EnvironmentFile read alike.
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            assert key.isupper() and " " not in key and not value.startswith(("'", '"')), line


def test_deploy_files_run_gnav_bot_as_a_non_root_user_with_the_store_kept() -> None:
    docker = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert docker.startswith("#") and "FROM python:3.11-slim" in docker
    assert "pip install" in docker and "USER gnav" in docker
    assert 'VOLUME ["/data"]' in docker and "GNAV_DB=/data/gnav.sqlite3" in docker
    assert 'CMD ["gnav-bot", "run"]' in docker
    compose = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    for needed in ("env_file: .env", "gnav-data:/data", "restart: on-failure"):
        assert needed in compose
    unit = (DEPLOY / "gnav-bot.service").read_text(encoding="utf-8")
    for needed in (
        "User=gnav",
        "EnvironmentFile=/etc/gnav-bot/env",
        "KillSignal=SIGTERM",
        "ExecStart=/opt/gnav-bot/.venv/bin/gnav-bot run",
    ):
        assert needed in unit


def test_the_service_is_restarted_for_ever_and_postgres_is_in_the_image() -> None:
    unit = (DEPLOY / "gnav-bot.service").read_text(encoding="utf-8")
    lines = {line.strip() for line in unit.splitlines() if not line.startswith("#")}
    # A 2.5-minute outage at boot must not stop the restarts for good (StartLimitBurst).
    assert "Restart=always" in lines and "StartLimitIntervalSec=0" in lines
    assert not any(line.startswith("StartLimitBurst") for line in lines)
    # ... but a configuration error (exit 78) is not restarted: it needs a person.
    assert "RestartPreventExitStatus=78" in lines
    for name in ("compose.yaml", "compose.scaled.yaml"):
        compose = (DEPLOY / name).read_text(encoding="utf-8")
        # Compose has no per-status policy: the bot is restarted after a failure, and the file
        # says what that means for a configuration error (78).
        assert "restart: on-failure" in compose and "78" in compose
    assert "unless-stopped" not in (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    docker = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert '"/tmp/src[postgres]"' in docker  # GNAV_DATABASE_URL works in the image
