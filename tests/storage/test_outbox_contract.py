"""The outbox and claims, the same in every store: messages stored with the table and claimed
by their committer, handed over between owners in order, taken over when a lease runs out,
out-of-date private messages dropped, timers claimed by one owner at a time."""

from __future__ import annotations

from bot.service.ports import Button, Claim, OutMessage, Picture, Screen
from storage.common import CLAIM_BATCH
from tests.storage.conftest import Store
from tests.storage.test_repository_contract import table

T = 1_000.0


def msg(kind: str, text: str, user: str | None = None, freeze: str | None = None) -> OutMessage:
    buttons = ((Button("Go", "g:x:1:go", "primary"),),)
    return OutMessage(
        kind,
        Screen(text, buttons, ("Åse",)),
        user=user,
        freeze=Screen(freeze) if freeze else None,
        created_at=T,
    )


def claim(owner: str, now: float = T, lease: float = 15.0) -> Claim:
    return Claim(owner, now, now + lease)


async def test_messages_are_stored_with_the_table_and_claimed_by_their_committer(
    store: Store,
) -> None:
    repo = store.repo
    batch = await repo.save_table(
        table("t", 1),
        expected_version=None,
        messages=[msg("post_table", "hello", freeze="old"), msg("tell", "your piece", "u1")],
        claim=claim("a"),
    )
    assert batch is not None and batch.table_key == "t" and batch.ref is None
    assert [(m.kind, m.screen.text, m.user) for m in batch.messages] == [
        ("post_table", "hello", None),
        ("tell", "your piece", "u1"),
    ]
    first, second = batch.messages
    assert first.id < second.id and first.attempts == 1
    assert first.screen.buttons[0][0] == Button("Go", "g:x:1:go", "primary")
    assert first.screen.literals == ("Åse",) and first.freeze == Screen("old")
    # Done: deleted, the table message's reference stored; nothing more to claim.
    done = [m.id for m in batch.messages]
    assert await repo.finish_messages("t", done, claim("a"), ref="42", set_ref=True) is None
    later = await repo.add_messages("t", [msg("edit", "later")], claim("a"))
    assert later is not None and later.ref == "42"


async def test_a_running_lease_keeps_the_order_and_hands_over(store: Store) -> None:
    repo = store.repo
    await repo.save_table(
        table("t", 1), expected_version=None, messages=[msg("edit", "1")], claim=claim("a")
    )
    # b commits while a delivers: b's messages wait for a.
    assert (
        await repo.save_table(
            table("t", 2), expected_version=1, messages=[msg("edit", "2")], claim=claim("b")
        )
        is None
    )
    first = await repo.add_messages("t", [], claim("a"))
    assert first is not None and [m.screen.text for m in first.messages] == ["1", "2"]
    rest = await repo.finish_messages("t", [first.messages[0].id], claim("a"))
    assert rest is not None and [m.screen.text for m in rest.messages] == ["2"]
    assert await repo.finish_messages("t", [rest.messages[0].id], claim("a")) is None


async def test_a_dead_owners_messages_are_taken_over_newest_piece_only(store: Store) -> None:
    repo = store.repo
    await repo.save_table(
        table("t", 1),
        expected_version=None,
        messages=[
            msg("tell", "old piece", "u1"),
            msg("edit", "table"),
            msg("tell", "other's piece", "u2"),
            msg("tell", "new piece", "u1"),
        ],
        claim=claim("dead"),
    )
    assert await repo.claim_stale_messages(claim("b", T + 1)) == []  # its lease runs
    batches = await repo.claim_stale_messages(claim("b", T + 16))
    assert len(batches) == 1
    got = [(m.kind, m.screen.text) for m in batches[0].messages]
    assert got == [("edit", "table"), ("tell", "other's piece"), ("tell", "new piece")]
    assert all(m.attempts == 2 for m in batches[0].messages)
    assert await repo.claim_stale_messages(claim("c", T + 17)) == []  # b holds them now


async def test_a_due_timer_is_claimed_by_one_owner_at_a_time(store: Store) -> None:
    repo = store.repo
    await repo.save_table(table("due", 1, deadline=T - 1), expected_version=None)
    await repo.save_table(table("later", 1, deadline=T + 100), expected_version=None)
    await repo.save_table(table("gone", 1, status="closed", deadline=T - 5), expected_version=None)
    assert await repo.claim_timers(claim("a", lease=5)) == ["due"]
    assert await repo.claim_timers(claim("b", lease=5)) == []
    assert await repo.claim_timers(claim("b", lease=5), keys=["due"]) == []
    assert await repo.claim_timers(claim("b", T + 6, lease=5)) == ["due"]  # a's lease ran out
    # Storing the table releases its claim.
    await repo.save_table(table("due", 2, deadline=T - 1), expected_version=1)
    assert await repo.claim_timers(claim("c", T + 7, lease=5), keys=["due", "later"]) == ["due"]


async def test_heartbeats_count_the_other_live_processes(store: Store) -> None:
    repo = store.repo
    assert await repo.heartbeat("a", T, T + 10) == 0
    assert await repo.heartbeat("b", T + 1, T + 11) == 1
    assert await repo.heartbeat("b", T + 12, T + 22) == 0  # a stopped beating
    await repo.heartbeat("c", T + 12, T + 22)
    assert await repo.heartbeat("b", T + 13, None) == 1  # b stops; c lives


