"""The service while its store is away: the real PostgreSQL store behind a cut network.

A command that cannot be stored is answered with one clear line in the table's language and
changes nothing (not even in memory); the log says once that the store is away and once that
it is back, whatever the outage's length; deadlines, claims and sweeps back off meanwhile and
resume by themselves. SQLite's full disk (a small tmpfs, where mounting is allowed) likewise.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.games.registry import all_games
from bot.service.commands import Act, Join, Open, Press, Stats, Top
from bot.service.i18n import LANGUAGES, catalog
from bot.service.service import TableService
from bot.service.table import TableKey, User
from storage.sqlite import SqliteRepository
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness
from tests.service.test_service import start_table
from tests.storage.disk import fill, small_tmpfs
from tests.storage.gate import TcpGate, gated_postgres


@pytest.fixture
async def gated() -> AsyncIterator[tuple[Harness, TcpGate]]:
    """A service on a PostgreSQL store whose connections pass a gate the test controls."""
    async with gated_postgres() as (repo, gate):
        harness = Harness(repo=repo)  # type: ignore[arg-type]
        try:
            yield harness, gate
        finally:
            await gate.open()
            await harness.service.drain()


def clear_line(language: str = "en") -> str:
    return catalog(language).t("error.store_unavailable")


def test_the_clear_line_speaks_every_language() -> None:
    lines = {lang: clear_line(lang) for lang in LANGUAGES}
    assert "nothing changed" in lines["en"] and "try again" in lines["en"]
    assert len(set(lines.values())) == len(LANGUAGES)  # translated, not English everywhere


def live_button(harness: Harness) -> str:
    """The table message's first button (current: a press of it is not stale)."""
    return next(iter(harness.notifier.buttons(CHANNEL.key).values()))


async def refusals(
    harness: Harness, user: User, token: str, rounds: int = 3, *, reads: bool = True
) -> list[str]:
    """Every kind of command, `rounds` times, while the store is away: a move, a join, a press
    in the group and the same button pressed from the player's private chat (which names the
    table only by its token), and (`reads`: the store cannot even be read) a join (else refused
    by the rules: the match is under way), statistics and the top list. Their texts."""
    svc = harness.service
    private = TableKey(CHANNEL.platform, user.key.partition(":")[2])
    texts = []
    for _ in range(rounds):
        replies = [
            await svc.handle(Act(CHANNEL, user, "stay")),
            await svc.handle(Press(CHANNEL, user, token)),
            await svc.handle(Press(private, user, token)),
        ]
        if reads:
            replies += [
                await svc.handle(Join(CHANNEL, CARL)),
                await svc.handle(Stats(CHANNEL, ALICE)),
                await svc.handle(Top(CHANNEL)),
            ]
        assert [r.ok for r in replies] == [False] * len(replies)
        texts += [r.text for r in replies]
    return texts


async def test_commands_while_the_store_is_away_get_the_clear_line_and_change_nothing(
    gated: tuple[Harness, TcpGate],
) -> None:
    harness, gate = gated
    svc = harness.service
    await start_table(harness, ALICE, BOB, words=["lives=5", "timeout=30", "language=nb"])
    before = await harness.table()
    version, turn, log_length = before.row_version, before.match.turn, len(before.log)
    user = await harness.current()
    await gate.close()
    # The table's language every time (its cached table is dropped after the first
    # failure: the language is not), from the group and from a private chat alike; the
    # senders say no language of their own (English would be the fallback).
    assert await refusals(harness, user, live_button(harness)) == [clear_line("nb")] * 18
    assert (await svc.handle(Press(CHANNEL, user, "g:abcdef:1:stay"))).text == clear_line("nb")
    assert not svc.health.available
    await gate.open()
    after = await harness.table()
    assert (after.row_version, after.match.turn, len(after.log)) == (version, turn, log_length)
    assert (await svc.handle(Act(CHANNEL, user, "stay"))).ok
    assert svc.health.available


