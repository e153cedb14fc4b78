"""A local fake of Discord: its HTTP API and its gateway, for end-to-end tests of discord.py bots.

``FakeDiscord`` is an aiohttp application on ``127.0.0.1`` (ephemeral port) that speaks enough of
Discord's REST API (v9/v10) and of the gateway websocket protocol for the *real*
``discord.Client.start(token)`` to log in, connect, reach READY, sync application commands and
answer interactions, without any network access::

    async with FakeDiscord() as fake:          # starts the server, points discord.py at it
        guild = fake.add_guild("Gnav club")
        channel = fake.add_channel(guild, "gnav")
        alice = fake.add_user("alice", guilds=[guild])
        client = MyBot(intents=discord.Intents.default())
        task = asyncio.create_task(client.start(fake.token))
        await client.wait_until_ready()
        iid = await fake.slash(alice, channel, "gnav", subcommand="join")
        response = await fake.wait_for_response(iid)

Pointing discord.py at the fake means two class attributes, both patched by ``install()`` (done by
``async with`` unless ``install=False``) and restored by ``uninstall()``:

* ``discord.http.Route.BASE``: every REST request, the interaction callbacks and the
  interaction webhooks (followups) included, is built from it;
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``: a plain ``discord.Client`` does not ask
  ``GET /gateway/bot`` for the websocket URL (only ``AutoShardedClient`` does), it connects to this
  constant. The fake serves ``/gateway`` and ``/gateway/bot`` anyway, with its own URL.

Events reach the client through the websocket like on Discord: HELLO (op 10), IDENTIFY (op 2) with
token and intents checked, READY then one GUILD_CREATE per guild, heartbeat ACKs (op 11), RESUME
(op 6) with replay of the missed dispatches, member chunk requests (op 8), and DISPATCH (op 0)
events: INTERACTION_CREATE built by ``slash()``, ``press()`` and ``select()``; MESSAGE_CREATE,
MESSAGE_UPDATE and MESSAGE_DELETE for non-ephemeral messages when the intents ask for them;
GUILD_CREATE, CHANNEL_CREATE, THREAD_CREATE and GUILD_MEMBER_ADD when the world changes while a
client is connected. discord.py asks for ``compress=zlib-stream`` transport compression; the fake
answers with one zlib stream per connection, each frame ending in ``Z_SYNC_FLUSH`` like Discord
(any other ``compress`` value gets plain text frames, which discord.py also reads).

The fake refuses what Discord refuses (status, ``code`` and ``message`` as Discord sends them):
401 without the bot token; 403/50007 for a DM to a user whose DMs are closed; 400/40060 for an
interaction acknowledged twice; 404/10062 for an interaction acknowledged more than
``ack_deadline`` (3) seconds after it was dispatched; 404/10015 for a followup before the
acknowledgement; 400/50035 "Invalid Form Body" (with Discord's nested ``errors``) for content over
2000 characters, more than 10 embeds, more than 5 action rows or 5 buttons per row, custom_id over
100 characters or duplicated, button label over 80 characters, malformed commands; 400/50006 for an
empty message; 404 for unknown channels (10003), messages (10008), users (10013); 403/50005 for
editing someone else's message; 403/50001 when the bot is not in the guild; 403/50013 when a
channel denies the bot. ``inject_rate_limit()`` answers 429 with Discord's body and headers
(``Via`` included: discord.py treats a 429 without ``Via`` as a Cloudflare ban and does not retry).

Everything is recorded: ``calls`` (every HTTP request: method, path, query, JSON body, files,
status, response), messages per channel (``messages_in``), DMs (``dms_to``), interactions and
their callbacks (``interaction``), registered commands (``global_commands``, ``guild_commands``),
what the client sent on the gateway (``gateway_received``); ``wait_for(predicate)`` waits until a
predicate over that state holds.

discord.py details this fake relies on (checked against discord.py 2.7):

* REST answers must carry ``Content-Type: application/json`` exactly (``json_or_text`` compares
  the header verbatim); a 429 must carry ``Via`` or discord.py raises instead of retrying.
* ``login()`` calls ``GET /users/@me`` then ``GET /oauth2/applications/@me``; the application's
  ``id`` becomes ``client.application_id``, used by ``tree.sync`` and by followups
  (``/webhooks/{application_id}/{token}``). READY's ``application`` only fills it when unset.
* ``on_ready`` fires ``guild_ready_timeout`` seconds (2 by default) after the last GUILD_CREATE:
  pass e.g. ``guild_ready_timeout=0.05`` to the client in tests.
* With the members intent (and not presences) discord.py chunks guilds whose ``member_count``
  differs from the members received; the fake sends them all (and answers op 8): no stall.
* Interactions need ``attachment_size_limit`` and a ``channel`` object (not only ``channel_id``);
  the tree finds a guild command only if ``data.guild_id`` is set, which the fake does when the
  command was registered for that guild (global otherwise).
* Persistent views are looked up by ``(component_type, custom_id)`` under the message id first,
  then under ``None`` (views added by ``client.add_view`` without a message id); a DynamicItem is
  matched by its regex and rebuilt from the components of ``interaction.message``, so a press
  must carry the real message, which ``press()`` does.
* An ephemeral message sent with a view of ``timeout=None`` gets a 15 minute timeout from
  discord.py: such views are not persistent.
* A 4014 close raises ``PrivilegedIntentsRequired`` without closing the client: close it.
* Close clients before the fake: a client whose socket the fake closes tries to reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import datetime as dt
import functools
import hashlib
import itertools
import json
import math
import re
import secrets
import socket
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord.gateway
import discord.http
import yarl
from aiohttp import BodyPartReader, WSMsgType, web

__all__ = [
    "ALL_INTENTS",
    "DEFAULT_BOT_PERMISSIONS",
    "DEFAULT_MEMBER_PERMISSIONS",
    "ChannelLimit",
    "DiscordAPIError",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeUser",
    "InteractionRecord",
    "RateLimitRule",
    "RecordedCall",
]

JSON = dict[str, Any]
T = TypeVar("T")

DISCORD_EPOCH_MS = 1_420_070_400_000

# Gateway intents (bits) the fake looks at.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1  # privileged
INTENT_GUILD_PRESENCES = 1 << 8  # privileged
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15  # privileged
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT
ALL_INTENTS = (1 << 26) - 1 - (1 << 22) - (1 << 23)  # bits 22 and 23 are unused by Discord

# Channel types.
CHANNEL_TEXT = 0
CHANNEL_DM = 1
CHANNEL_NEWS = 5
CHANNEL_NEWS_THREAD = 10
CHANNEL_PUBLIC_THREAD = 11
CHANNEL_PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({CHANNEL_NEWS_THREAD, CHANNEL_PUBLIC_THREAD, CHANNEL_PRIVATE_THREAD})

# Interaction types and callback types.
INTERACTION_COMMAND = 2
INTERACTION_COMPONENT = 3
INTERACTION_AUTOCOMPLETE = 4
INTERACTION_MODAL_SUBMIT = 5
CALLBACK_CHANNEL_MESSAGE = 4
CALLBACK_DEFERRED_CHANNEL_MESSAGE = 5
CALLBACK_DEFERRED_UPDATE_MESSAGE = 6
CALLBACK_UPDATE_MESSAGE = 7
CALLBACK_AUTOCOMPLETE_RESULT = 8
CALLBACK_MODAL = 9
_ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    INTERACTION_COMMAND: frozenset({4, 5, 9}),
    INTERACTION_COMPONENT: frozenset({4, 5, 6, 7, 9}),
    INTERACTION_AUTOCOMPLETE: frozenset({8}),
    INTERACTION_MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}

# Message flags.
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_IS_COMPONENTS_V2 = 1 << 15
_SETTABLE_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_EPHEMERAL | FLAG_SUPPRESS_NOTIFICATIONS
_SETTABLE_FLAGS |= FLAG_IS_COMPONENTS_V2

# Message types.
MESSAGE_DEFAULT = 0
MESSAGE_REPLY = 19
MESSAGE_CHAT_INPUT_COMMAND = 20
MESSAGE_CONTEXT_MENU_COMMAND = 23

# Component types.
COMPONENT_ACTION_ROW = 1
COMPONENT_BUTTON = 2
COMPONENT_STRING_SELECT = 3
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
BUTTON_STYLE_LINK = 5
BUTTON_STYLE_PREMIUM = 6

# Application command option types.
OPTION_SUB_COMMAND = 1
OPTION_SUB_COMMAND_GROUP = 2
OPTION_STRING = 3
OPTION_INTEGER = 4
OPTION_BOOLEAN = 5
OPTION_USER = 6
OPTION_CHANNEL = 7
OPTION_ROLE = 8
OPTION_MENTIONABLE = 9
OPTION_NUMBER = 10

# Permissions: what @everyone gets in a fresh guild, and what the bot gets by default.
_P_CREATE_INVITE = 1 << 0
_P_ADD_REACTIONS = 1 << 6
_P_VIEW_CHANNEL = 1 << 10
_P_SEND_MESSAGES = 1 << 11
_P_MANAGE_MESSAGES = 1 << 13
_P_EMBED_LINKS = 1 << 14
_P_ATTACH_FILES = 1 << 15
_P_READ_HISTORY = 1 << 16
_P_MENTION_EVERYONE = 1 << 17
_P_EXTERNAL_EMOJIS = 1 << 18
_P_CONNECT = 1 << 20
_P_SPEAK = 1 << 21
_P_CHANGE_NICKNAME = 1 << 26
_P_USE_APP_COMMANDS = 1 << 31
_P_MANAGE_THREADS = 1 << 34
_P_CREATE_PUBLIC_THREADS = 1 << 35
_P_CREATE_PRIVATE_THREADS = 1 << 36
_P_SEND_IN_THREADS = 1 << 38
DEFAULT_MEMBER_PERMISSIONS = (
    _P_CREATE_INVITE
    | _P_ADD_REACTIONS
    | _P_VIEW_CHANNEL
    | _P_SEND_MESSAGES
    | _P_EMBED_LINKS
    | _P_ATTACH_FILES
    | _P_READ_HISTORY
    | _P_MENTION_EVERYONE
    | _P_EXTERNAL_EMOJIS
    | _P_CONNECT
    | _P_SPEAK
    | _P_CHANGE_NICKNAME
    | _P_USE_APP_COMMANDS
    | _P_CREATE_PUBLIC_THREADS
    | _P_CREATE_PRIVATE_THREADS
    | _P_SEND_IN_THREADS
)
DEFAULT_BOT_PERMISSIONS = DEFAULT_MEMBER_PERMISSIONS | _P_MANAGE_MESSAGES | _P_MANAGE_THREADS
ALL_PERMISSIONS = (1 << 53) - 1

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
WEBHOOK_TOKEN_LIFETIME = 15 * 60.0
_COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")


def _iso(ts: float | None = None) -> str:
    """Return an ISO 8601 UTC timestamp like Discord's (``2024-01-01T12:00:00.000000+00:00``)."""
    moment = dt.datetime.now(dt.UTC) if ts is None else dt.datetime.fromtimestamp(ts, dt.UTC)
    return moment.isoformat()


def _sid(value: int | None) -> str | None:
    """Render a snowflake as Discord does: a string (or ``None``)."""
    return None if value is None else str(value)


class _Snowflakes:
    """Generator of increasing snowflakes whose timestamp part is the current time."""

    def __init__(self) -> None:
        self._last = 0
        self._increment = itertools.count()

    def next(self) -> int:
        """Return a new snowflake, greater than every snowflake returned before."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = (ms << 22) | (1 << 17) | (next(self._increment) & 0xFFF)
        if value <= self._last:
            value = self._last + 1
        self._last = value
        return value


class DiscordAPIError(Exception):
    """An error answered the way Discord answers it: HTTP status plus JSON ``code``/``message``."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def to_json(self) -> JSON:
        """Return the JSON body Discord sends for this error."""
        body: JSON = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def _form_error(errors: JSON) -> DiscordAPIError:
    """A 400 "Invalid Form Body" (code 50035) carrying Discord's nested ``errors`` object."""
    return DiscordAPIError(400, 50035, "Invalid Form Body", errors)


