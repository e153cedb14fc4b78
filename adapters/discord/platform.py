"""`DiscordPlatform`: the Discord adapter's wiring in one place, as `gnav-bot run` starts it.

`start` logs in (a rejected token is a `PlatformError`, never a traceback), lets `setup_hook`
register the `/gnav` commands and the persistent button handler and sync the commands, then
runs the gateway connection as a background task until READY. No privileged intent is asked
for: slash commands and buttons arrive as interactions whatever the intents.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import aiohttp
import discord
from discord import app_commands

from adapters.discord.buttons import GnavButton
from adapters.discord.commands import gnav_group
from adapters.discord.interactions import InteractionHandler
from adapters.discord.notifier import DiscordNotifier
from adapters.discord.sync import sync_commands
from bot.config import BotSettings
from bot.service.ports import PlatformError, PlatformMisconfigured, PlatformUnreachable
from bot.service.retry import retry_unreachable
from bot.service.service import TableService

log = logging.getLogger(__name__)

# The bot has no voice: discord.py's warnings that PyNaCl and davey (voice libraries) are
# missing would only worry whoever reads the log.
discord.VoiceClient.warn_nacl = False
if hasattr(discord.VoiceClient, "warn_dave"):
    discord.VoiceClient.warn_dave = False

#: What the bot needs in a channel: see it, post and edit its table messages (also in
#: threads), attach the exported record, read the history its own messages are part of.
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    attach_files=True,
    read_message_history=True,
)
#: The OAuth2 scopes of the invite link.
SCOPES = ("bot", "applications.commands")


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with its scopes and permissions."""
    return discord.utils.oauth_url(application_id, permissions=BOT_PERMISSIONS, scopes=SCOPES)


class _SetupFailed(Exception):
    """`setup_hook` could not register the commands; the message is for people."""


class _Hooks:
    """`setup_hook` for both client classes: the platform registers what it needs."""

    platform: DiscordPlatform
    gnav_handler: InteractionHandler

    async def setup_hook(self) -> None:
        """Called by discord.py once logged in, before the gateway connects."""
        assert isinstance(self, discord.Client)
        await self.platform.setup(self)


class GnavClient(_Hooks, discord.Client):
    """One gateway connection (enough below 2,500 servers)."""


class ShardedGnavClient(_Hooks, discord.AutoShardedClient):
    """As many shards as Discord recommends (DISCORD_SHARDED=true)."""


