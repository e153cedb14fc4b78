"""Karnaval on the real Discord adapter and the fake Discord (issue 13): `/gnav new game=...`
opens a Karnaval table; a player whose DMs are closed plays from the ephemeral "My hand" view;
a twelve-card hand's choices fit Discord's 25 buttons; a restart mid-trick on SQLite resumes
and the game goes on."""

from __future__ import annotations

import io
import random
from pathlib import Path

from PIL import Image

from adapters.discord.buttons import MAX_PER_ROW, MAX_ROWS, _discord_rows
from bot.games.karnaval.game import KarnavalRules
from bot.service.commands import NextRound, Press
from bot.service.ports import Button
from bot.service.table import TableKey, User
from storage.memory import MemoryRepository
from storage.sqlite import SqliteRepository
from tests.adapters.test_discord_play import (
    BotProcess,
    World,
    answered,
    buttons_of,
    fake_world,
    press,
    running_bot,
    slash,
    table_message,
)


def test_a_twelve_card_hand_with_six_karnavals_fits_on_discord() -> None:
    """The largest choice screen: leading a trick with twelve cards, six of them pairs (each
    card once, each pair once more as a Karnaval), or twelve plus one bids."""
    game = KarnavalRules()
    suits, ranks = "SHDC", ["A", "K", "Q", "J", "T", "9"]
    pairs = [f"{r}{s}" for r, s in zip(ranks, suits * 2, strict=False)]
    choices = [game._choice("play", c) for c in pairs]  # the six distinct cards
    choices += [game._choice("play", f"{r}{s}") for r in ("8", "7") for s in "SHD"]
    choices += [game._choice("karnaval", f"{c} {c}") for c in pairs]
    bids = [game._choice("bid", str(n)) for n in range(13)]
    for screen in (choices, bids):
        grouped: dict[int, list[Button]] = {}
        for c in screen:
            grouped.setdefault(c.row, []).append(Button(c.action, f"t{len(grouped)}", c.role))
        rows = _discord_rows([tuple(r) for _, r in sorted(grouped.items())])
        assert len(rows) <= MAX_ROWS and all(len(r) <= MAX_PER_ROW for r in rows)
        assert sum(len(r) for r in rows) == len(screen) <= 25


async def test_karnaval_on_discord_with_a_hand_view_and_a_restart_mid_trick(
    tmp_path: Path,
) -> None:
    async with fake_world() as world:
        await _play(world, tmp_path)


async def _act(
    world: World, bot: BotProcess, tk: TableKey, users: dict[str, User], rng: random.Random
) -> bool:
    """One step of whoever decides (people by their tokens; bots by themselves): False when
    the deal is over."""
    await bot.settle()
    table = await bot.table(world.channel)
    rules = bot.service.game_of(table)
    if not rules.deciders(table.match):
        return False
    seat = rules.deciders(table.match)[0]
    user = users[table.seats[seat].name]
    found = await bot.service.choices_of(user)
    reply = await bot.service.handle(Press(tk, user, rng.choice(found).token))
    assert reply.ok, reply.text
    return True


async def _play(world: World, tmp_path: Path) -> None:
    fake = world.fake
    db = tmp_path / "karnaval.sqlite3"
    tk = TableKey("discord", str(world.channel.id))
    rng = random.Random(4)
    repo = await SqliteRepository.open(db)
    async with running_bot(world, repo, rng=random.Random(8)) as bot:
        opened = await slash(world, world.alice, "new", {"game": "karnaval"})
        assert opened.ephemeral
        await slash(world, world.bob, "join")  # DMs closed
        await slash(world, world.carl, "join")
        await slash(world, world.alice, "start")
        await bot.settle()
        table = await bot.table(world.channel)
        assert table.game == "karnaval" and len(table.seats) == 3
        users = {s.name: User(s.user, s.name) for s in table.seats}
        bob_seat = next(i for i, s in enumerate(table.seats) if s.name == "bob")

        # The table message offers "My hand", never a card or a bid.
        public = table_message(world)
        assert any("My hand" in label for label in buttons_of(public))
        assert not any(label.startswith("Bid") for label in buttons_of(public))

        # Bob plays every one of his steps of the first deal from the ephemeral view,
        # pulled once and refreshed in place when it is his turn again.
        bob_steps = updated = 0
        hand_id: int | None = None
        for _ in range(200):
            await bot.settle()
            table = await bot.table(world.channel)
            rules = bot.service.game_of(table)
            k = table.match.k
            if k.current is not None and len(k.current.plays) >= 2 and k.current.trick:
                break  # mid-trick: stop the process here
            if rules.deciders(table.match) == [bob_seat]:
                expected = {c.token for c in await bot.service.choices_of(users["bob"])}
                if hand_id is None:  # pulled once; refreshed in place on his later turns
                    record = await press(world, world.bob, "🂠 My hand")
                    assert record.ephemeral
                    assert "Your hand" in await answered(world, record)
                    hand_id = record.original_message_id or 0
                hand = await fake.wait_for(
                    lambda e=expected, h=hand_id: (
                        set(buttons_of(m := fake.message(h)).values()) == e and m
                    )
                )
                assert hand["flags"] & 64  # still the ephemeral message
                assert sum(len(r["components"]) for r in hand["components"]) <= 25
                labels = buttons_of(hand)
                label = rng.choice(sorted(labels))
                iid = await fake.press(world.bob, world.channel, int(hand["id"]), labels[label])
                response = await fake.wait_for_response(iid)
                await bot.settle()
                mine = {c.token for c in await bot.service.choices_of(users["bob"])}
                if response["type"] == 7:
                    # Still his turn (a give follows a give): the press's own response
                    # shows his next choices in the hand he pressed.
                    shown = {c["custom_id"] for r in response["data"]["components"]
                             for c in r["components"]}  # fmt: skip
                    assert mine and shown == mine
                    updated += 1
                else:
                    assert response == {"type": 6}, fake.interaction(iid)  # silent
                bob_steps += 1
            else:
                assert await _act(world, bot, tk, users, rng)
        assert bob_steps >= 2  # at least once from a refreshed hand
        assert updated  # at least once by the press's own response
        await bot.settle()
        before = await bot.table(world.channel)
        plays = len(before.match.k.current.plays)
        assert before.match.k.current.trick  # a trick on the table
    await repo.close()

    repo = await SqliteRepository.open(db)
    try:
        async with running_bot(world, repo, rng=random.Random(9)) as bot:
            await bot.settle()
            table = await bot.table(world.channel)
            assert len(table.match.k.current.plays) == plays  # nothing lost, nothing replayed
            assert "restarted" in table_message(world)["content"]
            # The game goes on: the deal is played out and the next one dealt.
            for _ in range(300):
                if not await _act(world, bot, tk, users, rng):
                    break
            await bot.settle()
            table = await bot.table(world.channel)
            assert table.match.k.deals[0].complete
            assert "score sheet" in "\n".join(
                str(m["content"]) for m in fake.messages_in(world.channel)
            )
    finally:
        await repo.close()


