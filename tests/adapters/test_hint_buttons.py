"""The Hint of issue 33 on every platform: at a table with `hints=on` the table message carries
a Hint button, and a press answers the presser alone (Telegram: an alert answer to the press;
Discord: an ephemeral reply), the page offers it among the seat's actions, and the terminal
answers the word `hint`."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from bot.service.commands import Press
from bot.service.table import User
from storage.memory import MemoryRepository
from tests.adapters.test_discord_play import (
    answered,
    buttons_of,
    fake_world,
    press,
    running_bot,
    slash,
    table_message,
)
from tests.adapters.test_telegram_bench import Bench, StackedRandom
from tests.fakes.telegram_api import FakeTelegram
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness
from tests.service.test_service import start_table

ROOT = Path(__file__).resolve().parent.parent.parent
STRONG = "Strong play: "
NOTHING = "nothing to choose"


async def test_telegram_answers_a_hint_press_with_an_alert() -> None:
    async with FakeTelegram() as tg:
        alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
        group = tg.add_group("Gnav night", members=[alice, bob])
        bench = await Bench(tg, rng=StackedRandom(11, dealer=1, deals=[])).start()
        try:
            bench.say(alice, group, f"/gnav@{tg.bot_username}")
            await bench.wait_table(group, "Alice", button="Join")
            asked = bench.say(alice, group, "/gnav_settings hints=on")
            assert "hints on" in (await bench.reply_to(group, asked)).text
            await bench.press(bob, group, "Join")
            await bench.press(alice, group, "Start")
            shown = await bench.wait_table(group, "round 1", button="Hint")
            assert any(b["text"] == "💡 Hint" for b in shown.buttons())
            # Bob deals (dealer 1), so Alice acts first: her hint is a strong play.
            mine = await bench.press(alice, group, "Hint", message=shown)
            assert mine.show_alert and (mine.text or "").startswith(STRONG), mine.text
            theirs = await bench.press(bob, group, "Hint", message=shown)
            assert theirs.show_alert and NOTHING in (theirs.text or "")
            # Nothing public: the group saw no hint.
            assert not any(STRONG in (m.text or "") for m in tg.bot_messages(group))
        finally:
            await bench.stop()


async def test_discord_answers_a_hint_press_ephemerally() -> None:
    async with fake_world() as world, running_bot(world, MemoryRepository()) as bot:
        await slash(world, world.alice, "new")
        chosen = await slash(world, world.alice, "settings", {"changes": "hints=on"})
        assert "hints on" in await answered(world, chosen)
        await slash(world, world.bob, "join")
        await slash(world, world.alice, "start")
        await bot.settle()
        assert any("Hint" in label for label in buttons_of(table_message(world)))
        texts = []
        for user in (world.alice, world.bob):
            record = await press(world, user, "💡 Hint")
            assert record.ephemeral
            texts.append(await answered(world, record))
        assert sum(t.startswith(STRONG) for t in texts) == 1, texts
        assert sum(NOTHING in t for t in texts) == 1, texts


async def test_the_page_offers_the_hint_among_the_seats_actions() -> None:
    harness = Harness()
    await start_table(harness, ALICE, BOB, words=["hints=on"])
    table = await harness.table()
    page = await harness.service.page_view(table.table_id, (await harness.current()).key)
    assert page is not None
    actions = {a["label"]: a["token"] for a in page.data["actions"]}
    assert "💡 Hint" in actions
    reply = await harness.service.handle(
        Press(CHANNEL, await harness.current(), actions["💡 Hint"])
    )
    assert reply.ok and reply.text.startswith(STRONG)
    # A spectator's page has nothing to press.
    spectator = await harness.service.page_view(table.table_id, None)
    assert spectator is not None and spectator.data["actions"] == []


async def test_the_page_offers_the_hint_at_a_karnaval_table() -> None:
    harness = Harness()
    await start_table(harness, ALICE, BOB, CARL, words=["game=karnaval", "hints=on"])
    table = await harness.table()
    (seat,) = harness.service.game_of(table).deciders(table.match)
    user = User(table.seats[seat].user, table.seats[seat].name)
    page = await harness.service.page_view(table.table_id, user.key)
    assert page is not None
    actions = {a["label"]: a["token"] for a in page.data["actions"]}
    reply = await harness.service.handle(Press(CHANNEL, user, actions["💡 Hint"]))
    assert reply.ok and reply.text.startswith(f"{STRONG}Bid "), reply.text


def _terminal(tmp_path: Path, *args: str) -> str:
    """`gnav-bot play` from a pipe that types `hint` at the first question, then quits."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["GNAV_DB"] = str(tmp_path / "play.db")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "play",
            "--seed",
            "3",
            "--name",
            "Me",
            "--players",
            "3",
            *args,
        ],
        input="hint\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_terminal_answers_the_word_hint(tmp_path: Path) -> None:
    assert STRONG in _terminal(tmp_path, "--hints", "on")
    off = _terminal(tmp_path, "--new")
    assert STRONG not in off and "Hints are off" in off


