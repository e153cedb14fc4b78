"""Tests of the fake Telegram Bot API, driven by the real python-telegram-bot library.

Each test talks HTTP to a ``FakeTelegram`` on 127.0.0.1: either a real
``telegram.ext.Application`` polling it (manual lifecycle, rate limiter included) or a
plain ``telegram.Bot`` / aiohttp client for the wire-level checks.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    ChatFullInfo,
    ChatMemberAdministrator,
    ChatMemberLeft,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    MessageEntity,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    EndPointNotFound,
    Forbidden,
    NetworkError,
    RetryAfter,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakes.telegram_api import (
    CANT_INITIATE,
    GET_UPDATES_CONFLICT,
    MESSAGE_NOT_MODIFIED,
    QUERY_ID_INVALID,
    USER_BLOCKED,
    FakeTelegram,
    FloodLimits,
)

App = Application[Any, Any, Any, Any, Any, Any]
Context = ContextTypes.DEFAULT_TYPE


def build_app(tg: FakeTelegram, *, max_retries: int = 3) -> App:
    """The production-like Application, pointed at the fake."""
    return (
        ApplicationBuilder()
        .token(tg.token)
        .base_url(tg.base_url)
        .base_file_url(tg.base_file_url)
        .rate_limiter(AIORateLimiter(max_retries=max_retries))
        .build()
    )


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """A running fake server."""
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def app(tg: FakeTelegram) -> AsyncIterator[App]:
    """A started Application polling the fake; handler errors fail the test."""
    application = build_app(tg)
    errors: list[BaseException] = []

    async def on_error(update: object, context: Context) -> None:
        errors.append(context.error or RuntimeError("unknown error"))

    application.add_error_handler(on_error)
    await application.initialize()
    await application.start()
    assert application.updater is not None
    await application.updater.start_polling(poll_interval=0, timeout=2)
    yield application
    await application.updater.stop()
    await application.stop()
    await application.shutdown()
    assert errors == []


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    """A bare Bot (no rate limiter, no polling) for request/response checks."""
    async with Bot(tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url) as raw_bot:
        yield raw_bot


# ----------------------------------------------------------------------------- the bot loop


async def test_command_handler_answers_in_group(tg: FakeTelegram, app: App) -> None:
    seen_args: list[list[str]] = []

    async def gnav(update: Update, context: Context) -> None:
        assert update.effective_message is not None
        seen_args.append(list(context.args or []))
        players = (context.args or ["?"])[0]
        await update.effective_message.reply_text(f"Dealing for {players} players")

    app.add_handler(CommandHandler("gnav", gnav))
    alice = tg.add_user("Alice", username="alice")
    group = tg.add_group("Gnav night", members=[alice])

    sent = tg.user_sends(alice, group, f"/gnav@{tg.bot_username} 4")
    reply = await tg.wait_for_message(group)

    assert seen_args == [["4"]]
    assert reply.text == "Dealing for 4 players"
    assert reply.from_bot and reply.chat_id == group.id
    call = tg.calls("sendMessage")[0]
    assert call.ok and call.params["chat_id"] == group.id
    # the entity PTB's CommandHandler relies on
    assert sent.entities[0] == {
        "offset": 0,
        "length": len("/gnav@gnav_test_bot"),
        "type": "bot_command",
    }


async def test_callback_query_answered_with_alert(tg: FakeTelegram, app: App) -> None:
    async def start_game(update: Update, context: Context) -> None:
        assert update.effective_message is not None
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="join:1")]])
        await update.effective_message.reply_text("Who plays?", reply_markup=keyboard)

    async def on_press(update: Update, context: Context) -> None:
        query = update.callback_query
        assert query is not None and query.message is not None
        await query.answer(f"{query.from_user.first_name} joined ({query.data})", show_alert=True)

    app.add_handler(CommandHandler("gnav", start_game))
    app.add_handler(CallbackQueryHandler(on_press, pattern=r"^join:"))
    bob = tg.add_user("Bob")
    group = tg.add_group("Table", members=[bob])

    tg.user_sends(bob, group, "/gnav")
    offer = await tg.wait_for_message(group, contains="Who plays?")
    assert offer.buttons() == [{"text": "Join", "callback_data": "join:1"}]

    query_id = tg.user_presses_button(bob, offer, "Join")
    await tg.wait_for(lambda: tg.callback_answer(query_id).answered, what="answer")
    answer = tg.callback_answer(query_id)
    assert answer.show_alert is True
    assert answer.text == "Bob joined (join:1)"

    with pytest.raises(ValueError, match="no button"):
        tg.user_presses(bob, group, offer, "forged")


async def test_private_message_needs_start_and_no_block(tg: FakeTelegram, app: App) -> None:
    membership: list[tuple[str, str]] = []

    async def on_my_member(update: Update, context: Context) -> None:
        change = update.my_chat_member
        assert change is not None
        membership.append((change.old_chat_member.status, change.new_chat_member.status))

    async def on_start(update: Update, context: Context) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text(f"Welcome! payload={context.args}")

    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(CommandHandler("start", on_start))
    carol = tg.add_user("Carol")

    with pytest.raises(Forbidden) as never_started:
        await app.bot.send_message(carol.id, "Your hand: ...")
    assert CANT_INITIATE.endswith(str(never_started.value).lower().removeprefix("forbidden: "))
    assert tg.calls("sendMessage")[-1].error_code == 403
    assert tg.calls("sendMessage")[-1].description == CANT_INITIATE

    tg.user_starts_bot(carol, payload="table-7")
    welcome = await tg.wait_for_message(carol)
    assert welcome.text == "Welcome! payload=['table-7']"
    await app.bot.send_message(carol.id, "Your hand: ...")

    tg.user_blocks_bot(carol)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await app.bot.send_message(carol.id, "Your hand: ...")
    assert tg.calls("sendMessage")[-1].description == USER_BLOCKED

    tg.user_starts_bot(carol)  # "Restart": unblocks, then /start
    await tg.wait_for(lambda: len(membership) == 2, what="two my_chat_member updates")
    assert membership == [("member", "kicked"), ("kicked", "member")]
    await app.bot.send_message(carol.id, "Back in the game")


async def test_telegram_limits_on_buttons_and_callback_answers(tg: FakeTelegram, app: App) -> None:
    dave = tg.add_user("Dave")
    group = tg.add_group("Limits", members=[dave])

    def keyboard(data: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data=data)]])

    ok = await app.bot.send_message(group.id, "64 bytes", reply_markup=keyboard("é" * 32))
    assert ok.reply_markup is not None
    with pytest.raises(BadRequest) as too_long_data:
        await app.bot.send_message(group.id, "66 bytes", reply_markup=keyboard("é" * 33))
    assert str(too_long_data.value) == "Button_data_invalid"  # PTB capitalises the description
    assert tg.calls("sendMessage")[-1].description == "Bad Request: BUTTON_DATA_INVALID"

    first = tg.user_presses(dave, group, ok.message_id, "é" * 32)
    second = tg.user_presses(dave, group, ok.message_id, "é" * 32)
    await tg.wait_until_fetched()
    with pytest.raises(BadRequest, match="Message_too_long"):
        await app.bot.answer_callback_query(first, text="x" * 201, show_alert=True)
    assert await app.bot.answer_callback_query(first, text="x" * 200, show_alert=True)
    with pytest.raises(BadRequest, match="Query is too old"):
        await app.bot.answer_callback_query(first, text="again")
    with pytest.raises(BadRequest, match="Query is too old"):
        await app.bot.answer_callback_query("12345", text="unknown id")
    assert tg.calls("answerCallbackQuery")[-1].description == QUERY_ID_INVALID
    assert await app.bot.answer_callback_query(second)
    assert tg.callback_answer(second).text is None

    with pytest.raises(BadRequest, match="Message is too long"):
        await app.bot.send_message(group.id, "a" * 4097)
    assert (await app.bot.send_message(group.id, "a" * 4096)).text == "a" * 4096
    with pytest.raises(BadRequest, match="Message text is empty"):
        await app.bot.send_message(group.id, "")


async def test_identical_edit_is_not_modified(tg: FakeTelegram, app: App) -> None:
    group = tg.add_group("Edits")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Pass", callback_data="pass")]])
    sent = await app.bot.send_message(group.id, "Your turn", reply_markup=markup)

    with pytest.raises(BadRequest) as not_modified:
        await app.bot.edit_message_text("Your turn", group.id, sent.message_id, reply_markup=markup)
    assert str(not_modified.value).startswith("Message is not modified")
    assert tg.calls("editMessageText")[-1].description == MESSAGE_NOT_MODIFIED
    with pytest.raises(BadRequest, match="Message is not modified"):
        await app.bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=markup)

    # Same text without reply_markup is a change: Telegram drops the keyboard.
    edited = await app.bot.edit_message_text("Your turn", group.id, sent.message_id)
    assert edited.reply_markup is None and edited.edit_date is not None
    assert tg.message(group, sent.message_id).buttons() == []

    with pytest.raises(BadRequest, match="Message to edit not found"):
        await app.bot.edit_message_text("x", group.id, 9999)
    user_msg = tg.user_sends(tg.add_user("Eve"), group, "/pass")
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await app.bot.edit_message_text("x", group.id, user_msg.message_id)
    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await app.bot.delete_message(group.id, user_msg.message_id)
    assert await app.bot.delete_message(group.id, sent.message_id)
    assert tg.was_deleted(group, sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await app.bot.delete_message(group.id, sent.message_id)


# RetryAfter.retry_after as an int is deprecated in PTB 22.2+ (it becomes a timedelta)
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_flood_control_is_retried_by_the_rate_limiter(
    tg: FakeTelegram, app: App, bot: Bot
) -> None:
    group = tg.add_group("Busy table")
    tg.inject_flood(1, retry_after=1, method="sendMessage", chat_id=group.id)

    started = time.monotonic()
    message = await app.bot.send_message(group.id, "after the flood")
    elapsed = time.monotonic() - started

    assert message.text == "after the flood"
    refused, accepted = tg.calls("sendMessage", chat_id=group.id)
    assert refused.status == 429
    assert refused.response == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 1",
        "parameters": {"retry_after": 1},
    }
    assert accepted.ok
    # AIORateLimiter sleeps retry_after + 0.1 s before retrying
    assert accepted.time - refused.time >= 1.05
    assert elapsed >= 1.05

    # Without a rate limiter the error surfaces as RetryAfter.
    tg.inject_flood(1, retry_after=7)
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(group.id, "no limiter")
    assert flood.value.retry_after == 7


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_the_fake_keeps_telegrams_flood_limits_per_group_private_chat_and_bot() -> None:
    """With `FloodLimits`, a group takes 20 sends and edits per minute, a private chat three per
    three seconds, the bot 30 per second; the next is refused with the time left, another chat is
    not affected, and answers to a press are never limited. (Windows are long here, so the
    machine's speed cannot let a call slip into the next one.)"""
    long = FloodLimits(group_window=3600, private_window=3600, overall=1000)
    async with FakeTelegram(flood=long) as tg:
        alice = tg.add_user("Alice")
        tg.user_starts_bot(alice)
        busy = tg.add_group("Busy", members=[alice])
        calm = tg.add_group("Calm", members=[alice])
        async with Bot(tg.token, base_url=tg.base_url) as bot:
            first = await bot.send_message(busy.id, "0")
            for i in range(1, 20):  # edits count like sends
                await bot.edit_message_text(str(i), chat_id=busy.id, message_id=first.message_id)
            with pytest.raises(RetryAfter) as flood:
                await bot.send_message(busy.id, "twenty-first")
            assert 3500 < flood.value._retry_after.total_seconds() <= 3600
            assert tg.flood_refusals[busy.id] == 1
            await bot.send_message(calm.id, "another group")  # its own budget
            for i in range(3):  # a short burst, then about one a second
                await bot.send_message(alice.id, f"private {i}")
            with pytest.raises(RetryAfter):
                await bot.send_message(alice.id, "a second within the private window")
            pressed = tg.user_presses(alice, busy, first.message_id, "x", strict=False)
            assert await bot.answer_callback_query(pressed)  # never limited
    async with FakeTelegram(flood=FloodLimits(overall=3, overall_window=3600)) as tg:
        groups = [tg.add_group(f"G{i}") for i in range(4)]
        async with Bot(tg.token, base_url=tg.base_url) as bot:
            for group in groups[:3]:
                await bot.send_message(group.id, "fits")
            with pytest.raises(RetryAfter):
                await bot.send_message(groups[3].id, "the bot's own limit")
        assert tg.flood_refusals[0] == 1
    async with FakeTelegram(flood=FloodLimits(group=1, group_window=0.2)) as tg:
        group = tg.add_group("Sliding")
        async with Bot(tg.token, base_url=tg.base_url) as bot:
            await bot.send_message(group.id, "one")
            with pytest.raises(RetryAfter) as flood:
                await bot.send_message(group.id, "too soon")
            assert 0 < flood.value._retry_after.total_seconds() <= 1  # whole seconds, as Telegram
            await asyncio.sleep(0.2)
            await bot.send_message(group.id, "the window slid on")
    async with FakeTelegram() as tg:  # no limits unless asked for
        group = tg.add_group("Free")
        async with Bot(tg.token, base_url=tg.base_url) as bot:
            for i in range(25):
                await bot.send_message(group.id, str(i))


async def test_migrated_group_raises_chat_migrated(tg: FakeTelegram, app: App) -> None:
    migrations: list[tuple[int, int | None, int | None]] = []

    async def on_migrate(update: Update, context: Context) -> None:
        msg = update.effective_message
        assert msg is not None
        migrations.append((msg.chat_id, msg.migrate_to_chat_id, msg.migrate_from_chat_id))

    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    owner = tg.add_user("Olga")
    group = tg.add_group("Old group", creator=owner)

    new_id = tg.migrate_group(group)
    assert str(new_id).startswith("-100")
    await tg.wait_for(lambda: len(migrations) == 2, what="both migration service messages")
    assert migrations == [(group.id, new_id, None), (new_id, None, group.id)]

    with pytest.raises(ChatMigrated) as migrated:
        await app.bot.send_message(group.id, "still here?")
    assert migrated.value.new_chat_id == new_id
    assert tg.calls("sendMessage")[-1].response == {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: group chat was upgraded to a supergroup chat",
        "parameters": {"migrate_to_chat_id": new_id},
    }
    assert (await app.bot.send_message(new_id, "moved")).chat.type == "supergroup"


# ----------------------------------------------------------------------------- world details


async def test_privacy_mode_hides_plain_group_messages(tg: FakeTelegram, app: App) -> None:
    seen: list[str] = []

    async def record(update: Update, context: Context) -> None:
        assert update.effective_message is not None
        seen.append(update.effective_message.text or "")

    app.add_handler(MessageHandler(filters.TEXT, record))
    frank = tg.add_user("Frank")
    group = tg.add_group("Quiet", members=[frank])
    bot_message = await app.bot.send_message(group.id, "Pick a card")

    hidden = tg.user_sends(frank, group, "just chatting")
    tg.user_sends(frank, group, "/hand@someotherbot")
    tg.user_sends(frank, group, "/hand")
    tg.user_sends(frank, group, "I swap", reply_to=bot_message.message_id)
    await tg.wait_for(lambda: len(seen) == 2, what="two visible messages")
    assert not hidden.delivered
    assert seen == ["/hand", "I swap"]

    me = await app.bot.get_me()
    assert me.can_read_all_group_messages is False
    tg.set_bot_status(group, "administrator")  # admins see everything
    tg.user_sends(frank, group, "now visible")
    await tg.wait_for(lambda: len(seen) == 3, what="message seen by an admin bot")


async def test_forum_topics(tg: FakeTelegram, app: App) -> None:
    async def echo(update: Update, context: Context) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text("dealt in the topic", do_quote=False)

    app.add_handler(CommandHandler("deal", echo))
    gina = tg.add_user("Gina")
    forum = tg.add_group("Gnav club", forum=True, members=[gina])
    topic = tg.create_topic(forum, "Table 1", by=gina)

    asked = tg.user_sends(gina, forum, "/deal", thread_id=topic)
    as_json = tg.message_json(asked)
    assert as_json["message_thread_id"] == topic and as_json["is_topic_message"] is True
    assert as_json["reply_to_message"]["forum_topic_created"]["name"] == "Table 1"
    parsed = Update.de_json({"update_id": 1, "message": as_json}, None)
    assert parsed.message is not None and parsed.message.is_topic_message

    reply = await tg.wait_for_message(forum)
    assert reply.thread_id == topic and reply.text == "dealt in the topic"
    with pytest.raises(BadRequest, match="Message thread not found"):
        await app.bot.send_message(forum.id, "lost", message_thread_id=topic + 100)


async def test_parse_modes_follow_telegram(tg: FakeTelegram, bot: Bot) -> None:
    group = tg.add_group("Formatting")
    html = await bot.send_message(
        group.id, "<b>Cuckoo</b> beats <i>Knight</i> &amp; more", parse_mode=ParseMode.HTML
    )
    assert html.text == "Cuckoo beats Knight & more"
    assert [(e.type, e.offset, e.length) for e in html.entities] == [
        ("bold", 0, 6),
        ("italic", 13, 6),
    ]
    assert tg.last_message(group) is not None
    assert tg.last_message(group).raw_text == "<b>Cuckoo</b> beats <i>Knight</i> &amp; more"  # type: ignore[union-attr]

    # PTB strips "Bad Request: " and capitalize()s the rest, lower-casing TDLib's message
    with pytest.raises(BadRequest, match='parse entities: unsupported start tag "card" at byte'):
        await bot.send_message(group.id, "<card>", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="character '!' is reserved and must be escaped"):
        await bot.send_message(group.id, "You lose!", parse_mode=ParseMode.MARKDOWN_V2)
    escaped = await bot.send_message(
        group.id, r"You lose\! *now*", parse_mode=ParseMode.MARKDOWN_V2
    )
    assert escaped.text == "You lose! now"
    with pytest.raises(BadRequest, match="Text must be non-empty"):
        await bot.send_message(group.id, "<b> </b>", parse_mode=ParseMode.HTML)


async def test_commands_members_and_chats(tg: FakeTelegram, bot: Bot) -> None:
    owner, admin, player = tg.add_user("Owner"), tg.add_user("Admin"), tg.add_user("Player")
    group = tg.add_group("Club", supergroup=True, creator=owner, admins=[admin], members=[player])

    assert await bot.set_my_commands([BotCommand("gnav", "Start a game")])
    assert await bot.set_my_commands(
        [BotCommand("/stop", "Stop the game")], scope=BotCommandScopeChat(group.id)
    )
    assert [c.command for c in await bot.get_my_commands()] == ["gnav"]
    scoped = await bot.get_my_commands(scope=BotCommandScopeChat(group.id))
    assert [c.command for c in scoped] == ["stop"]  # the leading slash is stripped
    assert tg.commands({"type": "chat", "chat_id": group.id}) == [
        {"command": "stop", "description": "Stop the game"}
    ]
    assert await bot.delete_my_commands(scope=BotCommandScopeChat(group.id))
    assert await bot.get_my_commands(scope=BotCommandScopeChat(group.id)) == ()
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("StartGame", "camelCase is refused")])

    assert isinstance(await bot.get_chat_member(group.id, owner.id), ChatMemberOwner)
    assert isinstance(await bot.get_chat_member(group.id, admin.id), ChatMemberAdministrator)
    assert (await bot.get_chat_member(group.id, player.id)).status == "member"
    assert isinstance(
        await bot.get_chat_member(group.id, tg.add_user("Stranger").id), ChatMemberLeft
    )
    admins = await bot.get_chat_administrators(group.id)
    assert [m.user.id for m in admins] == [owner.id, admin.id]
    tg.set_bot_status(group, "administrator")
    assert tg.bot_id in [m.user.id for m in await bot.get_chat_administrators(group.id)]

    info = await bot.get_chat(group.id)
    assert isinstance(info, ChatFullInfo) and info.title == "Club" and info.type == "supergroup"
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.get_chat(-100999)
    with pytest.raises(BadRequest, match="There are no administrators in the private chat"):
        await bot.get_chat_administrators(player.id)

    tg.kick_bot(group)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(group.id, "hello?")


