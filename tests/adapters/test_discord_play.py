"""Gnav in a Discord channel, end to end: the real discord.py client and the real service
against the local fake of Discord (tests/fakes/discord_api.py); nothing contacts Discord.

Three people play a whole match with slash commands and buttons (DMs, the ephemeral "My piece"
for a player whose DMs are closed, a matador, reveals, a winner); a repeated press is refused;
a restart mid-match keeps the old table message's buttons working; no channel message names a
hidden piece before its reveal; and one 6-player round's messages and edits are counted.

The other Discord test files import the helpers defined here (`World`, `running_bot`, ...).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from collections.abc import AsyncIterator, MutableSequence, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest

from adapters.discord.platform import DiscordPlatform
from bot.config import BotSettings
from bot.games.gnav.engine.pieces import DISPLAY_NAMES, FIRST_MATADOR, NARR, Rank
from bot.games.gnav.engine.record import replay_record
from bot.games.registry import all_games
from bot.service.commands import Export
from bot.service.routing import RoutingNotifier
from bot.service.service import TableService
from bot.service.store import Repository
from bot.service.table import Table, TableKey
from storage.memory import MemoryRepository
from storage.sqlite import SqliteRepository
from tests.fakes.discord_api import (
    ALL_PERMISSIONS,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    InteractionRecord,
)

JSON = dict[str, Any]
EPHEMERAL = 64

# --------------------------------------------------------------------------------------------
# The world and one bot process
# --------------------------------------------------------------------------------------------


@dataclass
class World:
    """The fake Discord and the people and places in it."""

    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser  # DMs closed
    carl: FakeUser
    dana: FakeUser  # a channel admin who does not play

    @property
    def players(self) -> dict[str, FakeUser]:
        """Users by the names the table shows (their display names)."""
        return {u.username: u for u in (self.alice, self.bob, self.carl, self.dana)}


@contextlib.asynccontextmanager
async def fake_world(**fake_options: Any) -> AsyncIterator[World]:
    """A started, installed fake with a guild, a channel and four members; on the way out,
    checks that nothing of discord.py, the service or the fake is left running."""
    async with FakeDiscord(**fake_options) as fake:
        guild = fake.add_guild("Gnav club")
        channel = fake.add_channel(guild, "gnav")
        alice = fake.add_user("alice", guilds=[guild])
        bob = fake.add_user("bob", guilds=[guild], dms_open=False)
        carl = fake.add_user("carl", guilds=[guild])
        dana = fake.add_user("dana")
        fake.add_member(guild, dana, permissions=ALL_PERMISSIONS)
        yield World(fake, guild, channel, alice, bob, carl, dana)
    await asyncio.sleep(0)
    current = asyncio.current_task()
    pending = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert pending == [], pending


@pytest.fixture
async def world() -> AsyncIterator[World]:
    """The fake world of these tests."""
    async with fake_world() as w:
        yield w


def bot_settings(world: World, **overrides: Any) -> BotSettings:
    """`gnav-bot run` settings for the fake (guild sync unless told otherwise)."""
    values: dict[str, Any] = {
        "discord_token": world.fake.token,
        "discord_guild_id": world.guild.id,
        "gnav_bot_delay": 0,
    }
    values.update(overrides)
    return BotSettings(_env_file=None, **values)  # type: ignore[call-arg]


def make_platform(world: World, defer_after: float = 2.0, **overrides: Any) -> DiscordPlatform:
    """A DiscordPlatform for the fake (READY right after the guilds arrive)."""
    return DiscordPlatform(
        bot_settings(world, **overrides),
        defer_after=defer_after,
        client_options={"guild_ready_timeout": 0.05},
    )


@dataclass
class BotProcess:
    """One running bot: the platform, the service, and what it was built on."""

    platform: DiscordPlatform
    service: TableService
    repo: Repository

    @property
    def client(self) -> discord.Client:
        """The platform's discord.py client."""
        assert self.platform.client is not None
        return self.platform.client

    async def settle(self) -> None:
        """Wait until every queued message of every table went out."""
        await self.service.outbox.drain()

    async def table(self, channel: FakeChannel) -> Table:
        """The table of a channel, as the service holds it."""
        table = await self.service.table_state(TableKey("discord", str(channel.id)))
        assert table is not None
        return table