class _FormErrors:
    """Collects field errors into Discord's nested ``{"a": {"0": {"_errors": [...]}}}`` shape."""

    def __init__(self) -> None:
        self.tree: JSON = {}

    def add(self, path: Sequence[str | int], code: str, message: str) -> None:
        """Record an error for the field at ``path``."""
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def max_length(self, path: Sequence[str | int], limit: int) -> None:
        """Record Discord's BASE_TYPE_MAX_LENGTH error."""
        self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def raise_if_any(self) -> None:
        """Raise a 50035 error if anything was recorded."""
        if self.tree:
            raise _form_error(self.tree)


# --------------------------------------------------------------------------------------------
# The simulated world
# --------------------------------------------------------------------------------------------


@dataclass
class FakeUser:
    """A Discord user (a person, or the bot itself)."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_open: bool = True
    locale: str = "en-US"

    def to_json(self) -> JSON:
        """Return the user object as Discord sends it."""
        data: JSON = {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "avatar_decoration_data": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "primary_guild": None,
            "collectibles": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class FakeMember:
    """A user's membership of a guild."""

    user: FakeUser
    guild_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    permissions: int = DEFAULT_MEMBER_PERMISSIONS
    joined_at: str = field(default_factory=_iso)

    def to_json(self, *, with_user: bool = True, with_permissions: bool = False) -> JSON:
        """Return the guild member object as Discord sends it."""
        data: JSON = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_json()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass
class FakeChannel:
    """A guild text channel (type 0), thread (types 10-12, with ``parent_id``) or DM (type 1)."""

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    owner_id: int | None = None
    recipient: FakeUser | None = None
    bot_can_send: bool = True
    created_at: str = field(default_factory=_iso)

    @property
    def is_thread(self) -> bool:
        """Whether this channel is a thread."""
        return self.type in THREAD_TYPES

    def to_json(self, *, last_message_id: int | None = None) -> JSON:
        """Return the channel object as Discord sends it."""
        if self.type == CHANNEL_DM:
            return {
                "id": str(self.id),
                "type": CHANNEL_DM,
                "last_message_id": _sid(last_message_id),
                "flags": 0,
                "recipients": [self.recipient.to_json()] if self.recipient else [],
            }
        data: JSON = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": _sid(self.guild_id),
            "name": self.name,
            "parent_id": _sid(self.parent_id),
            "last_message_id": _sid(last_message_id),
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if self.is_thread:
            data.update(
                owner_id=_sid(self.owner_id),
                message_count=0,
                member_count=1,
                total_message_sent=0,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": self.created_at,
                    "locked": False,
                    "create_timestamp": self.created_at,
                },
            )
        else:
            data.update(position=self.position, permission_overwrites=[], nsfw=False, topic=None)
        return data


@dataclass
class FakeGuild:
    """A guild (server): its channels, threads and members."""

    id: int
    name: str
    owner_id: int
    everyone_permissions: int = DEFAULT_MEMBER_PERMISSIONS
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    joined_at: str = field(default_factory=_iso)

    def everyone_role(self) -> JSON:
        """Return the @everyone role (its id is the guild id)."""
        return {
            "id": str(self.id),
            "name": "@everyone",
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": 0,
            "permissions": str(self.everyone_permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }

    def to_json(self) -> JSON:
        """Return the guild object as GET /guilds/{id} sends it."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [self.everyone_role()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
        }


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedCall:
    """One HTTP request the client made, and the fake's answer."""

    method: str
    path: str  # without the /api/v10 prefix, e.g. "/channels/123/messages"
    query: Mapping[str, str]
    json: Any
    files: tuple[JSON, ...]
    status: int
    response: Any
    at: float


@dataclass
class InteractionRecord:
    """An interaction the fake dispatched, and everything the bot answered to it."""

    id: int
    token: str
    type: int
    payload: JSON
    user_id: int
    channel_id: int
    guild_id: int | None
    message_id: int | None = None  # the message carrying the component, for type 3
    command_name: str | None = None
    dispatched_at: float | None = None  # fake's clock, when the frame was written
    callbacks: list[JSON] = field(default_factory=list)  # accepted callback bodies
    refused: list[tuple[JSON, DiscordAPIError]] = field(default_factory=list)
    response_type: int | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)

    @property
    def acknowledged(self) -> bool:
        """Whether an interaction callback was accepted."""
        return self.response_type is not None

    @property
    def response(self) -> JSON | None:
        """The accepted callback body (``{"type": ..., "data": {...}}``), if any."""
        return self.callbacks[0] if self.callbacks else None

    @property
    def ephemeral(self) -> bool:
        """Whether the accepted callback asked for an ephemeral message (flags 64)."""
        data = (self.response or {}).get("data") or {}
        return bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)


@dataclass(frozen=True)
class ChannelLimit:
    """Discord's bucket for a channel's messages: ``limit`` requests per ``per`` seconds for
    each method (POST sends, PATCH edits), the window starting at its first request."""

    limit: int = 5
    per: float = 5.0


_CHANNEL_MESSAGES = re.compile(r"/channels/(\d+)/messages(?:/\d+)?")


@dataclass
class RateLimitRule:
    """A 429 injection: the next ``times`` requests matching ``method`` and ``path`` get a 429."""

    method: str | None
    path: re.Pattern[str]
    retry_after: float
    times: int
    is_global: bool
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        """Whether this rule applies to the request."""
        if self.hits >= self.times:
            return False
        if self.method is not None and self.method != method:
            return False
        return self.path.fullmatch(path) is not None


@dataclass
class _MessageMeta:
    channel_id: int
    author_id: int
    ephemeral_for: int | None = None  # user who alone sees this ephemeral message
    interaction_id: int | None = None
    deleted: bool = False


@dataclass
class _ApiRequest:
    method: str
    path: str
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: list[JSON]


@dataclass
class _ApiResponse:
    status: int = 200
    body: Any = None


_Handler = Callable[[_ApiRequest], Awaitable[_ApiResponse]]


@dataclass
class _Route:
    method: str
    template: str
    regex: re.Pattern[str]
    handler: _Handler
    auth: bool


# --------------------------------------------------------------------------------------------
# Gateway plumbing
# --------------------------------------------------------------------------------------------


@dataclass
class _GatewaySession:
    session_id: str
    intents: int
    shard: list[int] | None = None  # [shard_id, shard_count] from IDENTIFY
    seq: int = 0
    sent: list[JSON] = field(default_factory=list)  # dispatch frames, for RESUME replays


class _GatewayConnection:
    """One websocket: a single writer task keeps frames (and the zlib stream) in order."""

    def __init__(self, ws: web.WebSocketResponse, *, zlib_stream: bool, clock: Callable[[], float]):
        self.ws = ws
        self.session: _GatewaySession | None = None
        self._clock = clock
        self._compressor = zlib.compressobj() if zlib_stream else None
        self._queue: asyncio.Queue[tuple[JSON, asyncio.Future[float]] | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name="fake-discord-gateway-writer")

    def send(self, frame: JSON) -> asyncio.Future[float]:
        """Queue a frame; the future resolves to the fake's clock when it was written."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((frame, future))
        return future

    async def _write_loop(self) -> None:
        try:
            while (item := await self._queue.get()) is not None:
                frame, future = item
                try:
                    text = json.dumps(frame, separators=(",", ":"))
                    if self._compressor is not None:
                        data = self._compressor.compress(text.encode())
                        data += self._compressor.flush(zlib.Z_SYNC_FLUSH)
                        await self.ws.send_bytes(data)
                    else:
                        await self.ws.send_str(text)
                except (ConnectionError, RuntimeError) as exc:
                    self._fail(future, exc)
                else:
                    if not future.done():
                        future.set_result(self._clock())
        finally:
            while not self._queue.empty():  # frames queued behind the end: never sent
                item = self._queue.get_nowait()
                if item is not None:
                    self._fail(item[1], ConnectionError("gateway connection closed"))

    @staticmethod
    def _fail(future: asyncio.Future[float], exc: BaseException) -> None:
        if not future.done():
            future.set_exception(ConnectionError(f"gateway frame not sent: {exc}"))
            future.exception()  # mark as retrieved: nobody may be waiting for it

    async def close(self, code: int = 1000, message: str = "") -> None:
        """Close the websocket (with ``code``) and stop the writer."""
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await self._writer
        if not self.ws.closed:
            await self.ws.close(code=code, message=message.encode())

    async def stop_writer(self) -> None:
        """Stop the writer after the socket ended."""
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await self._writer


def _consume_outcome(future: asyncio.Future[float]) -> None:
    """Retrieve a future's exception so that asyncio does not log it as never retrieved."""
    if not future.cancelled():
        future.exception()


def _walk_components(components: Iterable[JSON]) -> Iterator[JSON]:
    """Yield every component, nested ones (rows, sections, containers) included."""
    for component in components:
        yield component
        yield from _walk_components(component.get("components") or [])
        accessory = component.get("accessory")
        if isinstance(accessory, dict):
            yield accessory