# ----------------------------------------------------------------------------- the wire


async def test_wire_format_encodings_and_unknown_methods(tg: FakeTelegram, bot: Bot) -> None:
    group = tg.add_group("Wire")
    async with aiohttp.ClientSession() as http:
        form = await http.post(
            f"{tg.api_url}/sendMessage", data={"chat_id": str(group.id), "text": "form"}
        )
        assert form.status == 200 and (await form.json())["result"]["text"] == "form"

        as_json = await http.post(
            f"{tg.api_url}/SENDMESSAGE",  # method names are case-insensitive
            json={"chat_id": group.id, "text": "json", "reply_markup": {"inline_keyboard": []}},
        )
        assert (await as_json.json())["result"]["text"] == "json"

        multipart = aiohttp.FormData()
        multipart.add_field("chat_id", str(group.id))
        multipart.add_field("text", "multipart")
        multipart.add_field("document", b"\x00\x01", filename="a.bin")
        sent = await http.post(f"{tg.api_url}/sendMessage", data=multipart)
        assert (await sent.json())["result"]["text"] == "multipart"
        assert tg.calls("sendMessage")[-1].files == {"document": ("a.bin", b"\x00\x01")}

        query = await http.get(f"{tg.api_url}/getChat", params={"chat_id": str(group.id)})
        assert (await query.json())["result"]["title"] == "Wire"

        unknown = await http.post(f"{tg.api_url}/sendCard", data={"x": "1"})
        assert unknown.status == 404
        assert await unknown.json() == {"ok": False, "error_code": 404, "description": "Not Found"}

        wrong_token = await http.post(f"{tg.base_url}999:WRONG/getMe")
        assert wrong_token.status == 401
        assert (await wrong_token.json())["description"] == "Unauthorized"

        bad_markup = await http.post(
            f"{tg.api_url}/sendMessage",
            data={"chat_id": str(group.id), "text": "x", "reply_markup": "{oops"},
        )
        assert (await bad_markup.json())["description"] == (
            "Bad Request: can't parse reply keyboard markup JSON object"
        )
        text_button = await http.post(
            f"{tg.api_url}/sendMessage",
            json={
                "chat_id": group.id,
                "text": "x",
                "reply_markup": {"inline_keyboard": [[{"text": "no action"}]]},
            },
        )
        assert (await text_button.json())["description"] == (
            "Bad Request: can't parse inline keyboard button: "
            "Text buttons are unallowed in the inline keyboard"
        )

    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendCard", api_kwargs={"chat_id": group.id})
    assert [c.method for c in tg.calls("sendMessage")][:3] == ["sendMessage"] * 3


