"""Prometheus metrics (issue 31, point 7): `/metrics` scraped over HTTP while real commands go
through the service, the real Telegram adapter and a fake Bot API that answers a 429.

The scrape is parsed with prometheus_client's own parser, and each series is compared before
and after what should move it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import signal
import socket
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from adapters.web.stack import start_web
from bot.metrics import Metrics, start_metrics
from bot.service.game import Choice
from bot.service.ports import Screen, StoreUnavailable
from bot.service.thinking import Thinking
from storage.memory import MemoryRepository
from tests.adapters.test_discord_play import fake_world, running_bot
from tests.adapters.test_telegram_bench import Bench, settings_for
from tests.adapters.test_telegram_run import SECRET, _env, _gnav_bot_run
from tests.fakes.telegram_api import FakeTelegram
from tests.service.fakes import FakeClock

Series = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Series:
    """Every sample of a scrape, by (name, sorted labels)."""
    out: Series = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(series: Series, name: str, **labels: str) -> float:
    """One sample (0 when the series is not there yet)."""
    return series.get((name, tuple(sorted(labels.items()))), 0.0)


async def scrape(url: str) -> Series:
    """GET `url` and parse it; the content type is Prometheus' text format."""
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=")
        return parse(await response.text())


# PTB's own RetryAfter warns that its int retry_after is deprecated (PTB 22.2+).
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_the_web_port_serves_metrics_that_move_with_real_commands_and_a_429() -> None:
    async with FakeTelegram() as tg:
        bench = Bench(tg)
        metrics = Metrics().watch(bench.service, [bench.platform])
        web = await start_web(bench.service, port=0)
        url = f"http://127.0.0.1:{web.port}/metrics"
        await bench.start()
        try:
            alice = tg.add_user("Alice")
            bob = tg.add_user("Bob")
            group = tg.add_group("Gnav night", members=[alice, bob])
            before = await scrape(url)
            assert value(before, "gnav_store_up") == 1
            assert value(before, "gnav_tables_open", game="gnav") == 0
            assert value(before, "gnav_rate_limited_total", platform="telegram") == 0

            bench.say(alice, group, "/gnav")
            await bench.wait_table(group, "Alice", button="Join")
            tg.inject_flood(1, retry_after=1, method="editMessageText", chat_id=group.id)
            await bench.press(bob, group, "Join")
            await bench.wait_table(group, "Bob")
            await bench.service.drain()

            after = await scrape(url)
            assert value(after, "gnav_commands_total", kind="open", result="ok") == 1
            assert value(after, "gnav_commands_total", kind="press", result="ok") == 1
            assert value(after, "gnav_command_seconds_count", kind="press") == 1
            assert value(after, "gnav_command_seconds_sum", kind="press") > 0
            assert value(after, "gnav_rate_limited_total", platform="telegram") == 1
            # the lobby's post and the edit showing Bob (sent again after its 429)
            assert value(after, "gnav_outbox_lag_seconds_count", lane="channel") >= 2
            assert value(after, "gnav_outbox_lag_seconds_sum", lane="channel") >= 1.0
            assert value(after, "gnav_outbox_waiting", lane="channel") == 0
            assert value(after, "gnav_tables_open", game="gnav") == 1
            assert value(after, "gnav_store_up") == 1

            await bench.press(bob, group, "Join")  # already seated: refused with a reason
            refused = await scrape(url)
            assert value(refused, "gnav_commands_total", kind="press", result="refused") == 1
            # nothing of the run is in the library's global registry
            assert REGISTRY.get_sample_value("gnav_commands_total", {"kind": "press"}) is None
        finally:
            await bench.stop()
            await web.stop()
            await metrics.close()


async def test_metrics_port_serves_them_without_the_web_table() -> None:
    async with FakeTelegram() as tg:
        bench = Bench(tg, settings=settings_for(tg, metrics_port=0))
        metrics = await start_metrics(bench.settings, bench.service, [bench.platform])
        assert metrics.port
        try:
            alice = tg.add_user("Alice")
            group = tg.add_group("Gnav night", members=[alice])
            await bench.start()
            bench.say(alice, group, "/gnav")
            await bench.wait_table(group, "Alice", button="Join")
            await bench.service.drain()
            series = await scrape(f"http://127.0.0.1:{metrics.port}/metrics")
            assert value(series, "gnav_commands_total", kind="open", result="ok") == 1
            assert value(series, "gnav_tables_open", game="gnav") == 1
        finally:
            await bench.stop()
            await metrics.close()


async def test_store_outages_are_a_state_and_seconds() -> None:
    async with FakeTelegram() as tg:
        bench = Bench(tg)
        metrics = Metrics().watch(bench.service, [bench.platform])
        clock = FakeClock()
        health = bench.service.health
        health.clock = clock
        health.failed(StoreUnavailable("connection refused"), "command")
        clock.advance(15.0)
        down = parse(metrics.render()[0].decode())
        assert value(down, "gnav_store_up") == 0
        assert value(down, "gnav_store_outages_total") == 1
        assert value(down, "gnav_store_outage_current_seconds") == 15.0
        assert value(down, "gnav_store_outage_seconds_total") == 15.0
        assert health.succeeded()
        clock.advance(5.0)
        up = parse(metrics.render()[0].decode())
        assert value(up, "gnav_store_up") == 1
        assert value(up, "gnav_store_outage_current_seconds") == 0
        assert value(up, "gnav_store_outage_seconds_total") == 15.0
        await bench.service.shutdown()


