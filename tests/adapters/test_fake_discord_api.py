"""Tests of the fake Discord (tests/fakes/discord_api.py), driven by the real discord.py client.

A tiny demo bot (a ``/gnav`` command group, a persistent view and a ``DynamicItem`` button, all
registered in ``setup_hook``) runs with ``client.start(token)`` against the fake: login, gateway
connection, READY, command sync, interactions and their answers all go over real HTTP and a real
websocket on 127.0.0.1; nothing contacts Discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import aiohttp
import discord
import pytest
from discord import app_commands

try:
    from tests.fakes.discord_api import FakeChannel, FakeDiscord, FakeGuild, FakeUser
except (
    ModuleNotFoundError
):  # tests/adapters is not a package: the repository root is not on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.fakes.discord_api import FakeChannel, FakeDiscord, FakeGuild, FakeUser

# --------------------------------------------------------------------------------------------
# The demo bot
# --------------------------------------------------------------------------------------------


class CardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"gnav:card:(?P<card>\d+)"
):
    """A button whose custom_id carries its state (the card number)."""

    def __init__(self, card: int) -> None:
        super().__init__(discord.ui.Button(label=f"Card {card}", custom_id=f"gnav:card:{card}"))
        self.card = card

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CardButton:
        """Rebuild the item from its custom_id (discord.py calls this on a press)."""
        return cls(int(match["card"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Answer the press with an ephemeral message."""
        client = interaction.client
        assert isinstance(client, DemoBot)
        client.pressed.append((f"card{self.card}", interaction.user.id))
        await interaction.response.send_message(f"you picked card {self.card}", ephemeral=True)


