"""What the service tells the operator's metrics, through a small port (`Recorder`).

The service does not import a metrics library: it records through `Recorder`, a Protocol of
four calls (a command done, a message delivered, a bot seat's thinking job done, a platform's
refusal for flooding), and knows nothing of how they are kept. The composition root gives it a
real recorder (`bot/metrics.py`: Prometheus, one `CollectorRegistry` per run, so two services in
one process, as in tests, never share counts); until then every part records into `NO_METRICS`,
which keeps nothing. What is a state rather than an event (tables open per game, messages
waiting per lane, whether the store answers) is not recorded at all: `bot/metrics.py` reads it
from the service when it is scraped.

The hooks are one line each where the thing happens: `timed` on the facade's commands
(service.py), `delivered` where the outbox sends (outbox.py), `thought` where a thinking job
ends (thinking.py).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

#: Lanes of delivery (the outbox): a table's channel, and a person's private chat.
LANES = ("channel", "private")


class Recorder(Protocol):
    """Where the service records what an operator counts (`bot/metrics.py` implements it)."""

    def command(self, kind: str, ok: bool | None, seconds: float) -> None:
        """A command of `kind` was answered (`ok`: accepted, False: refused with a reason,
        None: it raised) after `seconds`."""
        ...

    def delivered(self, lane: str, lag: float) -> None:
        """A message of `lane` ("channel" or "private") was sent `lag` seconds after the
        commit that made it."""
        ...

    def thought(self, outcome: str, seconds: float) -> None:
        """A bot seat's thinking job ended ("decided", "failed", "given_up") after
        `seconds`."""
        ...

    def rate_limited(self, platform: str) -> None:
        """`platform` refused a call for flooding (a 429)."""
        ...


class NoMetrics:
    """A recorder that keeps nothing (the service's default)."""

    def command(self, kind: str, ok: bool | None, seconds: float) -> None:
        """Nothing kept."""

    def delivered(self, lane: str, lag: float) -> None:
        """Nothing kept."""

    def thought(self, outcome: str, seconds: float) -> None:
        """Nothing kept."""

    def rate_limited(self, platform: str) -> None:
        """Nothing kept."""


NO_METRICS: Recorder = NoMetrics()

R = TypeVar("R")


class _HasMetrics(Protocol):
    metrics: Recorder


def timed(
    kind: str,
) -> Callable[[Callable[..., Awaitable[R]]], Callable[..., Awaitable[R]]]:
    """Decorate a facade command: its latency and answer are recorded as `kind` in the
    instance's `metrics` (a reply's `ok` when it has one)."""

    def decorate(fn: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
        @functools.wraps(fn)
        async def wrapper(self: _HasMetrics, *args: Any, **kwargs: Any) -> R:
            start = time.perf_counter()
            ok: bool | None = None
            try:
                result = await fn(self, *args, **kwargs)
                ok = bool(getattr(result, "ok", True))
                return result
            finally:
                self.metrics.command(kind, ok, time.perf_counter() - start)

        return wrapper

    return decorate