class _Rules:
    """A game's bot that thinks in a job: `fail` makes the job raise."""

    def __init__(self, fail: bool) -> None:
        self.fail = fail

    def bot_choice(self, match: Any, seat: int, rng: random.Random) -> Choice:
        return Choice("plain")

    def bot_thinking(self, *args: Any) -> Any:
        def job() -> Choice:
            if self.fail:
                raise RuntimeError("no thinking today")
            return Choice("thought")

        return job


async def test_thinking_jobs_are_counted_by_outcome_with_their_time() -> None:
    metrics = Metrics()
    thinking = Thinking()
    thinking.metrics = metrics
    rng = random.Random(1)
    assert thinking.start("a", 1, _Rules(False), None, 0, rng, "strong") is None  # type: ignore[arg-type]
    assert thinking.start("b", 1, _Rules(True), None, 0, rng, "strong") is None  # type: ignore[arg-type]
    await thinking.wait()
    series = parse(metrics.render()[0].decode())
    assert value(series, "gnav_thinking_decisions_total", outcome="decided") == 1
    assert value(series, "gnav_thinking_decisions_total", outcome="failed") == 1
    assert value(series, "gnav_thinking_seconds_count") == 2
    assert thinking.result("a", 1) == Choice("thought")
    await thinking.close()


DASHBOARD = Path(__file__).resolve().parents[1] / "deploy" / "grafana-dashboard.json"


def _sample_names(metrics: Metrics) -> set[str]:
    """Every sample name a scrape of `metrics` can hold, from the families it declares."""
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
    names = set()
    for family in text_string_to_metric_families(metrics.render()[0].decode()):
        names |= {family.name + s for s in suffixes[family.type]}
    return names


async def test_the_dashboard_queries_exactly_the_series_served() -> None:
    """Every metric name in the Grafana dashboard's PromQL is one the scrape serves, and every
    served series has a panel."""
    async with FakeTelegram() as tg:
        bench = Bench(tg)
        metrics = Metrics().watch(bench.service, [bench.platform])
        served = _sample_names(metrics)
        await bench.service.shutdown()
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    queried = {name for e in exprs for name in re.findall(r"\bgnav_\w+", e)}
    assert queried and queried <= served, queried - served
    # `_created` series (when each series began, the library's) need no panel
    families = {re.sub(r"_(bucket|count|sum)$", "", n) for n in served if "_created" not in n}
    assert {re.sub(r"_(bucket|count|sum)$", "", n) for n in queried} == families


async def _scrape_until_opened(url: str) -> Series:
    """Scrape until the `open` command is counted (its answer is posted just before its
    latency is recorded)."""
    while True:
        series = await scrape(url)
        if value(series, "gnav_commands_total", kind="open", result="ok") >= 1:
            return series


async def test_gnav_bot_run_serves_metrics_on_metrics_port(tmp_path: Path) -> None:
    """The real `gnav-bot run` (a process of its own, on the fake Bot API) with METRICS_PORT:
    a command moves its counter in a scrape, and SIGTERM still stops it cleanly."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with FakeTelegram(token=SECRET) as tg:
        env = _env(tg, tmp_path, SECRET)
        env.update(METRICS_PORT=str(port))
        proc = await _gnav_bot_run(tmp_path, env)
        try:
            await tg.wait_for(lambda: tg.calls("getUpdates"), timeout=30, what="polling")
            alice = tg.add_user("Alice")
            group = tg.add_group("For real", members=[alice])
            tg.user_sends(alice, group, "/gnav")
            await tg.wait_for_message(group, contains="1. Alice", timeout=10)
            url = f"http://127.0.0.1:{port}/metrics"
            series = await asyncio.wait_for(_scrape_until_opened(url), 10)
            assert value(series, "gnav_tables_open", game="gnav") == 1
            assert value(series, "gnav_store_up") == 1
            proc.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(proc.communicate(), 30)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    text = (out + err).decode()
    assert proc.returncode == 0, text
    assert f"metrics are served on 127.0.0.1:{port}/metrics" in text
    assert "Traceback" not in text


async def test_a_discord_429_is_counted_for_discord() -> None:
    """discord.py sleeps a 429 off and retries by itself; its log line for it is counted,
    also when the log shows errors only (and then the line is still not shown)."""
    discord_http = logging.getLogger("discord.http")
    discord_http.setLevel(logging.ERROR)  # LOG_LEVEL=ERROR
    shown: list[logging.LogRecord] = []
    catcher = logging.Handler()
    catcher.emit = shown.append  # type: ignore[method-assign]
    logging.getLogger("discord").addHandler(catcher)
    async with (
        fake_world() as world,
        running_bot(world, MemoryRepository()) as bot,
    ):
        metrics = Metrics().watch(bot.service, [bot.platform])
        try:
            channel = f"discord:{world.channel.id}"
            rule = world.fake.inject_rate_limit(rf"/channels/{world.channel.id}/messages")
            assert await bot.platform.notifier.post(channel, Screen("state 0")) is not None
            assert rule.hits == 1
            series = parse(metrics.render()[0].decode())
            assert value(series, "gnav_rate_limited_total", platform="discord") == 1
            assert not [r for r in shown if "rate limited" in str(r.msg)]
        finally:
            await metrics.close()
            logging.getLogger("discord").removeHandler(catcher)
            assert discord_http.level == logging.ERROR  # as it was
            discord_http.setLevel(logging.NOTSET)
