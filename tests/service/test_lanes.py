"""Lanes (issue 17): a private screen never waits for the group's budget; the table message is
"latest state wins" while the budget is spent (merged, never older after newer); a restart in
the middle of a spent budget shows the newest state once; a round's end is not held behind a
paced edit; while the group's budget is short a round's reveal is frozen once, sparing its
call; private messages waiting for a spent private budget go as one (the newest screen
wins, no line is dropped); a private screen never waits behind a claim's batch of the group's
messages, with or without a restart (the store claims each lane apart)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.games.registry import all_games
from bot.service.commands import Act, Configure, Join, Open, Start
from bot.service.outbox import LEASE
from bot.service.ports import Button, Delivery, OutMessage, Screen
from bot.service.routing import RoutingNotifier
from bot.service.service import TableService
from bot.service.table import User
from storage.common import CLAIM_BATCH
from storage.memory import MemoryRepository
from storage.postgres import PostgresRepository
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness
from tests.service.fakes import RecordingNotifier
from tests.storage.conftest import PG_DSN, fresh_pg_schema

ROOT = Path(__file__).resolve().parents[2]


class BudgetNotifier(RecordingNotifier):
    """A platform whose channel budget can be spent: `ready` waits until it is given back."""

    def __init__(self) -> None:
        super().__init__()
        self.budget = asyncio.Event()
        self.budget.set()
        self.waiting = 0

    async def ready(self, channel: str) -> None:
        """Return once a message to `channel` would go at once."""
        self.waiting += 1
        try:
            await self.budget.wait()
        finally:
            self.waiting -= 1


async def _started(h: Harness) -> None:
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok
    for user in (BOB, CARL):
        assert (await h.service.handle(Join(CHANNEL, user))).ok
    assert (await h.service.handle(Configure(CHANNEL, ALICE, ["lives=9"]))).ok
    assert (await h.service.handle(Start(CHANNEL, ALICE))).ok
    await h.settle()


async def _move(h: Harness, prefer: str = "swap") -> None:
    """The player whose turn it is acts (a swap where allowed: pieces change hands)."""
    table = await h.table()
    seat = table.match.turn
    action = prefer if prefer in table.match.legal_actions(seat) else "stay"
    assert (await h.service.handle(Act(CHANNEL, User(table.seats[seat].user, ""), action))).ok


async def _until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"never: {what}")


@pytest.mark.parametrize("routed", [False, True], ids=["notifier", "routed"])
async def test_a_private_screen_goes_out_while_the_groups_budget_is_spent(routed: bool) -> None:
    """`routed`: behind the notifier `gnav-bot run` builds (one for every platform), which
    passes the platform's budget on."""
    h = Harness()
    budget = BudgetNotifier()
    h.notifier = RoutingNotifier({"test": budget}) if routed else budget  # type: ignore[assignment]
    h.service = h.make_service()
    await _started(h)
    told = sum(len(v) for v in budget.private.values())
    edits = budget.last(CHANNEL.key).edits
    budget.budget.clear()  # the group's budget is spent
    for _ in range(2):
        await _move(h)
    # The table's edit waits for the budget; the private screens went out meanwhile.
    await _until(lambda: budget.waiting == 1, "the edit waiting for the group's budget")
    await _until(lambda: sum(len(v) for v in budget.private.values()) > told, "a private one")
    assert budget.last(CHANNEL.key).edits == edits
    budget.budget.set()
    await h.settle()
    assert budget.last(CHANNEL.key).edits > edits


async def test_a_table_message_never_goes_back_to_an_older_state_and_merges_what_waited() -> None:
    h = Harness()
    budget = h.notifier = BudgetNotifier()
    h.service = h.make_service()
    await _started(h)
    msg = budget.last(CHANNEL.key)
    before = len(msg.history)
    budget.budget.clear()
    for _ in range(2):  # the first two players stay: the round goes on (the dealer ends it)
        await _move(h, "stay")
        await asyncio.sleep(0)
    await _until(lambda: budget.waiting == 1, "the edit waiting for the group's budget")
    budget.budget.set()
    await h.settle()
    table = await h.table()
    # One edit, the newest state: the ones committed while the budget was spent were merged.
    assert len(msg.history) == before + 1
    assert msg.screen == h.service.render(table)


