"""The service's `Notifier` on Telegram: table messages, their edits and private pieces.

The service's outbox sends each table's messages in order and merges waiting edits of the
table message; this adds what Telegram needs. The budgets are the `Lanes` rate limiter's
(adapters/telegram/limits.py: per group, per private chat, per bot, kept before sending;
a flood answer pauses its chat only and the call is sent again); `ready` tells the outbox
when a chat's lane has room, so it sends the newest table state then. "Message is not
modified" counts as success. A group upgraded to a supergroup (`ChatMigrated`) has its table
moved by the service, and what was being sent goes to the new chat. A private message
refused for good (403: never started, blocked) is `Delivery.UNREACHABLE`.

A screen with a picture (a score sheet) is a photo (`sendPhoto`) with the text as its caption
and the buttons under it, when the text fits a caption (1,024 characters); its reference then
says so (`photo:<id>`), and its edits change the caption (`editMessageCaption`). A longer text
follows the photo as a message of its own, the one edited later.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from telegram import Bot, InputFile, Message, MessageEntity, ReplyParameters
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError

from adapters.telegram.entities import protect
from adapters.telegram.keyboards import deep_link, keyboard, payload_secret
from adapters.telegram.limits import Lanes
from bot.service.ports import Delivery, MessageGone, Screen
from bot.service.table import TableKey

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Called with (old chat id, new chat id) when Telegram says a group became a supergroup;
#: returns how many tables moved (their table messages are then posted again by the service).
OnMigrated = Callable[[int, int], Awaitable[int]]

#: Chats whose last-send times are kept before old entries are dropped.
_PACE_MEMORY = 4096

#: Telegram's longest caption: 1,024 characters after entity parsing (TDLib counts code points).
MAX_CAPTION = 1024
#: The reference of a table message that is a photo with a caption (edited by its caption).
PHOTO_REF = "photo:"


class NotRunning(TelegramError):
    """The platform is not running: nothing can be sent (a failure like any Telegram one)."""


def failed(exc: TelegramError, message: str, *args: object) -> None:
    """Log a failed call: a warning, except calls abandoned while the bot stops."""
    log.log(logging.INFO if isinstance(exc, NotRunning) else logging.WARNING, message, *args)


def is_not_modified(exc: BadRequest) -> bool:
    """Telegram's answer to an edit that changes nothing (the message already shows it)."""
    return "message is not modified" in exc.message.lower()


