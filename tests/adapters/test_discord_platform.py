"""The Discord platform around the game: start and stop, command sync, intents, sharding,
Discord's 3-second rule, threads, rate limits, `gnav-bot run` with two platforms, and the
smaller commands, all with the real discord.py client against the fake Discord.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import discord
import pytest

from adapters.discord.platform import BOT_PERMISSIONS, DiscordPlatform, invite_url
from adapters.discord.sync import schema
from adapters.telegram.platform import TelegramLimits, TelegramPlatform
from bot import runner
from bot.config import BotSettings
from bot.games.registry import all_games
from bot.service.ports import (
    FinishedMatch,
    OutBatch,
    PlatformError,
    Screen,
    StatDelta,
    TableRow,
)
from bot.service.service import TableService
from bot.service.table import TableKey
from storage.memory import MemoryRepository
from storage.sqlite import SqliteRepository
from tests.adapters.test_discord_play import (
    II,
    IV,
    VIII,
    StackedRandom,
    V,
    World,
    X,
    answered,
    assert_every_interaction_answered_in_time,
    bot_settings,
    buttons_of,
    fake_world,
    find_table_message,
    make_platform,
    piece_of,
    press,
    running_bot,
    slash,
    table_message,
)
from tests.fakes.discord_api import PRIVILEGED_INTENTS
from tests.fakes.telegram_api import FakeTelegram

SUBCOMMANDS = {
    "new",
    "join",
    "leave",
    "start",
    "stop",
    "kick",
    "settings",
    "rules",
    "stats",
    "top",
    "export",
    "language",
    "help",
    "sheet",
    "log",
}


@pytest.fixture
async def world() -> AsyncIterator[World]:
    """The fake world of these tests."""
    async with fake_world() as w:
        yield w


class SlowRepository(MemoryRepository):
    """A store whose commits take `delay` seconds (a busy disk, a distant database)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    async def save_table(
        self,
        row: TableRow,
        *,
        expected_version: int | None,
        stats: Sequence[StatDelta] = (),
        finished: FinishedMatch | None = None,
        **outbox: Any,
    ) -> OutBatch | None:
        """Commit after the delay."""
        await asyncio.sleep(self.delay)
        return await super().save_table(
            row, expected_version=expected_version, stats=stats, finished=finished, **outbox
        )


def turn_of(world: World, message: dict[str, Any]) -> Any:
    """The fake user whose turn a table message announces."""
    found = re.search(r"▶ (\w+)'s turn", message["content"])
    assert found, message["content"]
    return world.players[found.group(1)]


async def autocomplete(world: World, subcommand: str, option: str, value: str) -> list[Any]:
    """An autocomplete interaction for `/gnav <subcommand> <option>:<value>` (the fake has no
    helper for these, so the payload is built with its own internals)."""
    fake = world.fake
    command, guild_id = fake._find_command("gnav", world.guild.id)
    assert command is not None
    data = {
        "id": command["id"],
        "name": "gnav",
        "type": 1,
        "guild_id": str(guild_id),
        "options": [
            {
                "type": 1,
                "name": subcommand,
                "options": [{"type": 3, "name": option, "value": value, "focused": True}],
            }
        ],
    }
    payload = fake._interaction_payload(4, world.alice, world.channel, data, None)
    record = fake._register_interaction(
        payload, world.alice, world.channel, command_name=f"gnav {subcommand}"
    )
    iid = await fake._dispatch_interaction(record, 5.0)
    response = await fake.wait_for_response(iid)
    assert response["type"] == 8
    return list(response["data"]["choices"])


# --------------------------------------------------------------------------------------------
# Start, stop, intents, sharding
# --------------------------------------------------------------------------------------------