class DiscordPlatform:
    """Discord for `gnav-bot run`: `notifier` now, `start(service)`, `stop()`.

    Args:
        settings: DISCORD_TOKEN, DISCORD_GUILD_ID, DISCORD_SHARDED and DISCORD_SYNC are read.
        defer_after: seconds a command may take before its interaction is deferred.
        ready_timeout: seconds to wait for READY before giving up.
        stop_timeout: seconds `stop` waits for interactions and queued messages.
        client_options: extra discord.py client options (tests: `guild_ready_timeout`).
    """

    name = "discord"

    def __init__(
        self,
        settings: BotSettings,
        *,
        defer_after: float = 2.0,
        ready_timeout: float = 60.0,
        stop_timeout: float = 10.0,
        client_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.settings = settings
        self.defer_after = defer_after
        self.ready_timeout = ready_timeout
        self.stop_timeout = stop_timeout
        self.client_options = dict(client_options or {})
        self.notifier = DiscordNotifier(wait=ready_timeout)
        self.service: TableService | None = None
        self.handler: InteractionHandler | None = None
        self.client: discord.Client | None = None
        self.tree: app_commands.CommandTree[Any] | None = None
        self.synced: bool | None = None  # whether the last start synced the commands
        self._gateway: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ start
    async def start(self, service: TableService) -> None:
        """Log in, register and sync the commands, connect; PlatformError when that fails."""
        secret = self.settings.discord_token
        token = secret.get_secret_value().strip() if secret is not None else ""
        if not token:
            raise PlatformMisconfigured("Discord: DISCORD_TOKEN is not set")
        self.service = service
        service.set_command_prefix("discord", "/gnav ")
        self.handler = InteractionHandler(
            service,
            defer_after=self.defer_after,
            pulled=self.notifier.remember_pulled,
            pressing=self.notifier.pressing,
        )
        try:
            # No network yet (a boot, an outage): logging in is tried again for a while.
            client = await retry_unreachable(
                "discord",
                lambda: self._login_new_client(token),
                self.settings.startup_retry_seconds,
            )
            self.notifier.attach(client)
            await self._connect(client)
        except BaseException:
            self.notifier.detach()
            await self._close_client()
            raise
        assert client.user is not None
        log.info(
            "Discord: logged in as %s (application %s) in %d server(s); invite link: %s",
            client.user,
            client.application_id,
            len(client.guilds),
            invite_url(client.application_id or client.user.id),
        )

    async def _login_new_client(self, token: str) -> discord.Client:
        """A new client, logged in (a client whose login failed is closed first)."""
        await self._close_client()
        s = self.settings
        shards: dict[str, Any] = {}
        if s.discord_shard_count is not None:
            # Shards split over processes: this one runs DISCORD_SHARD_IDS of the count.
            shards = {"shard_count": s.discord_shard_count, "shard_ids": s.shard_ids}
        cls = ShardedGnavClient if s.discord_sharded or shards else GnavClient
        client = cls(
            intents=discord.Intents(guilds=True),  # no privileged intent
            allowed_mentions=discord.AllowedMentions.none(),
            # The notifier sees when Discord answered an edit (not after discord.py's wait).
            http_trace=self.notifier.trace,
            **shards,
            **self.client_options,
        )
        client.platform = self
        assert self.handler is not None
        client.gnav_handler = self.handler
        self.client = client
        await self._login(client, token)
        return client

    async def _login(self, client: discord.Client, token: str) -> None:
        try:
            await client.login(token)
        except discord.LoginFailure:
            raise PlatformMisconfigured(
                "Discord refused DISCORD_TOKEN (401 Unauthorized): copy the bot's token "
                "again from the Developer Portal (your application > Bot > Reset Token)"
            ) from None
        except _SetupFailed as exc:
            raise PlatformError(str(exc)) from None
        except discord.DiscordServerError as exc:  # a 5xx: Discord is having an outage
            raise PlatformUnreachable(
                f"Discord: logging in failed (HTTP {exc.status}, code {exc.code}): {exc.text}"
            ) from None
        except discord.HTTPException as exc:
            raise PlatformError(
                f"Discord: logging in failed (HTTP {exc.status}, code {exc.code}): {exc.text}"
            ) from None
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            raise PlatformUnreachable(
                f"Discord cannot be reached ({type(exc).__name__}): check the network"
            ) from None

    async def _connect(self, client: discord.Client) -> None:
        self._gateway = asyncio.create_task(client.connect(reconnect=True), name="discord-gateway")
        ready = asyncio.ensure_future(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {self._gateway, ready},
            timeout=self.ready_timeout,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if ready in done:
            self._gateway.add_done_callback(_gateway_ended)
            return
        ready.cancel()
        if self._gateway in done:
            exc = self._gateway.exception()
            if isinstance(exc, discord.PrivilegedIntentsRequired):
                raise PlatformError("Discord refused the gateway intents (4014)") from None
            raise PlatformError(
                f"Discord: the gateway connection ended before READY ({type(exc).__name__}: {exc})"
            ) from None
        raise PlatformError(f"Discord: no READY from the gateway within {self.ready_timeout:g} s")

    async def setup(self, client: discord.Client) -> None:
        """`setup_hook`: the command tree, the persistent button handler, the command sync."""
        assert self.handler is not None
        tree: app_commands.CommandTree[Any] = app_commands.CommandTree(client)
        guild_id = self.settings.discord_guild_id
        if guild_id is not None:
            tree.add_command(gnav_group(self.handler), guild=discord.Object(guild_id))
        else:
            tree.add_command(gnav_group(self.handler))
        # Every table button, whichever process sent it, is routed by its custom_id.
        client.add_dynamic_items(GnavButton)
        self.tree = tree
        try:
            self.synced = await sync_commands(tree, guild_id, self.settings.discord_sync)
        except discord.Forbidden as exc:
            where = f"server {guild_id}" if guild_id is not None else "Discord"
            raise _SetupFailed(
                f"Discord: the /gnav commands cannot be registered in {where} "
                f"(HTTP 403, code {exc.code}): invite the bot to that server with the "
                "applications.commands scope, or check DISCORD_GUILD_ID"
            ) from None
        except discord.HTTPException as exc:
            raise _SetupFailed(
                f"Discord: registering the /gnav commands failed (HTTP {exc.status}, "
                f"code {exc.code}): {exc.text}"
            ) from None

    # ------------------------------------------------------------------ stop
    async def stop(self) -> None:
        """Take no new interactions, let those under way be answered, send what is queued,
        then close the connection."""
        if self.client is None:
            return
        if self.handler is not None:
            self.handler.closing = True
            await self.handler.wait_idle(self.stop_timeout)
        if self.service is not None:
            # The runner drains the outbox after every platform stopped; Discord's messages
            # must go out before the connection closes. Waiting does not cancel the drain.
            drain = asyncio.ensure_future(self.service.drain())
            await asyncio.wait({drain}, timeout=self.stop_timeout)
        self.notifier.detach()
        await self._close_client()

    async def _close_client(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            await client.close()
        gateway, self._gateway = self._gateway, None
        if gateway is not None:
            # close() ends connect(); the task's outcome was logged by _gateway_ended.
            await asyncio.wait({gateway}, timeout=self.stop_timeout)
            if gateway.done() and not gateway.cancelled():
                gateway.exception()  # retrieved: a failure before READY was reported already


def _gateway_ended(task: asyncio.Task[None]) -> None:
    """Log a gateway connection that ended with an error after READY (discord.py reconnects
    by itself; an error here means it gave up)."""
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.error("Discord: the gateway connection ended: %s: %s", type(exc).__name__, exc)