class TelegramNotifier:
    """Sends screens through a PTB `Bot` (attached when the platform starts).

    It exists before the bot does: `gnav-bot run` restores tables (and queues their
    messages) before the platforms start, so calls made earlier wait for `attach`, and fail
    quietly once the platform is closed (or never started).
    """

    def __init__(self, *, chat_interval: float = 0.0, lanes: Lanes | None = None) -> None:
        #: Seconds between two calls to one chat kept here (0: the lanes alone pace them).
        self.chat_interval = chat_interval
        self.lanes = lanes
        self.bot: Bot | None = None
        self._ready = asyncio.Event()
        self._closed = asyncio.Event()
        self._on_migrated: OnMigrated | None = None
        self._last: dict[int, float] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def attach(self, bot: Bot, on_migrated: OnMigrated) -> None:
        """Use `bot` from now on; `on_migrated` moves a chat's tables (service.migrate_chat)."""
        self.bot = bot
        self._on_migrated = on_migrated
        self._ready.set()

    def close(self) -> None:
        """The bot is going (stopped, or it never started): sending fails from now on, and
        calls still waiting for a flood limit give up at once."""
        self.bot = None
        self._ready.set()
        self._closed.set()

    async def _api(self, call: Coroutine[Any, Any, T]) -> T:
        """Run one Bot API call, unless the notifier is closed before it is done.

        A call may wait long in the rate limiter (a group's 20 messages a minute are spent);
        on shutdown it is abandoned, so stopping never hangs on the flood limits.
        """
        if self._closed.is_set():
            call.close()
            raise NotRunning("the Telegram platform is not running")
        task = asyncio.ensure_future(call)
        closed = asyncio.ensure_future(self._closed.wait())
        try:
            await asyncio.wait({task, closed}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            closed.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise NotRunning("the Telegram platform stopped")
        return task.result()

    def link_for(self, key: TableKey) -> str | None:
        """The deep link to the bot's private chat for a table, once the bot's name is known."""
        if self.bot is None:
            return None
        try:
            username = self.bot.username
        except RuntimeError:  # PTB: not initialized yet (no getMe answer)
            return None
        return deep_link(username, key, payload_secret(self.bot.token)) if username else None

    async def _need_bot(self) -> Bot:
        await self._ready.wait()
        if self.bot is None:
            raise NotRunning("the Telegram platform is not running")
        return self.bot

    # ------------------------------------------------------------------ the Notifier port
    async def ready(self, channel: str) -> None:
        """Return once a message to `channel` would go at once (its lane has room), or at
        once when the notifier closes: the call that follows then fails (NotRunning), so
        stopping never waits out a group's spent minute here either."""
        if self.lanes is None or self._closed.is_set():
            return
        await self._until_room(int(TableKey.parse(channel).chat))

    def short(self, channel: str) -> bool:
        """Whether `channel`'s budget is short now: an edit would leave the calls kept for
        posts spent (`Lanes.short`; never without lanes, or once closed)."""
        if self.lanes is None or self._closed.is_set():
            return False
        return self.lanes.short(int(TableKey.parse(channel).chat))

    async def ready_private(self, user: str) -> None:
        """Return once a private message to `user` would go at once (the lane of their
        private chat has room), or at once when the notifier closes or `user` is no person
        of this platform (`tell` then says so)."""
        _, _, raw_id = user.partition(":")
        if self.lanes is None or self._closed.is_set() or not raw_id.isdigit():
            return
        await self._until_room(int(raw_id))

    async def _until_room(self, chat_id: int) -> None:
        """Wait until the lanes have room for a call to `chat_id`, or the notifier closes."""
        assert self.lanes is not None
        room = asyncio.ensure_future(self.lanes.ready(chat_id))
        closed = asyncio.ensure_future(self._closed.wait())
        try:
            await asyncio.wait({room, closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            room.cancel()
            closed.cancel()
            await asyncio.gather(room, closed, return_exceptions=True)

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Send a table message; its message id is the reference for later edits."""
        key = TableKey.parse(channel)
        if screen.image is not None:
            return await self._post_picture(key, channel, screen)
        try:
            msg = await self.send_text(
                int(key.chat),
                screen.text,
                thread=_thread(key),
                markup=keyboard(screen, self.link_for(key)),
                moved_is_done=True,
                literals=screen.literals,
                blocks=screen.blocks,
            )
        except TelegramError as exc:
            failed(exc, "posting to %s failed: %s", channel, exc.message)
            return None
        return None if msg is None else str(msg.message_id)

    async def _post_picture(self, key: TableKey, channel: str, screen: Screen) -> str | None:
        """A table message with a picture: the photo with the text as its caption when it fits
        (the reference `photo:<id>`), else the photo, then the text as the table message."""
        assert screen.image is not None
        chat_id = int(key.chat)
        markup = keyboard(screen, self.link_for(key))
        fits = len(screen.text.strip()) <= MAX_CAPTION
        try:
            msg = await self.send_photo(
                chat_id,
                screen.image.filename,
                screen.image.data,
                caption=screen.text if fits else None,
                caption_entities=protect(screen.text, screen.literals, screen.blocks)
                if fits
                else (),
                markup=markup if fits else None,
                thread=_thread(key),
                moved_is_done=True,
            )
        except BadRequest as exc:
            # Telegram refused the picture (its size, its file): the text must go, with the
            # picture's own text in its stead, so the table keeps its message and buttons.
            log.warning("posting a picture to %s failed: %s", channel, exc.message)
            alt = screen.image.alt
            text = f"{screen.text}\n{alt}" if alt else screen.text
            blocks = (*screen.blocks, alt) if alt else screen.blocks
            return await self.post(channel, replace(screen, text=text, blocks=blocks, image=None))
        except TelegramError as exc:
            failed(exc, "posting to %s failed: %s", channel, exc.message)
            return None
        if msg is None:
            return None  # the chat moved: the service posts the table there
        if fits:
            return f"{PHOTO_REF}{msg.message_id}"
        return await self.post(channel, replace(screen, image=None))

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Edit a table message in place (no buttons in `screen`: the keyboard goes away); a
        photo's caption for a photo's reference (its picture stays)."""
        key = TableKey.parse(channel)
        chat_id = int(key.chat)
        photo = message_ref.startswith(PHOTO_REF)
        message_id = int(message_ref.removeprefix(PHOTO_REF))
        markup = keyboard(screen, self.link_for(key))
        try:
            bot = await self._need_bot()
            async with self._paced(chat_id):
                if photo:
                    caption = _caption(screen.text)
                    await self._api(
                        bot.edit_message_caption(
                            chat_id=chat_id,
                            message_id=message_id,
                            caption=caption,
                            caption_entities=protect(caption, screen.literals, screen.blocks),
                            reply_markup=markup,
                        )
                    )
                else:
                    await self._api(
                        bot.edit_message_text(
                            screen.text,
                            chat_id=chat_id,
                            message_id=message_id,
                            reply_markup=markup,
                            entities=protect(screen.text, screen.literals, screen.blocks),
                        )
                    )
        except ChatMigrated as exc:
            # The table moves to the supergroup, where the service posts it afresh.
            return await self._migrated(chat_id, exc.new_chat_id) > 0
        except BadRequest as exc:
            if is_not_modified(exc):
                return True
            if "message to edit not found" in exc.message.lower():
                raise MessageGone(message_ref) from None
            log.warning("editing message %s in %s failed: %s", message_ref, channel, exc.message)
            return False
        except TelegramError as exc:
            failed(exc, "editing message %s in %s failed: %s", message_ref, channel, exc.message)
            return False
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """A private message: 403 (never started the bot, blocked it) is for good."""
        _, _, raw_id = user.partition(":")
        try:
            user_id = int(raw_id)
        except ValueError:
            return Delivery.UNREACHABLE
        if user_id <= 0:
            return Delivery.UNREACHABLE  # a chat, not a person: never send a piece there
        try:
            await self.send_text(
                user_id,
                screen.text,
                markup=keyboard(screen, private=True),
                literals=screen.literals,
                blocks=screen.blocks,
            )
        except Forbidden:
            return Delivery.UNREACHABLE
        except BadRequest as exc:
            if "chat not found" in exc.message.lower():
                return Delivery.UNREACHABLE
            log.warning("a private message to %s failed: %s", user, exc.message)
            return Delivery.FAILED
        except TelegramError as exc:
            failed(exc, "a private message to %s failed: %s", user, exc.message)
            return Delivery.FAILED
        return Delivery.DELIVERED

    # ------------------------------------------------------------------ sending
    async def send_text(
        self,
        chat_id: int,
        text: str,
        *,
        thread: int | None = None,
        markup: object = None,
        reply_to: int | None = None,
        moved_is_done: bool = False,
        literals: Sequence[str] = (),
        blocks: Sequence[str] = (),
    ) -> Message | None:
        """Send plain text (no parse mode: names may contain anything), spaced per chat.

        `literals` (names, typed values) are sent inside `code` entities when Telegram could
        otherwise turn them into links, commands or mentions (see `entities.protect`).

        On `ChatMigrated` the chat's tables move and the text goes to the supergroup, except
        with `moved_is_done` when a table moved (the service posts its message there itself);
        then None is returned.
        """
        bot = await self._need_bot()
        reply = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
        entities = protect(text, literals, blocks)
        try:
            async with self._paced(chat_id):
                return await self._api(
                    bot.send_message(
                        chat_id,
                        text,
                        reply_markup=markup,  # type: ignore[arg-type]
                        message_thread_id=thread,
                        reply_parameters=reply,
                        entities=entities,
                    )
                )
        except ChatMigrated as exc:
            new_id = exc.new_chat_id
            moved = await self._migrated(chat_id, new_id)
            if moved and moved_is_done:
                return None
            async with self._paced(new_id):
                # The reply target stayed behind in the old group: send without it.
                return await self._api(
                    bot.send_message(
                        new_id,
                        text,
                        reply_markup=markup,  # type: ignore[arg-type]
                        message_thread_id=thread,
                        entities=entities,
                    )
                )

    async def send_photo(
        self,
        chat_id: int,
        filename: str,
        data: bytes,
        *,
        caption: str | None = None,
        caption_entities: Sequence[MessageEntity] = (),
        markup: object = None,
        thread: int | None = None,
        moved_is_done: bool = False,
    ) -> Message | None:
        """Send a picture (a PNG) as a photo, uploaded from its bytes, spaced like every message
        to the chat; `caption` (at most 1,024 characters) with its entities and buttons.

        On `ChatMigrated` the chat's tables move and the photo goes to the supergroup, except
        with `moved_is_done` when a table moved (the service posts its message there itself);
        then None is returned.
        """
        bot = await self._need_bot()

        async def send(target: int) -> Message:
            async with self._paced(target):
                return await self._api(
                    bot.send_photo(
                        target,
                        InputFile(io.BytesIO(data), filename=filename),
                        caption=caption,
                        caption_entities=caption_entities or None,
                        reply_markup=markup,  # type: ignore[arg-type]
                        message_thread_id=thread,
                    )
                )

        try:
            return await send(chat_id)
        except ChatMigrated as exc:
            moved = await self._migrated(chat_id, exc.new_chat_id)
            if moved and moved_is_done:
                return None
            return await send(exc.new_chat_id)

    async def send_file(
        self,
        chat_id: int,
        filename: str,
        data: bytes,
        *,
        caption: str | None = None,
        thread: int | None = None,
        reply_to: int | None = None,
    ) -> Message:
        """Send a document (the match record), spaced like every message to the chat."""
        bot = await self._need_bot()
        reply = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None

        async def send(target: int, reply_parameters: ReplyParameters | None) -> Message:
            async with self._paced(target):
                return await self._api(
                    bot.send_document(
                        target,
                        InputFile(io.BytesIO(data), filename=filename),
                        caption=caption,
                        message_thread_id=thread,
                        reply_parameters=reply_parameters,
                    )
                )

        try:
            return await send(chat_id, reply)
        except ChatMigrated as exc:
            await self._migrated(chat_id, exc.new_chat_id)
            return await send(exc.new_chat_id, None)

    async def _migrated(self, old: int, new: int) -> int:
        log.info("chat %s was upgraded to supergroup %s", old, new)
        if self._on_migrated is None:
            return 0
        try:
            return await self._on_migrated(old, new)
        except Exception:
            log.exception("moving the tables of chat %s to %s failed", old, new)
            return 0

    @contextlib.asynccontextmanager
    async def _paced(self, chat_id: int) -> AsyncIterator[None]:
        """One call at a time per chat, at least `chat_interval` seconds apart.

        Telegram's budgets are the lanes' (the rate limiter); this spacing is for a notifier
        used without them.
        """
        if self.chat_interval <= 0:
            yield
            return
        lock = self._locks.get(chat_id)
        if lock is None:
            self._forget_idle_chats()
            lock = self._locks[chat_id] = asyncio.Lock()
        loop = asyncio.get_running_loop()
        async with lock:
            wait = self._last.get(chat_id, float("-inf")) + self.chat_interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                yield
            finally:
                self._last[chat_id] = loop.time()

    def _forget_idle_chats(self) -> None:
        if len(self._locks) < _PACE_MEMORY:
            return
        now = asyncio.get_running_loop().time()
        for chat_id, lock in list(self._locks.items()):
            if not lock.locked() and now - self._last.get(chat_id, 0.0) > self.chat_interval:
                del self._locks[chat_id]
                self._last.pop(chat_id, None)


def _caption(text: str) -> str:
    """`text` as a caption: whole when it fits, else its first lines that do (an edit of a
    photo's caption; the posted caption fitted, and its edits say about as much)."""
    if len(text.strip()) <= MAX_CAPTION:
        return text
    lines, used = [], 0
    for line in text.split("\n"):
        if used + len(line) + 1 > MAX_CAPTION - 1:
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) + "\n…" if lines else text[: MAX_CAPTION - 1] + "…"


def _thread(key: TableKey) -> int | None:
    return int(key.thread) if key.thread else None