@contextlib.asynccontextmanager
async def running_bot(
    world: World,
    repo: Repository,
    *,
    rng: random.Random | None = None,
    bot_delay: float = 0.0,
    defer_after: float = 2.0,
    resume: bool = True,
    **overrides: Any,
) -> AsyncIterator[BotProcess]:
    """A bot process composed like `gnav-bot run`: resume, start Discord, run the timers."""
    platform = make_platform(world, defer_after=defer_after, **overrides)
    service = TableService(
        repo,
        RoutingNotifier({"discord": platform.notifier}),
        rng=rng or random.Random(5),
        bot_delay=bot_delay,
        games=all_games(),
    )
    if resume:
        await service.resume()
    await platform.start(service)
    timers = asyncio.create_task(service.run(), name="gnav-timers")
    try:
        yield BotProcess(platform, service, repo)
    finally:
        await platform.stop()
        timers.cancel()
        await asyncio.gather(timers, return_exceptions=True)
        await service.shutdown()


class StackedRandom(random.Random):
    """Chance as a test stacks it: the first dealer, and the top of each shuffle.

    Each shuffle puts the next prefix on top (deal order, then the top of the bag); the rest
    of the 42 pieces is shuffled normally under it.
    """

    def __init__(self, dealer: int, prefixes: Sequence[Sequence[int]]) -> None:
        super().__init__(11)
        self.dealer = dealer
        self.prefixes = [list(p) for p in prefixes]

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        """The first dealer (the only draw the service makes with randrange)."""
        return self.dealer

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        """Stack the next prefix on top of a shuffled rest."""
        prefix = self.prefixes.pop(0) if self.prefixes else []
        rest = list(x)
        for piece in prefix:
            rest.remove(piece)
        super().shuffle(rest)
        x[:] = [*prefix, *rest]


# --------------------------------------------------------------------------------------------
# Acting as people
# --------------------------------------------------------------------------------------------


async def slash(
    world: World,
    user: FakeUser,
    subcommand: str,
    options: dict[str, Any] | None = None,
    *,
    channel: FakeChannel | None = None,
) -> InteractionRecord:
    """`/gnav <subcommand>` by `user`; returns the interaction once answered (or deferred)."""
    fake = world.fake
    iid = await fake.slash(user, channel or world.channel, "gnav", subcommand, options)
    await fake.wait_for_response(iid)
    return fake.interaction(iid)


async def answered(world: World, record: InteractionRecord) -> str:
    """The text the person sees for an interaction: response or its first followup."""
    fake = world.fake
    if record.response_type in (4, 7):
        return str((record.response or {}).get("data", {}).get("content", ""))
    if record.response_type == 5:  # thinking: the first followup completes the message
        mid = record.original_message_id or 0
        await fake.wait_for(lambda: not fake.message(mid)["flags"] & 128)
        return str(fake.message(mid)["content"])
    await fake.wait_for(lambda: record.followup_ids)
    return str(fake.message(record.followup_ids[0])["content"])


def find_table_message(world: World, channel: FakeChannel | None = None) -> JSON | None:
    """The channel's current table message: the newest bot message with buttons, if any."""
    for msg in reversed(world.fake.messages_in(channel or world.channel, include_ephemeral=False)):
        if msg["author"]["id"] == str(world.fake.bot.id) and msg["components"]:
            return msg
    return None


def table_message(world: World, channel: FakeChannel | None = None) -> JSON:
    """The channel's current table message (it must exist)."""
    msg = find_table_message(world, channel)
    assert msg is not None, "no table message with buttons in the channel"
    return msg


def buttons_of(message: JSON) -> dict[str, str]:
    """A message's buttons: label -> custom_id."""
    return {
        c["label"]: c["custom_id"]
        for row in message["components"]
        for c in row["components"]
        if c.get("type") == 2
    }


