"""The service's main loop: due deadlines (turn timeouts, bot steps, next-round delays, lobby
expiry; armed by deadlines.py, stored with each table) become steps, claimed through the store
when several processes share it; housekeeping says this process lives and sweeps the outbox."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from collections.abc import Sequence
from typing import Any

from bot.service.deadlines import Deadlines
from bot.service.game import GameRules, Games
from bot.service.health import StoreHealth
from bot.service.moves import Choice
from bot.service.options import ALIVE_FOR, ServiceSettings
from bot.service.outgoing import Outgoing
from bot.service.ports import Claim, ConflictError, StoreLost, StoreUnavailable
from bot.service.steps import Steps
from bot.service.table import ACTED, Table, TableKey
from bot.service.texts import Catalogs, game_key
from bot.service.thinking import Thinking
from bot.service.uow import Session, UnitOfWork

log = logging.getLogger(__name__)

#: How long a claimed timer is this process's alone: if it dies holding it, another process
#: takes the table's timer over after this.
TIMER_LEASE = 5.0
#: How often a process of a shared store looks for due timers nobody holds (every table's,
#: not only those it served), says it is alive, and sweeps undelivered messages.
SCAN_INTERVAL = 0.5
#: How often a process says it lives, buries the processes the store knows are gone, and
#: sweeps what nobody delivers: a dead process's messages are taken over within about this
#: long on PostgreSQL (its session ends with it), within ALIVE_FOR where only its heartbeat
#: tells.
HOUSEKEEPING_INTERVAL = 1.0


def bot_turn_of(table: Table, deciders: Sequence[int]) -> tuple[int, tuple[str, int, int]] | None:
    """The bot seat that acts at the table's bot step, and the state its choice is for."""
    bots = [s for s in deciders if table.seats[s].bot]
    if not bots:
        return None
    return bots[0], (table.table_id, table.seq, bots[0])


class Ahead:
    """Bot seats that think at their table's level, from the moment their step is stored as
    the next one: built before the unit of work, which tells it of each commit
    (`committed`), and handed to the timers, whose bot steps take its choices (`choice`);
    a job done queues its table's deadline again and wakes the main loop (`thought`)."""

    def __init__(
        self, *, games: Games, settings: ServiceSettings, thinking: Thinking, deadlines: Deadlines
    ) -> None:
        self.games = games
        self.settings = settings
        self.thinking = thinking
        self.deadlines = deadlines
        #: Tables whose bot began thinking before its step was due: that step's time.
        self._ahead: dict[str, float] = {}

    def committed(self, table: Table) -> None:
        """A table's new state is stored: if a bot's step comes next, think ahead for it."""
        if table.deadline_kind == "bot":
            self._think_ahead(table)

    def _think_ahead(self, table: Table) -> None:
        """A bot's step comes next (its state stored: a job never thinks about a state the
        store may refuse): a level that thinks starts now, during the bot delay, so the
        choice is ready when the step is due. The table then plays at the pace of any bot
        table, and thinking tables act on their timers, spread as everyone's, rather than
        whenever a worker answers (issue 22: a burst of answers is a burst of steps)."""
        if table.settings.level == "normal" or table.status != "playing":
            return
        rules = self.games.rules_of(table)
        turn = bot_turn_of(table, table.deciders_for(rules))
        if turn is None or table.deadline is None:
            return
        seat, stamp = turn
        key = table.key.key
        level = table.settings.level
        rng = self.settings.rng
        self.thinking.ahead(key, stamp, rules, table.match, seat, rng, level, self.thought)
        if self.thinking.thinking(key):
            self._ahead[key] = table.deadline

    def choice(
        self,
        key: str,
        stamp: tuple[str, int, int],
        rules: GameRules,
        match: Any,
        seat: int,
        level: str,
    ) -> Choice | None:
        """The bot seat's choice for the table in state `stamp`: the one its job decided,
        else decided at once, else None while a job (started now, or under way) thinks."""
        thinking = self.thinking
        choice = thinking.result(key, stamp)
        if choice is None:
            rng = self.settings.rng
            choice = thinking.start(key, stamp, rules, match, seat, rng, level, self.thought)
        return choice

    def thought(self, key: str) -> None:
        """A bot seat's thinking is done: its table's deadline is due again (now), unless it
        thought ahead and its step is still to come (then its queued deadline takes it)."""
        now = self.settings.clock.now()
        due = self._ahead.pop(key, None)
        if due is not None and due > now:
            return
        heapq.heappush(self.deadlines.heap, (now, key))
        self.deadlines.wake.set()


