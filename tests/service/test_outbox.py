"""The transactional outbox: messages are stored with the commit that causes them, delivered
in order after it, marked done; a process that dies before sending leaves them to the next."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.service.commands import Act, Configure, Join, Leave, Open, Start
from bot.service.ports import Delivery, Screen
from bot.service.table import TableKey
from storage.memory import MemoryRepository
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness
from tests.service.fakes import RecordingNotifier


class HeldNotifier(RecordingNotifier):
    """A platform that never answers (the process dies before anything goes out)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def post(self, channel: str, screen: Screen) -> str | None:
        await self.gate.wait()
        return await super().post(channel, screen)

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        await self.gate.wait()
        return await super().edit(channel, message_ref, screen)

    async def tell(self, user: str, screen: Screen) -> Delivery:
        await self.gate.wait()
        return await super().tell(user, screen)


async def test_messages_are_stored_with_the_commit_and_marked_done_once_sent() -> None:
    h = Harness()
    held = HeldNotifier()
    h.notifier = held
    h.service = h.make_service()
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok
    assert (await h.service.handle(Join(CHANNEL, BOB))).ok
    # Committed, not yet sent: the new table message in the store's outbox. The join's
    # edit of it needs no row in a store of one process: a start after a crash shows every
    # open table anew.
    rows = sorted(h.repo.outbox.values(), key=lambda r: r["id"])
    assert [r["kind"] for r in rows] == ["post_table"]
    assert "1. Alice" in rows[0]["payload"]["screen"]["text"]
    held.gate.set()
    await h.service.outbox.drain()
    assert h.repo.outbox == {}
    assert "2. Bob" in held.last(CHANNEL.key).screen.text
    # The table message's reference is kept by the outbox store, for any process.
    assert h.repo.refs[CHANNEL.key] == held.last(CHANNEL.key).ref


