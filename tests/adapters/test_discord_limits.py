"""Discord's per-channel message buckets (issue 17): the fake enforces them with the headers
discord.py learns them from, and the bot keeps them: a table edited faster than its channel's
bucket allows waits in discord.py's bucket instead of meeting a 429, and shows its newest
state; a private message is not held up by the channel's bucket."""

from __future__ import annotations

import asyncio

import aiohttp

from bot.service.ports import Delivery, Screen
from storage.memory import MemoryRepository
from tests.adapters.test_discord_play import fake_world, running_bot
from tests.fakes.discord_api import ChannelLimit


async def test_table_edits_keep_the_channels_bucket_and_a_dm_is_not_held_up() -> None:
    limit = ChannelLimit(limit=5, per=2.0)
    async with (
        fake_world(channel_limit=limit) as world,
        running_bot(world, MemoryRepository()) as bot,
    ):
        n = bot.platform.notifier
        channel = f"discord:{world.channel.id}"
        ref = await n.post(channel, Screen("state 0"))
        assert ref is not None

        async def edits() -> None:
            for i in range(1, 13):  # more than two buckets' worth, as fast as it lets us
                assert await n.edit(channel, ref, Screen(f"state {i}"))

        editing = asyncio.create_task(edits())
        # While the edits wait for the channel's bucket, a DM goes: another channel's.
        dm = await n.tell(f"discord:{world.alice.id}", Screen("your turn"))
        assert dm is Delivery.DELIVERED and not editing.done()
        await editing
        edits = [c for c in world.fake.calls if c.method == "PATCH" and "/messages/" in c.path]
        assert [c.status for c in edits] == [200] * 12  # discord.py waited, no 429
        assert world.fake.bucket_refusals.get(world.channel.id, 0) == 0
        assert world.fake.message(int(ref))["content"].startswith("state 12")


async def test_the_fake_refuses_a_sixth_send_within_the_channels_window() -> None:
    """The fake's bucket, by plain HTTP (no discord.py to keep it): five sends to a channel
    pass with the remaining count going down, the sixth is a 429 naming the time left; another
    channel has a bucket of its own."""
    async with fake_world(channel_limit=ChannelLimit(limit=5, per=60.0)) as world:
        fake = world.fake
        other = fake.add_channel(world.guild, "other")
        auth = {"Authorization": f"Bot {fake.token}"}
        async with aiohttp.ClientSession() as http:

            async def send(channel_id: int) -> aiohttp.ClientResponse:
                url = f"{fake.api_base}/channels/{channel_id}/messages"
                async with http.post(url, json={"content": "hi"}, headers=auth) as response:
                    await response.read()
                    return response

            left = [
                (await send(world.channel.id)).headers["X-RateLimit-Remaining"] for _ in range(5)
            ]
            assert left == ["4", "3", "2", "1", "0"]
            refused = await send(world.channel.id)
            assert refused.status == 429
            assert 0 < float(refused.headers["X-RateLimit-Reset-After"]) <= 60
            assert (await send(other.id)).status == 200
        assert fake.bucket_refusals == {world.channel.id: 1}