async def test_get_updates_semantics(tg: FakeTelegram) -> None:
    ivan = tg.add_user("Ivan")
    group = tg.add_group("Updates", members=[ivan])
    url = f"{tg.api_url}/getUpdates"
    async with aiohttp.ClientSession() as http:

        async def get_updates(**params: Any) -> dict[str, Any]:
            data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
            async with http.post(url, data=data) as response:
                body: dict[str, Any] = await response.json()
                return body

        for n in range(3):
            tg.user_sends(ivan, group, f"/cmd{n}")
        first = await get_updates(limit=2)
        ids = [u["update_id"] for u in first["result"]]
        assert len(ids) == 2 and ids[1] == ids[0] + 1
        for update in first["result"]:
            parsed = Update.de_json(update, None)
            assert parsed.message is not None and parsed.message.text is not None
        confirmed = await get_updates(offset=ids[1] + 1)
        assert [u["message"]["text"] for u in confirmed["result"]] == ["/cmd2"]
        assert len(tg.pending_updates()) == 1

        # a long poll returns as soon as an update is queued
        poll = asyncio.create_task(get_updates(offset=ids[1] + 2, timeout=20))
        await tg.wait_for(
            lambda: len(tg.calls("getUpdates")) == 3 and not tg.calls("getUpdates")[-1].done
        )
        started = time.monotonic()
        tg.user_sends(ivan, group, "/late")
        result = await asyncio.wait_for(poll, 2)
        assert time.monotonic() - started < 1
        assert [u["message"]["text"] for u in result["result"]] == ["/late"]

        # a second long poll terminates the first with 409, like the real server
        offset = result["result"][0]["update_id"] + 1
        older = asyncio.create_task(get_updates(offset=offset, timeout=20))
        await tg.wait_for(lambda: not tg.calls("getUpdates")[-1].done)
        newer = asyncio.create_task(get_updates(offset=offset, timeout=1))
        assert await asyncio.wait_for(older, 2) == {
            "ok": False,
            "error_code": 409,
            "description": GET_UPDATES_CONFLICT,
        }
        assert (await newer)["result"] == []

        # allowed_updates is remembered and filters updates created afterwards
        await get_updates(offset=offset, allowed_updates=["callback_query"])
        tg.user_sends(ivan, group, "/filtered")
        assert (await get_updates(offset=offset))["result"] == []
        await get_updates(offset=offset, allowed_updates=[])  # [] restores the default set
        tg.user_sends(ivan, group, "/visible")
        visible = (await get_updates(offset=offset))["result"]
        assert [u["message"]["text"] for u in visible] == ["/visible"]

        async with http.post(f"{tg.api_url}/setWebhook", data={"url": "https://x.org/h"}) as r:
            assert await r.json() == {"ok": True, "result": True, "description": "Webhook was set"}
        conflict = await get_updates()
        assert conflict["error_code"] == 409 and "webhook is active" in conflict["description"]
        async with http.post(f"{tg.api_url}/deleteWebhook", data={"drop_pending_updates": "true"}):
            pass
        assert tg.pending_updates() == []


