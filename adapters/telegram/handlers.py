"""One handler per command and kind of update: translate it, call the service, answer.

No game rule lives here. A command becomes a service call with the table key of its chat (and
forum topic) and the sender as a `User`; the service's `Reply` becomes a reply in the group
(public answers and refusals), a document, or nothing when the table message already shows
the change. A button press becomes a `Press` for `service.handle` and is always answered: a
popup for private pieces and refusals, a short toast otherwise.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Literal

from telegram import (
    Chat,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    Update,
)
from telegram import User as TgUser
from telegram.constants import ChatMemberStatus, ChatType, MessageEntityType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from adapters.telegram import texts
from adapters.telegram.keyboards import decode_payload, link_markup, payload_secret
from adapters.telegram.notifier import TelegramNotifier, failed
from adapters.telegram.replies import Outgoing, ReplyQueue
from bot.service import tokens
from bot.service.commands import (
    Configure,
    Export,
    Help,
    Join,
    Kick,
    Leave,
    Log,
    Open,
    Press,
    PrivateView,
    Rules,
    Sheet,
    Start,
    Stats,
    Stop,
    Top,
)
from bot.service.names import clean_name
from bot.service.ports import StoreUnavailable
from bot.service.service import Reply, TableService
from bot.service.table import TableKey, User

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE
#: Who a command needs besides the host's or a seat's own rights: "host" commands may also be
#: used by chat admins (start, stop, kick); "seat" ones by seated players or admins; "admin"
#: ones (changing settings) by the host of an open table, else by chat admins only.
Need = Literal["host", "seat", "admin"] | None

#: Longest callback answer Telegram shows (characters, counted here in UTF-16 to be safe).
MAX_ALERT = 200
#: Longest message text.
MAX_TEXT = 4096
#: How long a chat's admin list is trusted before asking Telegram again (seconds).
ADMIN_TTL = 60.0


class Handlers:
    """The bot's update handlers, sharing the service, the notifier and an admin cache."""

    def __init__(
        self, service: TableService, notifier: TelegramNotifier, *, admin_ttl: float = ADMIN_TTL
    ) -> None:
        self.service = service
        self.notifier = notifier
        self.admin_ttl = admin_ttl
        self._admins: dict[int, tuple[frozenset[int], float]] = {}
        #: Replies waiting for their chat's flood limits (combined when many wait).
        self.replies = ReplyQueue(notifier.send_text, texts.join_link_many)
        #: @username (casefolded) -> user id, of people who used the bot since it started:
        #: `/gnav_kick @username` names exactly one of them.
        self._usernames: dict[str, int] = {}

    # ================================================================= group commands
    async def gnav(self, update: Update, context: Context) -> None:
        """/gnav and /gnav_new: open a table here, or show the current one again."""
        await self._command(update, context, lambda tk, user: self.service.handle(Open(tk, user)))

    def open_game(self, game: str) -> Any:
        """The handler of a game's own command (`/karnaval`): open a table of that game here,
        or show the current one."""

        async def handler(update: Update, context: Context) -> None:
            await self._command(
                update, context, lambda tk, user: self.service.handle(Open(tk, user, game=game))
            )

        return handler

    async def join(self, update: Update, context: Context) -> None:
        """/gnav_join: sit down; a player not yet reachable privately gets the deep link."""

        async def run(tk: TableKey, user: User) -> Reply:
            reply = await self.service.handle(Join(tk, user))
            message = update.effective_message
            if reply.ok and message is not None:
                link = self.notifier.link_for(tk)
                if link and await self.service.reachable(user.key) is not True:
                    table = await self.service.status(tk)
                    seat = table.seat_of(user.key) if table is not None else None
                    lang = table.settings.language if table is not None else "en"
                    self.replies.put(
                        message.chat_id,
                        Outgoing(
                            "hint",
                            thread_of(message),
                            texts.text(lang, "join_link", text=reply.text),
                            markup=link_markup(lang, link),
                            reply_to=message.message_id,
                            literals=reply.literals,
                            names=[table.seats[seat].name] if table and seat is not None else [],
                            language=lang,
                        ),
                    )
            return reply

        await self._command(update, context, run)

    async def leave(self, update: Update, context: Context) -> None:
        """/gnav_leave: leave the lobby, or forfeit the match under way."""
        await self._command(update, context, lambda tk, user: self.service.handle(Leave(tk, user)))

    async def start_match(self, update: Update, context: Context) -> None:
        """/gnav_start: the host (or an admin) starts the match."""
        await self._command(
            update, context, lambda tk, user: self.service.handle(Start(tk, user)), need="host"
        )

    async def stop(self, update: Update, context: Context) -> None:
        """/gnav_stop: the host (or an admin) stops the table."""
        await self._command(
            update, context, lambda tk, user: self.service.handle(Stop(tk, user)), need="host"
        )

    async def kick(self, update: Update, context: Context) -> None:
        """/gnav_kick NAME, or in reply to one of the player's messages."""
        message = update.effective_message
        who = (
            _kick_target(message, context.args or [], self._usernames)
            if message is not None
            else None
        )

        async def run(tk: TableKey, user: User) -> Reply:
            if who is None:
                return Reply(texts.text(await self._language(tk), "kick_usage"), ok=False)
            return await self.service.handle(Kick(tk, user, who))

        await self._command(update, context, run, need="host")

    async def settings(self, update: Update, context: Context) -> None:
        """/gnav_settings [name=value ...]: show or change the table's settings."""
        words = list(context.args or [])
        await self._command(
            update,
            context,
            lambda tk, user: self.service.handle(Configure(tk, user, words)),
            need="admin" if words else None,
        )

    async def language(self, update: Update, context: Context) -> None:
        """/gnav_language xx: the table's announcement language (no argument: the choices)."""
        words = list(context.args or [])

        async def run(tk: TableKey, user: User) -> Reply:
            if not words:
                return Reply(texts.languages_line(await self._language(tk)), public=True)
            return await self.service.handle(Configure(tk, user, [f"language={words[0]}"]))

        await self._command(update, context, run, need="admin" if words else None)

    async def rules(self, update: Update, context: Context) -> None:
        """/gnav_rules: the rules of the table's profile (also in the private chat)."""
        await self._command(
            update, context, lambda tk, user: self.service.handle(Rules(tk)), private_ok=True
        )

    async def stats(self, update: Update, context: Context) -> None:
        """/gnav_stats: the sender's statistics in this chat."""
        await self._command(update, context, lambda tk, user: self.service.handle(Stats(tk, user)))

    async def top(self, update: Update, context: Context) -> None:
        """/gnav_top: the chat's best players."""
        await self._command(update, context, lambda tk, user: self.service.handle(Top(tk)))

    async def export(self, update: Update, context: Context) -> None:
        """/gnav_export: the current or last match record, as a JSON document."""
        await self._command(update, context, lambda tk, user: self.service.handle(Export(tk)))

    async def sheet(self, update: Update, context: Context) -> None:
        """/gnav_sheet: the whole score sheet of the table's match, where its game keeps one."""
        await self._command(update, context, lambda tk, user: self.service.handle(Sheet(tk)))

    async def log(self, update: Update, context: Context) -> None:
        """/gnav_log: the whole log of the round under way (the table message shows its
        state and newest events only)."""
        await self._command(update, context, lambda tk, user: self.service.handle(Log(tk)))

    async def help(self, update: Update, context: Context) -> None:
        """/gnav_help (and /start in a group): how to play here."""
        await self._command(
            update, context, lambda tk, user: self.service.handle(Help(tk)), private_ok=True
        )

    # ================================================================= the private chat
    async def start_private(self, update: Update, context: Context) -> None:
        """/start [payload] in the private chat: pieces may now be sent here.

        With a deep-link payload the player learns which table it is linked to and, when a
        round is under way, gets its piece at once. Only a player seated at that table (in
        its lobby or its match) learns anything of it: anyone else, whatever the payload,
        gets one neutral line that names no chat.
        """
        message, tg_user = update.effective_message, update.effective_user
        if message is None or tg_user is None:
            return
        user = _person(tg_user)
        await self.service.player_reachable(user, True)
        lang = texts.language_of(tg_user.language_code)
        if not context.args or not context.args[0].startswith("g"):
            self._reply(message, texts.text(lang, "welcome"), quote=False)
            return
        tk = decode_payload(context.args[0], payload_secret(context.bot.token))
        table = await self.service.status(tk) if tk is not None else None
        if (
            tk is None
            or table is None
            or table.status == "closed"
            or table.seat_of(user.key) is None
        ):
            self._reply(message, texts.text(lang, "not_linked"), quote=False)
            return
        lang = table.settings.language
        title = await self._chat_title(context, int(tk.chat))
        if title:
            text = texts.text(lang, "linked", title=title)
        else:
            text = texts.text(lang, "linked_untitled")
        if table.status == "playing":
            shown = await self.service.handle(PrivateView(tk, user))
            if shown.ok:
                text = f"{text}\n{shown.text}"
        self._reply(message, text, quote=False, literals=(title,) if title else ())

    async def my_chat_member(self, update: Update, context: Context) -> None:
        """A player blocked (or unblocked) the bot: private pieces stop (or start again)."""
        change = update.my_chat_member
        if change is None:
            return
        if change.chat.type != ChatType.PRIVATE:
            log.info("the bot is now %s in chat %s", change.new_chat_member.status, change.chat.id)
            return
        status = change.new_chat_member.status
        user = _person(change.from_user)
        if status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT):
            await self.service.player_reachable(user, False)
        elif status == ChatMemberStatus.MEMBER:
            await self.service.player_reachable(user, True)

    # ================================================================= chat migration
    async def migrated(self, update: Update, context: Context) -> None:
        """A group became a supergroup: its tables, matches and lives move to the new id.

        Telegram sends two service messages (one in each chat); moving is idempotent.
        """
        message = update.effective_message
        if message is None:
            return
        if message.migrate_to_chat_id:
            old, new = message.chat_id, message.migrate_to_chat_id
        elif message.migrate_from_chat_id:
            old, new = message.migrate_from_chat_id, message.chat_id
        else:
            return
        moved = await self.service.migrate_chat("telegram", str(old), str(new))
        if moved:
            log.info("moved %d table(s) from chat %s to %s", moved, old, new)

    # ================================================================= buttons
    async def press(self, update: Update, context: Context) -> None:
        """A table button: the service decides; the press is always answered."""
        query = update.callback_query
        if query is None:
            return
        answered = False

        async def answer(text: str | None = None, *, alert: bool = False, url: str | None = None):
            nonlocal answered
            answered = True
            try:
                await query.answer(
                    fit(text, MAX_ALERT) if text else None, show_alert=alert, url=url
                )
            except TelegramError as exc:  # too old to answer, or a passing failure
                log.info("answering a button press failed: %s", exc.message)

        try:
            message = query.message
            if not isinstance(message, Message):  # inaccessible: older than 48 hours
                lang = texts.language_of(query.from_user.language_code)
                await answer(texts.text(lang, "old_button"), alert=True)
                return
            tk = table_key(message)
            token = query.data or ""
            decoded = tokens.decode(token)
            action = decoded.action if decoded else None
            need: Need = "host" if action == "start" else "seat" if action == "next" else None
            self._seen(query.from_user)
            admin = await self._admin(context, message.chat, query.from_user.id, tk, need)
            user = _person(query.from_user, admin=admin)
            reply = await self.service.handle(Press(tk, user, decoded or token))
            if action == "join" and reply.ok:
                link = self.notifier.link_for(tk)
                if link and await self.service.reachable(user.key) is not True:
                    # One tap: Telegram opens the bot's private chat with its Start button.
                    await answer(reply.text, url=link)
                    return
            text = reply.text
            choices = any(b.token for row in reply.buttons for b in row)  # not a link
            if choices and context.bot.username:
                # A popup cannot hold buttons: the choices are in the private chat, or
                # here by inline mode for a person who never started the bot.
                lang = texts.language_of(query.from_user.language_code)
                hint = texts.text(lang, "inline_hint", bot=context.bot.username)
                text = f"{hint}\n{text}"
            await answer(text, alert=reply.alert or not reply.ok)
        except StoreUnavailable:  # met before the press (an admin check reads the table)
            if not answered and isinstance(query.message, Message):
                refused = self.service.unavailable_reply(
                    table_key(query.message), _person(query.from_user), query.data
                )
                await answer(refused.text, alert=True)
        except Exception:
            log.exception("a button press failed")
            if not answered:
                lang = texts.language_of(query.from_user.language_code)
                await answer(texts.text(lang, "failed"), alert=True)
        finally:
            if not answered:
                await answer()

    async def inline_query(self, update: Update, context: Context) -> None:
        """`@botname` typed in a chat: the person's current choices, to pick one privately.

        Inline mode works for anyone in any chat, started or not, so a person the bot cannot
        message privately still makes every choice. The answer is personal and never cached;
        what the pick posts in the chat names no card ("Chosen.").
        """
        query = update.inline_query
        if query is None:
            return
        user = _person(query.from_user)
        try:
            choices = await self.service.choices_of(user)
            results = [
                InlineQueryResultArticle(
                    id=c.token,
                    title=c.label,
                    description=c.hand,
                    input_message_content=InputTextMessageContent(c.sent),
                )
                for c in choices
            ]
            await query.answer(results, cache_time=0, is_personal=True)
        except TelegramError as exc:  # the query expired (10 s) or a passing failure
            log.info("answering an inline query failed: %s", exc.message)

    async def chosen_inline_result(self, update: Update, context: Context) -> None:
        """A choice picked from the inline list: its id is the button token, so it acts like
        a press (the table is found by its id; the table message shows the result)."""
        chosen = update.chosen_inline_result
        if chosen is None:
            return
        user = _person(chosen.from_user)
        reply = await self.service.handle(
            Press(TableKey("telegram", "inline"), user, chosen.result_id)
        )
        if not reply.ok:
            log.info("an inline choice was refused: %s", reply.text)

    async def on_error(self, update: object, context: Context) -> None:
        """Errors PTB caught outside our own handling (logged, never shown)."""
        log.error("handling an update failed", exc_info=context.error)

    # ================================================================= plumbing
    async def _command(
        self,
        update: Update,
        context: Context,
        action: Callable[[TableKey, User], Awaitable[Reply]],
        *,
        need: Need = None,
        private_ok: bool = False,
    ) -> None:
        message, tg_user, chat = (
            update.effective_message,
            update.effective_user,
            update.effective_chat,
        )
        if message is None or tg_user is None or chat is None:
            return
        try:
            if chat.type == ChatType.PRIVATE and not private_ok:
                lang = texts.language_of(tg_user.language_code)
                self._reply(message, texts.text(lang, "group_only"), quote=False)
                return
            tk = table_key(message)
            if message.sender_chat is not None:
                # An anonymous admin or a channel: no person to seat, and no private chat.
                self._reply(message, texts.text(await self._language(tk), "anonymous"))
                return
            self._seen(tg_user)
            admin = await self._admin(context, chat, tg_user.id, tk, need)
            reply = await action(tk, _person(tg_user, admin=admin))
            self._answer(message, reply)
        except StoreUnavailable:  # met before the command (an admin check reads the table)
            refused = self.service.unavailable_reply(table_key(message), _person(tg_user))
            self._answer(message, refused)
        except TelegramError as exc:
            failed(exc, "answering a command in chat %s failed: %s", chat.id, exc.message)

    def _answer(self, message: Message, reply: Reply) -> None:
        """Show a command's reply: a document, or a text when it is public or a refusal.

        Other replies (joined, started...) are already visible in the table message.
        """
        if reply.document is not None:
            name, data = reply.document
            chat_id, thread, reply_to = message.chat_id, thread_of(message), message.message_id

            def send_file() -> Coroutine[Any, Any, object]:
                return self.notifier.send_file(
                    chat_id, name, data, caption=reply.text, thread=thread, reply_to=reply_to
                )

            self.replies.put(chat_id, Outgoing("file", thread, file=send_file))
        elif reply.public or not reply.ok:
            self._reply(message, reply.text, literals=reply.literals, blocks=reply.blocks)

    def _reply(
        self,
        message: Message,
        text: str,
        *,
        markup: Any = None,
        quote: bool = True,
        literals: Sequence[str] = (),
        blocks: Sequence[str] = (),
    ) -> None:
        """Answer a message, in the background: the handler is done once the service is.

        A reply may wait for the chat's flood limits; the handler's slot (PTB runs a bounded
        number at once) goes to other chats meanwhile. It is never dropped: when many wait,
        answers are combined (see `ReplyQueue`).
        """
        sender = message.from_user
        self.replies.put(
            message.chat_id,
            Outgoing(
                "answer",
                thread_of(message),
                fit(text, MAX_TEXT),
                sender=clean_name(sender.full_name) if sender is not None else "",
                markup=markup,
                reply_to=message.message_id if quote else None,
                literals=tuple(literals),
                blocks=tuple(blocks),
            ),
        )

    def _seen(self, tg_user: TgUser) -> None:
        """Remember who has a @username (for `/gnav_kick @username`)."""
        if tg_user.username:
            if len(self._usernames) > 100_000:
                self._usernames.clear()
            self._usernames[tg_user.username.casefold()] = tg_user.id

    async def drain(self) -> None:
        """Wait until every reply under way is sent (on stop, before the bot closes)."""
        await self.replies.drain()

    async def _language(self, tk: TableKey) -> str:
        table = await self.service.status(tk)
        return table.settings.language if table is not None else texts.language_of(None)

    async def _admin(
        self, context: Context, chat: Chat, user_id: int, tk: TableKey, need: Need
    ) -> bool:
        """Whether the sender is a chat admin, asked of Telegram only when it matters.

        The host needs no admin rights for its own table, nor a seated player to deal the
        next round; with no open table only a settings change needs an admin.
        """
        if need is None or chat.type == ChatType.PRIVATE:
            return False
        table = await self.service.status(tk)
        if table is None or table.status == "closed":
            # No table: only settings changes ask (they are for admins then).
            return need == "admin" and await self.is_admin(context, chat.id, user_id)
        key = f"telegram:{user_id}"
        if need in ("host", "admin") and table.host == key:
            return False
        if need == "seat" and table.seat_of(key) is not None:
            return False
        return await self.is_admin(context, chat.id, user_id)

    async def is_admin(self, context: Context, chat_id: int, user_id: int) -> bool:
        """Whether a user is an admin (or the creator) of a group, per its admin list.

        getChatAdministrators works without admin rights (getChatMember is guaranteed only
        for admin bots); one list answers for everybody in the chat for `admin_ttl` seconds.
        """
        now = asyncio.get_running_loop().time()
        cached = self._admins.get(chat_id)
        if cached is None or cached[1] <= now:
            try:
                members = await context.bot.get_chat_administrators(chat_id)
            except TelegramError as exc:
                log.info("getChatAdministrators(%s) failed: %s", chat_id, exc.message)
                return False
            if len(self._admins) > 10_000:
                self._admins = {k: v for k, v in self._admins.items() if v[1] > now}
            cached = (frozenset(m.user.id for m in members), now + self.admin_ttl)
            self._admins[chat_id] = cached
        return user_id in cached[0]

    async def _chat_title(self, context: Context, chat_id: int) -> str | None:
        try:
            chat = await context.bot.get_chat(chat_id)
        except TelegramError:
            return None
        return chat.title or None


