"""Issue 8 (security and bad input) on Telegram: the real Application on the fake Bot API."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.adapters.test_telegram_bench import TEST_LIMITS, Bench
from tests.adapters.test_telegram_run import SECRET, _env, _gnav_bot_run
from tests.fakes.telegram_api import FakeChat, FakeTelegram, FakeUser
from tests.service.conftest import own


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """A running fake Bot API server."""
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def bench(tg: FakeTelegram) -> AsyncIterator[Bench]:
    """The platform and service running on the fake."""
    started = await Bench(tg).start()
    yield started
    await started.stop()


def group_of(tg: FakeTelegram) -> tuple[FakeUser, FakeUser, FakeChat]:
    alice = tg.add_user("Alice")
    bob = tg.add_user("Bob")
    return alice, bob, tg.add_group("Secret board meeting", members=[alice, bob])


# ------------------------------------------------------------------ 1. settings
async def test_member_cannot_change_settings_without_a_table_on_telegram(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice, bob, group = group_of(tg)
    dora = tg.add_user("Dora")
    tg.set_member_status(group, dora, "administrator")
    asked = bench.say(bob, group, "/gnav_settings lives=1 bots=19 timeout=10")
    assert "admin" in (await bench.reply_to(group, asked)).text
    asked = bench.say(bob, group, "/gnav_language ru")
    assert "admin" in (await bench.reply_to(group, asked)).text
    asked = bench.say(bob, group, "/gnav_settings")  # reading is for everyone
    assert "lives 3" in (await bench.reply_to(group, asked)).text
    asked = bench.say(dora, group, "/gnav_settings lives=4")
    assert "lives 4" in (await bench.reply_to(group, asked)).text
    bench.say(alice, group, "/gnav")
    await bench.wait_table(group, "Alice", button="Join")
    table = await bench.table(group)
    assert (own(table.settings).lives, table.settings.bots, table.settings.turn_timeout) == (
        4,
        0,
        60,
    )


# ------------------------------------------------------------------ 3. names are not links
async def test_names_are_not_links_commands_or_mentions_on_telegram(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice, _bob, group = group_of(tg)
    hostile = [tg.add_user(n) for n in ("http://evil.example/", "/gnav_stop", "@everyone")]
    for user in hostile:
        tg.set_member_status(group, user, "member")
    bench.say(alice, group, "/gnav")
    await bench.wait_table(group, "Alice", button="Join")
    for user in hostile:
        await bench.press(user, group, "Join")
    lobby = await bench.wait_table(group, "4. @everyone")
    assert "/gnav_stop" in (lobby.text or "") and "http://evil.example/" in (lobby.text or "")
    assert lobby.links() == []
    asked = bench.say(alice, group, "/gnav_kick /gnav_stop")
    kicked = await bench.reply_to(group, asked)
    assert "was removed" in kicked.text and kicked.links() == []
    # A value someone typed and a refusal echo it as typed, not as a command either.
    asked = bench.say(alice, group, "/gnav_kick /gnav_new")
    refused = await bench.reply_to(group, asked)
    assert "/gnav_new" in refused.text and refused.links() == []
    # The bot's own help still offers its commands to tap.
    asked = bench.say(alice, group, "/gnav_help")
    assert ("bot_command", "/gnav_stop") in (await bench.reply_to(group, asked)).links()


# ------------------------------------------------------------------ 2. kick
async def test_kick_removes_exactly_the_named_player_on_telegram(
    tg: FakeTelegram, bench: Bench
) -> None:
    host = tg.add_user("Host")
    upper = tg.add_user("Alice")
    lower = tg.add_user("alice", username="little_alice")
    third = tg.add_user("ALICE")
    group = tg.add_group("Kicks", members=[host, upper, lower, third])
    bench.say(host, group, "/gnav")
    await bench.wait_table(group, "Host", button="Join")
    for user in (upper, lower, third):
        await bench.press(user, group, "Join")
    await bench.wait_table(group, "4. ALICE")
    asked = bench.say(host, group, "/gnav_kick alice")
    assert "alice was removed" in (await bench.reply_to(group, asked)).text
    assert (await bench.table(group)).names == ["Host", "Alice", "ALICE"]
    asked = bench.say(host, group, "/gnav_kick aLiCe")
    refused = (await bench.reply_to(group, asked)).text
    assert "Alice, ALICE" in refused
    assert (await bench.table(group)).names == ["Host", "Alice", "ALICE"]
    # An @username mention names exactly its owner.
    bench.say(lower, group, "/gnav_join")
    await bench.wait_table(group, "4. alice")
    asked = bench.say(host, group, "/gnav_kick @little_alice")
    assert "alice was removed" in (await bench.reply_to(group, asked)).text
    assert (await bench.table(group)).names == ["Host", "Alice", "ALICE"]


# ------------------------------------------------------------------ 4. deep links
async def test_deep_link_reveals_nothing_to_outsiders(tg: FakeTelegram, bench: Bench) -> None:
    alice, bob, group = group_of(tg)
    mallory = tg.add_user("Mallory")  # not in the group
    bench.say(alice, group, "/gnav")
    lobby = await bench.wait_table(group, "Alice", button="Join")
    payload = payload_of(lobby.button("Privately by DM")["url"])
    assert str(group.id) not in payload.partition("s")[2]
    # A chat id written in by hand, the real link, and a forged signature: all neutral.
    outsider_lines = []
    after = 0
    for attempt in (f"g{group.id}", payload, payload[:-4] + "0000"):
        tg.user_starts_bot(mallory, attempt)
        answer = await bench.dm(mallory, "sit at a table", after=after)
        outsider_lines.append(answer.text)
        after = answer.message_id
    assert all("Secret board meeting" not in t and "Linked" not in t for t in outsider_lines)
    assert len(set(outsider_lines)) == 1
    # Bob is in the group but not seated yet: neutral too; once seated, linked.
    tg.user_starts_bot(bob, payload)
    neutral = await bench.dm(bob, "sit at a table")
    assert "Secret board meeting" not in neutral.text
    await bench.press(bob, group, "Join")
    await bench.wait_table(group, "2. Bob")
    tg.user_starts_bot(bob, payload)
    linked = await bench.dm(bob, "Linked", after=neutral.message_id)
    assert "«Secret board meeting»" in linked.text


def payload_of(url: str) -> str:
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(url).query)["start"][0]


# ------------------------------------------------------------------ 5. no reply dropped
async def test_no_reply_is_dropped_after_thirteen_joins(tg: FakeTelegram) -> None:
    """The group's message budget is spent: 13 joiners' hints, a refusal, a settings error
    and a /gnav_stats answer all wait; none is thrown away."""
    limits = dataclasses.replace(TEST_LIMITS, group_per_minute=2, drain_timeout=0.5)
    bench = await Bench(tg, limits=limits).start()
    try:
        host = tg.add_user("Host")
        joiners = [tg.add_user(f"Joiner{i}") for i in range(13)]
        group = tg.add_group("Busy", members=[host, *joiners])
        bench.say(host, group, "/gnav")
        await bench.wait_table(group, "Host", button="Join")
        for user in joiners:
            bench.say(user, group, "/gnav_join")
        bench.say(joiners[0], group, "/gnav_join")  # a refusal
        bench.say(host, group, "/gnav_settings lives=x")  # a settings error
        bench.say(joiners[1], group, "/gnav_stats")  # an answer
        await tg.wait_until_fetched()
        handlers = bench.platform.handlers
        assert handlers is not None

        def everything() -> str:
            sent = "\n".join(m.text or "" for m in tg.bot_messages(group))
            waiting = handlers.replies.pending(group.id)
            return sent + "\n" + "\n".join(item.rendered() for item in waiting)

        await bench.eventually(
            lambda: _async(
                "already seated" in everything()
                and "whole number" in everything()
                and "no Gnav statistics" in everything()
            ),
            what="every answer sent or waiting",
        )
        assert handlers.replies.waiting(group.id) <= 10
        text = everything()
        assert all(f"Joiner{i}" in text for i in range(13)), text
        assert text.count("Privately by DM") <= 3  # hints combined, not one per joiner
    finally:
        await bench.stop()


async def _async(value: bool) -> bool:
    return value


# ------------------------------------------------------------------ 6. the store goes away
async def test_store_deleted_while_running_stops_the_bot_loudly(tmp_path: Path) -> None:
    """`gnav-bot run` whose SQLite file is deleted: the next command is refused with a clear
    message in the chat (not "You stay."), an ERROR is logged, the process exits non-zero."""
    async with FakeTelegram(token=SECRET) as tg:
        await _store_deleted_while_running(tg, tmp_path)


async def _store_deleted_while_running(tg: FakeTelegram, tmp_path: Path) -> None:
    proc = await _gnav_bot_run(tmp_path, _env(tg, tmp_path, SECRET))
    try:
        await tg.wait_for(lambda: tg.calls("getUpdates"), timeout=30, what="polling")
        alice, bob, carl = tg.add_user("Alice"), tg.add_user("Bob"), tg.add_user("Carl")
        group = tg.add_group("Doomed", members=[alice, bob, carl])
        tg.user_sends(alice, group, "/gnav")
        lobby = await tg.wait_for_message(group, contains="1. Alice", timeout=10)
        tg.user_sends(bob, group, "/gnav_join")
        await tg.wait_for(lambda: "2. Bob" in (lobby.text or ""), timeout=10, what="Bob seated")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp_path / 'gnav.sqlite3'}{suffix}").unlink(missing_ok=True)
        tg.user_sends(carl, group, "/gnav_join")
        refused = await tg.wait_for_message(group, contains="lost its database", timeout=10)
        assert refused.from_bot
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = (out + err).decode()
    assert proc.returncode not in (0, None), text
    assert "ERROR" in text and "was deleted" in text
    assert "Traceback" not in text
    assert "3. Carl" not in (lobby.text or "")
