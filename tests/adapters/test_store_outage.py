"""A command while the store is away, on Telegram and Discord: the person gets the one clear
line (nothing changed, try again soon), a text command and a button alike, and play goes on
once the store is back; the web server's /healthz says 503 meanwhile; `gnav-bot run` told to
give up after a while exits with status 75. The store is the real
PostgreSQL store behind a cut network.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from adapters.web.stack import start_web
from bot.service.commands import Join, Open
from bot.service.i18n import catalog
from tests.adapters.test_discord_play import (
    EPHEMERAL,
    answered,
    buttons_of,
    fake_world,
    running_bot,
    slash,
    table_message,
)
from tests.adapters.test_telegram_bench import Bench
from tests.adapters.test_telegram_run import _env, _gnav_bot_run
from tests.fakes.telegram_api import FakeTelegram
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness
from tests.storage.disk import fill, small_tmpfs
from tests.storage.gate import gated_postgres

CLEAR = catalog("en").t("error.store_unavailable")


async def test_telegram_command_and_button_while_the_store_is_away_get_the_clear_line() -> None:
    async with FakeTelegram() as tg, gated_postgres() as (repo, gate):
        bench = await Bench(tg, repo=repo).start()
        try:
            alice, bob, carl = tg.add_user("Alice"), tg.add_user("Bob"), tg.add_user("Carl")
            group = tg.add_group("Gnav night", members=[alice, bob, carl])
            bench.say(alice, group, "/gnav")
            shown = await bench.wait_table(group, "Alice", button="Join")
            await gate.close()
            asked = bench.say(bob, group, "/gnav_join")
            assert CLEAR in ((await bench.reply_to(group, asked)).text or "")
            # A command that needs an admin check reads the table before the service runs it.
            asked = bench.say(carl, group, "/gnav_start")
            assert CLEAR in ((await bench.reply_to(group, asked)).text or "")
            pressed = await bench.press(carl, group, "Join", message=shown)
            assert pressed.text == CLEAR and pressed.show_alert
            await gate.open()
            bench.say(bob, group, "/gnav_join")
            await bench.wait_table(group, "2. Bob")
            table = await bench.table(group)
            assert [s.name for s in table.seats] == ["Alice", "Bob"]  # Carl's press: not applied
        finally:
            await bench.stop()


async def test_discord_command_and_button_while_the_store_is_away_get_the_clear_line() -> None:
    async with (
        fake_world() as world,
        gated_postgres() as (repo, gate),
        running_bot(world, repo) as bot,
    ):
        await slash(world, world.alice, "new")
        await bot.settle()
        join = buttons_of(table_message(world))["Join"]
        await gate.close()
        record = await slash(world, world.carl, "join")
        assert await answered(world, record) == CLEAR
        assert record.response is not None
        assert record.response["data"]["flags"] & EPHEMERAL
        message = table_message(world)
        iid = await world.fake.press(world.carl, world.channel, int(message["id"]), join)
        await world.fake.wait_for_response(iid)
        pressed = world.fake.interaction(iid)
        assert await answered(world, pressed) == CLEAR
        await gate.open()
        assert (await answered(world, await slash(world, world.carl, "join"))) != CLEAR
        table = await bot.table(world.channel)
        assert [s.name for s in table.seats] == ["alice", "carl"]


async def test_healthz_says_503_with_the_reason_while_the_store_is_away() -> None:
    async with gated_postgres() as (repo, gate):
        harness = Harness(repo=repo)  # type: ignore[arg-type]
        stack = await start_web(harness.service, secret="test secret", watch_interval=0.01)
        try:
            async with aiohttp.ClientSession() as session:
                url = f"http://127.0.0.1:{stack.port}/healthz"
                assert (await harness.service.handle(Open(CHANNEL, ALICE))).ok
                async with session.get(url) as resp:
                    assert resp.status == 200 and (await resp.json())["store"] == "ok"
                await gate.close()
                assert not (await harness.service.handle(Join(CHANNEL, BOB))).ok
                async with session.get(url) as resp:
                    body = await resp.json()
                assert resp.status == 503 and body["store"] == "unavailable"
                assert "PostgreSQL store" in body["reason"] and body["waited"] == {"command": 1}
                await gate.open()
                assert (await harness.service.handle(Join(CHANNEL, BOB))).ok
                async with session.get(url) as resp:
                    assert resp.status == 200 and (await resp.json())["outages"] == 1
        finally:
            await stack.stop()


async def test_gnav_bot_run_gives_up_after_a_long_outage_with_status_75(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path) as disk:
        async with FakeTelegram() as tg:
            env = _env(tg, tmp_path, tg.token)
            env.update(GNAV_DB=str(disk / "gnav.sqlite3"), GNAV_STORE_GIVE_UP="1")
            proc = await _gnav_bot_run(tmp_path, env)
            try:
                await tg.wait_for(lambda: tg.calls("getUpdates"), timeout=30, what="polling")
                alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
                group = tg.add_group("Full disk", members=[alice, bob])
                tg.user_sends(alice, group, "/gnav")
                await tg.wait_for_message(group, contains="1. Alice", timeout=10)
                fill(disk)
                asked = tg.user_sends(bob, group, "/gnav_join")
                answer = await tg.wait_for(
                    lambda: next(
                        (
                            m
                            for m in tg.bot_messages(group)
                            if m.reply_to_message_id == asked.message_id
                        ),
                        None,
                    ),
                    timeout=10,
                    what="the answer to /gnav_join",
                )
                assert CLEAR in (answer.text or "")
                out, err = await asyncio.wait_for(proc.communicate(), 30)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
    text = (out + err).decode()
    assert proc.returncode == 75, text
    assert "Traceback" not in text
    assert text.count("the store is unavailable") == 1
    assert "stayed unavailable for 1 s" in text


async def test_telegram_refusals_speak_the_tables_language_from_the_group_and_a_private_chat() -> (
    None
):
    """Issue 31: an nb table's refusals while the store is away are nb every time, a press on
    the table message in the group and a press of a private hand (which names the table only
    by its token) alike; the people's own app language is English."""
    nb = catalog("nb").t("error.store_unavailable")
    async with FakeTelegram() as tg, gated_postgres() as (repo, gate):
        bench = await Bench(tg, repo=repo).start()
        try:
            people = [tg.add_user(n, language_code="en") for n in ("Alice", "Bob", "Carol")]
            group = tg.add_group("Karneval", members=people, admins=people[:1])
            for p in people:
                tg.user_starts_bot(p)
            await bench.idle()
            bench.say(people[0], group, "/karnaval")
            await bench.wait_table(group, button="Join")
            for p in people[1:]:
                bench.say(p, group, "/gnav_join")
                await bench.wait_table(group, p.first_name)
            bench.say(people[0], group, "/gnav_settings bots=0 delay=300 language=nb")
            await bench.idle()
            bench.say(people[0], group, "/gnav_start")
            hand = await tg.wait_for(
                lambda: next(
                    (
                        (p, m)
                        for p in people
                        for m in reversed(tg.messages_in(tg.private_chat(p), from_bot=True))
                        if m.buttons()
                    ),
                    None,
                ),
                what="a private hand with buttons",
            )
            await bench.idle()
            table_msg = bench.table_message(group)
            assert table_msg is not None and table_msg.buttons()
            person, dm = hand
            dm_data = str(dm.buttons()[0]["callback_data"])
            group_data = str(table_msg.buttons()[0]["callback_data"])
            await gate.close()
            answers = []
            for _ in range(3):
                query = tg.user_presses(person, tg.private_chat(person), dm, dm_data)
                answers.append((await bench.answered(query)).text)
                query = tg.user_presses(person, group, table_msg, group_data)
                answers.append((await bench.answered(query)).text)
            assert answers == [nb] * 6
        finally:
            await gate.open()
            await bench.stop()
