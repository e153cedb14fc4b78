"""`DiscordNotifier`: the service's `Notifier` over discord.py's REST client.

Table messages are posted to and edited in the table's channel (a thread is a channel of its
own); message refs are message ids. Private pieces go by DM; a DM Discord refuses (403, code
50007: DMs closed or the bot blocked) is UNREACHABLE, which the service never retries. Rate
limits are discord.py's business: it sleeps off a 429 and retries. An edit that would show
exactly what a channel's table message already shows is not sent: Discord accepts it, but it
costs a request against the same limits (the outbox renders a table when its edit goes out, so
two edits queued around a DM show the same state).

An edit returns once Discord answered it, not when discord.py returns: when an answer leaves
the edit bucket spent, discord.py sleeps until the bucket resets before it returns (the
pre-emptive wait in its `Ratelimit.__aexit__`, for whatever request comes next in that
bucket), and the channel's lane, which sends in order, would hold the next message (a deal's
result, a post of another bucket) for that sleep: 2-3.2 s. The answer is seen by an aiohttp
trace on the client's session (`trace`, passed as `http_trace` to the client); the request's
task finishes in the background, and the next edit waits in discord.py's bucket as before.

A screen's picture (a score sheet) is attached to its message as a file; an edit changes the
text and buttons and keeps the attachment.

A press on a private message (a DM hand, an ephemeral hand) is answered by the interaction
it came with, which may update the pressed message itself (Discord's interaction response,
type 7, or once the press was acknowledged, an edit of its original message through the
interaction's webhook). Neither is a request of the DM channel's bucket (5 sends per 5 s),
so the presser's next private screen of the same table, when their press gives them one (a
trick's winner leads, a bid follows a bid), replaces the pressed hand at once instead of
waiting behind that bucket as a new DM (`PressedMessage`): one message, shown once, in the
order of the person's private lane like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
import time
from typing import Any

import aiohttp
import discord

from adapters.discord.buttons import build_view, render_text
from bot.service import tokens
from bot.service.ports import Delivery, MessageGone, Screen
from bot.service.table import TableKey

log = logging.getLogger(__name__)

#: Seconds an ephemeral hand is refreshed (Discord's interaction tokens last 15 minutes).
PULLED_FOR = 14 * 60.0

#: Seconds after a press on a private message during which the presser's next private screen
#: of the same table replaces the pressed message (longer than a DM bucket's 5 s wait, short
#: enough that the presser still looks at it: later screens come as new DMs, which notify).
PRESS_WINDOW = 10.0

NO_MENTIONS = discord.AllowedMentions.none()


def _table_ids(screen: Screen) -> set[str]:
    """The tables the screen's buttons act on."""
    found = set()
    for row in screen.buttons:
        for button in row:
            decoded = tokens.decode(button.token) if button.token else None
            if decoded is not None:
                found.add(decoded.table_id)
    return found


class PressedMessage:
    """A press on a private message (a DM hand, an ephemeral hand) and its interaction: the
    presser's next private screen of the same table may be shown in the pressed message by
    the interaction itself, once (`show`). The interaction's own answer (`acknowledge`,
    `close`) and `show` take turns under one lock, so the interaction is responded to once:
    `show` responds by updating the message when nothing answered yet, else edits the
    response's message (the pressed one, after a silent acknowledgement); any other answer
    (a refusal, an ephemeral reply) closes it first."""

    def __init__(self, interaction: discord.Interaction[Any], table_id: str) -> None:
        self.interaction = interaction
        self.table_id = table_id
        message = interaction.message
        self.ephemeral = message is not None and message.flags.ephemeral
        self.until = time.monotonic() + PRESS_WINDOW
        self.open = True
        self.lock = asyncio.Lock()

    def fits(self, screen: Screen) -> bool:
        """Whether `screen` may replace the pressed message: still open (the press's command
        is under way, see `acknowledge`), within the window, a screen with buttons of the
        pressed table only, no picture to attach."""
        return (
            self.open
            and time.monotonic() <= self.until
            and screen.image is None
            and _table_ids(screen) == {self.table_id}
        )

    async def show(self, screen: Screen) -> bool:
        """Show `screen` in the pressed message through the interaction; False when it may
        not (any more) or Discord refused (the caller sends it as usual)."""
        async with self.lock:
            if not self.fits(screen):
                return False
            self.open = False
            view = build_view(screen)
            text = render_text(screen.text, screen.blocks)
            try:
                if self.interaction.response.is_done():
                    await self.interaction.edit_original_response(
                        content=text, view=view, allowed_mentions=NO_MENTIONS
                    )
                else:
                    await self.interaction.response.edit_message(
                        content=text, view=view, allowed_mentions=NO_MENTIONS
                    )
            except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
                log.info("updating a pressed message failed (%s): sent anew", exc)
                return False
            finally:
                if view is not None:
                    view.stop()  # presses are routed by the registered DynamicItem
            return True

    async def acknowledge(self, *, done: bool) -> None:
        """The press's silent answer (it worked): acknowledged unless `show` answered it.
        `done`: the press's command has returned, so the private screens its commit sends
        have reached `show` already (the outbox queues them at the commit, and a person's
        lane starts on them before the command's caller runs again): the pressed message is
        closed to any later screen, which comes as a new DM (with a notification). Not done
        (a slow command acknowledged in time), it stays open for the command's screen."""
        async with self.lock:
            if not self.interaction.response.is_done():
                await self.interaction.response.defer()  # type 6: no visible change
            if done:
                self.open = False

    async def close(self) -> bool:
        """No screen may use the interaction any more (it answers otherwise); whether it was
        already responded to (the answer then goes as a followup)."""
        async with self.lock:
            self.open = False
            return self.interaction.response.is_done()