# ===================================================================== helpers
def table_key(message: Message) -> TableKey:
    """The table of a message's chat, and of its forum topic when it is in one."""
    return TableKey("telegram", str(message.chat_id), _thread_text(message))


def thread_of(message: Message) -> int | None:
    """The forum topic a message is in (None outside forum topics, e.g. in General)."""
    if message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return None


def _thread_text(message: Message) -> str | None:
    thread = thread_of(message)
    return str(thread) if thread is not None else None


def _person(tg_user: TgUser, *, admin: bool = False) -> User:
    """A Telegram user as the service knows people (with the app's language, if supported)."""
    code = tg_user.language_code
    language = texts.language_of(code) if code else None
    if language == texts.language_of(None) and not (code or "").lower().startswith("en"):
        language = None  # a language the bot does not speak: nothing to remember
    return User(f"telegram:{tg_user.id}", tg_user.full_name, admin, language)


def _kick_target(
    message: Message, args: Sequence[str], usernames: dict[str, int] | None = None
) -> str | None:
    """Who /gnav_kick names: the author of the replied message, a mention (a text mention,
    or an @username of someone the bot has seen), or a name."""
    replied = message.reply_to_message
    # In a forum every message "replies" to its topic's first message: that is no choice.
    if (
        replied is not None
        and replied.forum_topic_created is None
        and replied.from_user is not None
        and not replied.from_user.is_bot
    ):
        return f"telegram:{replied.from_user.id}"
    for entity in message.entities:
        if entity.type == MessageEntityType.TEXT_MENTION and entity.user is not None:
            return f"telegram:{entity.user.id}"
        if entity.type == MessageEntityType.MENTION and usernames:
            known = usernames.get(message.parse_entity(entity).lstrip("@").casefold())
            if known is not None:
                return f"telegram:{known}"
    name = " ".join(args).strip()
    return name or None


def fit(text: str, limit: int) -> str:
    """`text` cut to `limit` UTF-16 units (Telegram's way of counting), with an ellipsis."""
    if _utf16(text) <= limit:
        return text
    out: list[str] = []
    used = 1  # the ellipsis
    for ch in text:
        size = _utf16(ch)
        if used + size > limit:
            break
        out.append(ch)
        used += size
    return "".join(out) + "…"


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
