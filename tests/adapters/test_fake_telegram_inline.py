"""Tests of the fake Telegram Bot API's inline mode, driven by python-telegram-bot.

A user types ``@bot`` in a group (``user_types_inline``), the bot answers the inline query
with articles, the user picks one (``user_picks_inline``): the article's text lands in the
group "via @bot" and, with inline feedback on, the bot hears which result was chosen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import (
    Bot,
    ChosenInlineResult,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ChosenInlineResultHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from tests.fakes.telegram_api import (
    ARTICLE_TITLE_EMPTY,
    BUTTON_DATA_INVALID,
    MESSAGE_TOO_LONG,
    NEXT_OFFSET_INVALID,
    QUERY_ID_INVALID,
    RESULT_ID_DUPLICATE,
    RESULT_ID_EMPTY,
    RESULT_ID_INVALID,
    FakeTelegram,
)

App = Application[Any, Any, Any, Any, Any, Any]
Context = ContextTypes.DEFAULT_TYPE


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """A running fake server whose bot has inline mode and inline feedback on."""
    async with FakeTelegram(inline_mode=True, inline_feedback=True) as fake:
        yield fake


@pytest.fixture
async def app(tg: FakeTelegram) -> AsyncIterator[App]:
    """A started Application polling the fake; handler errors fail the test."""
    application = (
        ApplicationBuilder()
        .token(tg.token)
        .base_url(tg.base_url)
        .base_file_url(tg.base_file_url)
        .build()
    )
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
    """A bare Bot (no polling) for request/response checks."""
    async with Bot(tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url) as raw_bot:
        yield raw_bot


def article(result_id: str, text: str, **extra: Any) -> dict[str, Any]:
    """An ``InlineQueryResultArticle`` as JSON."""
    data: dict[str, Any] = {
        "type": "article",
        "id": result_id,
        "title": f"Play {result_id}",
        "input_message_content": {"message_text": text},
    }
    data.update(extra)
    return data


async def raw_answer(tg: FakeTelegram, query_id: str, results: Any, **extra: Any) -> dict[str, Any]:
    """Call answerInlineQuery over plain HTTP (JSON body) and return the envelope."""
    body = {"inline_query_id": query_id, "results": results, **extra}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{tg.api_url}/answerInlineQuery", json=body) as response,
    ):
        envelope: dict[str, Any] = await response.json()
        assert response.status == envelope.get("error_code", 200)
        return envelope


# ------------------------------------------------------------------------- the bot loop


async def test_inline_choice_in_a_group_reaches_the_bot(tg: FakeTelegram, app: App) -> None:
    queries: list[InlineQuery] = []
    chosen: list[ChosenInlineResult] = []
    via_bot: list[Message] = []

    async def on_inline(update: Update, context: Context) -> None:
        query = update.inline_query
        assert query is not None
        queries.append(query)
        await query.answer(
            [
                InlineQueryResultArticle(
                    id=f"tok:{card}",
                    title=f"Keep the {card}",
                    description="your turn",
                    input_message_content=InputTextMessageContent(
                        f"I keep <b>the {card}</b>", parse_mode=ParseMode.HTML
                    ),
                )
                for card in ("cuckoo", "fool")
            ],
            is_personal=True,
            cache_time=0,
        )

    async def on_chosen(update: Update, context: Context) -> None:
        assert update.chosen_inline_result is not None
        chosen.append(update.chosen_inline_result)

    async def on_message(update: Update, context: Context) -> None:
        assert update.message is not None
        via_bot.append(update.message)

    app.add_handler(InlineQueryHandler(on_inline))
    app.add_handler(ChosenInlineResultHandler(on_chosen))
    app.add_handler(MessageHandler(filters.ViaBot(tg.bot_id), on_message))
    alice = tg.add_user("Alice", username="alice")
    group = tg.add_group("Gnav night", members=[alice])

    query_id = tg.user_types_inline(alice, group, "hand")
    assert query_id is not None
    results = await tg.wait_for_inline_answer(query_id)

    assert [q.id for q in queries] == [query_id]
    assert queries[0].chat_type == "group" and queries[0].query == "hand"
    assert queries[0].offset == "" and queries[0].from_user.id == alice.id
    answered = tg.inline_query(query_id)
    assert answered.is_personal and answered.cache_time == 0
    assert [r["id"] for r in results] == ["tok:cuckoo", "tok:fool"]
    assert results[0] == {
        "type": "article",
        "id": "tok:cuckoo",
        "title": "Keep the cuckoo",
        "input_message_content": {
            "message_text": "I keep the cuckoo",
            "entities": [{"offset": 7, "length": 10, "type": "bold"}],
        },
        "description": "your turn",
    }

    posted = tg.user_picks_inline(alice, group, query_id, "tok:fool")
    await tg.wait_for(lambda: chosen and via_bot, what="chosen result and message")

    assert posted.text == "I keep the fool" and posted.from_id == alice.id
    assert not posted.from_bot and posted.via_bot_id == tg.bot_id
    # privacy mode is on, yet messages sent via the bot reach it
    assert tg.privacy_mode and posted.delivered
    message = via_bot[0]
    assert message.via_bot is not None and message.via_bot.id == tg.bot_id
    assert message.from_user is not None and message.from_user.id == alice.id
    assert message.chat.id == group.id and message.text == "I keep the fool"
    result = chosen[0]
    assert result.result_id == "tok:fool" and result.query == "hand"
    assert result.from_user.id == alice.id and result.inline_message_id is None


async def test_inline_keyboard_result_is_edited_by_inline_message_id(
    tg: FakeTelegram, bot: Bot
) -> None:
    bob = tg.add_user("Bob")
    group = tg.add_group("Table", supergroup=True, members=[bob])
    query_id = tg.user_types_inline(bob, group)
    assert query_id is not None
    (update,) = tg.pending_updates()
    assert update["inline_query"] == {
        "id": query_id,
        "from": bob.to_json(),
        "chat_type": "supergroup",
        "query": "",
        "offset": "",
    }
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Reveal", callback_data="rv")]])
    assert await bot.answer_inline_query(
        query_id,
        [InlineQueryResultArticle("t1", "Bid", InputTextMessageContent("I bid"), keyboard)],
        is_personal=True,
        cache_time=0,
    )

    posted = tg.user_picks_inline(bob, group, query_id, "t1")
    updates = tg.pending_updates()[1:]
    assert [next(k for k in u if k != "update_id") for u in updates] == [
        "message",
        "chosen_inline_result",
    ]
    assert updates[0]["message"]["via_bot"] == tg.bot.to_json()
    chosen = updates[1]["chosen_inline_result"]
    assert chosen == {
        "from": bob.to_json(),
        "inline_message_id": posted.inline_message_id,
        "query": "",
        "result_id": "t1",
    }
    assert posted.buttons() == [{"text": "Reveal", "callback_data": "rv"}]

    # the bot knows the message only by its inline message id
    press_id = tg.user_presses(bob, group, posted, "rv")
    press = tg.pending_updates()[-1]["callback_query"]
    assert press["id"] == press_id and "message" not in press
    assert press["inline_message_id"] == posted.inline_message_id
    edited = await bot.edit_message_text("I bid 3", inline_message_id=chosen["inline_message_id"])
    assert edited is True and tg.message(group, posted.message_id).text == "I bid 3"
    with pytest.raises(BadRequest, match="Message_id_invalid"):
        await bot.edit_message_text("x", inline_message_id="AgAAAP8")


async def test_inline_mode_off_and_feedback_off() -> None:
    async with FakeTelegram() as tg, Bot(tg.token, base_url=tg.base_url) as plain:
        me = await plain.get_me()
        assert me.supports_inline_queries is False
        carol = tg.add_user("Carol")
        group = tg.add_group("Quiet", members=[carol])
        assert tg.user_types_inline(carol, group, "hand") is None
        assert tg.pending_updates() == []

        tg.inline_mode = True  # /setinline
        assert (await plain.get_me()).supports_inline_queries is True
        query_id = tg.user_types_inline(carol, carol)  # in her own chat with the bot
        assert query_id is not None
        assert tg.pending_updates()[0]["inline_query"]["chat_type"] == "sender"
        await plain.answer_inline_query(
            query_id, [InlineQueryResultArticle("a", "A", InputTextMessageContent("pass"))]
        )
        tg.user_picks_inline(carol, carol, query_id, "a")
        # no inline feedback: the message only
        assert [list(u)[1] for u in tg.pending_updates()] == ["inline_query", "message"]


async def test_shared_answers_are_served_from_telegrams_cache(tg: FakeTelegram, bot: Bot) -> None:
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("Table", members=[alice, bob])
    first = tg.user_types_inline(alice, group, "hand")
    assert first is not None
    # not personal, cached for 300 s by default: Bob would see Alice's cards
    await bot.answer_inline_query(
        first, [InlineQueryResultArticle("alice:1", "A", InputTextMessageContent("x"))]
    )
    cached = tg.user_types_inline(bob, group, "hand")
    assert cached is not None
    assert tg.inline_query(cached).from_cache
    assert (await tg.wait_for_inline_answer(cached))[0]["id"] == "alice:1"
    assert len([u for u in tg.pending_updates() if "inline_query" in u]) == 1
    # a query the bot answered as personal, without caching, always asks the bot
    other = tg.user_types_inline(alice, group, "deal")
    assert other is not None
    await bot.answer_inline_query(
        other,
        [InlineQueryResultArticle("d", "D", InputTextMessageContent("x"))],
        is_personal=True,
        cache_time=0,
    )
    again = tg.user_types_inline(alice, group, "deal")
    assert again is not None and not tg.inline_query(again).from_cache
    assert len([u for u in tg.pending_updates() if "inline_query" in u]) == 3


async def test_inline_mode_works_where_the_bot_is_not_a_member(tg: FakeTelegram, bot: Bot) -> None:
    erin = tg.add_user("Erin")
    elsewhere = tg.add_group("No bot here", members=[erin], bot_status="left")
    query_id = tg.user_types_inline(erin, elsewhere, "hi")
    assert query_id is not None
    await bot.answer_inline_query(
        query_id, [InlineQueryResultArticle("h", "H", InputTextMessageContent("hello"))]
    )
    with pytest.raises(ValueError, match="typed in chat"):
        tg.user_picks_inline(erin, erin, query_id, "h")
    with pytest.raises(KeyError, match="no result"):
        tg.user_picks_inline(erin, elsewhere, query_id, "forged")
    posted = tg.user_picks_inline(erin, elsewhere, query_id, "h")
    # the message is in the group, but a bot that is not a member never sees it
    assert posted.via_bot_id == tg.bot_id and not posted.delivered
    assert [list(u)[1] for u in tg.pending_updates()] == ["inline_query", "chosen_inline_result"]


# --------------------------------------------------------------------- answer refusals


async def test_answer_inline_query_refusals(tg: FakeTelegram, bot: Bot) -> None:
    dave = tg.add_user("Dave")
    group = tg.add_group("Table", members=[dave])
    query_id = tg.user_types_inline(dave, group)
    assert query_id is not None
    parse = "Bad Request: can't parse inline query result: "
    cases: list[tuple[Any, str]] = [
        ({"a": 1}, "Bad Request: expected an Array of inline query results"),
        (
            [article(str(i), "x") for i in range(51)],
            "Bad Request: too many inline query results specified",
        ),
        ([article("a", "x"), article("a", "y")], RESULT_ID_DUPLICATE),
        ([article("", "x")], RESULT_ID_EMPTY),
        ([article("x" * 65, "x")], RESULT_ID_INVALID),
        ([article("é" * 33, "x")], RESULT_ID_INVALID),  # 66 bytes
        (
            [{"type": "article", "id": "a", "input_message_content": {"message_text": "x"}}],
            parse + 'Can\'t find field "title"',
        ),
        ([article("a", "x", title="")], ARTICLE_TITLE_EMPTY),
        (
            [{"type": "article", "id": "a", "title": "A"}],
            parse + 'Can\'t find field "message_text"',
        ),
        ([article("a", "")], parse + "Input message content is not specified"),
        ([article("a", " \n ")], "Bad Request: text must be non-empty"),
        ([article("a", "x" * 4097)], MESSAGE_TOO_LONG),
        (
            [
                article(
                    "a",
                    "<x>hi</x>",
                    input_message_content={"message_text": "<x>hi</x>", "parse_mode": "HTML"},
                )
            ],
            parse + 'Can\'t parse entities: Unsupported start tag "x" at byte offset 0',
        ),
        (
            [
                article(
                    "a",
                    "x",
                    reply_markup={"inline_keyboard": [[{"text": "Go", "callback_data": "d" * 65}]]},
                )
            ],
            BUTTON_DATA_INVALID,
        ),
        (
            [article("a", "x", reply_markup={"inline_keyboard": [[{"text": "Go"}]]})],
            parse + "Can't parse inline keyboard button: "
            "Text buttons are unallowed in the inline keyboard",
        ),
        (
            [article("a", "x", reply_markup={"keyboard": [["Go"]]})],
            "Bad Request: inline keyboard expected",
        ),
        (
            [{"type": "meme", "id": "a"}],
            parse + 'type "meme" is unsupported for the inline query result',
        ),
        ([5], parse + "Inline query result must be an object"),
    ]
    for results, description in cases:
        envelope = await raw_answer(tg, query_id, results)
        assert envelope == {"ok": False, "error_code": 400, "description": description}, results
    bad_button = await raw_answer(
        tg, query_id, [], button={"text": "Start me", "start_parameter": "a b"}
    )
    assert bad_button["description"] == (
        "Bad Request: unallowed characters in start_parameter are used"
    )
    long_offset = await raw_answer(tg, query_id, [], next_offset="o" * 65)
    assert long_offset["description"] == NEXT_OFFSET_INVALID
    no_kind = await raw_answer(tg, query_id, [], button={"text": "Start me"})
    assert no_kind["description"] == (
        "Bad Request: can't parse inline query results button: "
        "InlineQueryResultsButton must have exactly one optional field"
    )
    twice = InlineQueryResultArticle("t", "T", InputTextMessageContent("a"))
    with pytest.raises(BadRequest, match="Result_id_duplicate"):  # as PTB words it
        await bot.answer_inline_query(query_id, [twice, twice])
    assert not tg.inline_query(query_id).answered

    # ids of exactly 64 bytes are fine; the button is kept
    ok = await raw_answer(
        tg,
        query_id,
        [article("é" * 32, "x")],
        button={"text": "Start me", "start_parameter": "hello"},
    )
    assert ok == {"ok": True, "result": True}
    assert tg.inline_query(query_id).button == {"text": "Start me", "start_parameter": "hello"}

    # answered once only; unknown ids; expired queries
    again = await raw_answer(tg, query_id, [article("a", "x")])
    assert again["description"] == QUERY_ID_INVALID
    unknown = await raw_answer(tg, "12345", [article("a", "x")])
    assert unknown["description"] == QUERY_ID_INVALID
    tg.inline_query_ttl = 0.0
    stale = tg.user_types_inline(dave, group, "late")
    assert stale is not None
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_inline_query(stale, [])