async def test_shutdown_does_not_wait_for_the_long_poll(tg: FakeTelegram) -> None:
    application = build_app(tg)
    await application.initialize()
    await application.start()
    assert application.updater is not None
    await application.updater.start_polling(poll_interval=0, timeout=30)
    await tg.wait_for(lambda: any(not c.done for c in tg.calls("getUpdates")), what="a long poll")

    started = time.monotonic()
    await application.updater.stop()
    await application.stop()
    await application.shutdown()
    assert time.monotonic() - started < 1.5
    # PTB cancelled its long poll, then confirmed the offset with a short (timeout=0) call
    assert tg.calls("getUpdates")[-1].params["timeout"] == 0

    started = time.monotonic()
    await tg.stop()  # the abandoned long poll is answered, so the server closes at once
    assert time.monotonic() - started < 1.5


async def test_bot_added_to_group_injected_errors_and_expiry(tg: FakeTelegram, app: App) -> None:
    joined: list[tuple[str, str]] = []
    greeted: list[int] = []

    async def on_my_member(update: Update, context: Context) -> None:
        change = update.my_chat_member
        assert change is not None
        joined.append((change.old_chat_member.status, change.new_chat_member.status))

    async def on_new_members(update: Update, context: Context) -> None:
        assert update.effective_message is not None
        greeted.extend(user.id for user in update.effective_message.new_chat_members)

    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.StatusUpdate.NEW_CHAT_MEMBERS, on_new_members))
    host = tg.add_user("Hana")
    group = tg.add_group("New table", bot_status="left")
    with pytest.raises(Forbidden, match="bot is not a member of the group chat"):
        await app.bot.send_message(group.id, "hi")

    tg.user_adds_bot(host, group)
    await tg.wait_for(lambda: joined and greeted, what="join updates")
    assert joined == [("left", "member")] and greeted == [tg.bot_id]

    tg.inject_error(502, "Bad Gateway", method="getChat")
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await app.bot.get_chat(group.id)
    assert (await app.bot.get_chat(group.id)).title == "New table"

    tg.callback_query_ttl = 0.0
    offer = await app.bot.send_message(
        group.id,
        "Join?",
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="j")]]),
    )
    stale = tg.user_presses(host, group, offer.message_id, "j")
    with pytest.raises(BadRequest, match="Query is too old"):
        await app.bot.answer_callback_query(stale)

    with pytest.raises(TimeoutError, match="never"):
        await tg.wait_for(lambda: False, timeout=0.05, what="never")


