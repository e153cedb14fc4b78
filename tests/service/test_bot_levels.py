"""Bot levels (issue 22): `level=easy|normal|strong` per table, shown in the lobby and the
settings; bot seats of a thinking level decide away from the event loop, at most `concurrent`
at once, so another table's commands go on meanwhile; the same seed and count of work give
the same match."""

from __future__ import annotations

import asyncio
import os
import random
import threading
from typing import Any

from bot.service.commands import Configure, Open, Start, Stop
from bot.service.game import Choice
from bot.service.table import TableKey, User
from bot.service.thinking import PATIENCE, Thinking
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness

OTHER = TableKey("test", "chat2")


async def test_level_is_a_table_setting_shown_in_the_lobby(harness: Harness) -> None:
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    table = await harness.table()
    assert table.settings.level == "normal"  # today's bots
    reply = await svc.handle(Configure(CHANNEL, ALICE, ["level=strong"]))
    assert reply.ok, reply.text
    assert "bot level strong" in reply.text
    table = await harness.table()
    assert table.settings.level == "strong"
    await harness.settle()
    assert "bots play strong" in harness.notifier.last(CHANNEL.key).screen.text
    bad = await svc.handle(Configure(CHANNEL, ALICE, ["level=expert"]))
    assert not bad.ok and "easy, normal, strong" in bad.text


async def test_the_lobby_names_the_level_in_the_table_language(harness: Harness) -> None:
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["language=nb", "level=easy"]))).ok
    await harness.settle()
    assert "botene spiller lett" in harness.notifier.last(CHANNEL.key).screen.text