def button_id(message: JSON, label_start: str) -> str:
    """The custom_id of the button whose label starts with `label_start`."""
    for label, custom_id in buttons_of(message).items():
        if label.startswith(label_start):
            return custom_id
    raise AssertionError(f"no {label_start!r} button on {message['content']!r}")


async def press(
    world: World,
    user: FakeUser,
    label_start: str,
    *,
    channel: FakeChannel | None = None,
    message: JSON | None = None,
) -> InteractionRecord:
    """`user` presses a button of the table message (or of `message`); returns the answer."""
    fake = world.fake
    place = channel or world.channel
    msg = message or table_message(world, place)
    iid = await fake.press(user, place, int(msg["id"]), button_id(msg, label_start))
    await fake.wait_for_response(iid)
    return fake.interaction(iid)


async def piece_of(world: World, user: FakeUser) -> str:
    """What "My piece" tells `user` (ephemerally)."""
    record = await press(world, user, "My piece")
    assert record.response_type == 4 and record.ephemeral, record.response
    return await answered(world, record)


def channel_texts(world: World, channel: FakeChannel | None = None) -> list[str]:
    """Every text the channel showed: each post and each edit, in order (from the calls)."""
    place = channel or world.channel
    texts = []
    for call in world.fake.calls:
        if call.status != 200 or not isinstance(call.json, dict):
            continue
        if re.fullmatch(rf"/channels/{place.id}/messages(/\d+)?", call.path) and call.method in (
            "POST",
            "PATCH",
        ):
            texts.append(str(call.json.get("content", "")))
    return texts


def assert_every_interaction_answered_in_time(world: World) -> None:
    """Each interaction was acknowledged once, within the deadline, nothing refused."""
    fake = world.fake
    for iid in fake._interactions:
        record = fake.interaction(iid)
        if record.type == 4:
            continue  # autocomplete
        assert record.acknowledged, record.payload["data"]
        assert record.refused == [], record.refused


ORDINARY_WORDS = re.compile(
    r"(?<![\w\\])("
    + "|".join(
        re.escape(DISPLAY_NAMES[r])
        for r in range(NARR + 1, FIRST_MATADOR)
        if DISPLAY_NAMES[r] != "0"
    )
    + r")(?!\w)"
)


def assert_no_hidden_piece_named(texts: Sequence[str]) -> None:
    """No public text names an ordinary piece unless it is a reveal."""
    for text in texts:
        if "Reveal" in text:
            continue
        assert not ORDINARY_WORDS.search(text), text


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------

VIII, II, X, IV, V, DRAGON = (
    int(Rank.VIII),
    int(Rank.II),
    int(Rank.X),
    int(Rank.IV),
    int(Rank.V),
    int(Rank.DRAGON),
)