async def test_plain_text_is_auto_linked_outside_code_entities(tg: FakeTelegram, bot: Bot) -> None:
    """The fake's model of client auto-linking: URLs (also bare domains), /commands,
    @mentions, e-mail addresses and tags become tappable in plain text, but never inside a
    `code` entity."""
    group = tg.add_group("Links")
    text = "http://evil.example/ /gnav_stop @everyone evil.example/x a.b@mail.com #tag $USD"
    await bot.send_message(group.id, text)
    plain = tg.bot_messages(group)[-1]
    assert plain.links() == [
        ("url", "http://evil.example/"),
        ("bot_command", "/gnav_stop"),
        ("mention", "@everyone"),
        ("url", "evil.example/x"),
        ("email", "a.b@mail.com"),
        ("hashtag", "#tag"),
        ("cashtag", "$USD"),
    ]
    whole = [MessageEntity(MessageEntity.CODE, 0, len(text))]
    await bot.send_message(group.id, text, entities=whole)
    assert tg.bot_messages(group)[-1].links() == []
    sent = await bot.send_message(group.id, "Bob", entities=[])
    await bot.edit_message_text("/gnav_stop's turn", chat_id=group.id, message_id=sent.message_id)
    assert tg.bot_messages(group)[-1].links() == [("bot_command", "/gnav_stop")]


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (255, 255, 255)).save(buf, format="PNG")
    return buf.getvalue()


