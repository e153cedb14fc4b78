"""Prometheus metrics of `gnav-bot run`: what the benchmarks count, for Prometheus and Grafana.

Design. The service records through a small port (`bot.service.metrics.Recorder`) and imports no
metrics library (ARCHITECTURE.md: `bot/service` owns ports, the composition root picks their
implementations). `Metrics` is that implementation, with the official `prometheus_client`: the
composition root (`bot/runner.py`) makes one per run, gives it to the service
(`TableService.use_metrics`) and to the platforms it watches, and serves it. Each `Metrics` has
its own `CollectorRegistry` (never the library's global one), so two runs in one process, as in
tests, never share a count. Events are counted as they happen (commands, deliveries, thinking
jobs, Discord's 429s); states are read from the service at each scrape (`_Now`: tables open,
messages waiting, the store's health, Telegram's 429s as its rate limiter counts them), so
nothing of them is kept twice.

Served on `/metrics` of the web table's port when the web table runs (WEB_PORT), and on its own
port with METRICS_PORT (and METRICS_LISTEN), e.g. for a `gnav-bot run` without the web table.
`deploy/grafana-dashboard.json` draws every series.

The series (all prefixed `gnav_`):

- `commands_total{kind,result}` and `command_seconds{kind}` (a histogram): the service's
  commands by kind (`press`, `join`, `open`, `act`, ...), answered `ok`, `refused` (a clear
  refusal: out of turn, a stale button, the store away) or `error` (it raised);
- `outbox_lag_seconds{lane}` (a histogram): commit to send of each message, `channel` (a
  table's posts and table message) or `private`; `outbox_waiting{lane}`: claimed, not sent;
- `rate_limited_total{platform}`: calls the platform refused for flooding (429);
- `store_up` (1 or 0), `store_outages_total`, `store_outage_seconds_total` (ended outages and
  the one under way), `store_outage_current_seconds` (the one under way, 0 while it answers);
- `tables_open{game}`: open tables this process holds;
- `thinking_decisions_total{outcome}` (`decided`, `failed`, `given_up`) and
  `thinking_seconds` (a histogram): bot seats' thinking jobs.
"""

from __future__ import annotations

import logging
from collections import Counter as Tally
from collections.abc import Iterable, Iterator
from typing import Any

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.listen import listen
from bot.service.metrics import LANES

log = logging.getLogger(__name__)

#: Command latency buckets (seconds): a press answered in a few ms, a slow store in seconds.
COMMAND_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Delivery lag buckets: a private screen within a second, a group's edit waits for its budget
#: (20 a minute), a deal's end within 10 s.
LAG_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
#: Thinking job buckets (GNAV_THINK_SECONDS is 0.25 by default; given up after 2 s or more).
THINK_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


