"""The Hint of issue 33 on every platform: at a table with `hints=on` the table message carries
a Hint button, and a press answers the presser alone (Telegram: an alert answer to the press;
Discord: an ephemeral reply), the page offers it among the seat's actions, and the terminal
answers the word `hint`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness
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
    reply = await harness.service.press(CHANNEL, await harness.current(), actions["💡 Hint"])
    assert reply.ok and reply.text.startswith(STRONG)
    # A spectator's page has nothing to press.
    spectator = await harness.service.page_view(table.table_id, None)
    assert spectator is not None and spectator.data["actions"] == []


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