class BoardView(discord.ui.View):
    """A persistent view: no timeout, every item has a custom_id."""

    def __init__(self, cards: tuple[int, ...] = ()) -> None:
        super().__init__(timeout=None)
        for card in cards:
            self.add_item(CardButton(card))

    @discord.ui.button(label="Swap", custom_id="gnav:board:swap", style=discord.ButtonStyle.primary)
    async def swap(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        """Edit the message the button is on (callback type 7)."""
        client = interaction.client
        assert isinstance(client, DemoBot)
        client.pressed.append(("swap", interaction.user.id))
        await interaction.response.edit_message(content=f"{interaction.user.name} swapped")

    @discord.ui.button(label="Deal", custom_id="gnav:board:deal")
    async def deal(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        """Acknowledge with type 6, then edit the message through @original."""
        await interaction.response.defer()  # type 6: acknowledge now, edit the message later
        await asyncio.sleep(0.01)
        await interaction.edit_original_response(content="cards dealt")


def gnav_group() -> app_commands.Group:
    """The demo ``/gnav`` command group."""
    gnav = app_commands.Group(name="gnav", description="Play Gnav")

    @gnav.command(name="ping", description="Answer pong")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong")

    @gnav.command(name="secret", description="Answer only to the caller")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you can see this", ephemeral=True)

    @gnav.command(name="slow", description="Think, then answer")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.01)
        await interaction.followup.send("done thinking")
        await interaction.followup.send("one more thing")

    @gnav.command(name="board", description="Show the table")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Gnav table", view=BoardView(cards=(3, 7)))

    @gnav.command(name="say", description="Repeat a text")
    @app_commands.describe(text="What to say", times="How many times")
    async def say(interaction: discord.Interaction, text: str, times: int = 1) -> None:
        await interaction.response.send_message(" ".join([text] * times))

    @gnav.command(name="poke", description="Poke someone")
    async def poke(interaction: discord.Interaction, who: discord.Member) -> None:
        await interaction.response.send_message(f"{interaction.user.mention} pokes {who.mention}")

    @gnav.command(name="late", description="Answer too late")
    async def late(interaction: discord.Interaction) -> None:
        client = interaction.client
        assert isinstance(client, DemoBot)
        await asyncio.sleep(client.late_delay)
        try:
            await interaction.response.send_message("sorry, I was slow")
        except discord.HTTPException as error:
            client.errors.append(error)

    @gnav.command(name="where", description="Say where we are")
    async def where(interaction: discord.Interaction) -> None:
        channel = interaction.channel
        kind = type(channel).__name__
        parent = getattr(channel, "parent_id", None)
        await interaction.response.send_message(f"{kind} parent={parent}")

    return gnav


class DemoBot(discord.Client):
    """A bot with a ``/gnav`` group copied to one guild, a persistent view and a dynamic item."""

    def __init__(self, guild_id: int) -> None:
        # guild_ready_timeout: discord.py waits that long after the last GUILD_CREATE before
        # on_ready (2 s by default); the fake sends every GUILD_CREATE right after READY.
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.guild_id = guild_id
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(gnav_group())
        self.pressed: list[tuple[str, int]] = []
        self.errors: list[discord.HTTPException] = []
        self.late_delay = 0.0

    async def setup_hook(self) -> None:
        """Register the persistent view, the dynamic item and the guild commands."""
        self.add_view(BoardView())  # persistent: matched by custom_id, whatever the message
        self.add_dynamic_items(CardButton)
        self.tree.copy_global_to(guild=discord.Object(self.guild_id))


# --------------------------------------------------------------------------------------------
# Fixtures and helpers
# --------------------------------------------------------------------------------------------


@dataclass
class World:
    """Everything a test needs: the fake and the people and places in it."""

    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser  # DMs closed


@pytest.fixture
async def world() -> AsyncIterator[World]:
    """A started, installed fake with a guild, a channel, alice and bob (DMs closed)."""
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Gnav club")
        channel = fake.add_channel(guild, "gnav")
        alice = fake.add_user("alice", guilds=[guild])
        bob = fake.add_user("bob", guilds=[guild], dms_open=False)
        yield World(fake, guild, channel, alice, bob)
    # Every client was closed by `running`; nothing of discord.py or of the fake may be left.
    await asyncio.sleep(0)
    current = asyncio.current_task()
    pending = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert pending == [], pending


@contextlib.asynccontextmanager
async def running(world: World) -> AsyncIterator[DemoBot]:
    """Run a DemoBot with ``client.start(token)`` until READY; close it cleanly afterwards."""
    client = DemoBot(world.guild.id)
    task = asyncio.create_task(client.start(world.fake.token))
    try:
        await world.fake.wait_for(lambda: client.is_ready() or task.done(), timeout=5)
        if task.done():
            task.result()  # raise the start-up error
        yield client
    finally:
        await client.close()
        await asyncio.wait_for(task, timeout=5)
        # Let interaction tasks that already got their answer finish their bookkeeping.
        for _ in range(3):
            await asyncio.sleep(0)


async def synced(world: World, client: DemoBot) -> None:
    """Sync the bot's command tree to the test guild (a PUT the fake records)."""
    await client.tree.sync(guild=discord.Object(world.guild.id))


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


async def test_client_logs_in_and_reaches_ready_through_the_fake(world: World) -> None:
    """client.start(token) logs in over HTTP and reaches READY over the fake gateway."""
    fake = world.fake
    async with running(world) as client:
        assert client.user is not None and client.user.id == fake.bot.id
        assert client.application_id == fake.application_id
        guild = client.get_guild(world.guild.id)
        assert guild is not None and guild.name == "Gnav club"
        channel = guild.get_channel(world.channel.id)
        assert isinstance(channel, discord.TextChannel) and channel.name == "gnav"
        assert guild.me is not None  # the bot's own member came with GUILD_CREATE

        assert [c.path for c in fake.find_calls("GET")][:2] == [
            "/users/@me",
            "/oauth2/applications/@me",
        ]
        identify = fake.identify_payloads[0]
        assert identify["token"] == fake.token
        assert identify["intents"] == discord.Intents.default().value
        assert [f["op"] for f in fake.gateway_received][:2] == [1, 2]  # heartbeat, then IDENTIFY
        assert fake.gateway_connections == [
            {"v": "10", "encoding": "json", "compress": "zlib-stream"}
        ]
        assert fake.connected
        assert client.latency < 1  # the heartbeat was acknowledged (op 11)
    assert not fake.connected


async def test_tree_sync_to_a_guild_puts_the_commands(world: World) -> None:
    """tree.sync(guild=...) PUTs the /gnav group to the guild's commands."""
    fake = world.fake
    async with running(world) as client:
        commands = await client.tree.sync(guild=discord.Object(world.guild.id))
    put = fake.find_calls(
        "PUT", rf"/applications/{fake.application_id}/guilds/{world.guild.id}/commands"
    )
    assert len(put) == 1 and put[0].status == 200
    (gnav,) = fake.guild_commands(world.guild)
    assert gnav["name"] == "gnav" and gnav["guild_id"] == str(world.guild.id)
    subcommands = {o["name"]: o for o in gnav["options"]}
    assert {"ping", "secret", "slow", "board", "say", "poke"} <= set(subcommands)
    assert all(o["type"] == 1 for o in subcommands.values())
    assert [c.name for c in commands] == ["gnav"] and commands[0].id == int(gnav["id"])
    assert fake.global_commands() == []


async def test_slash_command_is_answered_and_ephemeral_answer_has_flag_64(world: World) -> None:
    """A slash command gets a type 4 answer; an ephemeral one carries flags 64."""
    fake = world.fake
    async with running(world) as client:
        await synced(world, client)
        iid = await fake.slash(world.alice, world.channel, "gnav", subcommand="ping")
        response = await fake.wait_for_response(iid)
        assert response["type"] == 4 and response["data"]["content"] == "pong"
        assert "flags" not in response["data"]
        assert not fake.interaction(iid).ephemeral
        (public,) = fake.messages_in(world.channel)
        assert public["content"] == "pong" and public["interaction_metadata"]["id"] == str(iid)

        secret = await fake.slash(world.alice, world.channel, "gnav", subcommand="secret")
        answer = await fake.wait_for_response(secret)
        assert answer["type"] == 4 and answer["data"]["flags"] & 64
        assert fake.interaction(secret).ephemeral
        assert [m["content"] for m in fake.messages_in(world.channel, include_ephemeral=False)] == [
            "pong"
        ]
        assert fake.messages_in(world.channel)[-1]["flags"] == 64

    # The payload discord.py's tree resolved: a type 2 interaction for the guild-registered group.
    payload = fake.interaction(iid).payload
    assert payload["type"] == 2 and payload["version"] == 1
    assert payload["data"]["guild_id"] == str(world.guild.id)
    assert payload["data"]["options"] == [{"type": 1, "name": "ping", "options": []}]
    assert payload["member"]["user"]["id"] == str(world.alice.id)


async def test_slash_options_are_typed_from_the_registered_command(world: World) -> None:
    """Options get the registered types; a user option comes with resolved data."""
    fake = world.fake
    async with running(world) as client:
        await synced(world, client)
        say = await fake.slash(
            world.alice, world.channel, "gnav", "say", {"text": "hei", "times": 2}
        )
        assert (await fake.wait_for_response(say))["data"]["content"] == "hei hei"
        poke = await fake.slash(world.alice, world.channel, "gnav", "poke", {"who": world.bob})
        assert (await fake.wait_for_response(poke))["data"]["content"] == (
            f"<@{world.alice.id}> pokes <@{world.bob.id}>"
        )
        with pytest.raises(ValueError, match="missing required"):
            await fake.slash(world.alice, world.channel, "gnav", "say", {})
        with pytest.raises(ValueError, match="no subcommand"):
            await fake.slash(world.alice, world.channel, "gnav", "fly")
    options = fake.interaction(poke).payload["data"]["options"][0]["options"]
    assert options == [{"name": "who", "type": 6, "value": str(world.bob.id)}]
    assert str(world.bob.id) in fake.interaction(poke).payload["data"]["resolved"]["members"]


async def test_deferred_response_then_followups(world: World) -> None:
    """defer(thinking=True), then followups: the first one completes the deferred message."""
    fake = world.fake
    async with running(world) as client:
        await synced(world, client)
        iid = await fake.slash(world.alice, world.channel, "gnav", subcommand="slow")
        assert (await fake.wait_for_response(iid))["type"] == 5
        record = fake.interaction(iid)
        await fake.wait_for(lambda: len(record.followup_ids) == 1)
    contents = [m["content"] for m in fake.messages_in(world.channel)]
    # The first followup completes the "thinking" message; the second is a new message.
    assert contents == ["done thinking", "one more thing"]
    original = fake.message(record.original_message_id or 0)
    assert original["content"] == "done thinking" and not original["flags"] & 128
    webhook_posts = fake.find_calls("POST", rf"/webhooks/{fake.application_id}/[^/]+")
    assert [c.status for c in webhook_posts] == [200, 200]
    assert webhook_posts[0].query["wait"] == "1"


async def test_persistent_view_and_dynamic_item_survive_a_restart(world: World) -> None:
    """Buttons of a persistent view and a DynamicItem still work after a new client starts."""
    fake = world.fake
    async with running(world) as client:
        await synced(world, client)
        iid = await fake.slash(world.alice, world.channel, "gnav", subcommand="board")
        await fake.wait_for_response(iid)
        board_id = fake.interaction(iid).original_message_id
        assert board_id is not None

        press = await fake.press(world.alice, world.channel, board_id, "gnav:board:swap")
        assert (await fake.wait_for_response(press))["type"] == 7
        assert fake.message(board_id)["content"] == "alice swapped"
        assert client.pressed == [("swap", world.alice.id)]

    async with running(world) as restarted:  # a new process: only setup_hook's registrations
        press = await fake.press(world.bob, world.channel, board_id, "gnav:board:swap")
        assert (await fake.wait_for_response(press))["type"] == 7
        card = await fake.press(world.bob, world.channel, board_id, "gnav:card:7")
        answer = await fake.wait_for_response(card)
        assert answer["data"]["content"] == "you picked card 7" and answer["data"]["flags"] == 64
        assert restarted.pressed == [("swap", world.bob.id), ("card7", world.bob.id)]
    assert fake.message(board_id)["content"] == "bob swapped"
    assert len(fake.identify_payloads) == 2
    with pytest.raises(LookupError):
        await fake.press(world.bob, world.channel, board_id, "gnav:card:99")


async def test_dm_to_a_user_with_closed_dms_raises_forbidden_50007(world: World) -> None:
    """A DM to a user who closed DMs raises discord.Forbidden with code 50007."""
    fake = world.fake
    async with running(world) as client:
        open_dm = await client.create_dm(discord.Object(world.alice.id))
        await open_dm.send("your turn")
        closed_dm = await client.create_dm(discord.Object(world.bob.id))
        with pytest.raises(discord.Forbidden) as caught:
            await closed_dm.send("your turn")
        # A slash command used in the DM with the bot: the payload has `user`, not `member`.
        iid = await fake.slash(world.alice, fake.dm_channel(world.alice), "gnav", "ping")
        assert (await fake.wait_for_response(iid))["data"]["content"] == "pong"
    assert caught.value.code == 50007 and caught.value.status == 403
    assert caught.value.text == "Cannot send messages to this user"
    assert [m["content"] for m in fake.dms_to(world.alice)] == ["your turn", "pong"]
    assert fake.dms_to(world.bob) == []
    payload = fake.interaction(iid).payload
    assert "member" not in payload and payload["user"]["id"] == str(world.alice.id)
    assert payload["context"] == 1 and "guild_id" not in payload["data"]


async def test_a_429_is_retried_by_discord_py(world: World) -> None:
    """An injected 429 is slept off and retried by discord.py's own HTTP client."""
    fake = world.fake
    async with running(world) as client:
        channel = client.get_channel(world.channel.id)
        assert isinstance(channel, discord.TextChannel)
        rule = fake.inject_rate_limit(r"/channels/\d+/messages", method="POST", retry_after=0.2)
        started = time.monotonic()
        sent = await channel.send("after the rate limit")
        elapsed = time.monotonic() - started
    assert rule.hits == 1 and elapsed >= 0.2
    posts = fake.find_calls("POST", rf"/channels/{world.channel.id}/messages")
    assert [c.status for c in posts] == [429, 200]
    assert posts[0].response == {
        "message": "You are being rate limited.",
        "retry_after": 0.2,
        "global": False,
    }
    assert sent.content == "after the rate limit"


async def test_an_interaction_answered_twice_is_refused_40060(world: World) -> None:
    """A second acknowledgement of an interaction is refused with 400/40060."""
    fake = world.fake
    async with running(world) as client:
        await synced(world, client)
        iid = await fake.slash(world.alice, world.channel, "gnav", subcommand="ping")
        await fake.wait_for_response(iid)
        # A second Interaction object for the same payload (as a second worker would have).
        payload = cast(Any, fake.interaction(iid).payload)  # a JSON dict, not the TypedDict
        again = discord.Interaction(data=payload, state=client._connection)
        with pytest.raises(discord.HTTPException) as caught:
            await again.response.send_message("pong again")
    assert caught.value.status == 400 and caught.value.code == 40060
    assert caught.value.text == "Interaction has already been acknowledged."
    assert len(fake.interaction(iid).refused) == 1


async def test_an_interaction_answered_after_the_deadline_is_unknown_10062(world: World) -> None:
    """An acknowledgement after the deadline is refused with 404/10062."""
    fake = world.fake
    fake.ack_deadline = 0.1  # Discord's 3 seconds, shortened to keep the test fast
    async with running(world) as client:
        await synced(world, client)
        client.late_delay = 0.25
        iid = await fake.slash(world.alice, world.channel, "gnav", subcommand="late")
        await fake.wait_for(lambda: client.errors)
    (error,) = client.errors
    assert isinstance(error, discord.NotFound) and error.code == 10062
    assert error.text == "Unknown interaction"
    assert not fake.interaction(iid).acknowledged


async def test_invalid_form_bodies_are_refused_50035(world: World) -> None:
    """Over-long content, custom_id, label and too many rows get 400/50035."""
    fake = world.fake
    async with running(world) as client:
        channel = client.get_channel(world.channel.id)
        assert isinstance(channel, discord.TextChannel)
        with pytest.raises(discord.HTTPException) as too_long:
            await channel.send("x" * 2001)
        view = discord.ui.View(timeout=None)
        view.add_item(discord.ui.Button(label="a" * 81, custom_id="c" * 101))
        with pytest.raises(discord.HTTPException) as bad_button:
            await channel.send("buttons", view=view)
        rows = [
            {"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": f"{r}"}]}
            for r in range(6)
        ]
        route = discord.http.Route(
            "POST", "/channels/{channel_id}/messages", channel_id=world.channel.id
        )
        with pytest.raises(discord.HTTPException) as six_rows:
            await client.http.request(route, json={"content": "rows", "components": rows})
    assert too_long.value.status == 400 and too_long.value.code == 50035
    assert "In content: Must be 2000 or fewer in length." in too_long.value.text
    assert bad_button.value.code == 50035
    assert (
        "components.0.components.0.custom_id: Must be 100 or fewer in length."
        in bad_button.value.text
    )
    assert (
        "components.0.components.0.label: Must be 80 or fewer in length." in bad_button.value.text
    )
    assert (
        six_rows.value.code == 50035 and "In components: Must be 5 or fewer" in six_rows.value.text
    )
    assert fake.messages_in(world.channel) == []


