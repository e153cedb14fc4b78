"""Whether the store answers: one state instead of a log line per failed write.

When the store goes away (StoreUnavailable: connection refused or lost, disk full, I/O errors)
the service logs one ERROR with the reason, counts what waited meanwhile (commands answered
"nothing changed", deadlines and sweeps put off), and backs its own tries off exponentially up
to a cap; the first write that succeeds again logs one INFO with the outage's length and that
summary. `snapshot()` is what a health endpoint serves (`/healthz`); `gave_up` says the
process stopped because the store stayed away longer than it was told to wait.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

from bot.service.ports import Clock, StoreLost, StoreUnavailable

log = logging.getLogger("gnav_bot.store")

#: The first pause of the background work (deadlines, claims, sweeps) after the store failed,
#: and the longest: each failed try doubles it. The cap keeps the return to play quick (a
#: try a second costs one refused connection or one failed write, and logs nothing).
BACKOFF_FIRST = 0.1
BACKOFF_LONGEST = 1.0


class StoreHealth:
    """The store's availability as the service meets it, with the outage under way."""

    def __init__(
        self,
        clock: Clock,
        *,
        first: float = BACKOFF_FIRST,
        longest: float = BACKOFF_LONGEST,
        give_up_after: float | None = None,
        on_back: Callable[[], None] | None = None,
    ) -> None:
        self.clock = clock
        self.first = first
        self.longest = longest
        #: Seconds of one outage after which the process gives up (None: never).
        self.give_up_after = give_up_after
        #: None while the store answers; else why it does not (the first failure's reason).
        self.reason: str | None = None
        #: When the outage under way began (clock time), and the newest failure's reason.
        self.since: float | None = None
        self.last_reason: str | None = None
        #: What waited during the outage under way, by kind ("command", "deadline"...).
        self.waited: Counter[str] = Counter()
        #: Outages seen since the start, and whether the process gave up on the store (set by
        #: the service when an outage is `too_long`).
        self.outages = 0
        self.gave_up = False
        #: Seconds of the outages that ended (the metrics add the one under way).
        self.down_seconds = 0.0
        self._pause = first
        self._next_try = 0.0
        #: Set once the store went away under the bot (StoreLost): every command is refused
        #: from then on, and `on_lost` (the runner's stop) is called once.
        self.store_lost: StoreLost | None = None
        self.on_lost: Callable[[], None] | None = None
        #: Called when the store answers again after an outage (the main loop's wake-up,
        #: `Deadlines.wake`, handed in by the service).
        self.on_back = on_back

    def lost(self, exc: StoreLost) -> None:
        """The store is gone: log it once, refuse commands from now on, stop the bot."""
        if self.store_lost is not None:
            return
        self.store_lost = exc
        log.error("%s: refusing every command and stopping", exc)
        if self.on_lost is not None:
            self.on_lost()

    def away(self, exc: StoreUnavailable, what: str, count: int = 1) -> None:
        """A write failed because the store is away: counted and (once) logged; an outage
        longer than the bot was told to wait stops it (as a lost store does)."""
        self.failed(exc, what, count)
        self.give_up_if_too_long()

    def give_up_if_too_long(self) -> None:
        """An outage under way longer than `give_up_after`: stop the bot (as when the store
        is lost; its exit status says it gave up). Checked at each failure and by the main
        loop."""
        if self.store_lost is not None or not self.too_long():
            return
        self.gave_up = True
        lasted = self.give_up_after or 0.0
        self.lost(StoreLost(f"the store stayed unavailable for {lasted:.0f} s: {self.reason}"))

    def answered(self) -> None:
        """A write succeeded: an outage under way is over (logged once), and the main loop
        handles what waited at once."""
        if self.reason is not None and self.succeeded() and self.on_back is not None:
            self.on_back()

    @property
    def available(self) -> bool:
        """Whether the store answered the last write."""
        return self.reason is None

    def failed(self, exc: StoreUnavailable, what: str, count: int = 1) -> None:
        """A write of kind `what` failed because the store is away: the first failure of an
        outage is logged (ERROR, with the reason); every one is counted and backs the
        background work off."""
        now = self.clock.now()
        self.waited[what] += count
        self.last_reason = exc.reason
        if self.reason is None:
            self.reason = exc.reason
            self.since = now
            self.outages += 1
            self._pause = self.first
            log.error("the store is unavailable: %s; commands are refused until it is back", exc)
        else:
            self._pause = min(self._pause * 2, self.longest)
        self._next_try = now + self._pause

    def too_long(self) -> bool:
        """Whether the outage under way has lasted `give_up_after` seconds."""
        if self.give_up_after is None or self.since is None:
            return False
        return self.clock.now() - self.since >= self.give_up_after

    def count(self, what: str, n: int = 1) -> None:
        """Count work put off during the outage (not tried: the pause was not over)."""
        if self.reason is not None:
            self.waited[what] += n

    def succeeded(self) -> bool:
        """A write succeeded: when it ends an outage, log it (INFO, how long and what waited)
        and return True."""
        if self.reason is None:
            return False
        now = self.clock.now()
        lasted = now - (self.since if self.since is not None else now)
        self.down_seconds += lasted
        counts = sorted((what, n) for what, n in self.waited.items() if n)
        waited = ", ".join(f"{n} {what}" for what, n in counts) or "nothing"
        log.info("the store is back after %.1f s; what waited meanwhile: %s", lasted, waited)
        self.reason = self.since = self.last_reason = None
        self.waited.clear()
        self._pause = self.first
        self._next_try = 0.0
        return True

    def may_try(self) -> bool:
        """Whether background work may try the store now (always, unless it is away and the
        pause after the last failure is not over)."""
        return self.reason is None or self.clock.now() >= self._next_try

    def next_try(self) -> float | None:
        """When background work may try the store again (None: any time)."""
        return None if self.reason is None else self._next_try

    def snapshot(self) -> dict[str, Any]:
        """The state as a health endpoint serves it: {"store": "ok"} or "unavailable" with
        the reason, how long it has lasted and what waited."""
        if self.reason is None:
            return {"store": "ok", "outages": self.outages}
        now = self.clock.now()
        return {
            "store": "unavailable",
            "reason": self.last_reason or self.reason,
            "for_seconds": round(now - (self.since or now), 1),
            "waited": dict(self.waited),
            "outages": self.outages,
            "gave_up": self.gave_up,
        }

    def http_status(self) -> int:
        """200 while the store answers, 503 while it is away."""
        return 200 if self.reason is None else 503
