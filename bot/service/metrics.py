"""What the service tells the operator's metrics, through a small port (`Recorder`).

The service does not import a metrics library: it records through `Recorder`, a Protocol of
four calls (a command done, a message delivered, a bot seat's thinking job done, a platform's
refusal for flooding), and knows nothing of how they are kept. The composition root gives it a
real recorder (`bot/metrics.py`: Prometheus, one `CollectorRegistry` per run, so two services in
one process, as in tests, never share counts); until then every part records into `NO_METRICS`,
which keeps nothing. What is a state rather than an event (tables open per game, messages
waiting per lane, whether the store answers) is not recorded at all: `bot/metrics.py` reads it
from the service when it is scraped.

The hooks are one line each where the thing happens: `command` in the dispatcher
(`TableService.handle`), `delivered` where the outbox sends (delivery.py), `thought` where a
thinking job ends (thinking.py).
"""

from __future__ import annotations

from typing import Protocol

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
