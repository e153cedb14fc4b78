"""`DiscordNotifier`: the service's `Notifier` over discord.py's REST client.

Table messages are posted to and edited in the table's channel (a thread is a channel of its
own); message refs are message ids. Private pieces go by DM; a DM Discord refuses (403, code
50007: DMs closed or the bot blocked) is UNREACHABLE, which the service never retries. Rate
limits are discord.py's business: it sleeps off a 429 and retries. An edit that would show
exactly what a channel's table message already shows is not sent: Discord accepts it, but it
costs a request against the same limits (the outbox renders a table when its edit goes out, so
two edits queued around a DM show the same state).

A screen's picture (a score sheet) is attached to its message as a file; an edit changes the
text and buttons and keeps the attachment.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import time
from typing import Any

import aiohttp
import discord

from adapters.discord.buttons import build_view, render_text
from bot.service.ports import Delivery, MessageGone, Screen
from bot.service.table import TableKey

log = logging.getLogger(__name__)

#: Seconds an ephemeral hand is refreshed (Discord's interaction tokens last 15 minutes).
PULLED_FOR = 14 * 60.0

NO_MENTIONS = discord.AllowedMentions.none()


class DiscordNotifier:
    """Posts, edits and DMs through a logged-in discord.py client.

    It exists before the client does (the runner restores tables, and queues their messages,
    before platforms start): calls made before `attach` wait for it, up to `wait` seconds.
    """

    def __init__(self, *, wait: float = 60.0) -> None:
        self.wait = wait
        self._client: discord.Client | None = None
        self._closed = False
        self._changed = asyncio.Event()
        #: channel key -> (message ref, digest of the screen it shows), the newest message only.
        self._shown: dict[str, tuple[str, bytes]] = {}
        #: user key -> (interaction, until): the ephemeral hand last shown to a player whose
        #: DMs are closed, refreshed in place while its interaction token lives (15 minutes).
        self._pulled: dict[str, tuple[discord.Interaction[Any], float]] = {}

    def remember_pulled(self, user: str, interaction: discord.Interaction[Any]) -> None:
        """`user`'s private hand is shown ephemerally by `interaction` ("My hand"): `tell`
        refreshes that message from now on instead of trying a DM."""
        self._pulled[user] = (interaction, time.monotonic() + PULLED_FOR)

    def refreshes(self, user: str) -> bool:
        """True while `user` has an ephemeral hand this notifier can refresh."""
        found = self._pulled.get(user)
        if found is not None and found[1] < time.monotonic():
            del self._pulled[user]
            return False
        return found is not None

    def attach(self, client: discord.Client) -> None:
        """Send through `client` from now on (it is logged in)."""
        self._client = client
        self._closed = False
        self._changed.set()

    def detach(self) -> None:
        """Stop sending: later calls fail at once instead of waiting."""
        self._client = None
        self._closed = True
        self._changed.set()

    async def _ready(self) -> discord.Client | None:
        if self._client is None and not self._closed:
            try:
                await asyncio.wait_for(self._changed.wait(), self.wait)
            except TimeoutError:
                log.warning("Discord is not connected: a message was not sent")
        return self._client

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Post a message with the screen's buttons; its id is the ref."""
        client = await self._ready()
        if client is None:
            return None
        target = client.get_partial_messageable(_channel_id(channel))
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
        view = build_view(screen)
        if view is not None:
            kwargs["view"] = view
        if screen.image is not None:
            image = screen.image
            kwargs["file"] = discord.File(io.BytesIO(image.data), filename=image.filename)
        try:
            message = await target.send(render_text(screen.text, screen.blocks), **kwargs)
        except discord.HTTPException as exc:
            log.warning("posting in %s failed: %s %s", channel, exc.status, exc.text)
            return None
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.warning("posting in %s failed: %s", channel, type(exc).__name__)
            return None
        self._shown[channel] = (str(message.id), _digest(screen))
        return str(message.id)

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Replace the message's text and buttons (no buttons: they are removed)."""
        digest = _digest(screen)
        if self._shown.get(channel) == (message_ref, digest):
            return True  # already shown: an identical edit would only spend a request
        client = await self._ready()
        if client is None:
            return False
        target = client.get_partial_messageable(_channel_id(channel))
        message = target.get_partial_message(int(message_ref))
        try:
            await message.edit(
                content=render_text(screen.text, screen.blocks),
                view=build_view(screen),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.NotFound as exc:
            if exc.code == 10008:  # Unknown Message: someone deleted it
                raise MessageGone(message_ref) from None
            log.warning(
                "editing %s in %s failed: %s %s", message_ref, channel, exc.status, exc.text
            )
            return False
        except discord.HTTPException as exc:
            log.warning(
                "editing %s in %s failed: %s %s", message_ref, channel, exc.status, exc.text
            )
            return False
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.warning("editing %s in %s failed: %s", message_ref, channel, type(exc).__name__)
            return False
        shown = self._shown.get(channel)
        if shown is None or shown[0] == message_ref:  # an older message's freeze is not kept
            self._shown[channel] = (message_ref, digest)
        return True

    async def _refresh_pulled(self, user: str, screen: Screen) -> None:
        """Show `screen` in the ephemeral hand `user` pulled last (with its buttons)."""
        interaction, _ = self._pulled[user]
        view = build_view(screen)
        try:
            await interaction.edit_original_response(
                content=render_text(screen.text), view=view, allowed_mentions=NO_MENTIONS
            )
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.info("refreshing the hand of %s failed (%s): forgotten", user, exc)
            self._pulled.pop(user, None)
        finally:
            if view is not None:
                view.stop()  # presses are routed by the registered DynamicItem

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """DM a player; a refusal (403, e.g. 50007 DMs closed) is for good, other errors pass."""
        client = await self._ready()
        if client is None:
            return Delivery.FAILED
        if self.refreshes(user):
            await self._refresh_pulled(user, screen)
            return Delivery.UNREACHABLE  # still unreachable by DM
        try:
            dm = await client.create_dm(discord.Object(_user_id(user)))
            kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
            view = build_view(screen)  # a private hand: its buttons work from the DM
            if view is not None:
                kwargs["view"] = view
            try:
                await dm.send(render_text(screen.text, screen.blocks), **kwargs)
            finally:
                if view is not None:
                    view.stop()  # presses are routed by the registered DynamicItem
        except discord.Forbidden as exc:
            log.info("DMs to %s are refused (%s): the view button is their way", user, exc.code)
            return Delivery.UNREACHABLE
        except discord.NotFound:
            return Delivery.UNREACHABLE  # 10013: no such user
        except discord.HTTPException as exc:
            log.warning("DM to %s failed: %s %s", user, exc.status, exc.text)
            return Delivery.FAILED
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.warning("DM to %s failed: %s", user, type(exc).__name__)
            return Delivery.FAILED
        return Delivery.DELIVERED


def _digest(screen: Screen) -> bytes:
    """A short fingerprint of what a screen shows (text, labels and tokens)."""
    return hashlib.blake2b(repr(screen).encode(), digest_size=16).digest()


def _channel_id(table_key: str) -> int:
    """A table key (`discord:<channel id>`) to the channel's id."""
    return int(TableKey.parse(table_key).chat)


def _user_id(user_key: str) -> int:
    """A user key (`discord:<user id>`) to the user's id."""
    return int(user_key.partition(":")[2])