async def test_send_photo_uploads_bytes_and_answers_photo_sizes(tg: FakeTelegram, bot: Bot) -> None:
    """sendPhoto as the Bot API documents it: a multipart upload (PTB sends bytes as the
    `photo` file field), a `photo` array of PhotoSize (thumbnails smaller than the photo, the
    photo last), a caption of at most 1,024 characters with caption_entities, a keyboard; the
    photo at most 10 MB, width + height at most 10,000, a ratio of at most 20; its caption is
    edited by editMessageCaption, never editMessageText."""
    group = tg.add_group("Photos")
    data = _png(700, 400)
    keys = InlineKeyboardMarkup([[InlineKeyboardButton("Next", callback_data="n")]])
    caption = "Sheet of Ann /stop"
    code = MessageEntity(MessageEntity.CODE, 9, 8)
    msg = await bot.send_photo(
        group.id,
        InputFile(io.BytesIO(data), filename="sheet.png"),
        caption=caption,
        caption_entities=[code],
        reply_markup=keys,
    )
    call = tg.calls("sendPhoto")[-1]
    assert call.files["photo"] == ("sheet.png", data)  # uploaded, not a file id or URL
    assert [(p.width, p.height) for p in msg.photo] == [(90, 51), (320, 183), (700, 400)]
    assert msg.photo[-1].file_size == len(data)
    assert msg.caption == caption and [
        (e.type, e.offset, e.length) for e in msg.caption_entities
    ] == [("code", 9, 8)]
    assert msg.text is None and msg.reply_markup == keys
    stored = tg.last_message(group)
    assert stored is not None and stored.content == data and stored.caption == caption
    # Limits.
    with pytest.raises(BadRequest, match="Message caption is too long"):
        await bot.send_photo(group.id, data, caption="x" * 1025)
    await bot.send_photo(group.id, data, caption="x" * 1024)
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await bot.send_photo(group.id, b"not a picture")
    with pytest.raises(BadRequest, match="Photo_invalid_dimensions"):
        await bot.send_photo(group.id, _png(2100, 100))  # a ratio of 21
    with pytest.raises(BadRequest, match="Photo_save_file_invalid"):
        await bot.send_photo(group.id, data + b"\0" * (10 * 1024 * 1024))
    # A photo's caption is edited as a caption; a text message has none.
    with pytest.raises(BadRequest, match="There is no text in the message to edit"):
        await bot.edit_message_text("new", chat_id=group.id, message_id=msg.message_id)
    edited = await bot.edit_message_caption(
        chat_id=group.id, message_id=msg.message_id, caption="Sheet, final"
    )
    assert isinstance(edited, Message) and edited.caption == "Sheet, final"
    assert edited.reply_markup is None and edited.photo  # keyboard gone, picture kept
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_caption(
            chat_id=group.id, message_id=msg.message_id, caption="Sheet, final"
        )
    text = await bot.send_message(group.id, "plain")
    with pytest.raises(BadRequest, match="There is no caption in the message to edit"):
        await bot.edit_message_caption(
            chat_id=group.id, message_id=text.message_id, caption="caption"
        )
