"""Deadlines: turn timeouts, bot steps, next-round delays and lobby expiry, stored with each
table and handled by the service's main loop."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from typing import Any

from bot.service.core import ServiceCore
from bot.service.ports import Claim, ConflictError, StoreLost
from bot.service.table import ACTED, Table

log = logging.getLogger(__name__)

#: How long a claimed timer is this process's alone: if it dies holding it, another process
#: takes the table's timer over after this.
TIMER_LEASE = 5.0
#: How often a process of a shared store looks for due timers nobody holds (every table's,
#: not only those it served), says it is alive, and sweeps undelivered messages.
SCAN_INTERVAL = 0.5
#: How long a process counts as alive after its last heartbeat.
ALIVE_FOR = 10.0


class Timers(ServiceCore):
    """Arms, schedules and fires the tables' deadlines."""

    def _arm(self, table: Table, keep: bool = False) -> None:
        """Set the table's next deadline from its state (stored with it)."""
        now = self.clock.now()
        if keep and table.deadline is not None and table.deadline_kind != "lobby":
            return
        if table.status == "lobby":
            table.deadline, table.deadline_kind = now + self.lobby_idle, "lobby"
        elif table.status == "playing":
            match = table.match
            if self.game_of(table).in_round(match):
                deciders = self.game_of(table).deciders(match)
                if any(table.seats[s].bot for s in deciders):
                    table.deadline, table.deadline_kind = now + self.bot_delay, "bot"
                else:
                    deadline = now + table.settings.turn_timeout
                    table.deadline, table.deadline_kind = deadline, "turn"
            else:
                table.deadline = now + table.settings.next_round_delay
                table.deadline_kind = "next"
        else:
            table.deadline, table.deadline_kind = None, None

    def _schedule(self, table: Table) -> None:
        if table.deadline is not None:
            heapq.heappush(self._heap, (table.deadline, table.key.key))
            if self._wake is not None:
                self._wake.set()

    async def tick(self) -> int:
        """Handle every deadline that is due; returns how many tables acted."""
        now = self.clock.now()
        due: list[str] = []
        seen: set[str] = set()
        while self._heap and self._heap[0][0] <= now:
            _, key = heapq.heappop(self._heap)
            if key not in seen:
                seen.add(key)
                due.append(key)
        if self.shared:
            try:
                due = await self._claimed(due)
            except StoreLost as exc:
                self._lost(exc)
                return 0
            except Exception as exc:  # the store is briefly away: try again a little later
                log.warning("claiming due timers failed: %s", exc)
                for key in due:
                    heapq.heappush(self._heap, (now + 1.0, key))
                return 0
        if not due:
            return 0
        results = await asyncio.gather(
            *(self._bounded(self._on_deadline(key)) for key in due), return_exceptions=True
        )
        acted = 0
        for key, result in zip(due, results, strict=True):
            if isinstance(result, StoreLost):
                self._lost(result)  # no retry: nothing can be stored any more
            elif isinstance(result, BaseException):
                log.error("deadline of %s failed", key, exc_info=result)
                heapq.heappush(self._heap, (now + 1.0, key))  # try again a little later
            elif result:
                acted += 1
        return acted

    async def _claimed(self, due: list[str]) -> list[str]:
        """Of the due tables, those this process claimed (another may have them), plus any due
        table nobody holds (served by a process that died, or by none so far)."""
        now = self.clock.now()
        claim = Claim(self.outbox.owner, now, now + TIMER_LEASE)
        mine = await self.repo.claim_timers(claim, keys=due) if due else []
        if now >= getattr(self, "_next_scan", 0.0):
            self._next_scan = now + SCAN_INTERVAL
            mine.extend(k for k in await self.repo.claim_timers(claim) if k not in mine)
        return mine

    async def housekeeping(self) -> None:
        """Say this process lives, and deliver what dead processes left undelivered."""
        now = self.clock.now()
        if now < getattr(self, "_next_housekeeping", 0.0):
            return
        self._next_housekeeping = now + 2.0
        if self.shared:
            await self.repo.heartbeat(self.outbox.owner, now, now + ALIVE_FOR)
        await self.outbox.sweep()

    async def _bounded(self, work: Any) -> Any:
        try:
            async with self._parallel:
                return await work
        except BaseException:
            work.close()  # cancelled before it began (a stop): no "never awaited" warning
            raise

    def next_deadline(self) -> float | None:
        """The earliest scheduled deadline."""
        return self._heap[0][0] if self._heap else None

    async def _on_deadline(self, key: str) -> bool:
        async with self._lock(key):
            try:
                acted = await self._deadline_step(key)
                await self._commit(key)
            except ConflictError as exc:
                # Another process acted on the table first (a press, or this timer before
                # the claim): nothing to do here, its commit set the next deadline.
                self._forget(key)
                log.info("deadline of %s: the table changed elsewhere (%s)", key, exc)
                return False
            except BaseException:
                self._forget(key)
                raise
            return acted

    async def _deadline_step(self, key: str) -> bool:
        """The step a due deadline calls for (staged, committed by the caller)."""
        table = await self._load(key)
        if table is None or table.deadline is None:
            return False
        now = self.clock.now()
        if table.deadline > now:
            self._schedule(table)  # re-armed later than this entry
            return False
        kind = table.deadline_kind
        if kind == "lobby":
            await self._close(table, "expired")
            return True
        if table.status != "playing":
            return False
        match = table.match
        rules = self.game_of(table)
        if kind == "next":
            if not rules.in_round(match):
                await self._deal(table)
            return True
        deciders = rules.deciders(match)
        if not deciders:
            return False
        bots = [s for s in deciders if table.seats[s].bot]
        if kind == "bot" and bots:
            turn = bots[0]
            choice = rules.bot_choice(match, turn, self.rng)
            outcome = rules.act(match, turn, choice.action, choice.arg)
            table.seats[turn].mark = ACTED
            table.log.extend(outcome.log)
            await self._after_step(table, outcome)
            return True
        # People's choices timed out: each takes the game's timeout choice (Gnav: stay,
        # T3: a Narr holder swaps); three in a row forfeit the match.
        cat = self._cat(table)
        outcomes = []
        for turn in deciders:
            if not rules.in_round(match) or turn not in rules.deciders(match):
                continue
            seat = table.seats[turn]
            choice = rules.timeout_choice(match, turn)
            seat.timeouts += 1
            # A press of this seat's buttons from now on says its time ran out.
            table.timed_out[seat.user] = seat.seq
            seat.mark = ACTED
            # The game's own words for what a timeout chose (`<game>.note.timeout_<action>`),
            # else the service's for that action, else its general one.
            note = self._game_key(cat, table.game, f"note.timeout_{choice.action}")
            if not cat.has(note):
                note = "note.timeout"
            table.log.append((note, {"p": seat.name}))
            step = rules.act(match, turn, choice.action, choice.arg)
            outcomes.append(step)
            table.log.extend(step.log)
            if seat.timeouts >= self.max_timeouts and rules.in_match(match, turn):
                table.log.append(("note.timeouts_forfeit", {"p": seat.name, "n": seat.timeouts}))
                if not rules.finished(match):
                    forfeit = rules.forfeit(match, turn)
                    outcomes.append(forfeit)
                    table.log.extend(forfeit.log)
        await self._after_step(table, *outcomes)
        return True

    async def run(self) -> None:
        """Handle deadlines until cancelled (the bot's main loop runs this as a task)."""
        self._wake = asyncio.Event()
        while True:
            await self.tick()
            try:
                await self.housekeeping()
            except StoreLost as exc:
                self._lost(exc)
            except Exception as exc:
                log.warning("housekeeping failed: %s", exc)
            nxt = self.next_deadline()
            longest = SCAN_INTERVAL if self.shared else 1.0
            delay = longest if nxt is None else max(0.0, min(longest, nxt - self.clock.now()))
            self._wake.clear()
            # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that comes as
            # the wake-up does, and this loop (and whoever awaits it) would run on.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()