async def _strong_table(h: Harness) -> list[tuple[str, str | None]]:
    """A Karnaval table of Alice and two strong bots, run until Alice must act; the steps."""
    svc = h.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    words = ["game=karnaval", "bots=2", "level=strong"]
    assert (await svc.handle(Configure(CHANNEL, ALICE, words))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    for _ in range(50):
        await h.settle()
        table = await h.table()
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if deciders and not table.seats[deciders[0]].bot:
            break
        if not deciders:
            h.clock.advance(table.settings.next_round_delay + 1)
    k = (await h.table()).match.k
    return [(f"{s}", str(b)) for s, b in k.current.bids] + [
        (str(p.seat), " ".join(p.cards)) for p in k.current.plays
    ]


async def test_strong_bots_play_through_the_thinking_pool_repeatably() -> None:
    """The strong Karnaval bots act (off the loop, counted worlds, no clock) and the same
    seed gives the same steps."""
    first = await _strong_table(Harness(seed=5))
    second = await _strong_table(Harness(seed=5))
    assert first and first == second


class _Gate:
    """A game whose bot thinks until the test lets it: each job waits for `release`."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self.lock = threading.Lock()

    def bot_choice(self, match: Any, seat: int, rng: random.Random) -> Choice:
        return Choice("plain")

    def bot_thinking(
        self, match: Any, seat: int, rng: random.Random, level: str, seconds: float | None
    ) -> Any:
        def job() -> Choice:
            with self.lock:
                self.started += 1
            self.release.wait(timeout=30)
            return Choice("thought", level)

        return job


async def test_a_thinking_bot_never_stalls_another_tables_commands(harness: Harness) -> None:
    svc = harness.service
    gate = _Gate()
    thinking = svc.thinking
    task = asyncio.create_task(thinking.choose(gate, None, 0, random.Random(1), "strong"))  # type: ignore[arg-type]
    while gate.started == 0:  # the job runs in the pool
        await asyncio.sleep(0.001)
    reply = await svc.handle(Open(OTHER, BOB))  # another table, while the bot still thinks
    assert reply.ok and not task.done()
    gate.release.set()
    assert await task == Choice("thought", "strong")
    # `normal` is the plain bot choice, decided at once.
    assert await thinking.choose(gate, None, 0, random.Random(1), "normal") == Choice("plain")  # type: ignore[arg-type]


async def test_the_main_loop_never_waits_for_a_thinking_bot() -> None:
    """A deadline step of a thinking bot starts its job and ends; another table's deadline
    step is handled while it thinks; when the job is done the table is due again and the bot
    acts (issue 22)."""
    h = Harness(seed=3)
    svc = h.service
    gate = _Gate()
    thinking = svc.thinking
    ready: list[str] = []
    stamp = ("t", 1, 0)
    assert (
        thinking.start("k", stamp, gate, None, 0, random.Random(1), "strong", ready.append) is None
    )  # type: ignore[arg-type]
    assert (
        thinking.start("k", stamp, gate, None, 0, random.Random(1), "strong", ready.append) is None
    )  # type: ignore[arg-type]
    while gate.started == 0:
        await asyncio.sleep(0.001)
    assert thinking.thinking("k") and thinking.result("k", stamp) is None
    assert (await svc.handle(Open(OTHER, BOB))).ok  # the loop serves others meanwhile
    gate.release.set()
    assert await thinking.wait()
    assert ready == ["k"] and gate.started == 1  # one job for one state
    assert thinking.result("k", ("t", 2, 0)) is None  # the table moved on: dropped
    assert (
        thinking.start("k", stamp, gate, None, 0, random.Random(1), "strong", ready.append) is None
    )  # type: ignore[arg-type]
    await thinking.wait()
    assert thinking.result("k", stamp) == Choice("thought", "strong")


async def test_a_strong_bot_thinks_during_its_delay_and_acts_the_moment_it_is_due() -> None:
    """Thinking starts when the bot's step is stored as the next one (its delay), not when
    the step is due: the choice is ready then, so the step acts at once (the table goes at
    its bot delay, not the delay plus the thinking) and fires on its own timer, as any bot
    table's step does, rather than whenever a worker answers (issue 22)."""
    h = Harness(seed=1)
    svc = h.service
    svc.bot_delay = 5.0
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    words = ["game=karnaval", "bots=2", "level=strong"]
    assert (await svc.handle(Configure(CHANNEL, ALICE, words))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await h.settle()  # nothing is due for 5 s; the bot's thinking is done meanwhile
    table = await h.table()
    (turn,) = svc.game_of(table).deciders(table.match)
    assert table.seats[turn].bot and table.deadline_kind == "bot"
    assert len(table.match.k.choices(turn)) > 1  # a real decision (a bid), not a quick one
    assert not svc.thinking.thinking(table.key.key)
    seq = table.seq
    h.clock.advance(5.0)
    assert await svc.tick() == 1  # acted at its first step: nothing left to wait for
    assert (await h.table()).seq > seq


async def test_a_failed_thought_falls_back_to_the_plain_bot_choice() -> None:
    """A job that fails (a worker died, a bug) never stalls the table: the next step of the
    same state plays the game's plain bot choice."""

    class Broken(_Gate):
        def bot_thinking(self, *args: Any) -> Any:
            def job() -> Choice:
                raise RuntimeError("no thinking today")

            return job

    thinking = Thinking()
    rules = Broken()
    stamp = ("t", 1, 0)
    assert thinking.start("k", stamp, rules, None, 0, random.Random(1), "strong") is None  # type: ignore[arg-type]
    await thinking.wait()
    assert thinking.result("k", stamp) is None
    assert thinking.start("k", stamp, rules, None, 0, random.Random(1), "strong") == Choice("plain")  # type: ignore[arg-type]
    await thinking.close()


async def test_a_thought_past_its_patience_falls_back_to_the_plain_choice() -> None:
    """A job that does not answer (its worker starved at the lowest priority, or stuck) never
    stalls the table: after `patience` the table is due again and plays the plain bot choice;
    the job's late answer is dropped and the next table's job still gets its own."""
    thinking = Thinking(concurrent=2, patience=0.05)
    gate = _Gate()
    ready: list[str] = []
    stamp = ("t", 1, 0)
    assert (
        thinking.start("k", stamp, gate, None, 0, random.Random(1), "strong", ready.append) is None
    )  # type: ignore[arg-type]
    while not ready:  # the job never answers: the table is due again once patience is spent
        await asyncio.sleep(0.001)
    assert ready == ["k"] and thinking.given_up == 1 and not thinking.thinking("k")
    assert thinking.result("k", stamp) is None
    assert thinking.start(
        "k", stamp, gate, None, 0, random.Random(1), "strong", ready.append
    ) == Choice("plain")  # type: ignore[arg-type]
    other = ("u", 1, 0)
    assert (
        thinking.start("k2", other, gate, None, 0, random.Random(1), "strong", ready.append) is None
    )  # type: ignore[arg-type]
    while gate.started < 2:
        await asyncio.sleep(0.001)
    gate.release.set()  # both jobs end now: only the second one's answer is taken
    await thinking.wait()
    assert thinking.result("k2", other) == Choice("thought", "strong")
    assert thinking.result("k", stamp) is None and ready == ["k", "k2"]
    await thinking.close()


def test_patience_follows_the_thinking_budget() -> None:
    assert Thinking(seconds=0.25).patience == PATIENCE  # never less than PATIENCE
    assert Thinking(seconds=1.0).patience == 8.0  # PATIENCE_FACTOR times a long budget
    assert Thinking(seconds=None).patience is None  # counted work (tests): no clock at all
    assert Thinking(seconds=None, patience=3.0).patience == 3.0


async def test_concurrent_thinking_is_bounded() -> None:
    thinking = Thinking(concurrent=1)
    gate = _Gate()
    rng = random.Random(1)
    one = asyncio.create_task(thinking.choose(gate, None, 0, rng, "easy"))  # type: ignore[arg-type]
    two = asyncio.create_task(thinking.choose(gate, None, 1, rng, "easy"))  # type: ignore[arg-type]
    while gate.started == 0:
        await asyncio.sleep(0.001)
    for _ in range(20):
        await asyncio.sleep(0)
    assert gate.started == 1  # the second waits for a free place
    gate.release.set()
    assert [c.arg for c in await asyncio.gather(one, two)] == ["easy", "easy"]
    assert gate.started == 2
    await thinking.close()


async def test_easy_and_strong_choices_are_legal_in_every_game(harness: Harness) -> None:
    """Each game's `bot_thinking` answers with one of the seat's choices at every level."""
    svc = harness.service
    for game, bots in (("gnav", 2), ("gnavspiel", 2), ("karnaval", 2)):
        key = TableKey("test", f"levels-{game}")
        assert (await svc.handle(Open(key, ALICE))).ok
        assert (await svc.handle(Configure(key, ALICE, [f"game={game}", f"bots={bots}"]))).ok
        assert (await svc.handle(Start(key, ALICE))).ok
        await harness.settle()
        table = await harness.table(key)
        rules = svc.game_of(table)
        if not rules.deciders(table.match):
            harness.clock.advance(table.settings.next_round_delay + 1)
            await harness.settle()
            table = await harness.table(key)
        (seat, *_) = rules.deciders(table.match)
        legal = {c.key for c in rules.choices(table.match, seat)}
        for level in ("easy", "normal", "strong"):
            for seed in range(4):
                rng = random.Random(seed)
                pick = await svc.thinking.choose(rules, table.match, seat, rng, level)
                assert pick.key in legal, (game, level, pick)
        await svc.handle(Stop(key, User(ALICE.key, ALICE.name, admin=True)))


async def test_the_thinking_processes_start_ahead_and_take_the_first_job() -> None:
    """`start_pool` starts the worker processes with the games loaded, so a strong seat's
    first decision is not the one that starts a new interpreter: it runs in a worker that
    already exists (threads: nothing to start)."""
    assert await Thinking(processes=0).start_pool() == set()
    thinking = Thinking(processes=1, concurrent=1)
    try:
        workers = await thinking.start_pool()
        assert len(workers) == 1 and os.getpid() not in workers
        assert await thinking._run(os.getpid) in workers
    finally:
        await thinking.close()


async def test_the_oracle_is_no_table_level(harness: Harness) -> None:
    """Issue 33: the omniscient seat of benchmarks/oracle.py measures the ceiling; it sees
    every hidden card, so no table may choose it."""
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    bad = await svc.handle(Configure(CHANNEL, ALICE, ["level=oracle"]))
    assert not bad.ok and "easy, normal, strong" in bad.text
    assert (await harness.table()).settings.level == "normal"
