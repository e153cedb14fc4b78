"""Telegram commands end to end: menus, @bot suffixes, private chat, kick, admins, settings,
language, forum topics and deep links, on the fake Bot API with the real Application."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import pytest

from adapters.telegram import texts
from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import FakeChat, FakeTelegram, FakeUser


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
    return alice, bob, tg.add_group("Gnav night", members=[alice, bob])


def payload_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["start"][0]


async def test_menus_for_groups_and_private_chats_in_every_language(
    tg: FakeTelegram, bench: Bench
) -> None:
    groups = tg.commands({"type": "all_group_chats"})
    # Then a command per hosted game, from the registry (`/gnav` itself opens the channel's).
    assert [c["command"] for c in groups] == [*texts.GROUP_COMMANDS, "gnavspiel", "karnaval"]
    assert all(c["description"] for c in groups)
    private = tg.commands({"type": "all_private_chats"})
    assert [c["command"] for c in private] == ["start", "gnav_help", "gnav_rules"]
    norwegian = tg.commands({"type": "all_group_chats"}, language_code="nb")
    assert norwegian[0] == {
        "command": "gnav",
        "description": "Åpne et bord her (eller vis det)",
    }
    assert tg.commands({"type": "all_private_chats"}, language_code="ru")


async def test_commands_with_the_bot_name_and_help_with_telegram_commands(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice, bob, group = group_of(tg)
    bench.say(alice, group, f"/gnav@{tg.bot_username}")
    await bench.wait_table(group, "Alice", button="Join")
    bench.say(bob, group, f"/gnav_join@{tg.bot_username}")
    await bench.wait_table(group, "2. Bob")
    # A command for another bot is not ours.
    other = bench.say(bob, group, "/gnav_leave@some_other_bot")
    asked = bench.say(alice, group, "/gnav_help")
    help_text = (await bench.reply_to(group, asked)).text
    assert "/gnav_settings lives=5" in help_text and "/gnav_stop" in help_text
    await bench.idle()
    assert "2. Bob" in (bench.table_message(group).text or "")  # type: ignore[union-attr]
    assert not [m for m in tg.bot_messages(group) if m.reply_to_message_id == other.message_id]


async def test_private_chat_answers(tg: FakeTelegram, bench: Bench) -> None:
    alice = tg.add_user("Alice", language_code="nb")
    tg.user_starts_bot(alice)
    assert "Hei!" in (await bench.dm(alice, "/gnav")).text
    assert await bench.service.reachable(f"telegram:{alice.id}") is True
    asked = bench.say(alice, alice, "/gnav_join")
    assert (await bench.dm(alice, "gruppe", after=asked.message_id)).text == texts.text(
        "nb", "group_only"
    )
    asked = bench.say(alice, alice, "/gnav_rules")
    assert "Gjøk" in (await bench.dm(alice, "Gnav", after=asked.message_id)).text
    asked = bench.say(alice, alice, "/start not-a-table")
    assert "Hei!" in (await bench.dm(alice, "Hei!", after=asked.message_id)).text


async def test_kick_by_reply_by_name_and_refusals(tg: FakeTelegram, bench: Bench) -> None:
    alice, bob, group = group_of(tg)
    carl = tg.add_user("Carl")
    bench.say(alice, group, "/gnav")
    await bench.press(bob, group, "Join")
    await bench.press(carl, group, "Join")
    await bench.wait_table(group, "3. Carl")

    asked = bench.say(bob, group, "/gnav_kick Carl")  # Bob is neither host nor admin
    assert "host" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_kick")
    assert "Usage: /gnav_kick NAME" in (await bench.reply_to(group, asked)).text

    chatter = bench.say(bob, group, "hello all")  # privacy mode: the bot never sees it
    asked = bench.say(alice, group, "/gnav_kick", reply_to=chatter)
    assert "Bob was removed" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_kick carl")
    assert "Carl was removed" in (await bench.reply_to(group, asked)).text
    lobby = await bench.wait_table(group, "1/20 seated")
    assert "Bob" not in lobby.text and "Carl" not in lobby.text


async def test_chat_admins_may_stop_others_may_not_and_admin_status_is_cached(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice, bob, group = group_of(tg)
    dora = tg.add_user("Dora")
    tg.set_member_status(group, dora, "administrator")
    bench.say(alice, group, "/gnav")
    lobby = await bench.wait_table(group, "Alice", button="Join")
    await bench.press(bob, group, "Join")

    asked = bench.say(bob, group, "/gnav_stop")
    assert "host" in (await bench.reply_to(group, asked)).text
    asked = bench.say(dora, group, "/gnav_settings lives=4")
    assert "lives 4" in (await bench.reply_to(group, asked)).text
    asked = bench.say(dora, group, "/gnav_stop")
    assert "stopped" in (await bench.reply_to(group, asked)).text
    await bench.idle()
    assert lobby.reply_markup is None and "stopped" in (lobby.text or "")
    # Bob's and Dora's commands were checked against one admin list; the host needs none.
    assert len(tg.calls("getChatAdministrators")) == 1
    assert not tg.calls("getChatMember")


async def test_settings_and_language_change_the_table_message(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice, bob, group = group_of(tg)
    bench.say(alice, group, "/gnav")
    await bench.wait_table(group, "Alice", button="Join")
    asked = bench.say(alice, group, "/gnav_language")
    assert "nb (Norsk bokmål)" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_settings lives=11")
    assert "between 1 and 10" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_language nb")
    assert "språk nb" in (await bench.reply_to(group, asked)).text.lower()
    lobby = await bench.wait_table(group, button="Bli med")
    assert payload_of(lobby.button("Privat på DM")["url"]).startswith(f"g{group.id}s")
    # Bob, already reachable, joins: a toast, no link to open.
    tg.user_starts_bot(bob)
    await bench.dm(bob, "Hi!")
    joined = await bench.press(bob, group, "Bli med")
    assert joined.url is None and not joined.show_alert and "Bob" in (joined.text or "")


async def test_gnav_language_de_gives_a_german_table_and_menu(
    tg: FakeTelegram, bench: Bench
) -> None:
    """Issue 19: `/gnav_language de` is accepted; the table, its buttons and the deep link's
    button speak German; the choices list it; German apps get a German command menu."""
    alice, _, group = group_of(tg)
    bench.say(alice, group, "/gnav")
    await bench.wait_table(group, "Alice", button="Join")
    asked = bench.say(alice, group, "/gnav_language")
    assert "de (Deutsch)" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_language de")
    assert "Sprache de" in (await bench.reply_to(group, asked)).text
    lobby = await bench.wait_table(group, button="Mitspielen")
    assert "Gnav-Tisch" in (lobby.text or "")
    assert lobby.button("Privat per DM")["url"]
    assert (await bench.table(group)).settings.language == "de"
    german = tg.commands({"type": "all_group_chats"}, language_code="de")
    assert german[0]["description"] == "Hier einen Tisch öffnen (oder zeigen)"
    assert any(c["description"].endswith("en, nb, ru, pt, de") for c in german)


async def test_forum_topics_get_a_table_each_and_deep_links_name_the_topic(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice = tg.add_user("Alice")
    bob = tg.add_user("Bob")
    forum = tg.add_group("Gnav club", forum=True, members=[alice, bob])
    one = tg.create_topic(forum, "Table one", by=alice)
    two = tg.create_topic(forum, "Table two", by=bob)
    bench.say(alice, forum, "/gnav", thread_id=one)
    bench.say(bob, forum, "/gnav", thread_id=two)
    first = await bench.wait_table(forum, "1. Alice", button="Join", thread=one)
    second = await bench.wait_table(forum, "1. Bob", button="Join", thread=two)
    assert first.thread_id == one and second.thread_id == two

    await bench.press(bob, forum, "Join", thread=one)
    await bench.wait_table(forum, "2. Bob", thread=one)
    assert "2." not in (bench.table_message(forum, two).text or "")  # type: ignore[union-attr]
    assert (await bench.table(forum, one)).names == ["Alice", "Bob"]
    assert (await bench.table(forum, two)).names == ["Bob"]

    # The topic's own deep link; /start with it names the group.
    payload = payload_of(first.button("Privately by DM")["url"])
    assert re.fullmatch(rf"g{forum.id}_{one}s[0-9a-f]{{16}}", payload)  # signed
    tg.user_starts_bot(alice, payload)
    assert "«Gnav club»" in (await bench.dm(alice, "Linked")).text
    # A refusal in a topic is answered in that topic.
    asked = bench.say(alice, forum, "/gnav_join", thread_id=one)
    reply = await bench.reply_to(forum, asked)
    assert reply.thread_id == one and "already seated" in reply.text


async def test_start_link_during_a_round_sends_the_piece_at_once(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice, bob, group = group_of(tg)
    bench.say(alice, group, "/gnav")
    lobby = await bench.wait_table(group, "Alice", button="Join")
    link = lobby.button("Privately by DM")["url"]
    await bench.press(bob, group, "Join")
    await bench.press(alice, group, "Start")
    await bench.wait_table(group, "round 1", button="Stay")
    tg.user_starts_bot(bob, payload_of(link))
    linked = await bench.dm(bob, "Linked")
    assert "Round 1: you hold" in linked.text


async def test_export_without_a_match_and_stats_without_games(
    tg: FakeTelegram, bench: Bench
) -> None:
    alice, _bob, group = group_of(tg)
    asked = bench.say(alice, group, "/gnav_export")
    assert "No match" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_stats")
    assert "no Gnav statistics" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_top")
    assert "Nobody has played" in (await bench.reply_to(group, asked)).text
    asked = bench.say(alice, group, "/gnav_start")
    assert "/gnav_new opens one" in (await bench.reply_to(group, asked)).text