class DiscordNotifier:
    """Posts, edits and DMs through a logged-in discord.py client.

    It exists before the client does (the runner restores tables, and queues their messages,
    before platforms start): calls made before `attach` wait for it, up to `wait` seconds.
    """

    def __init__(self, *, wait: float = 60.0) -> None:
        self.wait = wait
        #: The client's HTTP trace (`http_trace`): tells an edit when Discord answered it.
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_end.append(self._answered)
        #: Path of a message ("/channels/<id>/messages/<id>") -> edits waiting for an answer.
        self._answers: dict[str, list[asyncio.Future[int]]] = {}
        #: Edits answered whose requests finish in discord.py's bucket wait (kept referenced).
        self._finishing: set[asyncio.Task[Any]] = set()
        #: Channel id -> (loop time its edit bucket resets, requests left), from the headers
        #: of the newest edit's answer.
        self._edit_bucket: dict[int, tuple[float, int]] = {}
        #: Channel key -> the newest edit of each of its messages waiting for the spent edit
        #: bucket (message ref -> screen), sent in order by the channel's `_later` task.
        self._waiting: dict[str, dict[str, Screen]] = {}
        self._later: dict[str, asyncio.Task[None]] = {}
        self._client: discord.Client | None = None
        self._closed = False
        self._changed = asyncio.Event()
        #: channel key -> (message ref, digest of the screen it shows), the newest message only.
        self._shown: dict[str, tuple[str, bytes]] = {}
        #: user key -> (interaction, until): the ephemeral hand last shown to a player whose
        #: DMs are closed, refreshed in place while its interaction token lives (15 minutes).
        self._pulled: dict[str, tuple[discord.Interaction[Any], float]] = {}
        #: user key -> their last press on a private message, while it may show their next
        #: private screen (`PressedMessage`).
        self._pressed: dict[str, PressedMessage] = {}
        #: user key -> the id of the newest DM sent to them (only that one may be updated by a
        #: press: an older one would show a newer state above what came after it).
        self._last_dm: dict[str, int] = {}

    def pressing(
        self, user: str, interaction: discord.Interaction[Any], decoded: tokens.Token | None
    ) -> PressedMessage | None:
        """`user` pressed the button `decoded` (its token, as the press decoded it; None: not
        a token) in `interaction`: when the pressed message is private (a DM or an ephemeral
        message) it may show their next private screen of the same table."""
        message = interaction.message
        if message is None or decoded is None:
            return None
        if not message.flags.ephemeral and interaction.guild_id is not None:
            return None  # a channel's message: the table message's lane shows it
        now = time.monotonic()
        for key in [k for k, p in self._pressed.items() if p.until < now]:
            del self._pressed[key]
        pressed = PressedMessage(interaction, decoded.table_id)
        if not self._newest(user, pressed):
            return None  # not their newest DM (or not known to be, after a restart)
        self._pressed[user] = pressed
        return pressed

    def _newest(self, user: str, pressed: PressedMessage) -> bool:
        """Whether the pressed message may show `user`'s newest screen: an ephemeral hand,
        or the newest DM this notifier sent them (an older one would show a newer state
        above what came after it)."""
        message = pressed.interaction.message
        return pressed.ephemeral or (message is not None and self._last_dm.get(user) == message.id)

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
        """Stop sending: later calls fail at once instead of waiting (edits already answered
        stop their wait for the bucket)."""
        self._client = None
        self._closed = True
        self._changed.set()
        for request in [*self._finishing, *self._later.values()]:
            request.cancel()

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

    async def _answered(
        self,
        session: aiohttp.ClientSession,
        context: Any,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        """A request was answered (its headers arrived): an edit waiting for it learns its
        status (not a 429: discord.py sends that one again)."""
        if params.method != "PATCH" or params.response.status == 429:
            return
        path = params.url.path
        at = path.find("/channels/")
        headers = params.response.headers
        left, reset = headers.get("X-RateLimit-Remaining"), headers.get("X-RateLimit-Reset-After")
        if at >= 0 and left is not None and reset is not None:
            channel_id = path[at:].split("/")[2]
            with contextlib.suppress(ValueError):
                now = asyncio.get_running_loop().time()
                self._edit_bucket[int(channel_id)] = (now + float(reset), int(left))
        waiting = self._answers.get(path[at:]) if at >= 0 else None
        while waiting:
            future = waiting.pop(0)
            if not future.done():
                future.set_result(params.response.status)
                break

    async def _edit_answered(self, message: discord.PartialMessage, screen: Screen) -> None:
        """Send the edit; return once Discord answered it with success (the request itself
        may go on: discord.py's wait for a spent bucket, finished in the background), else
        as the request ends (its error raised)."""
        path = f"/channels/{message.channel.id}/messages/{message.id}"
        answer: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._answers.setdefault(path, []).append(answer)
        request = asyncio.ensure_future(
            message.edit(
                content=render_text(screen.text, screen.blocks),
                view=build_view(screen),
                allowed_mentions=NO_MENTIONS,
            )
        )
        either: set[asyncio.Future[Any]] = {request, answer}
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            request.cancel()
            raise
        finally:
            waiting = self._answers.get(path)
            if waiting is not None:
                if answer in waiting:
                    waiting.remove(answer)
                if not waiting:
                    del self._answers[path]
        if not request.done() and 200 <= answer.result() < 300:
            self._finishing.add(request)
            request.add_done_callback(self._finished)
            return
        await request

    def _finished(self, request: asyncio.Task[Any]) -> None:
        """An edit's request, answered before, ended (after discord.py's bucket wait)."""
        self._finishing.discard(request)
        if not request.cancelled() and request.exception() is not None:
            log.warning("an edit answered with success then failed: %s", request.exception())

    def _bucket_spent(self, channel: str) -> bool:
        """Whether the channel's edit bucket, as its last answer said, has no request left
        until it resets (an edit now would wait for it)."""
        found = self._edit_bucket.get(_channel_id(channel))
        return found is not None and found[1] <= 0 and found[0] > asyncio.get_running_loop().time()

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Replace the message's text and buttons (no buttons: they are removed). Returns
        once Discord answered, not after discord.py's wait for a spent edit bucket; when the
        channel's edit bucket is spent (or edits already wait for it), the edit waits for it
        apart, the newest of each message only, and this returns at once: the channel's
        next message (a post: another bucket) never waits for the edit bucket."""
        if channel in self._later or self._bucket_spent(channel):
            waiting = self._waiting.setdefault(channel, {})
            waiting.pop(message_ref, None)
            waiting[message_ref] = screen  # latest state wins; order of the newest edits
            if channel not in self._later:
                self._later[channel] = asyncio.get_running_loop().create_task(
                    self._edit_later(channel)
                )
            return True
        if self._shown.get(channel) == (message_ref, _digest(screen)):
            return True  # already shown: an identical edit would only spend a request
        return await self._edit_now(channel, message_ref, screen)

    async def _edit_later(self, channel: str) -> None:
        """Send the channel's edits that waited for its spent edit bucket, in order (each
        waits for the bucket in discord.py); a failure is logged (the table message then
        shows an older state until the next edit)."""
        try:
            while self._waiting.get(channel):
                waiting = self._waiting[channel]
                ref = next(iter(waiting))
                screen = waiting.pop(ref)
                if self._shown.get(channel) == (ref, _digest(screen)):
                    continue  # already shown
                try:
                    await self._edit_now(channel, ref, screen)
                except MessageGone:
                    log.warning("the table message %s in %s is gone", ref, channel)
        finally:
            self._later.pop(channel, None)
            self._waiting.pop(channel, None)

    async def _edit_now(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Send an edit (see `edit`) and return once Discord answered it."""
        digest = _digest(screen)
        client = await self._ready()
        if client is None:
            return False
        target = client.get_partial_messageable(_channel_id(channel))
        message = target.get_partial_message(int(message_ref))
        try:
            await self._edit_answered(message, screen)
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
        pressed = self._pressed.get(user)
        if pressed is not None and not pressed.open:
            del self._pressed[user]  # its press was answered: nothing more goes by it
            pressed = None
        if pressed is not None and not self._newest(user, pressed):
            pressed = None  # a DM went after the pressed one: this screen goes below it
        if pressed is not None and pressed.fits(screen) and await pressed.show(screen):
            if self._pressed.get(user) is pressed:
                del self._pressed[user]
            if not pressed.ephemeral:
                return Delivery.DELIVERED  # in their DM
            if self.refreshes(user):
                # The pressed hand is the one pulled: refreshed through this interaction
                # from now on (its token lives 15 minutes from this press).
                self._pulled[user] = (pressed.interaction, time.monotonic() + PULLED_FOR)
                return Delivery.UNREACHABLE  # still unreachable by DM
            return Delivery.DELIVERED
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
                sent = await dm.send(render_text(screen.text, screen.blocks), **kwargs)
                self._last_dm[user] = sent.id
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