async def test_a_restart_in_the_middle_of_a_spent_budget_sends_the_newest_state_once() -> None:
    repo = MemoryRepository()
    first = Harness(repo=repo)
    budget = first.notifier = BudgetNotifier()
    first.service = first.make_service()
    await _started(first)
    budget.budget.clear()
    for _ in range(2):
        await _move(first, "stay")
    await _until(lambda: budget.waiting == 1, "the edit waiting for the group's budget")
    # The process dies here; the next one starts on the same store.
    second = Harness(repo=repo)
    second.clock.t = first.clock.t + 1
    assert await second.service.resume() == 1
    await second.settle()
    sent = second.notifier
    table = await second.table()
    posted = sent.posts(CHANNEL.key)
    # The table, as it is now, in one new message; no state in between was sent.
    assert len(posted) == 1 and posted[0].edits == 0
    note = posted[0].screen.text.split("\n")[0]
    assert posted[0].screen == second.service.render(table, note=note)
    assert [kind for kind, channel, _ in sent.order if channel == CHANNEL.key] == ["post"]


async def test_a_rounds_end_goes_out_at_once_while_an_edit_waits_for_the_groups_budget() -> None:
    """The paced edit before a round's end stops waiting for the group's budget when the end
    comes: it is merged into the round's last state, which goes with the reveal at once (on
    the calls a platform keeps for posts), not after the paced edit's turn."""
    h = Harness()
    budget = h.notifier = BudgetNotifier()
    h.service = h.make_service()
    await _started(h)
    msg = budget.last(CHANNEL.key)
    before = len(msg.history)
    posts = len(budget.posts(CHANNEL.key))
    budget.budget.clear()  # the group's budget for paced edits is spent
    await _move(h, "stay")
    await _until(lambda: budget.waiting == 1, "the edit waiting for the group's budget")
    for _ in range(2):  # the dealer's move ends the round
        await _move(h, "stay")
    await _until(lambda: len(budget.posts(CHANNEL.key)) > posts, "the reveal, budget spent")
    await _until(lambda: budget.waiting == 0, "the paced edit no longer waiting")
    assert "Reveal of round 1" in budget.last(CHANNEL.key).screen.text  # the round did end
    # The round's message went from its state before the moves to its end in one edit (the
    # waiting one merged), without buttons; then the reveal as a new message.
    assert len(msg.history) == before + 1
    assert msg.screen.buttons == ()
    kinds = [kind for kind, channel, _ in budget.order if channel == CHANNEL.key]
    assert kinds[-2:] == ["edit", "post"]
    budget.budget.set()
    await h.settle()


class ShortNotifier(BudgetNotifier):
    """A platform that says when its channel budget is short (`short`: an edit would leave
    the calls it keeps for posts spent), as Telegram's lanes do."""

    def __init__(self) -> None:
        super().__init__()
        self.is_short = False

    def short(self, channel: str) -> bool:
        """Whether the channel's budget is short now."""
        return self.is_short