async def test_three_people_play_a_whole_match_in_a_channel(world: World) -> None:
    """Commands, buttons, DMs, the ephemeral fallback, a matador, two reveals and a winner.

    Round 1 (dealer carl): alice VIII stays, bob II swaps with carl's X, carl swaps with the
    bag (IV); carl holds the lowest piece and is out. Round 2 (dealer alice, C7): bob V asks
    alice, who shows the Dragon: «Hugg av!» (N13); bob pays again at the reveal; alice wins.
    """
    fake = world.fake
    alice, bob, carl, dana = world.alice, world.bob, world.carl, world.dana
    rng = StackedRandom(dealer=2, prefixes=[[VIII, II, X, IV], [V, DRAGON]])
    async with running_bot(world, MemoryRepository(), rng=rng) as bot:
        assert bot.service.command_prefix["discord"] == "/gnav "
        # The lobby: a command opens it, a button and a command seat people.
        opened = await slash(world, alice, "new")
        assert opened.ephemeral and "table is open" in await answered(world, opened)
        await bot.settle()
        lobby = table_message(world)
        assert {"Join", "Leave", "Start"} <= set(buttons_of(lobby))
        joined = await press(world, bob, "Join")
        assert joined.response == {"type": 6}  # silent: the table message shows it
        again = await press(world, bob, "Join")
        assert again.ephemeral and "already seated" in await answered(world, again)
        assert "sat down" in await answered(world, await slash(world, carl, "join"))
        settings = await slash(world, alice, "settings", {"changes": "lives=1", "delay": 300})
        assert not settings.ephemeral and "lives 1" in await answered(world, settings)
        await bot.settle()
        assert [line[3:] for line in table_message(world)["content"].split("\n")[2:5]] == [
            "alice (host)",
            "bob",
            "carl",
        ]
        not_host = await press(world, bob, "Start")
        assert not_host.ephemeral and "host" in await answered(world, not_host)
        assert (await press(world, alice, "Start")).response == {"type": 6}
        await bot.settle()

        # Round 1: DMs for alice and carl; bob's DMs are closed, "My piece" answers him.
        round1 = table_message(world)
        assert {"Stay · Jeg står", "Swap · Jeg bytter", "My piece"} <= set(buttons_of(round1))
        assert "alice's turn" in round1["content"]
        assert "VIII" in fake.dms_to(alice)[-1]["content"]
        assert "You were dealt X" in fake.dms_to(carl)[-1]["content"]
        assert fake.dms_to(bob) == []
        assert "you hold II" in await piece_of(world, bob)
        wrong = await press(world, carl, "Stay")
        assert wrong.ephemeral and "alice's turn" in await answered(world, wrong)
        await press(world, alice, "Stay")
        await bot.settle()
        await press(world, bob, "Swap")
        await bot.settle()
        assert "you hold X" in await piece_of(world, bob)
        assert "now hold II" in fake.dms_to(carl)[-1]["content"]
        assert "bob swaps with carl" in table_message(world)["content"]
        await press(world, carl, "Swap")  # the dealer swaps with the bag
        await bot.settle()
        assert "From the bag you now hold IV" in fake.dms_to(carl)[-1]["content"]
        reveal1 = table_message(world)
        assert "Reveal of round 1" in reveal1["content"]
        assert "carl pays" in reveal1["content"] and "carl is out" in reveal1["content"]
        assert list(buttons_of(reveal1)) == ["Next round"]

        # A repeated press (two clicks on the same button) deals once; the second is stale.
        next_id = button_id(reveal1, "Next round")
        first, second = await asyncio.gather(
            fake.press(alice, world.channel, int(reveal1["id"]), next_id),
            fake.press(dana, world.channel, int(reveal1["id"]), next_id),
        )
        answers = [await fake.wait_for_response(i) for i in (first, second)]
        assert sorted(a["type"] for a in answers) == [4, 6]
        refused = next(
            fake.interaction(i)
            for i, a in zip((first, second), answers, strict=True)
            if a["type"] == 4
        )
        assert refused.ephemeral and "out of date" in await answered(world, refused)
        await bot.settle()
        assert (table := await bot.table(world.channel)) and bot.service.view_of(
            table
        ).round_number(table.match) == 2

        # Round 2: dealer alice (carl is out), bob asks alice: the Dragon refuses.
        round2 = table_message(world)
        assert "bob's turn" in round2["content"]
        assert "You were dealt Dragon" in fake.dms_to(alice)[-1]["content"]
        assert "you hold V" in await piece_of(world, bob)
        await press(world, bob, "Swap")
        await bot.settle()
        assert (
            "alice shows the Dragon: «Hugg av!» bob loses a life" in table_message(world)["content"]
        )
        await press(world, alice, "Stay")
        await bot.settle()
        final = fake.messages_in(world.channel, include_ephemeral=False)[-1]
        assert "Reveal of round 2" in final["content"]
        assert "🏆 Winner: alice!" in final["content"]
        assert "The match is over" in final["content"] and final["components"] == []
        late = await slash(world, bob, "leave")
        assert late.ephemeral and "no open table" in await answered(world, late)

        # bob's closed DMs were tried once, at the first deal, and never again.
        bob_dm = fake.dm_channel(bob)
        attempts = fake.find_calls("POST", rf"/channels/{bob_dm.id}/messages")
        assert [c.status for c in attempts] == [403]
        assert attempts[0].response["code"] == 50007
        assert await bot.service.reachable(f"discord:{bob.id}") is False

        # Statistics, the best players and the record, after the match.
        stats = await slash(world, alice, "stats")
        assert not stats.ephemeral and "wins 1 ·" in await answered(world, stats)
        bobs = await slash(world, alice, "stats", {"player": bob})
        assert "bob: matches 1 · wins 0" in await answered(world, bobs)
        top = await slash(world, carl, "top")
        assert "1. alice: wins 1 ·" in await answered(world, top)
        export = await slash(world, carl, "export")
        assert export.ephemeral
        call = next(
            c
            for c in fake.find_calls("POST", rf"/interactions/{export.id}/[^/]+/callback")
            if c.status in (200, 204)
        )
        (attachment,) = call.files
        assert re.fullmatch(r"gnav-[0-9a-z]+\.json", attachment["filename"])
        record = fake._messages[export.original_message_id or 0]["attachments"][0]
        assert record["filename"] == attachment["filename"]

    assert_every_interaction_answered_in_time(world)
    assert_no_hidden_piece_named(channel_texts(world))