def _validate_components(
    errors: _FormErrors, components: Any, flags: int, prefix: Sequence[str | int]
) -> None:
    """Apply Discord's component limits (classic action rows, or components v2)."""
    if not isinstance(components, list):
        errors.add([*prefix, "components"], "MODEL_TYPE_CONVERT", "Must be an array.")
        return
    seen: set[str] = set()
    if flags & FLAG_IS_COMPONENTS_V2:  # layout components: limits apply to the whole tree
        everything = list(_walk_components(components))
        if len(everything) > 40:
            errors.max_length([*prefix, "components"], 40)
        for i, component in enumerate(everything):
            _validate_component(errors, component, [*prefix, "components", i], seen)
        return
    if len(components) > 5:
        errors.max_length([*prefix, "components"], 5)
    for r, row in enumerate(components):
        row_path = [*prefix, "components", r]
        children = row.get("components") or []
        if row.get("type") != COMPONENT_ACTION_ROW:
            errors.add(
                [*row_path, "type"],
                "UNION_TYPE_CHOICES",
                'Value of field "type" must be one of (1,).',
            )
            continue
        if len(children) > 5:
            errors.max_length([*row_path, "components"], 5)
        if any(c.get("type") in SELECT_TYPES for c in children) and len(children) > 1:
            errors.add(
                [*row_path, "components"],
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        for c, child in enumerate(children):
            _validate_component(errors, child, [*row_path, "components", c], seen)


def _validate_component(
    errors: _FormErrors, component: JSON, path: list[str | int], seen: set[str]
) -> None:
    ctype = component.get("type")
    custom_id = component.get("custom_id")
    if ctype == COMPONENT_BUTTON:
        style = component.get("style")
        label = component.get("label")
        if isinstance(label, str) and len(label) > 80:
            errors.max_length([*path, "label"], 80)
        if style == BUTTON_STYLE_LINK:
            if not component.get("url"):
                errors.add([*path, "url"], "BASE_TYPE_REQUIRED", "This field is required")
            if custom_id is not None:
                errors.add(
                    [*path, "custom_id"],
                    "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                    "A custom id cannot be specified for this button style",
                )
            return
        if style != BUTTON_STYLE_PREMIUM and not custom_id:
            errors.add([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
        if not label and not component.get("emoji") and style != BUTTON_STYLE_PREMIUM:
            errors.add(
                [*path], "BUTTON_COMPONENT_INVALID", "A button must have a label or an emoji"
            )
    elif ctype in SELECT_TYPES:
        if not custom_id:
            errors.add([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
        options = component.get("options") or []
        if ctype == COMPONENT_STRING_SELECT and len(options) > 25:
            errors.max_length([*path, "options"], 25)
        placeholder = component.get("placeholder")
        if isinstance(placeholder, str) and len(placeholder) > 150:
            errors.max_length([*path, "placeholder"], 150)
    if isinstance(custom_id, str):
        if len(custom_id) > 100:
            errors.max_length([*path, "custom_id"], 100)
        elif custom_id in seen:
            errors.add(
                [*path, "custom_id"],
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.add(custom_id)


def _validate_message_body(
    body: JSON, *, prefix: Sequence[str | int] = (), files: int = 0, require_content: bool = True
) -> None:
    """Refuse a message body the way Discord does (400/50035 or 400/50006)."""
    errors = _FormErrors()
    content = body.get("content")
    if content is not None and not isinstance(content, str):
        errors.add([*prefix, "content"], "BASE_TYPE_BAD_TYPE", "Must be a string.")
    elif isinstance(content, str) and len(content) > 2000:
        errors.max_length([*prefix, "content"], 2000)
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        errors.max_length([*prefix, "embeds"], 10)
    for e, embed in enumerate(embeds):
        title = embed.get("title")
        if isinstance(title, str) and len(title) > 256:
            errors.max_length([*prefix, "embeds", e, "title"], 256)
        description = embed.get("description")
        if isinstance(description, str) and len(description) > 4096:
            errors.max_length([*prefix, "embeds", e, "description"], 4096)
        if len(embed.get("fields") or []) > 25:
            errors.max_length([*prefix, "embeds", e, "fields"], 25)
    flags = int(body.get("flags") or 0)
    if body.get("components") is not None:
        _validate_components(errors, body["components"], flags, prefix)
    errors.raise_if_any()
    if require_content and not (
        content
        or embeds
        or body.get("components")
        or body.get("sticker_ids")
        or body.get("poll")
        or files
    ):
        raise DiscordAPIError(400, 50006, "Cannot send an empty message")


def _normalise_components(components: list[JSON] | None) -> list[JSON]:
    """Copy components and number them (``id``) like Discord does when it stores a message."""
    result = copy.deepcopy(components or [])
    counter = itertools.count(1)
    for component in _walk_components(result):
        component.setdefault("id", next(counter))
    return result


def _infer_option_type(value: Any) -> int:
    if isinstance(value, bool):
        return OPTION_BOOLEAN
    if isinstance(value, int):
        return OPTION_INTEGER
    if isinstance(value, float):
        return OPTION_NUMBER
    if isinstance(value, FakeUser | FakeMember):
        return OPTION_USER
    if isinstance(value, FakeChannel):
        return OPTION_CHANNEL
    return OPTION_STRING


# --------------------------------------------------------------------------------------------
# The fake
# --------------------------------------------------------------------------------------------


class FakeDiscord:
    """A fake Discord (REST API + gateway) on 127.0.0.1, driven by tests, used by real discord.py.

    Args:
        token: the bot token clients must log in with (``Authorization: Bot <token>``).
        bot_name: the bot user's name.
        application_id: the application id (default: the bot user's id, as for modern apps).
        ack_deadline: seconds after dispatch within which an interaction must be acknowledged.
        heartbeat_interval: gateway heartbeat interval in seconds, sent in HELLO.
        privileged_intents: privileged intents enabled "in the developer portal" (bit mask);
            IDENTIFY asking for others is closed with 4014 like on Discord.
        strict_commands: refuse (``LookupError``) ``slash()`` for commands never registered.
        clock: monotonic clock used for the acknowledgement deadline and token expiry.
        install: whether ``async with`` also points discord.py at the fake (``install()``).
        channel_limit: enforce Discord's per-channel message buckets (sends and edits of a
            channel's messages, each method its own bucket of ``limit`` per ``per`` s, with
            the ``X-RateLimit-*`` headers discord.py learns them from; a 429 beyond).
    """

    def __init__(
        self,
        *,
        token: str = "ZmFrZS1ib3Q.ZmFrZQ.ZmFrZS1ib3QtdG9rZW4",  # a bot token's shape: 3 parts
        bot_name: str = "GnavBot",
        application_id: int | None = None,
        ack_deadline: float = 3.0,
        heartbeat_interval: float = 41.25,
        privileged_intents: int = PRIVILEGED_INTENTS,
        strict_commands: bool = False,
        clock: Callable[[], float] = time.monotonic,
        install: bool = True,
        channel_limit: ChannelLimit | None = None,
    ) -> None:
        self._ids = _Snowflakes()
        #: Discord's per-channel message buckets, enforced (None: only injected 429s).
        self.channel_limit = channel_limit
        #: (channel id, method) -> [window end, requests in it].
        self._channel_buckets: dict[tuple[int, str], list[float]] = {}
        #: 429 answers the channel buckets gave, per channel id.
        self.bucket_refusals: dict[int, int] = {}
        self.token = token
        self.bot = FakeUser(id=self._ids.next(), username=bot_name, bot=True)
        self.owner = FakeUser(id=self._ids.next(), username=f"{bot_name.lower()}-owner")
        self.application_id = application_id if application_id is not None else self.bot.id
        self.ack_deadline = ack_deadline
        self.heartbeat_interval = heartbeat_interval
        self.privileged_intents = privileged_intents
        self.strict_commands = strict_commands
        self.clock = clock
        self._install_on_enter = install
        self.verify_key = secrets.token_hex(32)

        self.users: dict[int, FakeUser] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self._dm_by_user: dict[int, FakeChannel] = {}
        self._messages: dict[int, JSON] = {}
        self._meta: dict[int, _MessageMeta] = {}
        self._channel_messages: dict[int, list[int]] = {}
        self._reactions: dict[int, list[str]] = {}
        self._global_commands: dict[tuple[str, int], JSON] = {}
        self._guild_commands: dict[int, dict[tuple[str, int], JSON]] = {}
        self._interactions: dict[int, InteractionRecord] = {}
        self._interactions_by_token: dict[str, InteractionRecord] = {}

        self.calls: list[RecordedCall] = []
        self._attachment_data: dict[int, bytes] = {}
        self.gateway_received: list[JSON] = []
        self.gateway_connections: list[dict[str, str]] = []  # query of each websocket connection
        self.identify_payloads: list[JSON] = []
        self.rate_limits: list[RateLimitRule] = []

        self._sessions: dict[str, _GatewaySession] = {}
        self._connections: set[_GatewayConnection] = set()
        self._active: _GatewayConnection | None = None
        self._changed: asyncio.Event | None = None

        self._routes = self._build_routes()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._saved: tuple[str, yarl.URL] | None = None

    # ---------------------------------------------------------------- lifecycle and patching

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        if self._install_on_enter:
            self.install()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Start the HTTP/websocket server on 127.0.0.1 with an ephemeral port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway-ws", self._handle_gateway)
        app.router.add_route("*", "/api/{tail:.*}", self._handle_api)
        self._runner = web.AppRunner(
            app, handle_signals=False, access_log=None, shutdown_timeout=1.0
        )
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        """Close every gateway connection, stop the server and undo ``install()``."""
        self.uninstall()
        for connection in list(self._connections):
            await connection.close(1001, "fake Discord shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def install(self) -> None:
        """Point discord.py (process-wide) at this fake: REST base URL and gateway URL."""
        if self._saved is None:
            self._saved = (
                discord.http.Route.BASE,
                discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
            )
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

    def uninstall(self) -> None:
        """Restore discord.py's real Discord URLs."""
        if self._saved is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None

    @property
    def url(self) -> str:
        """Base URL of the server, e.g. ``http://127.0.0.1:41234``."""
        if self._port is None:
            raise RuntimeError("FakeDiscord is not started")
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_base(self) -> str:
        """What ``discord.http.Route.BASE`` must be: ``<url>/api/v<discord.py's API version>``."""
        return f"{self.url}/api/v{discord.http.INTERNAL_API_VERSION}"

    @property
    def gateway_url(self) -> str:
        """The websocket URL (``ws://127.0.0.1:<port>/gateway-ws``)."""
        return f"ws://127.0.0.1:{self._port}/gateway-ws"

    # ---------------------------------------------------------------- building the world

    def add_user(
        self,
        username: str,
        *,
        guilds: Iterable[FakeGuild] = (),
        dms_open: bool = True,
        bot: bool = False,
        global_name: str | None = None,
        locale: str = "en-US",
    ) -> FakeUser:
        """Create a user, optionally a member of ``guilds``; ``dms_open=False`` refuses DMs."""
        user = FakeUser(
            id=self._ids.next(),
            username=username,
            global_name=global_name,
            bot=bot,
            dms_open=dms_open,
            locale=locale,
        )
        self.users[user.id] = user
        for guild in guilds:
            self.add_member(guild, user)
        return user

    def add_guild(self, name: str, *, owner: FakeUser | None = None) -> FakeGuild:
        """Create a guild the bot is a member of (GUILD_CREATE is sent if a client is connected)."""
        owner = owner or self.owner
        guild = FakeGuild(id=self._ids.next(), name=name, owner_id=owner.id)
        self.guilds[guild.id] = guild
        guild.members[self.bot.id] = FakeMember(
            user=self.bot, guild_id=guild.id, permissions=DEFAULT_BOT_PERMISSIONS
        )
        guild.members[owner.id] = FakeMember(
            user=owner, guild_id=guild.id, permissions=ALL_PERMISSIONS
        )
        self._dispatch_if_connected("GUILD_CREATE", lambda s: self._guild_create_payload(guild, s))
        return guild

    def add_channel(
        self, guild: FakeGuild, name: str, *, type: int = CHANNEL_TEXT, bot_can_send: bool = True
    ) -> FakeChannel:
        """Create a guild text channel (CHANNEL_CREATE is sent if a client is connected)."""
        channel = FakeChannel(
            id=self._ids.next(),
            type=type,
            name=name,
            guild_id=guild.id,
            position=len(guild.channels),
            bot_can_send=bot_can_send,
        )
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        self._dispatch_if_connected("CHANNEL_CREATE", lambda s: channel.to_json())
        return channel

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        private: bool = False,
        owner: FakeUser | None = None,
        thread_id: int | None = None,
    ) -> FakeChannel:
        """Create a thread (type 11, or 12 if private) under ``parent`` (THREAD_CREATE if live)."""
        if parent.guild_id is None or parent.is_thread:
            raise ValueError("threads live under guild text channels")
        thread = FakeChannel(
            id=thread_id if thread_id is not None else self._ids.next(),
            type=CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=(owner or self.bot).id,
        )
        self.guilds[parent.guild_id].channels[thread.id] = thread
        self.channels[thread.id] = thread
        self._dispatch_if_connected(
            "THREAD_CREATE", lambda s: {**thread.to_json(), "newly_created": True}
        )
        return thread

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        permissions: int | None = None,
        nick: str | None = None,
        roles: Sequence[int] = (),
    ) -> FakeMember:
        """Make ``user`` a member of ``guild`` (GUILD_MEMBER_ADD if live and members intent)."""
        member = FakeMember(
            user=user,
            guild_id=guild.id,
            roles=list(roles),
            nick=nick,
            permissions=guild.everyone_permissions if permissions is None else permissions,
        )
        guild.members[user.id] = member
        self._dispatch_if_connected(
            "GUILD_MEMBER_ADD",
            lambda s: {**member.to_json(), "guild_id": str(guild.id)},
            intent=INTENT_GUILD_MEMBERS,
        )
        return member

    def dm_channel(self, user: FakeUser | int) -> FakeChannel:
        """The DM channel between ``user`` and the bot (created on first use, like Discord)."""
        person = self._user(user)
        channel = self._dm_by_user.get(person.id)
        if channel is None:
            channel = FakeChannel(id=self._ids.next(), type=CHANNEL_DM, recipient=person)
            self._dm_by_user[person.id] = channel
            self.channels[channel.id] = channel
        return channel

    # ---------------------------------------------------------------- queries for tests

    def find_calls(self, method: str | None = None, path: str | None = None) -> list[RecordedCall]:
        """Recorded calls, filtered by method and by a regex that must match the whole path."""
        pattern = re.compile(path) if path is not None else None
        return [
            call
            for call in self.calls
            if (method is None or call.method == method)
            and (pattern is None or pattern.fullmatch(call.path))
        ]

    def message(self, message_id: int) -> JSON:
        """The current state of a message (a copy), deleted or not."""
        return copy.deepcopy(self._messages[message_id])

    def messages_in(
        self,
        channel: FakeChannel | int,
        *,
        include_ephemeral: bool = True,
        include_deleted: bool = False,
    ) -> list[JSON]:
        """Messages of a channel in posting order (copies): content, components, embeds, flags."""
        channel_id = channel.id if isinstance(channel, FakeChannel) else channel
        result = []
        for mid in self._channel_messages.get(channel_id, []):
            meta = self._meta[mid]
            if meta.deleted and not include_deleted:
                continue
            if meta.ephemeral_for is not None and not include_ephemeral:
                continue
            result.append(copy.deepcopy(self._messages[mid]))
        return result

    def dms_to(self, user: FakeUser | int) -> list[JSON]:
        """Messages the bot sent in its DM channel with ``user``."""
        channel = self._dm_by_user.get(self._user(user).id)
        if channel is None:
            return []
        return [m for m in self.messages_in(channel) if m["author"]["id"] == str(self.bot.id)]

    def reactions_on(self, message_id: int) -> list[str]:
        """Emojis the bot reacted with on a message."""
        return list(self._reactions.get(message_id, []))

    def interaction(self, interaction_id: int) -> InteractionRecord:
        """The record of a dispatched interaction (callbacks, original message, followups)."""
        return self._interactions[interaction_id]

    def global_commands(self) -> list[JSON]:
        """Global application commands as registered (copies)."""
        return copy.deepcopy(list(self._global_commands.values()))

    def guild_commands(self, guild: FakeGuild | int) -> list[JSON]:
        """Application commands registered for one guild (copies)."""
        guild_id = guild.id if isinstance(guild, FakeGuild) else guild
        return copy.deepcopy(list(self._guild_commands.get(guild_id, {}).values()))

    @property
    def connected(self) -> bool:
        """Whether a client is identified on the gateway."""
        return self._active is not None

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float = 5.0) -> T:
        """Wait until ``predicate()`` returns something truthy (re-checked on every change)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"condition not met within {timeout} s")
            if self._changed is None:
                self._changed = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.25))

    async def wait_for_call(
        self, method: str, path: str, *, timeout: float = 5.0, status: int | None = None
    ) -> RecordedCall:
        """Wait for a call matching ``method`` and the ``path`` regex (and ``status``)."""

        def found() -> RecordedCall | None:
            for call in self.find_calls(method, path):
                if status is None or call.status == status:
                    return call
            return None

        return await self.wait_for(found, timeout)

    async def wait_for_response(self, interaction_id: int, timeout: float = 5.0) -> JSON:
        """Wait until the bot acknowledged the interaction; return the callback body."""
        record = self._interactions[interaction_id]
        return await self.wait_for(lambda: record.response, timeout)

    async def wait_until_connected(self, timeout: float = 5.0) -> None:
        """Wait until a client has identified (or resumed) on the gateway."""
        await self.wait_for(lambda: self._active is not None, timeout)

    # ---------------------------------------------------------------- test-side actions

    def inject_rate_limit(
        self,
        path: str,
        *,
        method: str | None = None,
        retry_after: float = 0.2,
        times: int = 1,
        is_global: bool = False,
    ) -> RateLimitRule:
        """Answer the next ``times`` requests whose path matches the regex ``path`` with a 429."""
        rule = RateLimitRule(method, re.compile(path), retry_after, times, is_global)
        self.rate_limits.append(rule)
        return rule

    async def slash(
        self,
        user: FakeUser | int,
        channel: FakeChannel | int,
        name: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        group: str | None = None,
        locale: str | None = None,
        timeout: float = 5.0,
    ) -> int:
        """Dispatch an APPLICATION_COMMAND interaction (``/name [group] [subcommand] options``).

        ``subcommand`` may also be ``"group sub"``. Option types come from the registered command
        when there is one (else they are inferred from the Python values); users, members and
        channels are sent with ``resolved`` data. Returns the interaction id.
        """
        person = self._user(user)
        place = self._channel(channel)
        if subcommand and group is None and " " in subcommand:
            group, subcommand = subcommand.split(" ", 1)
        command, command_guild = self._find_command(name, place.guild_id)
        resolved: JSON = {}
        schema: list[JSON] | None = None if command is None else command.get("options") or []
        for part, kind in ((group, OPTION_SUB_COMMAND_GROUP), (subcommand, OPTION_SUB_COMMAND)):
            if schema is None or not part:
                continue
            found = next(
                (o for o in schema if o.get("name") == part and o.get("type") == kind), None
            )
            if found is None:
                raise ValueError(
                    f"/{name} has no {'group' if kind == 2 else 'subcommand'} {part!r}"
                )
            schema = found.get("options") or []
        if schema and any(
            o.get("type") in (OPTION_SUB_COMMAND, OPTION_SUB_COMMAND_GROUP) for o in schema
        ):
            raise ValueError(f"/{name} needs a subcommand: {[o['name'] for o in schema]}")
        built = self._build_options(schema, options or {}, place, resolved)
        for part, ptype in reversed(
            [(subcommand, OPTION_SUB_COMMAND), (group, OPTION_SUB_COMMAND_GROUP)]
        ):
            if part:
                built = [{"type": ptype, "name": part, "options": built}]
        data: JSON = {
            "id": command["id"] if command else str(self._ids.next()),
            "name": name,
            "type": 1,
            "options": built,
        }
        if command_guild is not None:
            data["guild_id"] = str(command_guild)
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_payload(INTERACTION_COMMAND, person, place, data, locale)
        full_name = " ".join(n for n in (name, group, subcommand) if n)
        record = self._register_interaction(payload, person, place, command_name=full_name)
        return await self._dispatch_interaction(record, timeout)

    async def press(
        self,
        user: FakeUser | int,
        channel: FakeChannel | int,
        message_id: int,
        custom_id: str,
        *,
        locale: str | None = None,
        timeout: float = 5.0,
    ) -> int:
        """Dispatch a MESSAGE_COMPONENT interaction: ``user`` clicks the button ``custom_id``.

        The button must exist, be enabled and not be a link on that message (as in a real
        client); the interaction carries the whole message. Returns the interaction id.
        """
        component = self._find_component(user, channel, message_id, custom_id)
        if component.get("type") != COMPONENT_BUTTON:
            raise ValueError(f"{custom_id!r} is not a button; use select()")
        if component.get("style") in (BUTTON_STYLE_LINK, BUTTON_STYLE_PREMIUM):
            raise ValueError(f"{custom_id!r} is a link/premium button: no interaction")
        data = {
            "component_type": COMPONENT_BUTTON,
            "custom_id": custom_id,
            "id": component.get("id"),
        }
        return await self._component_interaction(user, channel, message_id, data, locale, timeout)

    async def select(
        self,
        user: FakeUser | int,
        channel: FakeChannel | int,
        message_id: int,
        custom_id: str,
        values: Sequence[str],
        *,
        locale: str | None = None,
        timeout: float = 5.0,
    ) -> int:
        """Dispatch a MESSAGE_COMPONENT interaction for a string select menu choosing ``values``."""
        component = self._find_component(user, channel, message_id, custom_id)
        if component.get("type") != COMPONENT_STRING_SELECT:
            raise ValueError(f"{custom_id!r} is not a string select menu")
        allowed = {o.get("value") for o in component.get("options") or []}
        if not set(values) <= allowed:
            raise ValueError(f"values {sorted(set(values) - allowed)} are not options")
        low, high = component.get("min_values", 1), component.get("max_values", 1)
        if not low <= len(values) <= high:
            raise ValueError(f"choose between {low} and {high} values")
        data = {
            "component_type": COMPONENT_STRING_SELECT,
            "custom_id": custom_id,
            "values": list(values),
            "id": component.get("id"),
        }
        return await self._component_interaction(user, channel, message_id, data, locale, timeout)

    async def user_message(
        self, user: FakeUser | int, channel: FakeChannel | int, content: str
    ) -> int:
        """A user posts a message (MESSAGE_CREATE, content hidden without the content intent)."""
        person = self._user(user)
        place = self._channel(channel)
        author = person.to_json()
        msg = self._store_message(place, author=author, body={"content": content}, files=[])
        self._message_event("MESSAGE_CREATE", msg, place, author_id=person.id)
        return int(msg["id"])

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: discord.py closes the socket and resumes on a new one."""
        if self._active is None:
            raise RuntimeError("no client connected")
        await self._active.send({"op": 7, "d": None})

    async def drop_connection(self, code: int = 4000) -> None:
        """Close the active websocket with ``code`` (4000: discord.py resumes)."""
        if self._active is None:
            raise RuntimeError("no client connected")
        connection, self._active = self._active, None
        await connection.close(code, "dropped by test")

    # ---------------------------------------------------------------- internals: lookups

    def _user(self, user: FakeUser | FakeMember | int) -> FakeUser:
        if isinstance(user, FakeUser):
            return user
        if isinstance(user, FakeMember):
            return user.user
        try:
            return self.users[user]
        except KeyError:
            raise LookupError(f"unknown user {user}") from None

    def _channel(self, channel: FakeChannel | int) -> FakeChannel:
        channel_id = channel.id if isinstance(channel, FakeChannel) else channel
        try:
            return self.channels[channel_id]
        except KeyError:
            raise LookupError(f"unknown channel {channel_id}") from None

    def _find_command(self, name: str, guild_id: int | None) -> tuple[JSON | None, int | None]:
        if guild_id is not None:
            command = self._guild_commands.get(guild_id, {}).get((name, 1))
            if command is not None:
                return command, guild_id
        command = self._global_commands.get((name, 1))
        if command is None and self.strict_commands:
            raise LookupError(f"/{name} is not registered (globally or for this guild)")
        return command, None

    def _build_options(
        self,
        schema: list[JSON] | None,
        values: Mapping[str, Any],
        place: FakeChannel,
        resolved: JSON,
    ) -> list[JSON]:
        by_name = {o["name"]: o for o in schema or []}
        if schema is not None:
            unknown = set(values) - set(by_name)
            if unknown:
                raise ValueError(f"unknown options {sorted(unknown)}")
            missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
            if missing:
                raise ValueError(f"missing required options {missing}")
        built = []
        for name, value in values.items():
            spec = by_name.get(name, {})
            opt_type = int(spec.get("type") or _infer_option_type(value))
            choices = spec.get("choices")
            if choices and value not in [c["value"] for c in choices]:
                raise ValueError(f"{value!r} is not a choice of option {name!r}")
            built.append(
                {
                    "name": name,
                    "type": opt_type,
                    "value": self._option_value(opt_type, value, place, resolved),
                }
            )
        return built

    def _option_value(self, opt_type: int, value: Any, place: FakeChannel, resolved: JSON) -> Any:
        if opt_type == OPTION_STRING:
            return str(value)
        if opt_type == OPTION_INTEGER:
            return int(value)
        if opt_type == OPTION_BOOLEAN:
            return bool(value)
        if opt_type == OPTION_NUMBER:
            return float(value)
        if opt_type in (OPTION_USER, OPTION_MENTIONABLE):
            person = self._user(value)
            resolved.setdefault("users", {})[str(person.id)] = person.to_json()
            guild = self.guilds.get(place.guild_id) if place.guild_id else None
            member = guild.members.get(person.id) if guild else None
            if member is not None:
                resolved.setdefault("members", {})[str(person.id)] = member.to_json(
                    with_user=False, with_permissions=True
                )
            return str(person.id)
        if opt_type == OPTION_CHANNEL:
            target = self._channel(value)
            info = target.to_json()
            info["permissions"] = str(DEFAULT_MEMBER_PERMISSIONS)
            resolved.setdefault("channels", {})[str(target.id)] = info
            return str(target.id)
        if opt_type == OPTION_ROLE:
            return str(value)
        raise ValueError(f"option type {opt_type} is not supported by the fake")

    def _find_component(
        self, user: FakeUser | int, channel: FakeChannel | int, message_id: int, custom_id: str
    ) -> JSON:
        person = self._user(user)
        place = self._channel(channel)
        msg = self._messages.get(message_id)
        meta = self._meta.get(message_id)
        if msg is None or meta is None or meta.deleted:
            raise LookupError(f"no message {message_id}")
        if meta.channel_id != place.id:
            raise LookupError(f"message {message_id} is not in channel {place.id}")
        if meta.ephemeral_for is not None and meta.ephemeral_for != person.id:
            raise PermissionError(f"message {message_id} is ephemeral: only its recipient sees it")
        for component in _walk_components(msg.get("components") or []):
            if component.get("custom_id") == custom_id:
                if component.get("disabled"):
                    raise ValueError(f"component {custom_id!r} is disabled")
                return component
        raise LookupError(f"message {message_id} has no component {custom_id!r}")

    async def _component_interaction(
        self,
        user: FakeUser | int,
        channel: FakeChannel | int,
        message_id: int,
        data: JSON,
        locale: str | None,
        timeout: float,
    ) -> int:
        person = self._user(user)
        place = self._channel(channel)
        payload = self._interaction_payload(INTERACTION_COMPONENT, person, place, data, locale)
        message = copy.deepcopy(self._messages[message_id])
        payload["message"] = message
        record = self._register_interaction(payload, person, place, message_id=message_id)
        return await self._dispatch_interaction(record, timeout)

    # ---------------------------------------------------------------- internals: interactions

    def _interaction_payload(
        self, itype: int, person: FakeUser, place: FakeChannel, data: JSON, locale: str | None
    ) -> JSON:
        interaction_id = self._ids.next()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        guild = self.guilds.get(place.guild_id) if place.guild_id is not None else None
        channel_json = place.to_json(last_message_id=self._last_message_id(place.id))
        payload: JSON = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "channel_id": str(place.id),
            "channel": channel_json,
            "token": token,
            "version": 1,
            "locale": locale or person.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if guild is not None:
            member = guild.members.get(person.id)
            if member is None:
                raise PermissionError(f"{person.username} is not a member of {guild.name}")
            bot_member = guild.members[self.bot.id]
            bot_permissions = bot_member.permissions
            if not place.bot_can_send:  # a channel override denies the bot: Discord says so
                bot_permissions &= ~(_P_SEND_MESSAGES | _P_SEND_IN_THREADS)
            permissions = ALL_PERMISSIONS if guild.owner_id == person.id else member.permissions
            channel_json["permissions"] = str(permissions)
            member_json = member.to_json(with_permissions=False)
            member_json["permissions"] = str(permissions)
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=member_json,
                app_permissions=str(bot_permissions),
                context=0,
                authorizing_integration_owners={"0": str(guild.id)},
            )
        else:
            payload.update(
                user=person.to_json(),
                app_permissions=str(DEFAULT_BOT_PERMISSIONS),
                context=1,
                authorizing_integration_owners={"0": "0"},
            )
        return payload

    def _register_interaction(
        self,
        payload: JSON,
        person: FakeUser,
        place: FakeChannel,
        *,
        command_name: str | None = None,
        message_id: int | None = None,
    ) -> InteractionRecord:
        record = InteractionRecord(
            id=int(payload["id"]),
            token=payload["token"],
            type=payload["type"],
            payload=payload,
            user_id=person.id,
            channel_id=place.id,
            guild_id=place.guild_id,
            message_id=message_id,
            command_name=command_name,
        )
        self._interactions[record.id] = record
        self._interactions_by_token[record.token] = record
        return record

    async def _dispatch_interaction(self, record: InteractionRecord, timeout: float) -> int:
        await self.wait_until_connected(timeout)
        sent = self._dispatch("INTERACTION_CREATE", lambda s: record.payload)
        record.dispatched_at = await sent
        self._notify()
        return record.id

    # ---------------------------------------------------------------- internals: messages

    def _last_message_id(self, channel_id: int) -> int | None:
        ids = self._channel_messages.get(channel_id)
        return ids[-1] if ids else None

    def _store_message(
        self,
        channel: FakeChannel,
        *,
        author: JSON,
        body: JSON,
        files: list[JSON],
        flags: int | None = None,
        mtype: int = MESSAGE_DEFAULT,
        record: InteractionRecord | None = None,
        ephemeral_for: int | None = None,
    ) -> JSON:
        mid = self._ids.next()
        msg: JSON = {
            "id": str(mid),
            "channel_id": str(channel.id),
            "author": author,
            "content": body.get("content") or "",
            "timestamp": _iso(),
            "edited_timestamp": None,
            "tts": bool(body.get("tts", False)),
            "mention_everyone": False,
            "mentions": self._mentions(body.get("content") or ""),
            "mention_roles": [],
            "attachments": self._attachments(channel.id, files),
            "embeds": copy.deepcopy(body.get("embeds") or []),
            "components": _normalise_components(body.get("components")),
            "pinned": False,
            "type": mtype,
            "flags": int(body.get("flags") or 0) & _SETTABLE_FLAGS if flags is None else flags,
        }
        if record is not None:
            msg["webhook_id"] = str(self.application_id)
            msg["application_id"] = str(self.application_id)
            invoker = self.users[record.user_id].to_json()
            msg["interaction_metadata"] = {
                "id": str(record.id),
                "type": record.type,
                "user": invoker,
                "authorizing_integration_owners": record.payload["authorizing_integration_owners"],
            }
            if record.type == INTERACTION_COMMAND:
                msg["interaction"] = {
                    "id": str(record.id),
                    "type": record.type,
                    "name": record.command_name,
                    "user": invoker,
                }
            if record.message_id is not None:
                msg["interaction_metadata"]["interacted_message_id"] = str(record.message_id)
        reference = body.get("message_reference")
        if reference and reference.get("message_id"):
            ref_id = int(reference["message_id"])
            referenced = self._messages.get(ref_id)
            if referenced is None and reference.get("fail_if_not_exists", True):
                errors = _FormErrors()
                errors.add(["message_reference"], "REPLIES_UNKNOWN_MESSAGE", "Unknown message")
                raise _form_error(errors.tree)
            msg["type"] = MESSAGE_REPLY
            msg["message_reference"] = {
                "type": 0,
                "message_id": str(ref_id),
                "channel_id": str(channel.id),
                "guild_id": _sid(channel.guild_id),
            }
            msg["referenced_message"] = copy.deepcopy(referenced)
        self._messages[mid] = msg
        self._meta[mid] = _MessageMeta(
            channel_id=channel.id,
            author_id=int(author["id"]),
            ephemeral_for=ephemeral_for,
            interaction_id=record.id if record else None,
        )
        self._channel_messages.setdefault(channel.id, []).append(mid)
        return msg

    def _mentions(self, content: str) -> list[JSON]:
        found = []
        for match in re.finditer(r"<@!?(\d+)>", content):
            user = self.users.get(int(match.group(1)))
            if user is not None:
                found.append(user.to_json())
        return found

    def attachment_data(self, attachment: JSON) -> bytes:
        """The uploaded bytes of an attachment of a message (as its `url` would serve them)."""
        return self._attachment_data[int(attachment["id"])]

    def _attachments(self, channel_id: int, files: list[JSON]) -> list[JSON]:
        result = []
        for f in files:
            attachment_id = self._ids.next()
            self._attachment_data[attachment_id] = bytes(f.get("data", b""))
            url = f"{self.url}/attachments/{channel_id}/{attachment_id}/{f['filename']}"
            result.append(
                {
                    "id": str(attachment_id),
                    "filename": f["filename"],
                    "size": f["size"],
                    "url": url,
                    "proxy_url": url,
                    "content_type": f.get("content_type"),
                }
            )
        return result

    def _edit_message(
        self, mid: int, body: JSON, files: list[JSON], *, prefix: Sequence[str] = ()
    ) -> JSON:
        _validate_message_body(body, prefix=prefix, require_content=False)
        msg = self._messages[mid]
        if "content" in body:
            msg["content"] = body["content"] or ""
            msg["mentions"] = self._mentions(msg["content"])
        if "embeds" in body:
            msg["embeds"] = copy.deepcopy(body["embeds"] or [])
        if "components" in body:
            msg["components"] = _normalise_components(body["components"])
        if "flags" in body and body["flags"] is not None:
            keep = msg["flags"] & ~FLAG_SUPPRESS_EMBEDS
            msg["flags"] = keep | (int(body["flags"]) & FLAG_SUPPRESS_EMBEDS)
        if "attachments" in body:
            kept_ids = {str(a.get("id")) for a in body["attachments"] or []}
            msg["attachments"] = [a for a in msg["attachments"] if a["id"] in kept_ids]
        if files:
            msg["attachments"] += self._attachments(int(msg["channel_id"]), files)
        msg["edited_timestamp"] = _iso()
        return msg

    def _message_event(
        self, event: str, msg: JSON, channel: FakeChannel, *, author_id: int
    ) -> None:
        """Send MESSAGE_CREATE/UPDATE to a connected client whose intents ask for it."""
        meta = self._meta[int(msg["id"])]
        if meta.ephemeral_for is not None or self._active is None:
            return
        intent = INTENT_DIRECT_MESSAGES if channel.guild_id is None else INTENT_GUILD_MESSAGES

        def build(session: _GatewaySession) -> JSON:
            data = copy.deepcopy(msg)
            hidden = not session.intents & INTENT_MESSAGE_CONTENT
            is_mentioned = any(m["id"] == str(self.bot.id) for m in data["mentions"])
            if (
                hidden
                and author_id != self.bot.id
                and channel.guild_id is not None
                and not is_mentioned
            ):
                data.update(content="", embeds=[], attachments=[], components=[])
            if channel.guild_id is not None:
                data["guild_id"] = str(channel.guild_id)
                member = self.guilds[channel.guild_id].members.get(author_id)
                if member is not None and meta.interaction_id is None:
                    data["member"] = member.to_json(with_user=False)
            return data

        self._dispatch_if_connected(event, build, intent=intent)

    def _message_deleted(self, mid: int) -> None:
        meta = self._meta[mid]
        channel = self.channels[meta.channel_id]
        if meta.ephemeral_for is not None:
            return
        data: JSON = {"id": str(mid), "channel_id": str(channel.id)}
        if channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
        intent = INTENT_DIRECT_MESSAGES if channel.guild_id is None else INTENT_GUILD_MESSAGES
        self._dispatch_if_connected("MESSAGE_DELETE", lambda s: data, intent=intent)

    # ---------------------------------------------------------------- internals: gateway

    def _dispatch(
        self, event: str, build: Callable[[_GatewaySession], JSON]
    ) -> asyncio.Future[float]:
        connection = self._active
        if connection is None or connection.session is None:
            raise RuntimeError("no client connected to the fake gateway")
        session = connection.session
        session.seq += 1
        frame = {"op": 0, "t": event, "s": session.seq, "d": build(session)}
        session.sent.append(frame)
        del session.sent[:-1000]
        return connection.send(frame)

    def _dispatch_if_connected(
        self, event: str, build: Callable[[_GatewaySession], JSON], *, intent: int = 0
    ) -> None:
        """Queue an event for the connected client, if any and if its intents ask for it."""
        connection = self._active
        if connection is None or connection.session is None:
            return
        if intent and not connection.session.intents & intent:
            return
        sent = self._dispatch(event, build)
        sent.add_done_callback(_consume_outcome)  # the socket may drop meanwhile: that is fine

    def _guild_create_payload(self, guild: FakeGuild, session: _GatewaySession) -> JSON:
        data = guild.to_json()
        channels = [c for c in guild.channels.values() if not c.is_thread]
        threads = [c for c in guild.channels.values() if c.is_thread]
        if session.intents & INTENT_GUILD_MEMBERS:
            members = list(guild.members.values())
        else:
            members = [guild.members[self.bot.id]]
        data.update(
            joined_at=guild.joined_at,
            large=False,
            unavailable=False,
            lazy=True,
            member_count=len(guild.members),
            voice_states=[],
            members=[m.to_json() for m in members],
            channels=[c.to_json(last_message_id=self._last_message_id(c.id)) for c in channels],
            threads=[t.to_json(last_message_id=self._last_message_id(t.id)) for t in threads],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        return data

    def _ready_payload(self, session: _GatewaySession) -> JSON:
        ready: JSON = {
            "v": discord.http.INTERNAL_API_VERSION,
            "user": {**self.bot.to_json(), "verified": True, "mfa_enabled": False},
            "user_settings": {},
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": self._application_flags()},
            "geo_ordered_rtc_regions": ["rotterdam"],
            "auth": {},
            "_trace": ['["fake-discord-gateway",{"micros":0}]'],
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        return ready

    def _application_flags(self) -> int:
        flags = 0
        if self.privileged_intents & INTENT_GUILD_PRESENCES:
            flags |= 1 << 13
        if self.privileged_intents & INTENT_GUILD_MEMBERS:
            flags |= 1 << 15
        if self.privileged_intents & INTENT_MESSAGE_CONTENT:
            flags |= 1 << 19
        return flags

    async def _handle_gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self.gateway_connections.append(dict(request.query))
        zlib_stream = request.query.get("compress") == "zlib-stream"
        connection = _GatewayConnection(ws, zlib_stream=zlib_stream, clock=self.clock)
        self._connections.add(connection)
        connection.send(
            {
                "op": 10,
                "d": {
                    "heartbeat_interval": int(self.heartbeat_interval * 1000),
                    "_trace": ['["fake-discord-gateway",{"micros":0}]'],
                },
                "s": None,
                "t": None,
            }
        )
        try:
            async for message in ws:
                if message.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    break
                try:
                    raw = message.data if message.type is WSMsgType.TEXT else message.data.decode()
                    frame = json.loads(raw)
                except (ValueError, UnicodeDecodeError):
                    await connection.close(4002, "Error while decoding payload.")
                    break
                if not await self._on_gateway_frame(connection, frame):
                    break
        finally:
            self._connections.discard(connection)
            if self._active is connection:
                self._active = None
            await connection.stop_writer()
            self._notify()
        return ws

    async def _on_gateway_frame(self, connection: _GatewayConnection, frame: JSON) -> bool:
        """Handle one client frame; return False once the connection is closed."""
        self.gateway_received.append(frame)
        self._notify()
        op = frame.get("op")
        data = frame.get("d")
        if op == 1:
            connection.send({"op": 11, "d": None, "s": None, "t": None})
            return True
        if op == 2:
            return await self._identify(connection, data or {})
        if op == 6:
            return await self._resume(connection, data or {})
        if connection.session is None:
            await connection.close(4003, "Not authenticated.")
            return False
        if op == 8:
            self._request_members(connection, data or {})
            return True
        if op in (3, 4):  # presence update, voice state update: accepted, recorded
            return True
        await connection.close(4001, "Unknown opcode.")
        return False

    async def _identify(self, connection: _GatewayConnection, data: JSON) -> bool:
        self.identify_payloads.append(data)
        if connection.session is not None:
            await connection.close(4005, "Already authenticated.")
            return False
        if data.get("token") != self.token:
            await connection.close(4004, "Authentication failed.")
            return False
        intents = data.get("intents")
        if not isinstance(intents, int) or intents < 0 or intents & ~ALL_INTENTS:
            await connection.close(4013, "Invalid intent(s).")
            return False
        if intents & PRIVILEGED_INTENTS & ~self.privileged_intents:
            await connection.close(4014, "Disallowed intent(s).")
            return False
        shard = data.get("shard")
        if shard is not None and (
            not isinstance(shard, list) or len(shard) != 2 or not 0 <= shard[0] < shard[1]
        ):
            await connection.close(4010, "Invalid shard.")
            return False
        session = _GatewaySession(session_id=secrets.token_hex(16), intents=intents, shard=shard)
        self._sessions[session.session_id] = session
        connection.session = session
        self._active = connection
        self._dispatch("READY", self._ready_payload)
        for guild in list(self.guilds.values()):
            self._dispatch("GUILD_CREATE", functools.partial(self._guild_create_payload, guild))
        self._notify()
        return True

    async def _resume(self, connection: _GatewayConnection, data: JSON) -> bool:
        if data.get("token") != self.token:
            await connection.close(4004, "Authentication failed.")
            return False
        session = self._sessions.get(str(data.get("session_id")))
        if session is None:
            connection.send({"op": 9, "d": False, "s": None, "t": None})
            return True
        if self._active is not None and self._active is not connection:
            await self._active.close(4000, "Session resumed elsewhere")
        connection.session = session
        self._active = connection
        last_seen = data.get("seq") or 0
        for frame in session.sent:
            if frame["s"] > last_seen:
                connection.send(frame)
        self._dispatch("RESUMED", lambda s: {"_trace": ['["fake-discord-gateway",{"micros":0}]']})
        self._notify()
        return True

    def _request_members(self, connection: _GatewayConnection, data: JSON) -> None:
        guild = self.guilds.get(int(data.get("guild_id") or 0))
        if guild is None or connection.session is None:
            return
        members = list(guild.members.values())
        if data.get("user_ids"):
            wanted = {int(u) for u in data["user_ids"]}
            members = [m for m in members if m.user.id in wanted]
        elif data.get("query"):
            members = [m for m in members if m.user.username.startswith(data["query"])]
        limit = data.get("limit") or 0
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.to_json() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        if self._active is connection:
            self._dispatch("GUILD_MEMBERS_CHUNK", lambda s: chunk)

    # ---------------------------------------------------------------- internals: HTTP plumbing

    def _build_routes(self) -> list[_Route]:
        table: list[tuple[str, str, _Handler, bool]] = [
            ("GET", "/users/@me", self._get_me, True),
            ("GET", "/users/{user_id}", self._get_user, True),
            ("POST", "/users/@me/channels", self._create_dm, True),
            ("GET", "/oauth2/applications/@me", self._get_application, True),
            ("GET", "/applications/@me", self._get_application, True),
            ("GET", "/gateway", self._get_gateway, False),
            ("GET", "/gateway/bot", self._get_gateway_bot, True),
            ("GET", "/applications/{app_id}/commands", self._list_commands, True),
            ("PUT", "/applications/{app_id}/commands", self._put_commands, True),
            ("POST", "/applications/{app_id}/commands", self._post_command, True),
            ("GET", "/applications/{app_id}/commands/{command_id}", self._get_command, True),
            ("DELETE", "/applications/{app_id}/commands/{command_id}", self._delete_command, True),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self._list_commands, True),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self._put_commands, True),
            ("POST", "/applications/{app_id}/guilds/{guild_id}/commands", self._post_command, True),
            (
                "GET",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self._get_command,
                True,
            ),
            (
                "DELETE",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self._delete_command,
                True,
            ),
            ("GET", "/guilds/{guild_id}", self._get_guild, True),
            ("GET", "/guilds/{guild_id}/channels", self._get_guild_channels, True),
            ("GET", "/guilds/{guild_id}/roles", self._get_roles, True),
            ("GET", "/guilds/{guild_id}/members", self._list_members, True),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member, True),
            ("GET", "/channels/{channel_id}", self._get_channel, True),
            ("POST", "/channels/{channel_id}/typing", self._typing, True),
            ("GET", "/channels/{channel_id}/messages", self._list_messages, True),
            ("POST", "/channels/{channel_id}/messages", self._post_message, True),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message, True),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message, True),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message, True),
            (
                "PUT",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self._add_reaction,
                True,
            ),
            ("POST", "/channels/{channel_id}/threads", self._create_thread, True),
            (
                "POST",
                "/channels/{channel_id}/messages/{message_id}/threads",
                self._create_thread,
                True,
            ),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._callback, False),
            ("POST", "/webhooks/{app_id}/{token}", self._execute_webhook, False),
            (
                "GET",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self._get_webhook_message,
                False,
            ),
            (
                "PATCH",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self._patch_webhook_message,
                False,
            ),
            (
                "DELETE",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self._delete_webhook_message,
                False,
            ),
        ]
        routes = []
        for method, template, handler, auth in table:
            pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template.replace(".", r"\."))
            routes.append(_Route(method, template, re.compile(pattern), handler, auth))
        return routes

    async def _read_body(self, request: web.Request) -> tuple[Any, list[JSON]]:
        if request.content_type.startswith("multipart/"):
            body: Any = None
            files: list[JSON] = []
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    continue
                data = bytes(await part.read())
                if part.name == "payload_json":
                    body = json.loads(data)
                else:
                    files.append(
                        {
                            "field": part.name,
                            "filename": part.filename or "file",
                            "size": len(data),
                            "content_type": part.headers.get("Content-Type"),
                            "data": data,
                        }
                    )
            return body, files
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw), []
        except ValueError:
            raise DiscordAPIError(400, 50109, "The request body contains invalid JSON.") from None

    def _channel_bucket(
        self, method: str, path: str, template: str
    ) -> tuple[dict[str, str], float | None] | None:
        """The headers of a channel's message bucket, and the seconds a refused request must
        wait (None: it fits); None when no bucket applies."""
        limit = self.channel_limit
        found = _CHANNEL_MESSAGES.fullmatch(path)
        if limit is None or found is None or method not in ("POST", "PATCH"):
            return None
        now = time.monotonic()
        key = (int(found.group(1)), method)
        window = self._channel_buckets.get(key)
        if window is None or window[0] <= now:
            window = self._channel_buckets[key] = [now + limit.per, 0.0]
        reset_after = window[0] - now
        bucket = hashlib.sha1(f"{method} {template}".encode()).hexdigest()[:16]
        headers = {
            "X-RateLimit-Limit": str(limit.limit),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket,
            "Via": "1.1 google",
        }
        if window[1] >= limit.limit:
            self.bucket_refusals[key[0]] = self.bucket_refusals.get(key[0], 0) + 1
            headers["X-RateLimit-Remaining"] = "0"
            headers["X-RateLimit-Scope"] = "user"
            headers["Retry-After"] = str(math.ceil(reset_after))
            return headers, round(reset_after, 3)
        window[1] += 1
        headers["X-RateLimit-Remaining"] = str(int(limit.limit - window[1]))
        return headers, None

    def _ratelimit_headers(
        self, template: str, *, remaining: int, reset_after: float
    ) -> dict[str, str]:
        bucket = hashlib.sha1(template.encode()).hexdigest()[:16]
        return {
            "X-RateLimit-Limit": "50",
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket,
            "Via": "1.1 google",
        }

    async def _handle_api(self, request: web.Request) -> web.Response:
        match = re.fullmatch(r"/api/v\d+(/.*)", request.path)
        path = match.group(1) if match else request.path
        method = request.method
        route: _Route | None = None
        params: dict[str, str] = {}
        for candidate in self._routes:
            if candidate.method != method:
                continue
            found = candidate.regex.fullmatch(path)
            if found is not None:
                route, params = candidate, found.groupdict()
                break
        template = route.template if route else path
        headers = self._ratelimit_headers(template, remaining=49, reset_after=1.0)
        body: Any = None
        files: list[JSON] = []
        status = 200
        response: Any
        try:
            body, files = await self._read_body(request)
            rule = next((r for r in self.rate_limits if r.matches(method, path)), None)
            bucket = self._channel_bucket(method, path, template)
            if bucket is not None:
                headers, refused_for = bucket
                if refused_for is not None:
                    status = 429
                    response = {
                        "message": "You are being rate limited.",
                        "retry_after": refused_for,
                        "global": False,
                    }
            if status == 429:
                pass
            elif rule is not None:
                rule.hits += 1
                status = 429
                response = {
                    "message": "You are being rate limited.",
                    "retry_after": rule.retry_after,
                    "global": rule.is_global,
                }
                headers = self._ratelimit_headers(
                    template, remaining=0, reset_after=rule.retry_after
                )
                headers["Retry-After"] = str(math.ceil(rule.retry_after))
                headers["X-RateLimit-Scope"] = "global" if rule.is_global else "user"
                if rule.is_global:
                    headers["X-RateLimit-Global"] = "true"
            elif route is None:
                raise DiscordAPIError(404, 0, "404: Not Found")
            else:
                if route.auth and request.headers.get("Authorization") != f"Bot {self.token}":
                    raise DiscordAPIError(401, 0, "401: Unauthorized")
                result = await route.handler(
                    _ApiRequest(method, path, params, request.query, body, files)
                )
                status, response = result.status, result.body
        except DiscordAPIError as error:
            status, response = error.status, error.to_json()
        self.calls.append(
            RecordedCall(
                method=method,
                path=path,
                query=dict(request.query),
                json=body,
                files=tuple({k: v for k, v in f.items() if k != "data"} for f in files),
                status=status,
                response=copy.deepcopy(response),
                at=self.clock(),
            )
        )
        self._notify()
        if status == 204:
            return web.Response(status=204, headers=headers)
        # Exactly "application/json", as Discord sends it: discord.py's json_or_text() compares the
        # header verbatim and would treat "application/json; charset=utf-8" as plain text.
        headers["Content-Type"] = "application/json"
        return web.Response(body=json.dumps(response).encode(), status=status, headers=headers)

    # ---------------------------------------------------------------- handlers: users, app

    async def _get_me(self, req: _ApiRequest) -> _ApiResponse:
        me = {**self.bot.to_json(), "verified": True, "mfa_enabled": False, "locale": "en-US"}
        return _ApiResponse(body=me)

    async def _get_user(self, req: _ApiRequest) -> _ApiResponse:
        user = (
            self.users.get(int(req.params["user_id"])) if req.params["user_id"].isdigit() else None
        )
        if user is None:
            raise DiscordAPIError(404, 10013, "Unknown User")
        return _ApiResponse(body=user.to_json())

    async def _create_dm(self, req: _ApiRequest) -> _ApiResponse:
        recipient = (req.body or {}).get("recipient_id")
        user = self.users.get(int(recipient)) if recipient is not None else None
        if user is None:
            raise DiscordAPIError(404, 10013, "Unknown User")
        channel = self.dm_channel(user)
        return _ApiResponse(body=channel.to_json(last_message_id=self._last_message_id(channel.id)))

    async def _get_application(self, req: _ApiRequest) -> _ApiResponse:
        return _ApiResponse(
            body={
                "id": str(self.application_id),
                "name": self.bot.username,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "hook": True,
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": self.verify_key,
                "owner": self.owner.to_json(),
                "team": None,
                "flags": self._application_flags(),
                "bot": self.bot.to_json(),
                "rpc_origins": [],
                "redirect_uris": [],
                "tags": [],
                "interactions_endpoint_url": None,
                "install_params": None,
                "integration_types_config": {"0": {}},
                "approximate_guild_count": len(self.guilds),
            }
        )

    async def _get_gateway(self, req: _ApiRequest) -> _ApiResponse:
        return _ApiResponse(body={"url": self.gateway_url})

    async def _get_gateway_bot(self, req: _ApiRequest) -> _ApiResponse:
        return _ApiResponse(
            body={
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 86_400_000,
                    "max_concurrency": 1,
                },
            }
        )

    # ---------------------------------------------------------------- handlers: commands

    def _command_scope(self, req: _ApiRequest) -> dict[tuple[str, int], JSON]:
        if req.params["app_id"] != str(self.application_id):
            raise DiscordAPIError(403, 50001, "Missing Access")
        guild_id = req.params.get("guild_id")
        if guild_id is None:
            return self._global_commands
        if not guild_id.isdigit() or int(guild_id) not in self.guilds:
            raise DiscordAPIError(403, 50001, "Missing Access")
        return self._guild_commands.setdefault(int(guild_id), {})

    def _validate_command(self, errors: _FormErrors, command: Any, path: list[str | int]) -> None:
        if not isinstance(command, dict):
            errors.add(path, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            return
        ctype = command.get("type", 1)
        name = command.get("name")
        bad_name = not isinstance(name, str) or not _COMMAND_NAME.match(name)
        if bad_name or (ctype == 1 and name != str(name).lower()):
            errors.add(
                [*path, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
            )
        if ctype == 1:
            description = command.get("description")
            if not isinstance(description, str) or not 1 <= len(description) <= 100:
                errors.add(
                    [*path, "description"],
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
        self._validate_options(errors, command.get("options") or [], [*path, "options"])

    def _validate_options(
        self, errors: _FormErrors, options: list[JSON], path: list[str | int]
    ) -> None:
        if len(options) > 25:
            errors.max_length(path, 25)
        names: set[str] = set()
        for i, option in enumerate(options):
            name = option.get("name")
            if not isinstance(name, str) or not _COMMAND_NAME.match(name) or name != name.lower():
                errors.add(
                    [*path, i, "name"],
                    "APPLICATION_COMMAND_INVALID_NAME",
                    "Command name is invalid",
                )
            elif name in names:
                errors.add(
                    [*path, i, "name"],
                    "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                    "Option name already exists",
                )
            names.add(str(name))
            description = option.get("description")
            if not isinstance(description, str) or not 1 <= len(description) <= 100:
                errors.add(
                    [*path, i, "description"],
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            if option.get("type") in (OPTION_SUB_COMMAND, OPTION_SUB_COMMAND_GROUP):
                self._validate_options(errors, option.get("options") or [], [*path, i, "options"])

    def _store_command(
        self, scope: dict[tuple[str, int], JSON], command: JSON, guild_id: str | None
    ) -> JSON:
        key = (command["name"], int(command.get("type", 1)))
        previous = scope.get(key)
        stored: JSON = {
            "id": previous["id"] if previous else str(self._ids.next()),
            "application_id": str(self.application_id),
            "version": str(self._ids.next()),
            "type": key[1],
            "name": command["name"],
            "name_localizations": command.get("name_localizations"),
            "description": command.get("description", ""),
            "description_localizations": command.get("description_localizations"),
            "options": copy.deepcopy(command.get("options") or []),
            "default_member_permissions": command.get("default_member_permissions"),
            "dm_permission": command.get("dm_permission", True),
            "contexts": command.get("contexts"),
            "integration_types": command.get("integration_types") or [0],
            "nsfw": bool(command.get("nsfw", False)),
        }
        if guild_id is not None:
            stored["guild_id"] = guild_id
        scope[key] = stored
        return stored

    async def _list_commands(self, req: _ApiRequest) -> _ApiResponse:
        scope = self._command_scope(req)
        return _ApiResponse(body=copy.deepcopy(list(scope.values())))

    async def _put_commands(self, req: _ApiRequest) -> _ApiResponse:
        scope = self._command_scope(req)
        commands = req.body
        errors = _FormErrors()
        if not isinstance(commands, list):
            errors.add([], "BASE_TYPE_BAD_TYPE", "Must be an array.")
            errors.raise_if_any()
        if len(commands) > 100:
            errors.max_length([], 100)
        keys: set[tuple[str, int]] = set()
        for i, command in enumerate(commands):
            self._validate_command(errors, command, [i])
            if isinstance(command, dict):
                key = (str(command.get("name")), int(command.get("type", 1)))
                if key in keys:
                    errors.add(
                        [i, "name"],
                        "APPLICATION_COMMANDS_DUPLICATE_NAME",
                        f"Application command names must be unique ({key[0]})",
                    )
                keys.add(key)
        errors.raise_if_any()
        old = dict(scope)
        scope.clear()
        stored = []
        for command in commands:
            previous = old.get((command["name"], int(command.get("type", 1))))
            if previous is not None:
                scope[(previous["name"], previous["type"])] = previous
            stored.append(self._store_command(scope, command, req.params.get("guild_id")))
        return _ApiResponse(body=copy.deepcopy(stored))

    async def _post_command(self, req: _ApiRequest) -> _ApiResponse:
        scope = self._command_scope(req)
        errors = _FormErrors()
        self._validate_command(errors, req.body, [])
        errors.raise_if_any()
        key = (req.body["name"], int(req.body.get("type", 1)))
        existed = key in scope
        stored = self._store_command(scope, req.body, req.params.get("guild_id"))
        return _ApiResponse(status=200 if existed else 201, body=copy.deepcopy(stored))

    def _command_by_id(
        self, req: _ApiRequest
    ) -> tuple[dict[tuple[str, int], JSON], tuple[str, int]]:
        scope = self._command_scope(req)
        for key, command in scope.items():
            if command["id"] == req.params["command_id"]:
                return scope, key
        raise DiscordAPIError(404, 10063, "Unknown application command")

    async def _get_command(self, req: _ApiRequest) -> _ApiResponse:
        scope, key = self._command_by_id(req)
        return _ApiResponse(body=copy.deepcopy(scope[key]))

    async def _delete_command(self, req: _ApiRequest) -> _ApiResponse:
        scope, key = self._command_by_id(req)
        del scope[key]
        return _ApiResponse(status=204)

    # ---------------------------------------------------------------- handlers: guilds

    def _guild(self, req: _ApiRequest) -> FakeGuild:
        raw = req.params["guild_id"]
        guild = self.guilds.get(int(raw)) if raw.isdigit() else None
        if guild is None:
            raise DiscordAPIError(404, 10004, "Unknown Guild")
        return guild

    async def _get_guild(self, req: _ApiRequest) -> _ApiResponse:
        guild = self._guild(req)
        body = guild.to_json()
        if req.query.get("with_counts") in ("true", "1"):
            body.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
        return _ApiResponse(body=body)

    async def _get_guild_channels(self, req: _ApiRequest) -> _ApiResponse:
        guild = self._guild(req)
        return _ApiResponse(
            body=[
                c.to_json(last_message_id=self._last_message_id(c.id))
                for c in guild.channels.values()
                if not c.is_thread
            ]
        )

    async def _get_roles(self, req: _ApiRequest) -> _ApiResponse:
        return _ApiResponse(body=[self._guild(req).everyone_role()])

    async def _list_members(self, req: _ApiRequest) -> _ApiResponse:
        guild = self._guild(req)
        limit = int(req.query.get("limit", "1"))
        after = int(req.query.get("after", "0"))
        members = sorted(guild.members.values(), key=lambda m: m.user.id)
        return _ApiResponse(body=[m.to_json() for m in members if m.user.id > after][:limit])

    async def _get_member(self, req: _ApiRequest) -> _ApiResponse:
        guild = self._guild(req)
        raw = req.params["user_id"]
        member = guild.members.get(int(raw)) if raw.isdigit() else None
        if member is None:
            raise DiscordAPIError(404, 10007, "Unknown Member")
        return _ApiResponse(body=member.to_json())

    # ---------------------------------------------------------------- handlers: channels

    def _channel_from(self, req: _ApiRequest) -> FakeChannel:
        raw = req.params["channel_id"]
        channel = self.channels.get(int(raw)) if raw.isdigit() else None
        if channel is None:
            raise DiscordAPIError(404, 10003, "Unknown Channel")
        return channel

    def _message_from(self, req: _ApiRequest, channel: FakeChannel) -> int:
        raw = req.params["message_id"]
        mid = int(raw) if raw.isdigit() else -1
        meta = self._meta.get(mid)
        if (
            meta is None
            or meta.deleted
            or meta.channel_id != channel.id
            or meta.ephemeral_for is not None
        ):
            raise DiscordAPIError(404, 10008, "Unknown Message")
        return mid

    async def _get_channel(self, req: _ApiRequest) -> _ApiResponse:
        channel = self._channel_from(req)
        return _ApiResponse(body=channel.to_json(last_message_id=self._last_message_id(channel.id)))

    async def _typing(self, req: _ApiRequest) -> _ApiResponse:
        self._channel_from(req)
        return _ApiResponse(status=204)

    async def _list_messages(self, req: _ApiRequest) -> _ApiResponse:
        channel = self._channel_from(req)
        limit = int(req.query.get("limit", "50"))
        before = int(req.query.get("before", str(1 << 63)))
        after = int(req.query.get("after", "0"))
        visible = [
            m
            for m in self.messages_in(channel, include_ephemeral=False)
            if after < int(m["id"]) < before
        ]
        newest_first = list(reversed(visible))
        return _ApiResponse(body=newest_first[:limit])

    def _check_can_send(self, channel: FakeChannel) -> None:
        if channel.type == CHANNEL_DM:
            if channel.recipient is not None and not channel.recipient.dms_open:
                raise DiscordAPIError(403, 50007, "Cannot send messages to this user")
        elif not channel.bot_can_send:
            raise DiscordAPIError(403, 50013, "Missing Permissions")

    async def _post_message(self, req: _ApiRequest) -> _ApiResponse:
        channel = self._channel_from(req)
        body = req.body or {}
        _validate_message_body(body, files=len(req.files))
        self._check_can_send(channel)
        flags = int(body.get("flags") or 0) & _SETTABLE_FLAGS & ~FLAG_EPHEMERAL  # needs a token
        msg = self._store_message(
            channel, author=self.bot.to_json(), body=body, files=req.files, flags=flags
        )
        self._message_event("MESSAGE_CREATE", msg, channel, author_id=self.bot.id)
        return _ApiResponse(body=copy.deepcopy(msg))

    async def _get_message(self, req: _ApiRequest) -> _ApiResponse:
        channel = self._channel_from(req)
        return _ApiResponse(body=copy.deepcopy(self._messages[self._message_from(req, channel)]))

    async def _patch_message(self, req: _ApiRequest) -> _ApiResponse:
        channel = self._channel_from(req)
        mid = self._message_from(req, channel)
        if self._meta[mid].author_id != self.bot.id:
            raise DiscordAPIError(403, 50005, "Cannot edit a message authored by another user")
        msg = self._edit_message(mid, req.body or {}, req.files)
        self._message_event("MESSAGE_UPDATE", msg, channel, author_id=self.bot.id)
        return _ApiResponse(body=copy.deepcopy(msg))

    async def _delete_message(self, req: _ApiRequest) -> _ApiResponse:
        channel = self._channel_from(req)
        mid = self._message_from(req, channel)
        self._meta[mid].deleted = True
        self._message_deleted(mid)
        return _ApiResponse(status=204)

    async def _add_reaction(self, req: _ApiRequest) -> _ApiResponse:
        channel = self._channel_from(req)
        mid = self._message_from(req, channel)
        self._reactions.setdefault(mid, []).append(req.params["emoji"])
        return _ApiResponse(status=204)

    async def _create_thread(self, req: _ApiRequest) -> _ApiResponse:
        parent = self._channel_from(req)
        body = req.body or {}
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            errors = _FormErrors()
            errors.add(["name"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
            errors.raise_if_any()
        if parent.guild_id is None or parent.is_thread:
            raise DiscordAPIError(400, 50024, "Cannot execute action on this channel type")
        thread_id = None
        if "message_id" in req.params:
            thread_id = self._message_from(req, parent)
        private = (
            body.get("type", CHANNEL_PUBLIC_THREAD) == CHANNEL_PRIVATE_THREAD and thread_id is None
        )
        thread = self.add_thread(parent, str(name), private=private, thread_id=thread_id)
        return _ApiResponse(status=201, body=thread.to_json())

    # ---------------------------------------------------------------- handlers: interactions

    async def _callback(self, req: _ApiRequest) -> _ApiResponse:
        raw_id = req.params["interaction_id"]
        record = self._interactions.get(int(raw_id)) if raw_id.isdigit() else None
        body = req.body if isinstance(req.body, dict) else {}
        if record is None or record.token != req.params["token"]:
            raise DiscordAPIError(404, 10062, "Unknown interaction")
        try:
            result = await self._apply_callback(record, body, req)
        except DiscordAPIError as error:
            record.refused.append((copy.deepcopy(body), error))
            raise
        record.callbacks.append(copy.deepcopy(body))
        return result

    async def _apply_callback(
        self, record: InteractionRecord, body: JSON, req: _ApiRequest
    ) -> _ApiResponse:
        if record.acknowledged:
            raise DiscordAPIError(400, 40060, "Interaction has already been acknowledged.")
        if record.dispatched_at is None or self.clock() - record.dispatched_at > self.ack_deadline:
            raise DiscordAPIError(404, 10062, "Unknown interaction")
        ctype = body.get("type")
        if ctype not in _ALLOWED_CALLBACKS.get(record.type, frozenset()):
            errors = _FormErrors()
            errors.add(
                ["type"],
                "INTERACTION_CALLBACK_TYPE_INVALID",
                "Interaction callback type is not valid",
            )
            raise _form_error(errors.tree)
        data = body.get("data") or {}
        channel = self.channels[record.channel_id]
        ephemeral = bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)
        message: JSON | None = None
        message_id: int | None = None
        if ctype == CALLBACK_CHANNEL_MESSAGE:
            _validate_message_body(data, prefix=["data"], files=len(req.files))
            mtype = (
                MESSAGE_CHAT_INPUT_COMMAND
                if record.type == INTERACTION_COMMAND
                else MESSAGE_DEFAULT
            )
            message = self._store_message(
                channel,
                author=self.bot.to_json(),
                body=data,
                files=req.files,
                mtype=mtype,
                record=record,
                ephemeral_for=record.user_id if ephemeral else None,
            )
            message_id = int(message["id"])
        elif ctype == CALLBACK_DEFERRED_CHANNEL_MESSAGE:
            mtype = (
                MESSAGE_CHAT_INPUT_COMMAND
                if record.type == INTERACTION_COMMAND
                else MESSAGE_DEFAULT
            )
            message = self._store_message(
                channel,
                author=self.bot.to_json(),
                body={},
                files=[],
                flags=FLAG_LOADING | (FLAG_EPHEMERAL if ephemeral else 0),
                mtype=mtype,
                record=record,
                ephemeral_for=record.user_id if ephemeral else None,
            )
            message_id = int(message["id"])
        elif ctype in (CALLBACK_DEFERRED_UPDATE_MESSAGE, CALLBACK_UPDATE_MESSAGE):
            message_id = record.message_id
            if message_id is None:
                errors = _FormErrors()
                errors.add(["type"], "INTERACTION_CALLBACK_TYPE_INVALID", "No message to update")
                raise _form_error(errors.tree)
            if ctype == CALLBACK_UPDATE_MESSAGE:
                message = self._edit_message(message_id, data, req.files, prefix=["data"])
            else:
                message = self._messages[message_id]
            ephemeral = self._meta[message_id].ephemeral_for is not None
        elif ctype == CALLBACK_MODAL:
            errors = _FormErrors()
            custom_id = data.get("custom_id")
            if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
                errors.add(
                    ["data", "custom_id"],
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            title = data.get("title")
            if not isinstance(title, str) or not 1 <= len(title) <= 45:
                errors.add(
                    ["data", "title"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length."
                )
            errors.raise_if_any()
        record.response_type = ctype
        record.original_message_id = message_id
        if ctype == CALLBACK_UPDATE_MESSAGE and message is not None:
            self._message_event("MESSAGE_UPDATE", message, channel, author_id=self.bot.id)
        elif ctype == CALLBACK_CHANNEL_MESSAGE and message is not None:
            self._message_event("MESSAGE_CREATE", message, channel, author_id=self.bot.id)
        if req.query.get("with_response") not in ("1", "true", "True"):
            return _ApiResponse(status=204)
        resource: JSON | None = None
        if message is not None and ctype != CALLBACK_DEFERRED_UPDATE_MESSAGE:
            resource = {"type": ctype, "message": copy.deepcopy(message)}
        return _ApiResponse(
            body={
                "interaction": {
                    "id": str(record.id),
                    "type": record.type,
                    "activity_instance_id": None,
                    "response_message_id": _sid(message_id),
                    "response_message_loading": ctype == CALLBACK_DEFERRED_CHANNEL_MESSAGE,
                    "response_message_ephemeral": ephemeral,
                },
                "resource": resource,
            }
        )

    def _webhook_record(self, req: _ApiRequest) -> InteractionRecord:
        record = self._interactions_by_token.get(req.params["token"])
        if (
            record is None
            or req.params["app_id"] != str(self.application_id)
            or not record.acknowledged
        ):
            raise DiscordAPIError(404, 10015, "Unknown Webhook")
        if (
            record.dispatched_at is not None
            and self.clock() - record.dispatched_at > WEBHOOK_TOKEN_LIFETIME
        ):
            raise DiscordAPIError(401, 50027, "Invalid Webhook Token")
        return record

    def _webhook_message_id(self, record: InteractionRecord, raw: str) -> int:
        if raw == "@original":
            if record.original_message_id is None:
                raise DiscordAPIError(404, 10008, "Unknown Message")
            return record.original_message_id
        mid = int(raw) if raw.isdigit() else -1
        if mid != record.original_message_id and mid not in record.followup_ids:
            raise DiscordAPIError(404, 10008, "Unknown Message")
        return mid

    async def _execute_webhook(self, req: _ApiRequest) -> _ApiResponse:
        record = self._webhook_record(req)
        body = req.body or {}
        _validate_message_body(body, files=len(req.files))
        channel = self.channels[record.channel_id]
        if req.query.get("thread_id"):
            channel = self.channels.get(int(req.query["thread_id"]), channel)
        flags = int(body.get("flags") or 0)
        original = record.original_message_id
        if (
            record.response_type == CALLBACK_DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and self._messages[original]["flags"] & FLAG_LOADING
        ):
            # The first followup after a "thinking" defer completes the deferred message.
            msg = self._edit_message(original, body, req.files)
            msg["flags"] &= ~FLAG_LOADING
            msg["edited_timestamp"] = None
            event = "MESSAGE_UPDATE"
        else:
            ephemeral = bool(flags & FLAG_EPHEMERAL)
            msg = self._store_message(
                channel,
                author=self.bot.to_json(),
                body=body,
                files=req.files,
                record=record,
                ephemeral_for=record.user_id if ephemeral else None,
            )
            record.followup_ids.append(int(msg["id"]))
            event = "MESSAGE_CREATE"
        self._message_event(event, msg, channel, author_id=self.bot.id)
        if req.query.get("wait") in ("1", "true", "True"):
            return _ApiResponse(body=copy.deepcopy(msg))
        return _ApiResponse(status=204)

    async def _get_webhook_message(self, req: _ApiRequest) -> _ApiResponse:
        record = self._webhook_record(req)
        mid = self._webhook_message_id(record, req.params["message_id"])
        return _ApiResponse(body=copy.deepcopy(self._messages[mid]))

    async def _patch_webhook_message(self, req: _ApiRequest) -> _ApiResponse:
        record = self._webhook_record(req)
        mid = self._webhook_message_id(record, req.params["message_id"])
        msg = self._edit_message(mid, req.body or {}, req.files)
        msg["flags"] &= ~FLAG_LOADING
        channel = self.channels[self._meta[mid].channel_id]
        self._message_event("MESSAGE_UPDATE", msg, channel, author_id=self.bot.id)
        return _ApiResponse(body=copy.deepcopy(msg))

    async def _delete_webhook_message(self, req: _ApiRequest) -> _ApiResponse:
        record = self._webhook_record(req)
        mid = self._webhook_message_id(record, req.params["message_id"])
        self._meta[mid].deleted = True
        self._message_deleted(mid)
        return _ApiResponse(status=204)