@pytest.mark.parametrize("reveal_out", [False, True], ids=["reveal-waiting", "reveal-out"])
@pytest.mark.parametrize("short", [False, True], ids=["room", "short"])
async def test_a_reveal_is_frozen_once_and_spares_its_call_while_the_budget_is_short(
    reveal_out: bool, short: bool
) -> None:
    """Issue 31, point 5: with no next-round delay, the next round's message follows a
    round's reveal at once. While the group's budget is short, the reveal's freeze spares its
    call for a deal's end: a reveal still waiting when the next round's message comes is
    posted as it ends (no buttons) and never edited; one already out is frozen after the next
    round's message (when an edit has room). With room (and on a platform keeping no budget)
    the reveal is frozen before the next round's message, as before. Each posted once."""
    h = Harness()
    n = h.notifier = ShortNotifier()
    h.service = h.make_service()
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok
    for user in (BOB, CARL):
        assert (await h.service.handle(Join(CHANNEL, user))).ok
    assert (await h.service.handle(Configure(CHANNEL, ALICE, ["lives=9", "delay=0"]))).ok
    assert (await h.service.handle(Start(CHANNEL, ALICE))).ok
    await h.settle()
    n.is_short = short
    posts = len(n.posts(CHANNEL.key))
    for _ in range(3):  # everyone stays: the dealer's move ends the round
        await _move(h, "stay")
    if reveal_out:
        await h.service.outbox.drain()
    await h.settle()  # the next round, at once
    new = n.posts(CHANNEL.key)[posts:]
    assert len(new) == 2, [m.screen.text for m in new]  # the reveal, the next round: once each
    reveal, nxt = new
    assert "Reveal of round 1" in reveal.screen.text and reveal.screen.buttons == ()
    assert "Reveal of round 1" not in nxt.screen.text and nxt.screen.buttons
    order = [(kind, ref) for kind, channel, ref in n.order if channel == CHANNEL.key]
    frozen_at = [i for i, (kind, ref) in enumerate(order) if (kind, ref) == ("edit", reveal.ref)]
    next_at = order.index(("post", nxt.ref))
    if short and not reveal_out:
        assert frozen_at == [] and reveal.history[0].buttons == ()  # posted as it ends
    elif short:
        assert frozen_at and frozen_at[0] > next_at  # the next round's message first
    else:
        assert frozen_at and frozen_at[0] < next_at  # as before


class PrivateBudgetNotifier(RecordingNotifier):
    """A platform whose private chats have a budget: `ready_private` waits until it is
    given back."""

    def __init__(self) -> None:
        super().__init__()
        self.room = asyncio.Event()
        self.room.set()
        self.waiting = 0

    async def ready_private(self, user: str) -> None:
        """Return once a private message to `user` would go at once."""
        self.waiting += 1
        try:
            await self.room.wait()
        finally:
            self.waiting -= 1


@pytest.mark.parametrize("routed", [False, True], ids=["notifier", "routed"])
async def test_private_messages_waiting_for_the_budget_go_as_one_the_newest_screen_wins(
    routed: bool,
) -> None:
    h = Harness()
    n = PrivateBudgetNotifier()
    h.notifier = RoutingNotifier({"test": n}) if routed else n  # type: ignore[assignment]
    h.service = h.make_service()
    outbox = h.service.outbox

    def tell(text: str, *labels: str) -> None:
        buttons = (tuple(Button(b, f"t-{b}") for b in labels),) if labels else ()
        screen = Screen(text, buttons, literals=("Bob",))
        outbox.deliver(CHANNEL.key, [OutMessage("tell", screen, user=ALICE.key)])

    tell("You hold VII", "Stay", "Swap")
    await _until(lambda: ALICE.key in n.private, "the first screen")
    n.room.clear()  # Alice's private chat has no room for a while
    tell("You hold VII", "Swap")  # out of date once the next screen comes
    tell("From Bob you now hold XII")  # a line: never dropped
    tell("You hold XII", "Stay")  # the newest screen
    tell("Bob swapped")  # a line after it: never above the screen it follows
    await _until(lambda: n.waiting == 1, "the lane waiting for room")
    n.room.set()
    await outbox.drain()
    assert n.private[ALICE.key] == [
        "You hold VII",
        "From Bob you now hold XII\n\nYou hold XII",
        "Bob swapped",
    ]
    merged = n.private_screens[ALICE.key][1]
    assert [b.label for row in merged.buttons for b in row] == ["Stay"]
    assert merged.literals == ("Bob",)


def test_a_private_run_goes_as_one_only_up_to_its_newest_screen_and_within_one_text() -> None:
    from bot.service.ports import Picture, TableShot
    from bot.service.table_message import MERGED_TEXT, merge_private

    choose = (Button("Stay", "t"),)
    line, screen = Screen("You hold VII"), Screen("Your turn", (choose,))
    # A line after the only screen: the screen goes alone, the line next.
    assert merge_private([screen, line]) == (1, screen)
    # Lines alone go together.
    assert merge_private([line, line])[0] == 2
    # A text longer than one message: the first goes alone.
    long = Screen("x" * MERGED_TEXT)
    assert merge_private([long, screen]) == (1, long)
    # A picture, or a shot of the table rendered at delivery, goes alone.
    picture = Screen("Sheet", image=Picture("s.png", b"png", "sheet"))
    assert merge_private([picture, screen]) == (1, picture)
    shot = TableShot("t1", 1, 3)
    assert merge_private([shot, screen]) == (1, shot)
    assert merge_private([line, shot, screen]) == (1, line)