async def test_the_sheet_picture_is_attached_to_the_quarters_last_result_K20() -> None:
    """Three seats on the fake Discord to the end of the first quarter: the last deal's result
    message carries the score sheet as a PNG attachment (no message of its own: each deal
    adds two messages to the channel); the next deal's freeze keeps the attachment."""
    async with fake_world() as world:
        fake = world.fake
        tk = TableKey("discord", str(world.channel.id))
        rng = random.Random(5)
        repo = MemoryRepository()
        async with running_bot(world, repo, rng=random.Random(3)) as bot:
            await slash(world, world.alice, "new", {"game": "karnaval"})
            await slash(world, world.bob, "join")
            await slash(world, world.carl, "join")
            await slash(world, world.alice, "start")
            await bot.settle()
            table = await bot.table(world.channel)
            users = {s.name: User(s.user, s.name) for s in table.seats}
            posts_path = f"/channels/{world.channel.id}/messages"
            per_deal: list[int] = []
            begin = len(fake.calls)
            for _ in range(3):
                while await _act(world, bot, tk, users, rng):
                    pass
                await bot.settle()
                per_deal.append(
                    sum(
                        1
                        for c in fake.calls[begin:]
                        if c.method == "POST" and c.path == posts_path and c.status == 200
                    )
                )
                begin = len(fake.calls)
                if len(per_deal) < 3:
                    assert (await bot.service.handle(NextRound(tk, users["alice"]))).ok
            table = await bot.table(world.channel)
            assert len(table.match.k.deals) == 3 and table.match.k.deals[2].complete
            assert per_deal[1] == per_deal[2] == 2, per_deal  # the table message, the result
            result = table_message(world)
            assert result["content"].startswith("Deal 3 of 12: score sheet")
            (attachment,) = result["attachments"]
            assert attachment["filename"] == "karnaval-sheet-q1.png"
            data = fake.attachment_data(attachment)
            with Image.open(io.BytesIO(data)) as img:
                assert img.format == "PNG"
                img.load()
                assert 300 <= img.width <= 1200 and 300 <= img.height <= 1500
            assert "```" not in result["content"]  # the grid is the picture, not a code block
            earlier = [m for m in fake.messages_in(world.channel) if m["id"] != result["id"]]
            assert not any(m["attachments"] for m in earlier)
            # The next deal freezes the result: its buttons go, its picture stays.
            assert (await bot.service.handle(NextRound(tk, users["alice"]))).ok
            await bot.settle()
            frozen = fake.message(int(result["id"]))
            assert not frozen["components"] and len(frozen["attachments"]) == 1


async def test_gnav_sheet_answers_the_whole_sheet_in_a_code_block_K20() -> None:
    """`/gnav sheet` (issue 19: the whole sheet on request): the sheet in a code block, its
    columns kept, for the whole channel."""
    async with (
        fake_world() as world,
        running_bot(world, MemoryRepository(), rng=random.Random(3)) as bot,
    ):
        await slash(world, world.alice, "new", {"game": "karnaval"})
        await slash(world, world.bob, "join")
        await slash(world, world.carl, "join")
        await slash(world, world.alice, "start")
        await bot.settle()
        asked = await slash(world, world.bob, "sheet")
        text = await answered(world, asked)
        assert not asked.ephemeral
        assert "```" in text and "Score sheet (bid|points) after 0 of 12 deals" in text
        grid = text.split("```")[1]
        assert "Q4" in grid and "Total" in grid