async def test_delivered_messages_of_several_tables_are_marked_in_one_call(
    store: Store,
) -> None:
    repo = store.repo
    one = await repo.save_table(
        table("t", 1), expected_version=None, messages=[msg("edit", "1")], claim=claim("a")
    )
    two = await repo.save_table(
        table("u", 1), expected_version=None, messages=[msg("edit", "2")], claim=claim("a")
    )
    assert one is not None and two is not None
    await repo.mark_delivered([one.messages[0].id, two.messages[0].id], {"u": "77"})
    # Nothing is left to claim, by anyone, even once every lease has run out.
    assert await repo.claim_stale_messages(claim("b", now=T + 60)) == []
    # The reference stored with the marking is the table's from now on.
    later = await repo.add_messages("u", [msg("edit", "3")], claim("a"))
    assert later is not None and later.ref == "77"


async def test_own_running_claim_does_not_hold_back_the_owners_next_messages(
    store: Store,
) -> None:
    repo = store.repo
    first = await repo.save_table(
        table("t", 1), expected_version=None, messages=[msg("edit", "1")], claim=claim("a")
    )
    assert first is not None
    # The owner still holds message 1 (delivered, not yet marked): its next commit is
    # claimed by it at once, after 1 in id order.
    nxt = await repo.save_table(
        table("t", 2), expected_version=1, messages=[msg("edit", "2")], claim=claim("a")
    )
    assert nxt is not None and nxt.messages[-1].screen.text == "2"
    assert nxt.messages[-1].id > first.messages[0].id
    # Another owner committing now waits for a's lease.
    assert (
        await repo.save_table(
            table("t", 3), expected_version=2, messages=[msg("edit", "3")], claim=claim("b")
        )
        is None
    )


async def test_a_screens_picture_is_stored_and_read_back_whole(store: Store) -> None:
    """A picture (the score sheet's PNG) goes through the outbox as it was: its bytes (every
    byte value), file name and alt text, on the screen and on the freeze; none stays none."""
    repo = store.repo
    data = bytes(range(256)) * 40 + b"\x89PNG\r\n\x1a\n\x00"
    picture = Picture("sheet-q1.png", data, "  |Åse |Bo\nQ1|  60*|-68!")
    pictured = OutMessage(
        "post_table",
        Screen("Deal 3 of 12", ((Button("Next", "g:x:1:next"),),), ("Åse",), image=picture),
        freeze=Screen("Deal 2 of 12", image=picture),
        created_at=T,
    )
    await repo.save_table(
        table("t", 1), expected_version=None, messages=[pictured, msg("edit", "plain")]
    )
    batch = await repo.add_messages("t", [], claim("a"))  # read back from the store
    assert batch is not None
    first, second = batch.messages
    assert first.screen == pictured.screen and first.freeze == pictured.freeze
    assert first.screen.image is not None and first.screen.image.data == data
    assert second.screen.image is None


async def test_a_screens_told_lines_are_stored_and_read_back(store: Store) -> None:
    """The lines a reveal repeats from the round's log (`Screen.told`, which a terminal
    leaves out) go through the outbox; none stays none."""
    repo = store.repo
    told = OutMessage(
        "post_table",
        Screen("Deal 1: reveal\nCards: Åse J\nChips: Åse 4", told=("Cards: Åse J",)),
        created_at=T,
    )
    await repo.save_table(
        table("t", 1), expected_version=None, messages=[told, msg("edit", "plain")]
    )
    batch = await repo.add_messages("t", [], claim("a"))
    assert batch is not None
    first, second = batch.messages
    assert first.screen == told.screen and first.screen.told == ("Cards: Åse J",)
    assert second.screen.told == ()


async def test_a_claim_takes_each_lanes_oldest_so_a_private_message_never_waits_behind(
    store: Store,
) -> None:
    """More channel messages than one claim's batch, then a private one: the claim holds the
    private message too (the lanes are claimed apart), and says more waits."""
    repo = store.repo
    posts = [msg("post", f"result {i}") for i in range(CLAIM_BATCH + 5)]
    await repo.save_table(table("t", 1), expected_version=None, messages=posts)
    await repo.add_messages("t", [msg("tell", "your turn", "u1")])
    batch = await repo.add_messages("t", [], claim("a"))
    assert batch is not None and batch.more
    kinds = [m.kind for m in batch.messages]
    assert kinds.count("post") == CLAIM_BATCH and kinds.count("tell") == 1
    assert [m.id for m in batch.messages] == sorted(m.id for m in batch.messages)
    assert batch.messages[-1].screen.text == "your turn"
    # The rest of the channel's follow, in order, when the first batch is done.
    rest = await repo.finish_messages("t", [m.id for m in batch.messages], claim("a"))
    assert rest is not None and not rest.more
    assert [m.screen.text for m in rest.messages] == [
        f"result {i}" for i in range(CLAIM_BATCH, CLAIM_BATCH + 5)
    ]