class SpentGroupNotifier(RecordingNotifier):
    """A platform whose group minute is spent: a call to a channel waits until `budget` is
    given back; the time (the event loop's) of every private message is kept."""

    def __init__(self) -> None:
        super().__init__()
        self.budget = asyncio.Event()
        self.told_at: list[float] = []
        self.told = asyncio.Event()

    async def post(self, channel: str, screen: Screen) -> str | None:
        await self.budget.wait()
        return await super().post(channel, screen)

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        await self.budget.wait()
        return await super().edit(channel, message_ref, screen)

    async def tell(self, user: str, screen: Screen) -> Delivery:
        self.told_at.append(asyncio.get_running_loop().time())
        self.told.set()
        return await super().tell(user, screen)


class SharedMemoryRepository(MemoryRepository):
    """The memory store, said to be shared by several processes (as PostgreSQL is)."""

    shared = True


async def test_a_private_screen_never_waits_behind_a_batch_of_the_groups_messages() -> None:
    """Without a crash: the group's messages wait for its spent budget longer than the claim's
    lease, more of them than one claim's batch; a private screen committed then goes out at
    once (the store claims the private lane apart from the channel's)."""
    h = Harness(repo=SharedMemoryRepository())
    spent = h.notifier = SpentGroupNotifier()
    h.service = h.make_service()
    work = h.service.uow
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok  # its message waits for the budget
    async with work.lock(CHANNEL.key):
        for i in range(CLAIM_BATCH + 5):
            h.service.outbox.post(CHANNEL.key, Screen(f"result {i}"))
        await work.commit(CHANNEL.key)
    h.clock.advance(LEASE + 1)  # the lease on what waits for the budget ran out
    async with work.lock(CHANNEL.key):
        h.service.outbox.tell(CHANNEL.key, BOB.key, Screen("your turn, Bob"))
        await work.commit(CHANNEL.key)
    await asyncio.wait_for(spent.told.wait(), 10)
    assert spent.private[BOB.key] == ["your turn, Bob"]
    assert spent.posts(CHANNEL.key) == []  # the group's budget is still spent
    spent.budget.set()
    await h.settle()
    assert len(spent.posts(CHANNEL.key)) == CLAIM_BATCH + 6  # then all of them, once


@pytest.fixture
async def pg_schema() -> AsyncIterator[str]:
    """A fresh PostgreSQL schema, dropped after the test."""
    async with fresh_pg_schema() as name:
        yield name


async def test_after_a_restart_a_private_screen_goes_out_within_2_s_while_the_group_waits(
    pg_schema: str,
) -> None:
    """A process on PostgreSQL commits a run of group posts (more than a claim's batch) and
    then the next player's private screen, sends none (its group minute is spent) and is
    killed. The next process, whose group minute is spent too, sends the private screen
    within 2 s of starting, without waiting for the group's messages."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.service.lane_child",
        PG_DSN,
        pg_schema,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), 60)
        assert line.strip() == b"READY", line + await child.stderr.read()  # type: ignore[union-attr]
    finally:
        child.kill()  # SIGKILL
        await child.wait()
    repo = await PostgresRepository.open(PG_DSN, schema=pg_schema, max_size=5)
    spent = SpentGroupNotifier()
    service = TableService(repo, spent, bot_delay=0.0, games=all_games())
    try:
        started = asyncio.get_running_loop().time()
        await service.resume()
        await asyncio.wait_for(spent.told.wait(), 30)
        assert spent.told_at[0] - started < 2.0
        assert spent.private["test:l2"] == ["your turn, Mats"]
        assert spent.posts("test:lanes") == []  # the group's messages still wait
    finally:
        spent.budget.set()
        await service.shutdown()
        await repo.close()