async def test_a_process_dying_before_it_sends_loses_nothing() -> None:
    """Everything committed goes out after the restart, in order; a private message about a
    piece is sent only in its newest version."""
    repo = MemoryRepository()
    first = Harness(repo=repo)
    first.notifier = HeldNotifier()
    first.service = first.make_service()
    svc = first.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    assert (await svc.handle(Join(CHANNEL, CARL))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["lives=5"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    for _ in range(3):  # a few steps: the pieces change hands
        table = await svc.table_state(CHANNEL)
        if table.match.phase != "play":
            break
        seat = table.seats[table.match.turn]
        action = "swap" if "swap" in table.match.legal_actions(table.match.turn) else "stay"
        assert (await svc.handle(Act(CHANNEL, _user(seat.user), action))).ok
    committed = sorted(repo.outbox.values(), key=lambda r: r["id"])
    assert committed and not first.notifier.order  # nothing went out
    tells = [r for r in committed if r["kind"] == "tell"]
    newest = {r["target"]: r["payload"]["screen"]["text"] for r in tells}
    # The process dies (its tasks never run again). The next one starts on the same store.
    second = Harness(repo=repo)
    second.clock.t = first.clock.t + 1
    restored = second.service
    assert await restored.resume() == 1
    await restored.outbox.drain()
    sent = second.notifier
    assert repo.outbox == {}
    # Every public message committed is there, in order, then the restored notice, which
    # shows the table as it is.
    posts = [m.history[0].text for m in sent.messages.values()]
    wanted = [r["payload"]["screen"]["text"] for r in committed if r["kind"] == "post_table"]
    assert posts[: len(wanted)] == wanted
    assert len(posts) == len(wanted) + 1 and "restarted" in posts[-1]
    table = await restored.table_state(CHANNEL)
    shown = list(sent.messages.values())[-1].screen
    assert shown == restored.render(table, note=posts[-1].split("\n")[0])
    # Each player got the newest version of their private message, and only that one.
    for user, text in newest.items():
        assert sent.private[user] == [text]


async def test_edits_of_one_message_coalesce_when_the_platform_is_slow() -> None:
    h = Harness()
    held = HeldNotifier()
    h.notifier = held
    h.service = h.make_service()
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok
    held.gate.set()
    await h.service.outbox.drain()
    held.gate.clear()
    for user in (BOB, CARL):
        assert (await h.service.handle(Join(CHANNEL, user))).ok
    assert (await h.service.handle(Leave(CHANNEL, BOB))).ok
    await asyncio.sleep(0)
    held.gate.set()
    await h.service.outbox.drain()
    while h.repo.outbox:  # the later edits were claimed after the first went out
        await asyncio.sleep(0)
        await h.service.outbox.drain()
    msg = held.last(CHANNEL.key)
    assert "Carl" in msg.screen.text and "Bob" not in msg.screen.text
    assert msg.edits <= 2  # three edits committed; the waiting ones shown as one


def _user(key: str):  # type: ignore[no-untyped-def]
    from bot.service.table import User

    names = {ALICE.key: ALICE, BOB.key: BOB, CARL.key: CARL}
    return names.get(key, User(key, key))


async def test_a_quick_restart_on_a_store_of_one_process_restores_the_tables() -> None:
    """The heartbeat the killed process left is no live process on a one-process store."""
    repo = MemoryRepository()
    first = Harness(repo=repo)
    assert await first.service.resume() == 0  # leaves its heartbeat behind, then dies
    assert (await first.service.handle(Open(CHANNEL, ALICE))).ok
    second = Harness(repo=repo)
    second.clock.t = first.clock.t + 1
    assert await second.service.resume() == 1


class SharedMemoryRepository(MemoryRepository):
    """The memory store, said to be shared by several processes (as PostgreSQL is)."""

    shared = True


async def test_in_a_shared_store_an_edit_is_stored_as_a_shot_of_the_table() -> None:
    """Where another process may deliver it, an edit is a row: a shot of the table as
    committed (its version), which whoever delivers it renders."""
    h = Harness(repo=SharedMemoryRepository())
    held = HeldNotifier()
    h.notifier = held
    h.service = h.make_service()
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok
    assert (await h.service.handle(Join(CHANNEL, BOB))).ok
    rows = sorted(h.repo.outbox.values(), key=lambda r: r["id"])
    assert [r["kind"] for r in rows] == ["post_table", "edit"]
    table = await h.service.table_state(CHANNEL)
    shot = rows[1]["payload"]["screen"]["shot"]
    assert shot["table_id"] == table.table_id and shot["version"] == table.row_version
    held.gate.set()
    await h.service.outbox.drain()
    assert h.repo.outbox == {}
    assert "2. Bob" in held.last(CHANNEL.key).screen.text


async def test_a_shot_of_an_older_table_message_is_not_shown() -> None:
    """A shot delivered after its table posted a newer message (a new round) shows nothing:
    the newer message's freeze of the old one shows how it ended."""
    h = Harness(repo=SharedMemoryRepository())
    h.service = h.make_service()
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok
    await h.service.outbox.drain()
    table = await h.service.table_state(CHANNEL)
    from bot.service.ports import TableShot

    old = TableShot(table.table_id, table.message_no - 1, table.row_version or 0)
    current = TableShot(table.table_id, table.message_no, table.row_version or 0)
    other = TableShot("another", table.message_no, table.row_version or 0)
    assert await h.service.uow.render_shot(CHANNEL.key, old) is None
    assert await h.service.uow.render_shot(CHANNEL.key, other) is None
    shown = await h.service.uow.render_shot(CHANNEL.key, current)
    assert shown is not None and shown == h.service.render(table)


async def test_delivered_messages_of_several_tables_are_marked_in_one_write() -> None:
    """Alone on its store, a process marks what it delivered for all tables together, in the
    next write, not one write per table (and never through the per-table finish)."""
    h = Harness()
    held = HeldNotifier()
    h.notifier = held
    h.service = h.make_service()
    channels = [CHANNEL, *(TableKey("test", f"other{i}") for i in range(3))]
    for tk in channels:
        assert (await h.service.handle(Open(tk, ALICE))).ok
    assert len(h.repo.outbox) == len(channels)  # each table's new message, committed
    calls: list[str] = []
    mark, finish = h.repo.mark_delivered, h.repo.finish_messages

    async def counted_mark(*args: Any, **kwargs: Any) -> None:
        calls.append("mark")
        await mark(*args, **kwargs)

    async def counted_finish(*args: Any, **kwargs: Any) -> Any:
        calls.append("finish")
        return await finish(*args, **kwargs)

    h.repo.mark_delivered = counted_mark  # type: ignore[method-assign]
    h.repo.finish_messages = counted_finish  # type: ignore[method-assign]
    held.gate.set()
    await h.service.outbox.drain()
    assert h.repo.outbox == {}
    assert calls == ["mark"]
    # The references of the new messages were stored with the marking.
    assert all(h.repo.refs[tk.key] == held.last(tk.key).ref for tk in channels)


async def test_a_refused_marking_keeps_the_messages_for_the_next() -> None:
    h = Harness()
    real = h.repo.mark_delivered

    async def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("the store is briefly away")

    h.repo.mark_delivered = refuse  # type: ignore[method-assign]
    assert (await h.service.handle(Open(CHANNEL, ALICE))).ok
    for _ in range(20):  # the deliverer runs; the new table message is sent
        await asyncio.sleep(0)
    assert "1. Alice" in h.notifier.last(CHANNEL.key).screen.text
    assert [r["kind"] for r in h.repo.outbox.values()] == ["post_table"]  # sent, not marked
    assert not await h.service.outbox.flush()
    assert await h.service.outbox.sweep() == 0  # not while its own sends look unsent
    h.repo.mark_delivered = real  # type: ignore[method-assign]
    assert await h.service.outbox.flush()
    assert h.repo.outbox == {}
    assert len(h.notifier.messages) == 1  # sent once