async def test_an_interaction_in_a_thread(world: World) -> None:
    """A slash command in a thread (type 11 with parent_id) is answered in the thread."""
    fake = world.fake
    thread = fake.add_thread(world.channel, "game 1")
    async with running(world) as client:
        await synced(world, client)
        assert isinstance(client.get_channel(thread.id), discord.Thread)
        iid = await fake.slash(world.alice, thread, "gnav", subcommand="where")
        answer = await fake.wait_for_response(iid)
    assert answer["data"]["content"] == f"Thread parent={world.channel.id}"
    (message,) = fake.messages_in(thread)
    assert message["channel_id"] == str(thread.id)
    assert fake.interaction(iid).payload["channel"]["type"] == 11


async def test_gateway_reconnect_resumes_the_session(world: World) -> None:
    """After op 7 RECONNECT, discord.py RESUMEs (no new IDENTIFY) and keeps working."""
    fake = world.fake
    async with running(world) as client:
        await synced(world, client)
        await fake.request_reconnect()
        await fake.wait_for(lambda: any(f["op"] == 6 for f in fake.gateway_received))
        await fake.wait_until_connected()
        iid = await fake.slash(world.alice, world.channel, "gnav", subcommand="ping")
        assert (await fake.wait_for_response(iid))["data"]["content"] == "pong"
    assert len(fake.identify_payloads) == 1  # resumed, not re-identified