async def test_export_is_a_json_file_that_replays(world: World) -> None:
    """/gnav export attaches the match record (ephemerally); `gnav-bot replay` reproduces it."""
    fake = world.fake
    rng = StackedRandom(dealer=0, prefixes=[[II, X]])
    async with running_bot(world, MemoryRepository(), rng=rng) as bot:
        await slash(world, world.alice, "new")
        await slash(world, world.carl, "join")
        await slash(world, world.alice, "settings", {"changes": "lives=1"})
        await slash(world, world.alice, "start")
        await bot.settle()
        await press(world, world.carl, "Stay")
        await bot.settle()  # the table message shows Alice's turn (its buttons' version)
        await press(world, world.alice, "Stay")
        await bot.settle()
        export = await slash(world, world.dana, "export")
        expected = (
            await bot.service.handle(Export(TableKey("discord", str(world.channel.id))))
        ).document
    assert export.ephemeral and expected is not None
    call = next(
        c
        for c in fake.find_calls("POST", rf"/interactions/{export.id}/[^/]+/callback")
        if c.status < 300
    )
    (sent,) = call.files
    assert (sent["filename"], sent["size"]) == (expected[0], len(expected[1]))
    record = json.loads(expected[1])
    assert len(record["rounds"]) == 1 and record["rounds"][0]["deal"] == {
        "carl": "II",
        "alice": "X",
    }
    _, result = replay_record(record)
    assert result


async def test_a_restart_mid_match_keeps_the_buttons_working(world: World, tmp_path: Path) -> None:
    """Stop the bot mid-match; a new process on the same SQLite file answers presses on the
    table message the old process posted, before it has sent anything itself (the handler is
    registered in setup_hook, nothing is kept per message) and after its resume notice.
    """
    fake = world.fake
    db = str(tmp_path / "gnav.sqlite3")
    rng = StackedRandom(dealer=2, prefixes=[[VIII, II, X, IV]])
    repo = await SqliteRepository.open(db)
    async with running_bot(world, repo, rng=rng) as bot:
        await slash(world, world.alice, "new")
        await press(world, world.bob, "Join")
        await press(world, world.carl, "Join")
        await press(world, world.alice, "Start")
        await bot.settle()
        await press(world, world.alice, "Stay")
        await bot.settle()
        old = table_message(world)
        assert "bob's turn" in old["content"]
    await repo.close()
    assert not fake.connected

    repo = await SqliteRepository.open(db)
    try:
        async with running_bot(world, repo, resume=False) as bot:
            store = bot.client._connection._view_store
            assert int(old["id"]) not in store._views  # nothing is kept per message
            # Presses on the message the previous process posted.
            assert "you hold II" in await piece_of(world, world.bob)
            swapped = await press(world, world.bob, "Swap", message=old)
            assert swapped.response == {"type": 6}
            await bot.settle()
            edited = fake.message(int(old["id"]))
            assert "bob swaps with carl" in edited["content"]
            assert "carl's turn" in edited["content"]
            # The runner's resume: the old message is frozen (its buttons removed), then a
            # notice and a fresh message with the same state version.
            assert await bot.service.resume() == 1
            await bot.settle()
            fresh = table_message(world)
            assert int(fresh["id"]) != int(old["id"])
            assert "restarted" in fresh["content"] and "carl's turn" in fresh["content"]
            assert buttons_of(fake.message(int(old["id"]))) == {}
            assert buttons_of(fresh) == buttons_of(edited)
            stayed = await press(world, world.carl, "Stay", message=fresh)
            assert stayed.response == {"type": 6}
            await bot.settle()
            assert "Reveal of round 1" in table_message(world)["content"]
            stopped = await slash(world, world.alice, "stop")
            assert not stopped.ephemeral and "stopped" in await answered(world, stopped)
    finally:
        await repo.close()
    assert_every_interaction_answered_in_time(world)