async def test_an_outage_of_any_length_logs_one_error_and_one_info(
    gated: tuple[Harness, TcpGate], caplog: pytest.LogCaptureFixture
) -> None:
    harness, gate = gated
    svc = harness.service
    await start_table(harness, ALICE, BOB, words=["lives=5", "timeout=30"])
    user = await harness.current()
    caplog.set_level(logging.INFO)
    caplog.clear()
    await gate.close()
    harness.clock.advance(31)  # the turn's deadline is due during the outage
    for step in range(1, 201):  # a long outage: commands, deadlines, claims and sweeps fail
        harness.clock.advance(0.05)
        await svc.tick()
        await svc.timers.housekeeping()
        if step % 20 == 0:
            assert not (await svc.handle(Act(CHANNEL, user, "stay"))).ok
    waited = dict(svc.health.waited)
    # Backed off: far fewer tries of the store than rounds of the loop.
    assert waited["command"] == 10
    assert 0 < waited["deadline"] < 60
    await gate.open()
    harness.clock.advance(1.0)  # past the longest pause
    assert await svc.tick() == 1  # the timed-out turn is played as soon as the store is back
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.levelname, r.name) for r in noisy] == [("ERROR", "gnav_bot.store")]
    assert "cannot be reached" in noisy[0].getMessage()
    back = [r for r in caplog.records if "back after" in r.getMessage()]
    assert len(back) == 1 and back[0].levelname == "INFO"
    assert "10 command" in back[0].getMessage() and "deadline" in back[0].getMessage()
    assert svc.health.available and svc.health.outages == 1


async def test_an_outage_longer_than_the_give_up_time_stops_the_bot(
    gated: tuple[Harness, TcpGate],
) -> None:
    harness, gate = gated
    svc = TableService(
        harness.repo,
        harness.notifier,
        clock=harness.clock,
        games=all_games(),
        bot_delay=0.0,
        store_give_up=30.0,
    )
    stops: list[int] = []
    svc.on_store_lost = lambda: stops.append(1)
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    await gate.close()
    assert not (await svc.handle(Join(CHANNEL, BOB))).ok
    harness.clock.advance(29)
    assert not (await svc.handle(Join(CHANNEL, BOB))).ok
    assert stops == [] and not svc.health.gave_up
    harness.clock.advance(2)
    reply = await svc.handle(Join(CHANNEL, BOB))
    assert not reply.ok
    assert stops == [1] and svc.health.gave_up and svc.store_lost is not None
    assert svc.health.snapshot()["store"] == "unavailable"
    assert svc.health.http_status() == 503


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs (root only: skipped where mounting is not allowed)."""
    with small_tmpfs(tmp_path) as point:
        yield point


async def test_a_full_disk_logs_one_error_and_one_info_and_play_goes_on(
    small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repo = await SqliteRepository.open(small_disk / "gnav.sqlite3")
    try:
        harness = Harness(repo=repo)  # type: ignore[arg-type]
        svc = harness.service
        await start_table(harness, ALICE, BOB, words=["lives=5", "timeout=30", "language=nb"])
        user = await harness.current()
        token = live_button(harness)
        caplog.set_level(logging.INFO)
        caplog.clear()
        filler = fill(small_disk)
        harness.clock.advance(31)  # the turn's deadline falls due on the full disk
        replies = []
        for step in range(1, 101):
            harness.clock.advance(0.05)
            await svc.tick()
            await svc.timers.housekeeping()
            if step % 10 == 0:
                replies += await refusals(harness, user, token, rounds=1, reads=False)
        # Every refusal in the table's language, from the group and a private chat.
        assert replies == [clear_line("nb")] * 30
        noisy = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [(r.levelname, r.name) for r in noisy] == [("ERROR", "gnav_bot.store")]
        assert "disk is full" in noisy[0].getMessage() and "needs about" in noisy[0].getMessage()
        filler.unlink()
        harness.clock.advance(1.0)
        assert await svc.tick() == 1  # the timed-out turn is played once there is room
        back = [r for r in caplog.records if "back after" in r.getMessage()]
        assert len(back) == 1 and back[0].levelname == "INFO"
        await harness.settle()
        assert svc.health.available and svc.health.outages == 1
    finally:
        await repo.close()
