"""The tests-only high-card game (tests/games/highcard.py) on the real Discord adapter, the fake
Discord and SQLite: a player whose DMs are closed chooses from an ephemeral "My cards" view with
their own buttons, which stay valid while another seat acts. No line of service, storage or
adapter code was written for this game."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from adapters.discord.platform import DiscordPlatform
from bot.games.registry import all_games
from bot.service.routing import RoutingNotifier
from bot.service.service import TableService
from bot.service.table import TableKey
from storage.sqlite import SqliteRepository
from tests.adapters.test_discord_play import (
    World,
    answered,
    buttons_of,
    fake_world,
    make_platform,
    press,
    slash,
    table_message,
)
from tests.games.highcard import high_card


async def test_an_ephemeral_hand_with_its_own_buttons_for_closed_dms(tmp_path: Path) -> None:
    async with fake_world() as world:
        await _play(world, tmp_path)


async def _play(world: World, tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "store.sqlite3")
    platform: DiscordPlatform = make_platform(world)
    service = TableService(
        repo,
        RoutingNotifier({"discord": platform.notifier}),
        rng=random.Random(3),
        bot_delay=0.0,
        games={"highcard": high_card(), **all_games()},
    )
    await platform.start(service)
    timers = asyncio.create_task(service.run())
    fake = world.fake
    try:
        await slash(world, world.alice, "new")
        await slash(world, world.bob, "join")  # bob's DMs are closed
        await slash(world, world.alice, "start")
        await service.outbox.drain()
        key = TableKey("discord", str(world.channel.id))
        table = await service.table_state(key)
        assert table is not None and table.game == "highcard"
        bob_seat = table.seat_of(f"discord:{world.bob.id}")
        assert bob_seat is not None
        bob_cards = sorted(table.match.hands[bob_seat])

        # The table message offers "My cards", never a card.
        public = table_message(world)
        assert "My cards" in buttons_of(public)
        assert not any(label.startswith("Play") for label in buttons_of(public))

        # Bob pulls his hand: an ephemeral message with his cards as buttons.
        record = await press(world, world.bob, "My cards")
        assert record.ephemeral
        assert (await answered(world, record)).startswith("Your cards:")
        hand_id = record.original_message_id
        assert hand_id is not None
        hand = fake.message(hand_id)
        assert sorted(buttons_of(hand)) == sorted(f"Play {c}" for c in bob_cards)

        # Alice plays first (from her DM); Bob's ephemeral buttons are still his current ones.
        dm = fake.dm_channel(world.alice)
        alice_dm = await fake.wait_for(
            lambda: next((m for m in fake.messages_in(dm) if m["components"]), None)
        )
        alice_pick = sorted(buttons_of(alice_dm))[0]
        await press(world, world.alice, alice_pick, channel=dm, message=alice_dm)
        await service.outbox.drain()
        card = f"Play {bob_cards[-1]}"
        iid = await fake.press(world.bob, world.channel, hand_id, buttons_of(hand)[card])
        await fake.wait_for_response(iid)
        await service.outbox.drain()
        table = await service.table_state(key)
        assert table is not None
        assert table.match.rounds[0]["played"][str(bob_seat)] == bob_cards[-1]
        # The same ephemeral button again: refused, never applied twice.
        again = await fake.press(world.bob, world.channel, hand_id, buttons_of(hand)[card])
        await fake.wait_for_response(again)
        assert fake.interaction(again).ephemeral
    finally:
        await platform.stop()
        timers.cancel()
        await asyncio.gather(timers, return_exceptions=True)
        await service.shutdown()
        await repo.close()