@pytest.mark.parametrize("bot_delay", [0.05, 0.0], ids=["bots-apart", "bots-at-once"])
async def test_one_six_player_round_costs_two_posts_and_one_edit_per_step(
    world: World, bot_delay: float
) -> None:
    """3 people and 3 bots: count the channel messages (POST) and edits (PATCH) of one round.

    Bots 50 ms apart: no edit is coalesced, the cost with the real bot delay (1.5 s). Bots at
    once: their steps coalesce. Measured on round 2, from "Next round" to its reveal.
    """
    fake = world.fake
    async with running_bot(
        world, MemoryRepository(), rng=random.Random(3), bot_delay=bot_delay
    ) as bot:
        await slash(world, world.alice, "new")
        await press(world, world.bob, "Join")
        await press(world, world.carl, "Join")
        await slash(world, world.alice, "settings", {"bots": 3, "delay": 300, "changes": "lives=3"})
        await press(world, world.alice, "Start")
        for _ in range(2):
            begin = len(fake.calls)
            steps = await play_round(world, bot)
        round_calls = fake.calls[begin:]
    channel = world.channel.id
    posts = [
        c for c in round_calls if c.method == "POST" and c.path == f"/channels/{channel}/messages"
    ]
    edits = [
        c for c in round_calls if c.method == "PATCH" and c.path.startswith(f"/channels/{channel}/")
    ]
    dms = [
        c
        for c in round_calls
        if c.method == "POST"
        and c.path.startswith("/channels/")
        and c.path != f"/channels/{channel}/messages"
    ]
    print(
        f"\n6-player round, bot delay {bot_delay} s: {steps} steps, "
        f"{len(posts)} posts, {len(edits)} edits, {len(dms)} DMs"
    )
    assert len(posts) == 2  # the round's table message and its reveal
    # Freeze the previous reveal, one edit per step but the last (the round message's freeze
    # shows it), freeze the round message: steps + 1, fewer when edits were coalesced.
    assert 2 <= len(edits) <= steps + 1


async def play_round(world: World, bot: BotProcess) -> int:
    """Deal with "Next round" (unless a round is under way), let everyone act (people stay,
    bots by themselves) until the reveal; returns how many turns the round had."""
    table = await bot.table(world.channel)
    if not bot.service.game_of(table).deciders(table.match):
        await press(world, world.alice, "Next round")
    for _ in range(200):
        await bot.settle()
        table = await bot.table(world.channel)
        match = table.match
        if not bot.service.game_of(table).deciders(match):
            break
        seat = table.seats[match.turn]
        if seat.bot:
            await asyncio.sleep(0.02)
        else:
            await press(world, world.players[seat.name], "Stay")
    await bot.settle()
    return len(bot.service.game_of(table).record(table.match)["rounds"][-1]["actions"])
