"""Issue 12 on Discord: a whole Gnavspiel match in a channel, on the real discord.py client
against the fake Discord.

dana (a channel admin) switches the channel to Gnavspiel; alice opens the table, bob (whose DMs
are closed) joins, two bots fill the seats. The deals are the Telegram test's
(tests/adapters/test_gnavspiel_telegram.py): alice deals and holds the Joker (she knocks, G6),
offers bob an exchange, bob refuses from the table message (G4), alice draws Q and K (taboo,
shown, G5) and takes the Joker back; both pay (G7) and borrow (G8, C19); in deal 2 alice's K
is the highest card of the last deal and takes the pot and bob's debt (G9, C21, C23).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from bot.games.gnavspiel.engine.record import outcome
from bot.service.commands import Export
from storage.memory import MemoryRepository
from tests.adapters.test_discord_play import StackedRandom as Stacked
from tests.adapters.test_discord_play import (
    World,
    answered,
    assert_every_interaction_answered_in_time,
    buttons_of,
    channel_texts,
    fake_world,
    press,
    running_bot,
    slash,
    table_message,
)
from tests.adapters.test_gnavspiel_telegram import DEAL_1, DEAL_2, _hidden_named


async def test_a_whole_gnavspiel_match_in_a_channel_G4_G9_C23(tmp_path: Path) -> None:
    async with fake_world() as world:
        await _play(world, tmp_path)


async def _wait_text(world: World, text: str) -> dict:
    """The table message once it shows `text`."""
    fake = world.fake
    return await fake.wait_for(
        lambda: next(
            (
                m
                for m in reversed(fake.messages_in(world.channel, include_ephemeral=False))
                if m["components"] and text in m["content"]
            ),
            None,
        )
    )


async def _play(world: World, tmp_path: Path) -> None:
    fake = world.fake
    alice, bob, dana = world.alice, world.bob, world.dana
    rng = Stacked(dealer=0, prefixes=[DEAL_1, DEAL_2])
    async with running_bot(world, MemoryRepository(), rng=rng) as bot:
        chosen = await slash(
            world,
            dana,
            "settings",
            {"bots": 2, "changes": "rules=gnavspiel chips=2 deals=2"},
        )
        assert "chips 2" in await answered(world, chosen)
        await slash(world, alice, "new")
        await slash(world, bob, "join")  # bob's DMs are closed
        await slash(world, alice, "start")
        await bot.settle()

        msg = table_message(world)
        assert "deal 1 · dealer alice" in msg["content"]
        assert "✊ alice knocks: alice holds the Joker." in msg["content"]
        assert "Your card: Joker" in fake.dms_to(alice)[-1]["content"]
        assert fake.dms_to(bob) == []
        # bob's card: the ephemeral "My card" view.
        mine = await press(world, bob, "🂠 My card")
        assert mine.ephemeral and "your card is 9" in await answered(world, mine)
        wrong = await press(world, alice, "Pass")
        assert wrong.ephemeral
        await press(world, bob, "Pass")
        await bot.settle()

        # The bots pass; alice offers bob an exchange; bob refuses from the table message.
        await _wait_text(world, "Bot 2 passes.")
        await press(world, alice, "Offer to bob")
        await bot.settle()
        offer = await _wait_text(world, "alice offers bob an exchange: bob answers.")
        assert {"Accept", "Refuse"} <= set(buttons_of(offer))
        wrong = await press(world, alice, "Refuse")
        assert wrong.ephemeral
        await press(world, bob, "Refuse")
        await bot.settle()
        refused = await _wait_text(world, "bob refuses.")
        assert _hidden_named(refused["content"]) == []  # G4: a refusal shows nothing
        await press(world, alice, "Draw")
        await bot.settle()
        loan = await _wait_text(world, "alice draws K: taboo")
        assert "alice draws Q: taboo" in loan["content"]
        assert "Reveal: alice Joker, bob 9, Bot 1 10, Bot 2 J" in loan["content"]
        await press(world, alice, "Borrow")
        await bot.settle()
        await _wait_text(world, "▶ bob")
        await press(world, bob, "Borrow")
        await bot.settle()
        reveal = await _wait_text(world, "Deal 1: reveal")
        assert "Chips: alice 1 (−1), bob 1 (−1), Bot 1 1, Bot 2 1 · pot 4" in reveal["content"]

        await press(world, bob, "Next deal")
        await bot.settle()
        await _wait_text(world, "deal 2 · dealer bob")
        await press(world, alice, "Pass")
        await bot.settle()
        await _wait_text(world, "▶ bob")
        await press(world, bob, "Pass")
        await bot.settle()
        await fake.wait_for(lambda: any("Balances:" in t for t in channel_texts(world)))
        texts = channel_texts(world)
        final = "\n".join(texts)
        assert "alice showed the highest card of the last deal and takes the pot (5)" in final
        assert "alice collects bob's debt of 1." in final
        assert "Balances: alice 7, bob -1, Bot 1 1, Bot 2 1" in final
        table = await bot.table(world.channel)
        m = table.match.m
        assert table.closed_reason == "finished" and m.result is not None
        for text in texts:
            if "· dealer " in text:
                assert _hidden_named(text) == [], text
            assert "stay or swap" not in text

        export = await slash(world, alice, "export")
        call = next(
            c
            for c in fake.find_calls("POST", rf"/interactions/{export.id}/[^/]+/callback")
            if c.status < 300
        )
        (sent,) = call.files
        expected = (await bot.service.handle(Export(table.key))).document
        assert expected is not None
        assert (sent["filename"], sent["size"]) == (expected[0], len(expected[1]))
        path = tmp_path / "match.json"
        path.write_bytes(expected[1])
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", "replay", str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(done.stdout) == json.loads(json.dumps(outcome(m)))

    channel = world.channel.id
    cost = Counter(
        c.method
        for c in fake.calls
        if c.status == 200
        and c.method in ("POST", "PATCH")
        and c.path.startswith(f"/channels/{channel}/messages")
    )
    print(f"\nchannel posts and edits of the whole match: {dict(cost)}")
    assert_every_interaction_answered_in_time(world)