async def test_the_fake_requires_the_bot_token(world: World) -> None:
    """REST calls without the bot token get 401, like on Discord."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{world.fake.api_base}/users/@me") as response:
            assert response.status == 401
            assert await response.json() == {"message": "401: Unauthorized", "code": 0}
        headers = {"Authorization": f"Bot {world.fake.token}"}
        async with session.get(f"{world.fake.api_base}/gateway/bot", headers=headers) as response:
            assert (await response.json())["url"] == world.fake.gateway_url


async def test_a_deferred_button_update_then_edit_original_response(world: World) -> None:
    """A button answered with type 6, then the message edited through @original."""
    fake = world.fake
    async with running(world) as client:
        await synced(world, client)
        iid = await fake.slash(world.alice, world.channel, "gnav", subcommand="board")
        await fake.wait_for_response(iid)
        board_id = fake.interaction(iid).original_message_id or 0
        press = await fake.press(world.alice, world.channel, board_id, "gnav:board:deal")
        assert await fake.wait_for_response(press) == {"type": 6}
        await fake.wait_for(lambda: fake.message(board_id)["content"] == "cards dealt")
    edit = fake.find_calls("PATCH", rf"/webhooks/{fake.application_id}/[^/]+/messages/@original")
    assert [c.status for c in edit] == [200]
    pressed = fake.interaction(press).payload
    assert pressed["type"] == 3 and pressed["data"]["component_type"] == 2
    assert pressed["data"]["custom_id"] == "gnav:board:deal"
    assert pressed["message"]["id"] == str(board_id)


async def test_privileged_intents_not_enabled_are_refused_4014() -> None:
    """IDENTIFY with privileged intents the app lacks is closed with 4014."""
    async with FakeDiscord(privileged_intents=0) as fake:
        client = discord.Client(intents=discord.Intents.all())
        with pytest.raises(discord.PrivilegedIntentsRequired):
            await asyncio.wait_for(client.start(fake.token), timeout=5)
        await client.close()  # discord.py raises 4014 without closing its HTTP session
        assert fake.identify_payloads[0]["intents"] == discord.Intents.all().value
        assert not fake.connected