class Timers:
    """The main loop: fires the tables' due deadlines as steps of play or of the lobby."""

    def __init__(
        self,
        uow: UnitOfWork,
        *,
        games: Games,
        catalogs: Catalogs,
        settings: ServiceSettings,
        health: StoreHealth,
        outbox: Outgoing,
        ahead: Ahead,
        deadlines: Deadlines,
        steps: Steps,
    ) -> None:
        self.uow = uow
        self.repo = uow.repo
        self.games = games
        self.catalogs = catalogs
        self.settings = settings
        self.health = health
        self.outbox = outbox
        self.deadlines = deadlines
        self.steps = steps
        self.ahead = ahead
        self._next_scan = 0.0
        self._next_housekeeping = 0.0

    async def tick(self) -> int:
        """Handle every deadline that is due; returns how many tables acted.

        While the store is away, due deadlines wait until the pause after the last failed
        try is over (it doubles up to a cap); then one of them tries the store, and the rest
        follow as soon as one succeeds."""
        health = self.health
        if not health.may_try():
            return 0
        now = self.settings.clock.now()
        due: list[str] = []
        seen: set[str] = set()
        while self.deadlines.heap and self.deadlines.heap[0][0] <= now:
            _, key = heapq.heappop(self.deadlines.heap)
            if key not in seen:
                seen.add(key)
                due.append(key)
        if not health.available and len(due) > 1:
            for key in due[1:]:  # one tries the store; the others wait for its answer
                heapq.heappush(self.deadlines.heap, (now, key))
            due = due[:1]
        if self.uow.shared:
            try:
                due = await self._claimed(due)
            except StoreLost as exc:
                self.health.lost(exc)
                return 0
            except Exception as exc:  # the store is away: try again after a pause
                if isinstance(exc, StoreUnavailable):
                    self.health.away(exc, "deadline", len(due))
                else:
                    log.warning("claiming due timers failed: %s", exc)
                for key in due:
                    heapq.heappush(self.deadlines.heap, (now + 1.0, key))
                return 0
        if not due:
            return 0
        results = await asyncio.gather(
            *(self.settings.bounded(self._on_deadline(key)) for key in due), return_exceptions=True
        )
        acted = 0
        for key, result in zip(due, results, strict=True):
            if isinstance(result, StoreLost):
                self.health.lost(result)  # no retry: nothing can be stored any more
            elif isinstance(result, StoreUnavailable):
                self.health.away(result, "deadline")
                heapq.heappush(self.deadlines.heap, (now, key))  # due still: after the pause
            elif isinstance(result, BaseException):
                log.error("deadline of %s failed", key, exc_info=result)
                heapq.heappush(self.deadlines.heap, (now + 1.0, key))  # try again a little later
            elif result:
                acted += 1
        return acted

    async def _claimed(self, due: list[str]) -> list[str]:
        """Of the due tables, those this process claimed (another may have them), plus any due
        table nobody holds (served by a process that died, or by none so far)."""
        now = self.settings.clock.now()
        claim = Claim(self.outbox.owner, now, now + TIMER_LEASE)
        mine = await self.repo.claim_timers(claim, keys=due) if due else []
        if now >= self._next_scan:
            self._next_scan = now + SCAN_INTERVAL
            mine.extend(k for k in await self.repo.claim_timers(claim) if k not in mine)
        elif not due:
            return mine  # the store was not asked
        self.health.answered()
        return mine

    async def housekeeping(self) -> None:
        """Say this process lives, end the claims of processes known gone, and deliver what
        dead processes left undelivered (put off while the store is away, until the pause
        after its last failed try is over)."""
        now = self.settings.clock.now()
        if now < self._next_housekeeping or not self.health.may_try():
            return
        self._next_housekeeping = now + HOUSEKEEPING_INTERVAL
        try:
            if self.uow.shared:
                await self.repo.heartbeat(self.outbox.owner, now, now + ALIVE_FOR)
                self.health.answered()
                await self.outbox.bury_dead()
            await self.outbox.sweep()
        except StoreUnavailable as exc:
            self.health.away(exc, "sweep")

    async def _on_deadline(self, key: str) -> bool:
        try:
            cached = self.uow.cached.get(key)  # its key as a value, not parsed again
            tk = cached.key if cached is not None else TableKey.parse(key)
            async with self.uow.table(tk) as session:
                return await self._deadline_step(session)
        except ConflictError as exc:
            # Another process acted on the table first (a press, or this timer before the
            # claim): nothing to do here, its commit set the next deadline.
            log.info("deadline of %s: the table changed elsewhere (%s)", key, exc)
            return False

    async def _deadline_step(self, s: Session) -> bool:
        """The step a due deadline calls for (staged, committed when the session ends)."""
        table, key = s.table, s.key.key
        if table is None or table.deadline is None:
            return False
        now = self.settings.clock.now()
        if table.deadline > now:
            self.deadlines.schedule(table)  # re-armed later than this entry
            return False
        kind = table.deadline_kind
        if kind == "lobby":
            await self.steps.close(table, "expired")
            return True
        if table.status != "playing":
            return False
        match = table.match
        rules = s.rules
        deciders = rules.deciders(match)
        if kind == "next":
            if not deciders:
                await self.steps.deal(table)
            return True
        if not deciders:
            return False
        bot_turn = bot_turn_of(table, deciders)
        if kind == "bot" and bot_turn is not None:
            turn, stamp = bot_turn
            # The table's level may think away from the loop (thinking.py), from the moment
            # the step was queued (`Ahead.committed`): this step ends while it still thinks,
            # other tables go on, and the deadline fires again when it is done.
            choice = self.ahead.choice(key, stamp, rules, match, turn, table.settings.level)
            if choice is None:
                return False
            outcome = rules.act(match, turn, choice.action, choice.arg)
            table.seats[turn].mark = ACTED
            table.log.extend(outcome.log)
            await self.steps.after_step(table, outcome)
            return True
        # People's choices timed out: each takes the game's timeout choice (Gnav: stay,
        # T3: a Narr holder swaps); three in a row forfeit the match.
        cat = s.texts
        outcomes = []
        for turn in deciders:
            if turn not in rules.deciders(match):
                continue
            seat = table.seats[turn]
            choice = rules.timeout_choice(match, turn)
            seat.timeouts += 1
            # A press of this seat's buttons from now on says its time ran out.
            table.cache.timed_out[seat.user] = seat.seq
            seat.mark = ACTED
            # The game's own words for what a timeout chose (`<game>.note.timeout_<action>`),
            # else the service's for that action, else its general one.
            note = game_key(cat, table.game, f"note.timeout_{choice.action}")
            if not cat.has(note):
                note = "note.timeout"
            table.log.append((note, {"p": seat.name}))
            step = rules.act(match, turn, choice.action, choice.arg)
            table.put_out(step)
            outcomes.append(step)
            table.log.extend(step.log)
            if seat.timeouts >= self.settings.max_timeouts and seat.in_match:
                table.log.append(("note.timeouts_forfeit", {"p": seat.name, "n": seat.timeouts}))
                if not rules.winners(match):
                    seat.left = True
                    forfeit = rules.forfeit(match, turn)
                    outcomes.append(forfeit)
                    table.log.extend(forfeit.log)
        await self.steps.after_step(table, *outcomes)
        return True

    async def run(self) -> None:
        """Handle deadlines until cancelled (the bot's main loop runs this as a task)."""
        wake = self.deadlines.wake
        while True:
            await self.tick()
            try:
                await self.housekeeping()
            except StoreLost as exc:
                self.health.lost(exc)
            except Exception as exc:
                log.warning("housekeeping failed: %s", exc)
            self.health.give_up_if_too_long()
            nxt = self.deadlines.next_deadline()
            retry = self.health.next_try()  # the store is away: nothing before its next try
            if retry is not None and nxt is not None:
                nxt = max(nxt, retry)
            longest = SCAN_INTERVAL if self.uow.shared else 1.0
            now = self.settings.clock.now()
            delay = longest if nxt is None else max(0.0, min(longest, nxt - now))
            wake.clear()
            # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that comes as
            # the wake-up does, and this loop (and whoever awaits it) would run on.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await wake.wait()