class Metrics:
    """One run's metrics: a registry of its own, the service's `Recorder`, the scrape."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.commands = Counter(
            "gnav_commands", "Commands answered, by kind and result", ["kind", "result"], registry=r
        )
        self.command_seconds = Histogram(
            "gnav_command_seconds",
            "Seconds from a command's start to its answer, by kind",
            ["kind"],
            buckets=COMMAND_BUCKETS,
            registry=r,
        )
        self.lag = Histogram(
            "gnav_outbox_lag_seconds",
            "Seconds from the commit of a message to its send, by lane",
            ["lane"],
            buckets=LAG_BUCKETS,
            registry=r,
        )
        self.thinking = Counter(
            "gnav_thinking_decisions",
            "Bot seats' thinking jobs ended, by outcome",
            ["outcome"],
            registry=r,
        )
        self.thinking_seconds = Histogram(
            "gnav_thinking_seconds",
            "Seconds a bot seat's thinking job took",
            buckets=THINK_BUCKETS,
            registry=r,
        )
        for lane in LANES:
            self.lag.labels(lane)  # both lanes are series from the start
        #: 429s counted here (Discord's, from its log), per platform.
        self.floods: Tally[str] = Tally()
        self.now = _Now(self)
        self.registry.register(self.now)
        self._counters: list[tuple[logging.Logger, _FloodLog]] = []
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    # -- the Recorder the service records through ------------------------------------------

    def command(self, kind: str, ok: bool | None, seconds: float) -> None:
        """A command answered (see `Recorder.command`)."""
        result = "error" if ok is None else "ok" if ok else "refused"
        self.commands.labels(kind, result).inc()
        self.command_seconds.labels(kind).observe(seconds)

    def delivered(self, lane: str, lag: float) -> None:
        """A message sent (see `Recorder.delivered`)."""
        self.lag.labels(lane).observe(lag)

    def thought(self, outcome: str, seconds: float) -> None:
        """A thinking job ended (see `Recorder.thought`)."""
        self.thinking.labels(outcome).inc()
        self.thinking_seconds.observe(seconds)

    def rate_limited(self, platform: str) -> None:
        """A 429 from `platform` (see `Recorder.rate_limited`)."""
        self.floods[platform] += 1

    # -- what is watched ---------------------------------------------------------------------

    def watch(self, service: Any, platforms: Iterable[Any] = ()) -> Metrics:
        """Record `service`'s commands, deliveries and thinking, read its state at each
        scrape, and count the 429s of `platforms` (Telegram's rate limiter counts them; for
        Discord, whose library sleeps them off itself, its log line is counted)."""
        service.use_metrics(self)
        self.now.service = service
        for p in platforms:
            name = getattr(p, "name", "")
            lanes = getattr(p, "lanes", None)
            if lanes is not None and hasattr(lanes, "floods"):
                self.now.limiters.append((name, lanes))
            elif name == "discord":
                self._count_log("discord.http", name)
        return self

    def _count_log(self, logger_name: str, platform: str) -> None:
        """Count `logger_name`'s 429 lines as `platform`'s, whatever LOG_LEVEL lets through:
        the logger is opened to WARNING and the filter passes on only what it let before."""
        logger = logging.getLogger(logger_name)
        counter = _FloodLog(self, platform, logger.getEffectiveLevel(), logger.level)
        logger.setLevel(min(logger.getEffectiveLevel(), logging.WARNING))
        logger.addFilter(counter)
        self._counters.append((logger, counter))

    # -- the scrape --------------------------------------------------------------------------

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    async def page(self, request: web.Request) -> web.Response:
        """`GET /metrics` (an aiohttp handler)."""
        body, kind = self.render()
        return web.Response(body=body, headers={"Content-Type": kind})

    async def serve(self, host: str, port: int) -> int:
        """Serve `/metrics` on `host:port` of its own (0: a free port); returns the port."""
        app = web.Application()
        app.router.add_get("/metrics", self.page)
        self._runner, self.port = await listen(app, host, port)
        return self.port

    async def close(self) -> None:
        """Stop serving and counting log lines."""
        for logger, counter in self._counters:
            logger.removeFilter(counter)
            logger.setLevel(counter.own_level)
        self._counters.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


async def start_metrics(settings: Any, service: Any, platforms: Iterable[Any]) -> Metrics:
    """The run's metrics (`gnav-bot run`): watching `service` and `platforms`, served on
    METRICS_PORT when it is set (the web table serves `/metrics` on its own port anyway)."""
    metrics = Metrics().watch(service, platforms)
    port = getattr(settings, "metrics_port", None)
    if port is not None:
        listen = getattr(settings, "metrics_listen", "127.0.0.1")
        bound = await metrics.serve(listen, port)
        log.info("metrics are served on %s:%d/metrics", listen, bound)
    return metrics


class _Now(Collector):
    """The states read at each scrape (see the module)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.service: Any = None
        #: (platform, rate limiter with a `floods` dict of 429s per chat).
        self.limiters: list[tuple[str, Any]] = []

    def describe(self) -> Iterable[Metric]:
        return []  # read at collect time only: nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        floods = Tally(self.metrics.floods)
        for name, lanes in self.limiters:
            floods[name] += sum(lanes.floods.values())
        limited = CounterMetricFamily(
            "gnav_rate_limited", "Calls refused for flooding (429)", labels=["platform"]
        )
        for name in sorted(floods):
            limited.add_metric([name], floods[name])
        yield limited
        service = self.service
        if service is None:
            return
        waiting = GaugeMetricFamily(
            "gnav_outbox_waiting", "Messages claimed and not sent yet, by lane", labels=["lane"]
        )
        for lane, n in service.outbox.waiting().items():
            waiting.add_metric([lane], n)
        yield waiting
        tables = GaugeMetricFamily(
            "gnav_tables_open", "Open tables this process holds, by game", labels=["game"]
        )
        open_now = service.open_tables()
        for game in sorted(set(service.games) | set(open_now)):
            tables.add_metric([game], open_now.get(game, 0))
        yield tables
        health = service.health
        now = health.clock.now()
        current = 0.0 if health.since is None else max(0.0, now - health.since)
        yield GaugeMetricFamily(
            "gnav_store_up", "1 while the store answers, 0 while it is away", value=health.available
        )
        yield CounterMetricFamily(
            "gnav_store_outages", "Store outages since the start", value=health.outages
        )
        yield CounterMetricFamily(
            "gnav_store_outage_seconds",
            "Seconds the store was away since the start (the outage under way included)",
            value=health.down_seconds + current,
        )
        yield GaugeMetricFamily(
            "gnav_store_outage_current_seconds",
            "Seconds the outage under way has lasted (0 while the store answers)",
            value=current,
        )


class _FloodLog(logging.Filter):
    """Counts a library's "rate limited ... 429" log lines as a platform's 429s; passes on
    the records its logger let through before (`shown`: the effective level then)."""

    def __init__(self, metrics: Metrics, platform: str, shown: int, own_level: int) -> None:
        super().__init__()
        self.metrics = metrics
        self.platform = platform
        self.shown = shown
        self.own_level = own_level

    def filter(self, record: logging.LogRecord) -> bool:
        # discord.http logs each 429 it meets so, once (then sleeps it off and retries).
        if str(record.msg).startswith("We are being rate limited"):
            self.metrics.rate_limited(self.platform)
        return record.levelno >= self.shown