def test_the_terminal_hint_speaks_the_tables_language(tmp_path: Path) -> None:
    # The Norwegian word for it, `tips`, is typed by the pipe's `hint` too (English always works).
    assert "Sterkt trekk: " in _terminal(tmp_path, "--hints", "on", "--language", "nb")


async def test_telegram_answers_a_karnaval_hint_press_with_an_alert() -> None:
    async with FakeTelegram() as tg:
        alice, bob, carl = tg.add_user("Alice"), tg.add_user("Bob"), tg.add_user("Carl")
        group = tg.add_group("Carnival", members=[alice, bob, carl])
        bench = await Bench(tg, rng=random.Random(5)).start()
        try:
            bench.say(alice, group, "/karnaval")
            await bench.wait_table(group, "Alice", button="Join")
            asked = bench.say(alice, group, "/gnav_settings hints=on")
            assert "hints on" in (await bench.reply_to(group, asked)).text
            await bench.press(bob, group, "Join", when="Alice")
            await bench.press(carl, group, "Join", when="Bob")
            await bench.press(alice, group, "Start", when="Carl")
            # A popup holds no buttons: the Hint sits on the table message, by "My hand".
            shown = await bench.wait_table(group, button="Hint")
            table = await bench.table(group)
            (seat,) = bench.service.game_of(table).deciders(table.match)
            people = {"Alice": alice, "Bob": bob, "Carl": carl}
            answers = {}
            for name, user in people.items():
                answers[name] = await bench.press(user, group, "Hint", message=shown)
            mine = answers[table.seats[seat].name]
            assert mine.show_alert and (mine.text or "").startswith(f"{STRONG}Bid "), mine.text
            assert "take exactly your bid" in (mine.text or "")
            idle = [a for n, a in answers.items() if n != table.seats[seat].name]
            assert all(a.show_alert and NOTHING in (a.text or "") for a in idle)
            assert not any(STRONG in (m.text or "") for m in tg.bot_messages(group))
        finally:
            await bench.stop()


async def test_discord_answers_a_karnaval_hint_press_ephemerally_by_the_hand() -> None:
    async with fake_world() as world, running_bot(world, MemoryRepository()) as bot:
        await slash(world, world.alice, "new", {"game": "karnaval"})
        chosen = await slash(world, world.alice, "settings", {"changes": "hints=on"})
        assert "hints on" in await answered(world, chosen)
        await slash(world, world.bob, "join")
        await slash(world, world.carl, "join")
        await slash(world, world.alice, "start")
        await bot.settle()
        table = await bot.table(world.channel)
        (seat,) = bot.service.game_of(table).deciders(table.match)
        people = {"alice": world.alice, "bob": world.bob, "carl": world.carl}
        user = people[table.seats[seat].name]
        # The seat's own ephemeral "My hand" view carries the Hint by its choices.
        record = await press(world, user, "🂠 My hand")
        assert record.ephemeral
        assert "Your hand" in await answered(world, record)
        hand = world.fake.message(record.original_message_id or 0)
        assert "💡 Hint" in buttons_of(hand)
        hinted = await press(world, user, "💡 Hint", message=hand)
        assert hinted.ephemeral
        text = await answered(world, hinted)
        assert text.startswith(f"{STRONG}Bid ") and "take exactly your bid" in text, text
        # From the table message too; another seat has nothing to choose.
        other = next(u for n, u in people.items() if n != table.seats[seat].name)
        idle = await press(world, other, "💡 Hint")
        assert idle.ephemeral and NOTHING in await answered(world, idle)


def test_the_terminal_answers_hint_at_a_karnaval_table(tmp_path: Path) -> None:
    # Seed 3 draws "Me" first to bid: the hint names a bid as the bid line shows it.
    out = _terminal(tmp_path, "--game", "karnaval", "--hints", "on")
    assert f"{STRONG}Bid " in out and "you take exactly your bid in " in out, out
    ru = _terminal(tmp_path, "--game", "karnaval", "--hints", "on", "--language", "ru", "--new")
    assert "Сильный ход: Заявка " in ru and "вы берёте ровно" in ru, ru