async def test_a_rejected_token_is_a_clear_platform_error_without_the_token(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """A token Discord refuses (401) stops the start with a message for people; the token
    appears neither in it nor in any log line."""
    caplog.set_level(logging.DEBUG)
    wrong = "MTIz.not-the-bot-token.xyz"
    platform = make_platform(world, discord_token=wrong)
    service = TableService(MemoryRepository(), platform.notifier, bot_delay=0, games=all_games())
    with pytest.raises(PlatformError) as caught:
        await platform.start(service)
    assert "DISCORD_TOKEN" in str(caught.value) and "Developer Portal" in str(caught.value)
    assert wrong not in str(caught.value) and wrong not in caplog.text
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert platform.client is None and not world.fake.connected
    # What was queued for Discord meanwhile fails at once instead of waiting for a client.
    assert await platform.notifier.post(f"discord:{world.channel.id}", Screen("x")) is None
    await platform.stop()  # harmless after a failed start


async def test_commands_in_an_unknown_guild_are_a_platform_error(world: World) -> None:
    """DISCORD_GUILD_ID naming a server the bot is not in: a clear error (invite scopes)."""
    platform = make_platform(world, discord_guild_id=world.guild.id + 12345)
    service = TableService(MemoryRepository(), platform.notifier, bot_delay=0, games=all_games())
    with pytest.raises(PlatformError, match=r"applications\.commands"):
        await platform.start(service)
    assert not world.fake.connected


async def test_no_privileged_intent_is_needed() -> None:
    """The bot identifies with GUILDS only and runs with no privileged intent enabled."""
    async with fake_world(privileged_intents=0) as world:
        async with running_bot(world, MemoryRepository()):
            opened = await slash(world, world.alice, "new")
            assert "table is open" in await answered(world, opened)
        intents = world.fake.identify_payloads[0]["intents"]
        assert intents == discord.Intents(guilds=True).value
        assert intents & PRIVILEGED_INTENTS == 0


async def test_the_auto_sharded_client_option(world: World) -> None:
    """DISCORD_SHARDED=true runs an AutoShardedClient (shard 0 of the count Discord gives)."""
    async with running_bot(world, MemoryRepository(), discord_sharded=True) as bot:
        assert isinstance(bot.client, discord.AutoShardedClient)
        helped = await slash(world, world.alice, "help")
        assert "/gnav new" in await answered(world, helped)
    assert world.fake.find_calls("GET", "/gateway/bot")
    assert world.fake.identify_payloads[0]["shard"] == [0, 1]


async def test_stop_lets_an_interaction_under_way_finish_and_sends_what_is_queued(
    world: World,
) -> None:
    """stop() while a slow command runs: the command is answered and its table message is
    posted before the connection closes."""
    fake = world.fake
    async with running_bot(world, SlowRepository(0.4), defer_after=0.1) as bot:
        iid = await fake.slash(world.alice, world.channel, "gnav", "new")
        assert (await fake.wait_for_response(iid))["type"] == 5  # deferred
        await bot.platform.stop()
        record = fake.interaction(iid)
        assert "table is open" in await answered(world, record)
        assert "Gnav table" in table_message(world)["content"]
        assert bot.platform.client is None


# --------------------------------------------------------------------------------------------
# Command sync
# --------------------------------------------------------------------------------------------


async def test_commands_sync_to_the_guild_when_their_schema_changed(world: World) -> None:
    """auto: the first start syncs, an unchanged restart only compares (GET), a changed
    registration syncs again; always and never do what they say."""
    fake = world.fake
    guild_path = rf"/applications/{fake.application_id}/guilds/{world.guild.id}/commands"

    def puts() -> int:
        return len(fake.find_calls("PUT", guild_path))

    def gets() -> int:
        return len(fake.find_calls("GET", guild_path))

    async with running_bot(world, MemoryRepository()) as bot:
        assert bot.platform.synced is True
    (gnav,) = fake.guild_commands(world.guild)
    assert gnav["name"] == "gnav" and {o["name"] for o in gnav["options"]} == SUBCOMMANDS
    assert all(o["type"] == 1 for o in gnav["options"])
    assert fake.global_commands() == [] and puts() == 1

    async with running_bot(world, MemoryRepository()) as bot:
        assert bot.platform.synced is False
        assert bot.platform.tree is not None
        local = [
            c.to_dict(bot.platform.tree) for c in bot.platform.tree.get_commands(guild=world.guild)
        ]
        assert schema(local) == schema(fake.guild_commands(world.guild))
    assert puts() == 1 and gets() == 2

    # An older version of the bot registered other options: auto notices and syncs.
    stored = fake._guild_commands[world.guild.id][("gnav", 1)]
    stored["options"] = [o for o in stored["options"] if o["name"] != "language"]
    async with running_bot(world, MemoryRepository()) as bot:
        assert bot.platform.synced is True
    assert puts() == 2

    async with running_bot(world, MemoryRepository(), discord_sync="always") as bot:
        assert bot.platform.synced is True
    assert puts() == 3
    async with running_bot(world, MemoryRepository(), discord_sync="never") as bot:
        assert bot.platform.synced is False
    assert puts() == 3 and gets() == 3  # always and never: no comparison


async def test_global_commands_without_a_guild_id(world: World) -> None:
    """Without DISCORD_GUILD_ID the commands are registered globally and work anywhere."""
    fake = world.fake
    async with running_bot(world, MemoryRepository(), discord_guild_id=None) as bot:
        assert bot.platform.synced is True
        helped = await slash(world, world.carl, "help")
        assert "/gnav settings" in await answered(world, helped)
    assert fake.find_calls("PUT", rf"/applications/{fake.application_id}/commands")
    assert fake.guild_commands(world.guild) == []
    (gnav,) = fake.global_commands()
    assert gnav["contexts"] == [0] and gnav["dm_permission"] is False  # no table in a DM


def test_the_invite_link_asks_for_both_scopes_and_only_the_permissions_used() -> None:
    """bot + applications.commands; view, send (also in threads), attach files, history."""
    url = invite_url(1234)
    assert url.startswith("https://discord.com/oauth2/authorize?client_id=1234")
    assert "scope=bot+applications.commands" in url
    assert f"permissions={BOT_PERMISSIONS.value}" in url and BOT_PERMISSIONS.value == 274878008320
    assert not BOT_PERMISSIONS.administrator and not BOT_PERMISSIONS.manage_messages


# --------------------------------------------------------------------------------------------
# Interactions: 3 seconds, threads, refusals, smaller commands
# --------------------------------------------------------------------------------------------


async def test_every_interaction_is_answered_within_the_deadline_when_the_store_is_slow(
    world: World,
) -> None:
    """Commits take longer than Discord's deadline: commands are deferred ("thinking"),
    buttons acknowledged silently, and the answers follow; fast refusals answer at once."""
    fake = world.fake
    fake.ack_deadline = 0.6  # Discord's 3 s, scaled down with the adapter's 2 s
    async with running_bot(world, SlowRepository(0.8), defer_after=0.2) as bot:
        opened = await slash(world, world.alice, "new")
        assert opened.response_type == 5 and opened.ephemeral
        assert "table is open" in await answered(world, opened)
        await bot.settle()
        joined = await press(world, world.bob, "Join")
        assert joined.response == {"type": 6}
        settings = await slash(world, world.alice, "settings", {"changes": "lives=2"})
        assert settings.response_type == 5 and not settings.ephemeral
        assert "lives 2" in await answered(world, settings)
        refused = await press(world, world.bob, "Start")  # no commit: answered at once
        assert refused.response_type == 4 and refused.ephemeral
        await bot.settle()
        assert "bob" in table_message(world)["content"]
        assert_every_interaction_answered_in_time(world)

        # Without deferring, the same slow command misses the deadline (10062), yet the
        # command itself is carried out and stored: it is never cancelled.
        assert bot.platform.handler is not None
        bot.platform.handler.defer_after = 5.0
        iid = await fake.slash(world.carl, world.channel, "gnav", "join")
        record = fake.interaction(iid)
        await fake.wait_for(lambda: record.refused, timeout=5)
        assert record.refused[0][1].code == 10062 and not record.acknowledged
        await fake.wait_for(lambda: "carl" in table_message(world)["content"], timeout=5)


async def test_each_thread_gets_a_table_of_its_own(world: World) -> None:
    """A thread is a channel: /gnav new in the channel and in a thread opens two tables."""
    fake = world.fake
    thread = fake.add_thread(world.channel, "Gnav 2")
    async with running_bot(world, MemoryRepository()) as bot:
        await slash(world, world.alice, "new")
        await slash(world, world.bob, "new", channel=thread)
        await bot.settle()
        await press(world, world.carl, "Join", channel=thread)
        await bot.settle()
        in_channel = await bot.service.table_state(TableKey("discord", str(world.channel.id)))
        in_thread = await bot.service.table_state(TableKey("discord", str(thread.id)))
        assert in_channel is not None and in_thread is not None
        assert in_channel.names == ["alice"] and in_thread.names == ["bob", "carl"]
        assert in_channel.table_id != in_thread.table_id
        assert "carl" in table_message(world, thread)["content"]
        assert "carl" not in table_message(world)["content"]
    assert fake.messages_in(thread, include_ephemeral=False)[0]["channel_id"] == str(thread.id)


async def test_table_edits_are_coalesced_while_discord_rate_limits(world: World) -> None:
    """A 429 on the table message is slept off and retried by discord.py; the steps taken
    meanwhile reach the channel as one edit showing the newest state."""
    fake = world.fake
    # alice deals (acts last); three bots act 0.2 s apart, first while the 429 is slept off.
    rng = StackedRandom(dealer=0, prefixes=[[VIII, II, X, V, IV]])
    async with running_bot(world, MemoryRepository(), rng=rng, bot_delay=0.2) as bot:
        await slash(world, world.alice, "new")
        await slash(world, world.alice, "settings", {"bots": 3})
        await press(world, world.alice, "Start")
        message = await fake.wait_for(
            lambda: (m := find_table_message(world)) and "Bot 1's turn" in m["content"] and m
        )
        path = rf"/channels/{world.channel.id}/messages/{message['id']}"
        begin = len(fake.calls)
        rule = fake.inject_rate_limit(path, method="PATCH", retry_after=0.5)
        await fake.wait_for(lambda: "alice's turn" in table_message(world)["content"], timeout=5)
        await bot.settle()
    patches = [c for c in fake.calls[begin:] if c.method == "PATCH" and re.fullmatch(path, c.path)]
    assert rule.hits == 1
    assert [c.status for c in patches] == [429, 200, 200]
    assert "Bot 2's turn" in patches[1].json["content"]  # the first edit, retried
    assert "alice's turn" in patches[2].json["content"]  # Bot 3's turn was never shown alone
    assert_every_interaction_answered_in_time(world)


async def test_names_cannot_format_or_mention(world: World) -> None:
    """A display name with markdown and @everyone is shown literally and pings nobody."""
    fake = world.fake
    fake.add_user("star", guilds=[world.guild], global_name="*Star* @everyone")
    star = next(u for u in fake.users.values() if u.username == "star")
    async with running_bot(world, MemoryRepository()) as bot:
        await slash(world, star, "new")
        await bot.settle()
    post = fake.find_calls("POST", rf"/channels/{world.channel.id}/messages")[-1]
    assert "\\*Star\\* @everyone (host)" in post.json["content"]
    assert post.json["allowed_mentions"] == {"parse": []}


async def test_kick_with_autocomplete_language_and_admin_rights(world: World) -> None:
    """/gnav kick offers the seats by name; a channel admin may kick; /gnav language
    switches the table's messages and buttons."""
    async with running_bot(world, MemoryRepository()) as bot:
        await slash(world, world.alice, "new")
        await press(world, world.bob, "Join")
        await press(world, world.carl, "Join")
        choices = await autocomplete(world, "kick", "player", "b")
        assert choices == [{"name": "bob", "value": "bob"}]
        refused = await slash(world, world.carl, "kick", {"player": "bob"})
        assert refused.ephemeral and "host" in await answered(world, refused)
        kicked = await slash(world, world.dana, "kick", {"player": "bob"})  # Manage Channels
        assert not kicked.ephemeral and "bob was removed" in await answered(world, kicked)
        norsk = await slash(world, world.alice, "language", {"language": "nb"})
        assert "Innstillinger" in await answered(world, norsk)
        await bot.settle()
        lobby = table_message(world)
        assert {"Bli med", "Start"} <= set(buttons_of(lobby))
        assert "bob" not in lobby["content"].split("\n", 2)[2]
        rules = await slash(world, world.bob, "rules")
        assert not rules.ephemeral and "Gjøk" in await answered(world, rules)


async def test_a_channel_the_bot_may_not_post_in_gets_a_hint_not_a_table(world: World) -> None:
    """/gnav new where the bot lacks Send Messages: a private hint in the person's language,
    and no table that nobody could see."""
    fake = world.fake
    closed = fake.add_channel(world.guild, "announcements", bot_can_send=False)
    async with running_bot(world, MemoryRepository()) as bot:
        hint = await slash(world, world.alice, "new", channel=closed)
        assert hint.ephemeral and "Send Messages" in await answered(world, hint)
        iid = await fake.slash(world.carl, closed, "gnav", "new", locale="no")
        norsk = fake.interaction(iid)
        await fake.wait_for_response(iid)
        assert "Send meldinger" in await answered(world, norsk)
        assert await bot.service.table_state(TableKey("discord", str(closed.id))) is None
    assert fake.find_calls("POST", rf"/channels/{closed.id}/messages") == []


async def test_a_command_that_fails_gets_an_answer(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An unexpected error in the service: the person is told, the error is logged."""
    async with running_bot(world, MemoryRepository()) as bot:

        async def broken(tk: TableKey, limit: int = 10) -> Any:
            raise RuntimeError("the store is on fire")

        monkeypatch.setattr(bot.service.queries, "top", broken)
        failed = await slash(world, world.alice, "top")
        assert failed.ephemeral and "went wrong" in await answered(world, failed)
    assert "the store is on fire" in caplog.text


async def test_my_piece_and_presses_from_people_not_seated(world: World) -> None:
    """Someone not seated gets an ephemeral refusal for every game button; seated players
    see their own piece."""
    rng = StackedRandom(dealer=1, prefixes=[[VIII, II]])
    async with running_bot(world, MemoryRepository(), rng=rng) as bot:
        await slash(world, world.alice, "new")
        await bot.settle()
        lobby = table_message(world)
        join = await world.fake.press(
            world.carl, world.channel, int(lobby["id"]), buttons_of(lobby)["Join"], locale="pt-BR"
        )
        await world.fake.wait_for_response(join)
        await press(world, world.alice, "Start")
        await bot.settle()
        # The service learns each player's app language (when the catalogs have it).
        carl = await bot.repo.load_player(f"discord:{world.carl.id}")
        alice = await bot.repo.load_player(f"discord:{world.alice.id}")
        assert carl is not None and alice is not None
        assert (carl["language"], carl["name"], alice["language"]) == ("pt", "carl", "en")
        for label in ("Stay", "Swap", "My piece"):
            record = await press(world, world.bob, label)
            assert record.ephemeral and "not seated" in await answered(world, record)
        assert "you hold VIII" in await piece_of(world, world.alice)
        assert "you hold II" in await piece_of(world, world.carl)


# --------------------------------------------------------------------------------------------
# gnav-bot run
# --------------------------------------------------------------------------------------------


async def test_gnav_bot_run_plays_discord_and_telegram_and_survives_a_restart(
    world: World, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`gnav-bot run` with both tokens, against both fakes: one loop, one service, one store.
    Stopped and run again on the same file, both tables are restored: the old Discord table
    message is frozen first, and the new one's buttons (the same state version) work."""
    caplog.set_level(logging.DEBUG, logger="adapters")
    caplog.set_level(logging.DEBUG, logger="discord")
    fake = world.fake
    db = tmp_path / "gnav.sqlite3"
    async with FakeTelegram() as tg:
        settings = bot_settings(
            world,
            telegram_token=tg.token,
            telegram_base_url=tg.base_url,
            telegram_base_file_url=tg.base_file_url,
            gnav_db=str(db),
        )
        anna = tg.add_user("Anna")
        group = tg.add_group("Gnav on Telegram", members=[anna])

        async def run_once(play: Any) -> dict[str, Any]:
            made: dict[str, Any] = {}

            def discord_factory(s: BotSettings) -> DiscordPlatform:
                made["discord"] = make_platform_from(s)
                return made["discord"]

            def telegram_factory(s: BotSettings) -> TelegramPlatform:
                limits = TelegramLimits(poll_timeout=1, chat_interval=0.0, drain_timeout=5.0)
                made["telegram"] = TelegramPlatform(s, limits=limits)
                return made["telegram"]

            stop = asyncio.Event()
            factories = {"discord": discord_factory, "telegram": telegram_factory}
            task = asyncio.create_task(
                runner.run(
                    settings, str(tmp_path / "unused.db"), stop_event=stop, factories=factories
                )
            )
            try:
                await fake.wait_for(
                    lambda: (
                        task.done()
                        or (
                            made.get("discord")
                            and made["discord"].client
                            and made["discord"].client.is_ready()
                        )
                    ),
                    timeout=10,
                )
                assert not task.done(), task.result()
                await play()
            finally:
                stop.set()
                status = await asyncio.wait_for(task, 15)
            assert status == 0
            return made

        async def first() -> None:
            tg.user_sends(anna, group, "/gnav")
            await tg.wait_for_message(group, contains="1. Anna", timeout=10)
            await slash(world, world.alice, "new")
            await press(world, world.bob, "Join")
            await press(world, world.carl, "Join")
            await press(world, world.alice, "Start")
            await fake.wait_for(
                lambda: "turn" in (find_table_message(world) or {}).get("content", "")
            )

        made = await run_once(first)
        assert made["telegram"].service is made["discord"].service  # one service
        assert not fake.connected
        old = table_message(world)
        repo = await SqliteRepository.open(str(db))  # one store: both tables in it
        try:
            keys = {row.key for row in await repo.load_active_tables()}
        finally:
            await repo.close()
        assert keys == {f"discord:{world.channel.id}", f"telegram:{group.id}"}

        async def second() -> None:
            await tg.wait_for_message(group, contains="restarted", timeout=10)
            await fake.wait_for(
                lambda: "restarted" in (find_table_message(world) or {}).get("content", "")
            )
            fresh = table_message(world)
            assert fresh["id"] != old["id"] and buttons_of(fresh) == buttons_of(old)
            # The old table message was frozen (its buttons removed) before the new one.
            assert buttons_of(fake.message(int(old["id"]))) == {}
            mover = turn_of(world, old)
            acted = await press(world, mover, "Stay", message=fresh)
            assert acted.response == {"type": 6}
            await fake.wait_for(
                lambda: f"{mover.username}: «Jeg står»" in table_message(world)["content"]
            )

        await run_once(second)
    assert_every_interaction_answered_in_time(world)
    assert fake.token not in caplog.text


def make_platform_from(settings: BotSettings) -> DiscordPlatform:
    """The platform as the runner builds it, with the fake's short READY wait."""
    return DiscordPlatform(settings, client_options={"guild_ready_timeout": 0.05})


async def test_names_cannot_become_mentions_roles_timestamps_or_commands(world: World) -> None:
    """Discord's angle-bracket syntax in a display name is shown as typed (escaped), and
    invisible or bidirectional controls are gone."""
    fake = world.fake
    hostile = "<@1><@&2><t:0:R></gnav stop:1>\u202e"
    fake.add_user("mallory", guilds=[world.guild], global_name=hostile)
    mallory = next(u for u in fake.users.values() if u.username == "mallory")
    async with running_bot(world, MemoryRepository()) as bot:
        await slash(world, mallory, "new")
        await bot.settle()
    content = fake.find_calls("POST", rf"/channels/{world.channel.id}/messages")[-1].json["content"]
    assert "\\<@1>\\<@&2>\\<t:0:R>\\</gnav stop:1> (host)" in content
    assert re.search(r"(?<!\\)<", content) is None
    assert "\u202e" not in content


async def test_member_cannot_change_settings_without_a_table_on_discord(world: World) -> None:
    """A plain member's `/gnav settings` with no table open is refused privately and stored
    nowhere; a channel admin's is kept and the next table inherits it."""
    repo = MemoryRepository()
    async with running_bot(world, repo):
        refused = await slash(world, world.bob, "settings", {"changes": "lives=1", "bots": 19})
        assert refused.ephemeral and "admin" in await answered(world, refused)
        assert await repo.load_settings(f"discord:{world.channel.id}") is None
        shown = await slash(world, world.bob, "settings")
        assert not shown.ephemeral and "lives 3" in await answered(world, shown)
        kept = await slash(world, world.dana, "settings", {"changes": "lives=4"})
        assert "lives 4" in await answered(world, kept)
        await slash(world, world.alice, "new")
        refused = await slash(world, world.bob, "settings", {"changes": "lives=2"})
        assert refused.ephemeral and "alice" in await answered(world, refused)
    stored = await repo.load_settings(f"discord:{world.channel.id}")
    assert stored is not None and stored["games"]["gnav"]["lives"] == 4


async def test_kick_removes_exactly_the_named_or_mentioned_member(world: World) -> None:
    """With `Alice` and `alice` seated, `player:alice` removes `alice`; `member:` names one
    member whatever the names; a case-only match among several is refused, listing them."""
    fake = world.fake
    fake.add_user("upper", guilds=[world.guild], global_name="Alice")
    fake.add_user("lower", guilds=[world.guild], global_name="alice")
    fake.add_user("third", guilds=[world.guild], global_name="ALICE")
    upper, lower, third = (
        next(u for u in fake.users.values() if u.username == n) for n in ("upper", "lower", "third")
    )
    async with running_bot(world, MemoryRepository()) as bot:
        await slash(world, world.bob, "new")
        for user in (upper, lower, third):
            await press(world, user, "Join")
        await bot.settle()
        kicked = await slash(world, world.bob, "kick", {"player": "alice"})
        assert "alice was removed" in await answered(world, kicked)
        refused = await slash(world, world.bob, "kick", {"player": "aLiCe"})
        assert "Alice, ALICE" in await answered(world, refused)
        kicked = await slash(world, world.bob, "kick", {"member": third})
        assert "ALICE was removed" in await answered(world, kicked)
        usage = await slash(world, world.bob, "kick")
        assert usage.ephemeral and "player:" in await answered(world, usage)
        table = await bot.service.table_state(TableKey("discord", str(world.channel.id)))
        assert table is not None and table.names == ["bob", "Alice"]


def test_a_hand_of_more_than_five_buttons_goes_on_over_several_rows() -> None:
    """Discord allows 5 buttons a row and 5 rows: a 12-card hand in one logical row is laid out
    over three rows, every card kept (a cut row would hide cards from the player)."""
    from adapters.discord.buttons import build_view
    from bot.service import tokens
    from bot.service.ports import Button, Screen

    row = tuple(Button(f"Card {i}", tokens.encode("abc", 1, "play", str(i))) for i in range(12))
    view = build_view(Screen("hand", (row,)))
    assert view is not None
    items = view.children
    assert len(items) == 12
    assert sorted({item._rendered_row for item in items}) == [0, 1, 2]  # type: ignore[attr-defined]
