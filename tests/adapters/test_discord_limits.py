"""Discord's per-channel message buckets (issue 17): the fake enforces them with the headers
discord.py learns them from, and the bot keeps them: a table edited faster than its channel's
bucket allows waits in discord.py's bucket instead of meeting a 429, and shows its newest
state; a private message is not held up by the channel's bucket."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import aiohttp
import pytest

from bot.service.commands import Configure, Join, Open, Start
from bot.service.ports import Delivery, Screen
from bot.service.table import TableKey, User
from storage.memory import MemoryRepository
from tests.adapters.test_discord_play import fake_world, running_bot
from tests.fakes.discord_api import ChannelLimit, FakeDiscord


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
        # discord.py waited, no 429 (edits made while the bucket was spent waited apart,
        # the newest of the message only: latest state wins).
        assert edits and all(c.status == 200 for c in edits)
        assert world.fake.bucket_refusals.get(world.channel.id, 0) == 0
        await world.fake.wait_for(
            lambda: world.fake.message(int(ref))["content"].startswith("state 12"), timeout=30
        )


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


def _tokens(message: dict[str, object]) -> set[str]:
    rows = message.get("components") or []
    return {c["custom_id"] for r in rows for c in r["components"] if c.get("custom_id")}  # type: ignore[index, union-attr]


class AnsweredFirst(MemoryRepository):
    """A store that commits a table only once `answered` presses were acknowledged: a slow
    command, whose press the platform acknowledged before its commit."""

    fake: FakeDiscord | None = None
    answered = 0

    async def save_table(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Wait for the acknowledgements, then save."""
        fake = self.fake
        if fake is not None:
            await fake.wait_for(
                lambda: (
                    sum(1 for c in fake.calls if c.path.endswith("/callback") and c.status < 300)
                    >= self.answered
                ),
                timeout=30,
            )
        return await super().save_table(*args, **kwargs)


@pytest.mark.parametrize("defer_after", [2.0, 0.0])
async def test_a_press_in_a_dm_shows_the_pressers_next_screen_by_its_own_response(
    defer_after: float,
) -> None:
    """Issue 17, point 2: a press on their newest DM hand that leaves the presser deciding (a
    give that follows a give, the winner of a trick leading) updates the pressed message
    itself, by the press's interaction (no request of the DM channel's bucket of 5 sends per
    5 s), to exactly the presser's current choices; the outbox sends that screen once (no DM
    after it); a press that ends the presser's turn is answered silently (type 6) and the next
    decider gets a DM. Answered before its screen was committed (`defer_after` 0: the press
    is acknowledged at once, and its commit waits for that), the screen edits the press's
    original message (the pressed one) through the interaction's webhook instead of
    responding (type 7). The first deal of a Karnaval game of three people who play from
    their newest DM."""
    repo = AnsweredFirst()
    async with (
        fake_world() as world,
        running_bot(world, repo, defer_after=defer_after) as bot,
    ):
        fake, service = world.fake, bot.service
        erin = fake.add_user("erin", guilds=[world.guild])
        people = [world.alice, world.carl, erin]
        users = {p.id: User(f"discord:{p.id}", p.username) for p in people}
        tk = TableKey("discord", str(world.channel.id))
        assert (await service.handle(Open(tk, users[world.alice.id], game="karnaval"))).ok
        for p in people[1:]:
            assert (await service.handle(Join(tk, users[p.id]))).ok
        assert (
            await service.handle(Configure(tk, users[world.alice.id], ["bots=0", "delay=60"]))
        ).ok
        assert (await service.handle(Start(tk, users[world.alice.id]))).ok
        rng = random.Random(3)
        updated = silent = 0
        for _ in range(120):
            await bot.settle()
            table = await bot.table(world.channel)
            if table.match.k.deals and table.match.k.deals[0].complete:
                break
            for person in people:
                mine = {c.token for c in await service.choices_of(users[person.id])}
                if mine:
                    break
            else:
                raise AssertionError("nobody decides")
            dm = fake.dm_channel(person)
            newest = fake.dms_to(person)[-1]
            assert _tokens(newest) == mine  # the newest DM shows the current choices
            posted = len(fake.dms_to(person))
            webhook_edits = len(fake.find_calls("PATCH", r"/webhooks/.*/messages/@original"))
            if not defer_after:
                repo.fake = fake
                repo.answered = len(fake.find_calls("POST", r"/interactions/.*/callback")) + 1
            iid = await fake.press(person, dm, int(newest["id"]), rng.choice(sorted(mine)))
            response = await fake.wait_for_response(iid)
            assert bot.platform.handler is not None
            await bot.platform.handler.wait_idle(30)  # the press's command is done
            await bot.settle()
            after = {c.token for c in await service.choices_of(users[person.id])}
            edited = len(fake.find_calls("PATCH", r"/webhooks/.*/messages/@original"))
            if after:  # still deciding: the pressed message shows it, no new DM
                updated += 1
                assert _tokens(fake.message(int(newest["id"]))) == after
                assert len(fake.dms_to(person)) == posted
                if defer_after:
                    assert response["type"] == 7 and _tokens(response["data"]) == after
                    assert edited == webhook_edits
                else:
                    assert response == {"type": 6} and edited == webhook_edits + 1
            else:
                silent += 1
                assert response == {"type": 6} and edited == webhook_edits
                assert len(fake.dms_to(person)) == posted
        assert updated and silent


async def test_a_post_after_an_edit_that_spent_the_edit_bucket_does_not_wait_for_it() -> None:
    """Issue 31: posts and edits of a channel are buckets of their own. An edit whose answer
    leaves the edit bucket spent returns once Discord answered it (discord.py then waits for
    the bucket's reset in the background), and an edit made while the bucket is spent waits
    for it apart (the newest of its message) and returns at once, so the post after it in
    the channel's lane (a deal's last state, then its result) reaches Discord while the edit
    bucket is still spent; the edit follows once the bucket resets, without a 429."""
    limit = ChannelLimit(limit=5, per=5.0)
    async with (
        fake_world(channel_limit=limit) as world,
        running_bot(world, MemoryRepository()) as bot,
    ):
        n = bot.platform.notifier
        fake = world.fake
        channel = f"discord:{world.channel.id}"
        ref = await n.post(channel, Screen("state 0"))
        assert ref is not None
        for i in range(1, 6):  # the fifth answer says the edit bucket is spent
            assert await n.edit(channel, ref, Screen(f"state {i}"))
        assert await n.post(channel, Screen("a post"))  # right after the fifth edit
        assert await n.edit(channel, ref, Screen("the deal's last state"))  # bucket spent
        assert await n.post(channel, Screen("the deal's result")) is not None
        posted = [c for c in fake.calls if c.method == "POST" and c.path.endswith("/messages")]
        # The edit bucket's window (the fake's own): still the spent one when the posts came.
        reset_at, spent = fake._channel_buckets[(world.channel.id, "PATCH")]
        assert spent == limit.limit and posted[-2].at < reset_at and posted[-1].at < reset_at
        await fake.wait_for(
            lambda: fake.message(int(ref))["content"].startswith("the deal's last state"),
            timeout=30,
        )
        edits = [c for c in fake.calls if c.method == "PATCH" and "/messages/" in c.path]
        assert [c.status for c in edits] == [200] * 6 and edits[-1].at >= reset_at
        assert fake.bucket_refusals.get(world.channel.id, 0) == 0
