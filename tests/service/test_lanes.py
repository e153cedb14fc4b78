"""Lanes (issue 17): a private screen never waits for the group's budget; the table message is
"latest state wins" while the budget is spent (merged, never older after newer); a restart in
the middle of a spent budget shows the newest state once."""

from __future__ import annotations

import asyncio

from bot.service.table import User
from storage.memory import MemoryRepository
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness
from tests.service.fakes import RecordingNotifier


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
    assert (await h.service.open(CHANNEL, ALICE)).ok
    for user in (BOB, CARL):
        assert (await h.service.join(CHANNEL, user)).ok
    assert (await h.service.configure(CHANNEL, ALICE, ["lives=9"])).ok
    assert (await h.service.start(CHANNEL, ALICE)).ok
    await h.settle()


async def _move(h: Harness, prefer: str = "swap") -> None:
    """The player whose turn it is acts (a swap where allowed: pieces change hands)."""
    table = await h.table()
    seat = table.match.turn
    action = prefer if prefer in table.match.legal_actions(seat) else "stay"
    assert (await h.service.act(CHANNEL, User(table.seats[seat].user, ""), action)).ok


async def _until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"never: {what}")


async def test_a_private_screen_goes_out_while_the_groups_budget_is_spent() -> None:
    h = Harness()
    budget = h.notifier = BudgetNotifier()
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
