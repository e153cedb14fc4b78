"""A local fake of the Telegram Bot API, served over real HTTP by aiohttp.

It lets end-to-end tests run the real python-telegram-bot ``Application`` (long polling,
rate limiter, error mapping and all) against a server that behaves like
``api.telegram.org``: same URL layout, same parameter parsing, same response envelope,
and the same refusals with the same error codes and descriptions.  The behaviour was
checked against the source of the official Bot API server (``tdlib/telegram-bot-api``,
``Client.cpp``) and of TDLib (``MessageEntity.cpp``, ``MessagesManager.cpp``,
``BotCommand.cpp``), which is what answers at ``api.telegram.org``.

Typical use::

    async with FakeTelegram() as tg:
        app = (
            ApplicationBuilder()
            .token(tg.token)
            .base_url(tg.base_url)
            .base_file_url(tg.base_file_url)
            .build()
        )
        ...  # add handlers, initialize/start, updater.start_polling(poll_interval=0, timeout=1)
        alice = tg.add_user("Alice")
        group = tg.add_group("Gnav night", members=[alice])
        tg.user_sends(alice, group, f"/gnav@{tg.bot_username}")
        reply = await tg.wait_for_message(group)

Inline mode is modelled too: with ``FakeTelegram(inline_mode=True, inline_feedback=True)``
(BotFather's ``/setinline`` and ``/setinlinefeedback``; ``getMe`` reports
``supports_inline_queries``), ``tg.user_types_inline(user, chat, query)`` queues an
``inline_query`` update and returns its id, ``await tg.wait_for_inline_answer(query_id)``
returns the results the bot gave ``answerInlineQuery`` (validated like the real server), and
``tg.user_picks_inline(user, chat, query_id, result_id)`` posts the result's text in the
chat as the user's message ``via_bot`` and queues ``chosen_inline_result``.

Everything runs on the test's event loop; no thread is involved.  The fake keeps the
world state (users, chats, members, messages, forum topics, pending updates, answered
callback and inline queries) and records every HTTP call in order, so tests can assert on what the
bot did, wait for it (the bot reacts asynchronously) and inject faults (flood control,
arbitrary errors).

Known simplifications (the fake is stricter or simpler, never more lenient on purpose):

* Unknown methods answer ``404 Not Found`` as api.telegram.org does (the self-hosted
  server says ``Not Found: method not found``).
* No flood control happens by itself unless ``flood=FloodLimits(...)`` is given: then
  every call that puts a message in a chat (sends and edits, as Telegram counts them) is
  counted per chat over a sliding window and for the whole bot (20 a minute in a group, 3 per
  3 s in a private chat, 30 a second for the bot), and one beyond a limit is
  answered ``429`` with the ``retry_after`` left until the window allows it (the answers to
  queries, reads and getUpdates are never limited).  ``FloodLimits.scale`` shrinks every
  window (0.1: a minute lasts 6 s) so a benchmark of real limits ends in minutes; its
  ``retry_after`` is then a fraction of a second (real Telegram sends whole seconds).
  :meth:`FakeTelegram.inject_flood` adds refusals of its own.  The real
  getUpdates throttling quirks (a short poll repeated within 3 s with the same offset is
  stretched to 3 s; 409 answers are delayed by 3 s) are not reproduced, to keep tests fast.
* Long polling has one consumer per token, as on the real server: a ``getUpdates`` that
  waits is ended with ``409 Conflict: terminated by other getUpdates request`` when another
  long poll arrives (two processes polling one token take turns failing).
  :meth:`client_url` gives each process a base URL of its own, so the record tells whose
  call each one was.
* Privacy mode treats every ``/command`` without ``@bot`` as meant for this bot (Telegram
  delivers it only if this bot was the last bot to write in the group).
* Entity detection covers bot commands, ``@mentions``, hashtags and http(s) URLs; link
  normalisation is approximate; ``tg-time``, text mentions, media and webhook delivery
  are not modelled.  Files exist only as ``sendDocument`` and ``sendPhoto`` uploads
  (kept in the call record and the message's ``document`` or ``photo``; nothing is served
  back; a photo is decoded with Pillow for its sizes, as the server decodes it).
* Inline mode: only ``article`` results with a text ``input_message_content`` are
  modelled (other result types and contents are refused as "not modelled by the fake
  server").  Inline feedback is on or off (BotFather also offers 1-50 %).  Location
  queries, group bans on inline bots, pagination by itself (``next_offset`` is stored;
  pass ``offset=`` to ``user_types_inline``) and ``answerWebAppQuery`` are not modelled.
  Telegram's answer cache is keyed by (query, offset), plus the user for ``is_personal``
  answers.  Inline messages (picked results with an inline keyboard) can be edited by
  ``inline_message_id`` with editMessageText/editMessageReplyMarkup only.  An unanswered
  query expires after ``inline_query_ttl`` seconds (None: never).  An empty article text
  is refused by the Bot API server ("Input message content is not specified") and a blank
  one by TDLib ("text must be non-empty"), so Telegram's own ``MESSAGE_EMPTY`` is never
  seen; the description of results that are not JSON at all is approximate.
* Message ids count per chat (Telegram shares one counter across a bot's private chats
  and basic groups).
* When a request breaks two rules the real order of checks was followed where the server
  source shows it (Bot API argument checks, then chat access, then TDLib/server checks);
  within the last group the order is a best guess.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import io
import itertools
import json
import logging
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar

from aiohttp import web

__all__ = [
    "ARTICLE_TITLE_EMPTY",
    "BOT_COMMAND_INVALID",
    "BOT_TO_BOT",
    "BUTTON_DATA_INVALID",
    "CANT_INITIATE",
    "CHAT_NOT_FOUND",
    "FLOODED_METHODS",
    "GET_UPDATES_CONFLICT",
    "GROUP_ANONYMOUS_BOT_ID",
    "GROUP_UPGRADED",
    "MESSAGE_NOT_MODIFIED",
    "MESSAGE_TOO_LONG",
    "NEXT_OFFSET_INVALID",
    "QUERY_ID_INVALID",
    "RESULT_ID_DUPLICATE",
    "RESULT_ID_EMPTY",
    "RESULT_ID_INVALID",
    "TEXT_TOO_LONG",
    "USER_BLOCKED",
    "WEBHOOK_ACTIVE_CONFLICT",
    "CallbackAnswer",
    "ChatRef",
    "FakeChat",
    "FakeInlineQuery",
    "FakeMessage",
    "FakeTelegram",
    "FakeUser",
    "FloodLimits",
    "RecordedCall",
    "UserRef",
    "utf16_len",
]

_LOGGER = logging.getLogger(__name__)

JSONDict = dict[str, Any]
T = TypeVar("T")
#: How long a wait for an event may take before it fails: a last guard only (a wait returns as
#: soon as its event happens), generous so that a loaded machine never fails a test by it.
WAIT: Final = 60.0
ChatType = Literal["private", "group", "supergroup"]
MemberStatus = Literal["creator", "administrator", "member", "left", "kicked"]

# --------------------------------------------------------------------------------------
# Error descriptions, exactly as the Bot API server produces them.
# --------------------------------------------------------------------------------------

CANT_INITIATE: Final = "Forbidden: bot can't initiate conversation with a user"
USER_BLOCKED: Final = "Forbidden: bot was blocked by the user"
BOT_TO_BOT: Final = "Forbidden: the bot can't send messages to the bot"
BUTTON_DATA_INVALID: Final = "Bad Request: BUTTON_DATA_INVALID"
#: A `web_app` button outside a private chat (Telegram allows Mini App buttons there only).
BUTTON_TYPE_INVALID: Final = "Bad Request: BUTTON_TYPE_INVALID"
MESSAGE_TOO_LONG: Final = "Bad Request: MESSAGE_TOO_LONG"
MESSAGE_NOT_MODIFIED: Final = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
TEXT_TOO_LONG: Final = "Bad Request: message is too long"
QUERY_ID_INVALID: Final = (
    "Bad Request: query is too old and response timeout expired or query ID is invalid"
)
GROUP_UPGRADED: Final = "Bad Request: group chat was upgraded to a supergroup chat"
CHAT_NOT_FOUND: Final = "Bad Request: chat not found"
BOT_COMMAND_INVALID: Final = "Bad Request: BOT_COMMAND_INVALID"
RESULT_ID_EMPTY: Final = "Bad Request: RESULT_ID_EMPTY"
RESULT_ID_INVALID: Final = "Bad Request: RESULT_ID_INVALID"
RESULT_ID_DUPLICATE: Final = "Bad Request: RESULT_ID_DUPLICATE"
ARTICLE_TITLE_EMPTY: Final = "Bad Request: ARTICLE_TITLE_EMPTY"
NEXT_OFFSET_INVALID: Final = "Bad Request: NEXT_OFFSET_INVALID"
GET_UPDATES_CONFLICT: Final = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
    "is running"
)
WEBHOOK_ACTIVE_CONFLICT: Final = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
    "delete the webhook first"
)

#: Update types delivered when the bot never chose ``allowed_updates`` (or sent ``[]``).
DEFAULT_ALLOWED_UPDATES: Final = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
ALL_UPDATE_TYPES: Final = DEFAULT_ALLOWED_UPDATES | {
    "chat_member",
    "message_reaction",
    "message_reaction_count",
}

#: ``from`` of service messages posted "by the group itself" (e.g. ``migrate_from_chat_id``):
#: @GroupAnonymousBot, whose user id is fixed by Telegram.
GROUP_ANONYMOUS_BOT_ID: Final = 1087968824

_MAX_TEXT_LENGTH: Final = 4096  # code points, after entity parsing (TDLib utf8_length)
_MAX_RAW_TEXT_BYTES: Final = 1 << 15
_MAX_CALLBACK_DATA_BYTES: Final = 64
_MAX_CALLBACK_ANSWER_CHARS: Final = 200
_MAX_CAPTION_LENGTH: Final = 1024
#: sendPhoto: "The photo must be at most 10 MB in size. The photo's width and height must not
#: exceed 10000 in total. Width and height ratio must be at most 20." (the Bot API docs)
_MAX_PHOTO_BYTES: Final = 10 * 1024 * 1024
_MAX_PHOTO_SIDES: Final = 10_000
_MAX_PHOTO_RATIO: Final = 20
#: The boxes Telegram scales a photo into (thumbnail "s" 90, "m" 320, "x" 800, "y" 1280,
#: "w" 2560): a PhotoSize for each box smaller than the photo, and the photo itself.
_PHOTO_BOXES: Final = (90, 320, 800, 1280, 2560)
_LONG_POLL_MAX_TIMEOUT: Final = 50
_MAX_INLINE_RESULTS: Final = 50
_MAX_INLINE_RESULT_ID_BYTES: Final = 64
_MAX_INLINE_CACHE_TIME: Final = 24 * 60 * 60
_DEFAULT_INLINE_CACHE_TIME: Final = 300
#: Inline result types of the Bot API; only ``article`` is modelled.
_INLINE_RESULT_TYPES: Final = frozenset(
    {
        "article",
        "audio",
        "contact",
        "document",
        "game",
        "gif",
        "location",
        "mpeg4_gif",
        "photo",
        "sticker",
        "venue",
        "video",
        "voice",
    }
)

_CANONICAL_METHODS: Final = (
    "getMe",
    "getUpdates",
    "setWebhook",
    "deleteWebhook",
    "getWebhookInfo",
    "setMyCommands",
    "getMyCommands",
    "deleteMyCommands",
    "sendMessage",
    "sendDocument",
    "sendPhoto",
    "sendChatAction",
    "editMessageText",
    "editMessageCaption",
    "editMessageReplyMarkup",
    "deleteMessage",
    "answerCallbackQuery",
    "answerInlineQuery",
    "getChat",
    "getChatMember",
    "getChatAdministrators",
    "close",
    "logOut",
)
_CANONICAL_BY_LOWER: Final = {name.lower(): name for name in _CANONICAL_METHODS}

# Parameters whose value is a JSON document, an integer or a boolean.  Only used to give
# tests typed values in RecordedCall.params; the handlers parse the raw strings themselves,
# the way the real server does.
_JSON_PARAMS: Final = frozenset(
    {
        "reply_markup",
        "allowed_updates",
        "commands",
        "scope",
        "entities",
        "caption_entities",
        "reply_parameters",
        "link_preview_options",
        "media",
        "permissions",
        "results",
        "button",
    }
)
_INT_PARAMS: Final = frozenset(
    {
        "chat_id",
        "message_id",
        "message_thread_id",
        "user_id",
        "offset",
        "limit",
        "timeout",
        "cache_time",
        "reply_to_message_id",
        "from_chat_id",
        "max_connections",
        "until_date",
    }
)
_BOOL_PARAMS: Final = frozenset(
    {
        "show_alert",
        "disable_notification",
        "protect_content",
        "drop_pending_updates",
        "allow_sending_without_reply",
        "disable_web_page_preview",
        "allow_paid_broadcast",
        "is_personal",
    }
)


class _ApiError(Exception):
    """An error answer: HTTP status ``code`` and the envelope's ``description``."""

    def __init__(
        self,
        code: int,
        description: str,
        parameters: JSONDict | None = None,
        *,
        message: str | None = None,
    ):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters
        #: For a 400 built by ``_bad_request``: the message before the server reworded it.
        self.message = message

    def envelope(self) -> JSONDict:
        body: JSONDict = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def _bad_request(message: str) -> _ApiError:
    """Build a 400 the way the server words it (``Bad Request: `` + lower-cased first letter).

    Server error names such as ``BUTTON_DATA_INVALID`` keep their case.
    """
    if len(message) >= 2 and (message[1] == "_" or message[1].isupper()):
        return _ApiError(400, f"Bad Request: {message}", message=message)
    return _ApiError(400, f"Bad Request: {message[:1].lower()}{message[1:]}", message=message)


# --------------------------------------------------------------------------------------
# Argument parsing, mirroring the server's helpers (every argument is a string there).
# --------------------------------------------------------------------------------------

_LEADING_INT = re.compile(r"\s*([+-]?\d+)")


def _to_integer(value: str) -> int:
    """``td::to_integer``: the leading integer of ``value``, 0 when there is none."""
    match = _LEADING_INT.match(value)
    return int(match.group(1)) if match else 0


def _to_bool(value: str) -> bool:
    """``Client::to_bool``: ``true``, ``yes`` or ``1``, case-insensitive."""
    return value.strip().lower() in {"true", "yes", "1"}


class _Args(Mapping[str, str]):
    """The raw string arguments of one call, as the Bot API server sees them."""

    def __init__(self, raw: dict[str, str], files: Mapping[str, tuple[str, bytes]] | None = None):
        self._raw = raw
        #: Uploaded files (multipart file fields): field name -> (file name, content).
        self.files: Mapping[str, tuple[str, bytes]] = files or {}

    def __getitem__(self, key: str) -> str:
        return self._raw[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def text(self, name: str) -> str:
        return self._raw.get(name, "")

    def integer(
        self, name: str, default: int = 0, lo: int | None = None, hi: int | None = None
    ) -> int:
        raw = self._raw.get(name, "")
        value = default if raw == "" else _to_integer(raw)
        if lo is not None:
            value = max(lo, value)
        if hi is not None:
            value = min(hi, value)
        return value

    def flag(self, name: str) -> bool:
        return _to_bool(self._raw.get(name, ""))

    def json(self, name: str, error: str) -> Any:
        """The decoded JSON argument ``name`` (None when absent); ``error`` if it is not JSON."""
        raw = self._raw.get(name, "")
        if raw == "":
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise _bad_request(error) from None


def _typed_params(raw: Mapping[str, str]) -> dict[str, Any]:
    """Decode well-known parameters so tests can compare them with Python values."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _JSON_PARAMS:
            try:
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
        elif key in _INT_PARAMS and re.fullmatch(r"-?\d+", value):
            out[key] = int(value)
        elif key in _BOOL_PARAMS and value.lower() in {"true", "false", "1", "0"}:
            out[key] = value.lower() in {"true", "1"}
        else:
            out[key] = value
    return out


# --------------------------------------------------------------------------------------
# Formatted text: parse_mode parsing, trimming and entity detection (ported from TDLib).
# --------------------------------------------------------------------------------------


class _ParseError(Exception):
    """TDLib's entity parser refused the text; the message is TDLib's."""


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _is_space(c: int) -> bool:
    return c in (0x20, 0x09, 0x0D, 0x0A, 0x00, 0x0B)


def _is_first_unit(c: int) -> bool:
    return (c & 0xC0) != 0x80


def _is_alnum(c: int) -> bool:
    return 0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A


def _decode(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", "replace")


def _checked_link(url: str) -> str:
    """Approximation of ``LinkManager::get_checked_link``: '' when the URL is unusable."""
    url = url.strip()
    if not url or any(c.isspace() for c in url):
        return ""
    match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://(.*)", url)
    if match is None:
        if url.startswith(("tg:", "ton:")):
            return url
        url = "http://" + url
        match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://(.*)", url)
        assert match is not None
    scheme, rest = match.group(1).lower(), match.group(2)
    if scheme not in {"http", "https", "tg", "ton", "tonsite"}:
        return ""
    if scheme in {"http", "https"}:
        host = re.split(r"[/?#]", rest, maxsplit=1)[0]
        if not host or ("." not in host and host != "localhost"):
            return ""
        if rest == host:
            url += "/"
    return url


_ENTITY_JSON_TYPE: Final = {
    "Bold": "bold",
    "Italic": "italic",
    "Underline": "underline",
    "Strikethrough": "strikethrough",
    "Spoiler": "spoiler",
    "Code": "code",
    "Pre": "pre",
    "PreCode": "pre",
    "TextUrl": "text_link",
    "CustomEmoji": "custom_emoji",
    "BlockQuote": "blockquote",
    "ExpandableBlockQuote": "expandable_blockquote",
}


def _entity(kind: str, offset: int, length: int, argument: str = "") -> JSONDict:
    entity: JSONDict = {"offset": offset, "length": length, "type": _ENTITY_JSON_TYPE[kind]}
    if kind == "TextUrl":
        entity["url"] = argument
    elif kind == "PreCode":
        entity["language"] = argument
    elif kind == "CustomEmoji":
        entity["custom_emoji_id"] = argument
    return entity


def _decode_html_entity(data: bytes, pos: int) -> tuple[int, int]:
    """``decode_html_entity``: (code point, position after it), code 0 if not an entity."""
    n = len(data)

    def at(i: int) -> int:
        return data[i] if i < n else 0

    end = pos + 1
    code = 0
    if at(pos + 1) == ord("#"):
        end += 1
        if at(pos + 2) == ord("x"):
            end += 1
            while chr(at(end)) in "0123456789abcdefABCDEF" and at(end):
                code = code * 16 + int(chr(at(end)), 16)
                end += 1
        else:
            while 0x30 <= at(end) <= 0x39:
                code = code * 10 + at(end) - 0x30
                end += 1
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return 0, pos
    else:
        while chr(at(end)).isascii() and chr(at(end)).isalpha():
            end += 1
        name = data[pos + 1 : end]
        code = {b"lt": 0x3C, b"gt": 0x3E, b"amp": 0x26, b"quot": 0x22}.get(name, 0)
        if code == 0:
            return 0, pos
    if at(end) == ord(";"):
        end += 1
    return code, end


_HTML_TAGS: Final = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "s",
        "strike",
        "del",
        "u",
        "ins",
        "tg-spoiler",
        "tg-emoji",
        "tg-time",
        "span",
        "pre",
        "code",
        "blockquote",
    }
)


def _parse_html(source: str) -> tuple[str, list[JSONDict]]:
    """Port of TDLib ``parse_html``: the plain text and its entities, or ``_ParseError``."""
    data = source.encode("utf-8", "surrogatepass")
    n = len(data)

    def at(i: int) -> int:
        return data[i] if i < n else 0

    out = bytearray()
    entities: list[JSONDict] = []
    utf16 = 0
    # (tag name, argument, utf16 offset where it starts, position in ``out`` where it starts)
    nested: list[tuple[str, str, int, int]] = []
    i = 0
    while i < n:
        c = data[i]
        if c == ord("&"):
            code, after = _decode_html_entity(data, i)
            if code:
                utf16 += 2 if code > 0xFFFF else 1
                out += chr(code).encode("utf-8", "surrogatepass")
                i = after
                continue
        if c != ord("<"):
            if _is_first_unit(c):
                utf16 += 2 if c >= 0xF0 else 1
            out.append(c)
            i += 1
            continue

        begin = i
        i += 1
        if at(i) != ord("/"):
            while not _is_space(at(i)) and at(i) != ord(">"):
                i += 1
            if at(i) == 0:
                raise _ParseError(f"Unclosed start tag at byte offset {begin}")
            tag = _decode(data[begin + 1 : i]).lower()
            if tag not in _HTML_TAGS:
                raise _ParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
            argument = ""
            while at(i) != ord(">"):
                while at(i) != 0 and _is_space(at(i)):
                    i += 1
                if at(i) == ord(">"):
                    break
                attr_begin = i
                while not _is_space(at(i)) and at(i) not in b"=>/\"'":
                    i += 1
                attr_name = data[attr_begin:i]
                if not attr_name:
                    raise _ParseError(
                        f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
                    )
                while at(i) != 0 and _is_space(at(i)):
                    i += 1
                if at(i) != ord("="):
                    if at(i) == 0:
                        raise _ParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                    if tag == "blockquote" and attr_name == b"expandable":
                        argument = "1"
                    continue
                i += 1
                while at(i) != 0 and _is_space(at(i)):
                    i += 1
                if at(i) == 0:
                    raise _ParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                if at(i) not in (ord("'"), ord('"')):
                    token_begin = i
                    while _is_alnum(at(i)) or at(i) in (ord("."), ord("-")):
                        i += 1
                    value = _decode(data[token_begin:i]).lower()
                    if not _is_space(at(i)) and at(i) != ord(">"):
                        raise _ParseError(
                            f"Unexpected end of name token at byte offset {token_begin}"
                        )
                else:
                    quote = at(i)
                    i += 1
                    raw_value = bytearray()
                    while at(i) != quote and at(i) != 0:
                        if at(i) == ord("&"):
                            code, after = _decode_html_entity(data, i)
                            if code:
                                raw_value += chr(code).encode("utf-8", "surrogatepass")
                                i = after
                                continue
                        raw_value.append(at(i))
                        i += 1
                    if at(i) == quote:
                        i += 1
                    value = _decode(raw_value)
                if at(i) == 0:
                    raise _ParseError(f"Unclosed start tag at byte offset {begin}")
                if tag == "a" and attr_name == b"href":
                    argument = value
                elif tag == "code" and attr_name == b"class" and value.startswith("language-"):
                    argument = value[len("language-") :]
                elif tag == "span" and attr_name == b"class" and value.startswith("tg-"):
                    argument = value[3:]
                elif (tag == "tg-emoji" and attr_name == b"emoji-id") or (
                    tag == "tg-time" and attr_name == b"format"
                ):
                    argument = value
                elif tag == "blockquote" and attr_name == b"expandable":
                    argument = "1"
            if tag == "span" and argument != "spoiler":
                raise _ParseError(f'Tag "span" must have class "tg-spoiler" at byte offset {begin}')
            nested.append((tag, argument, utf16, len(out)))
            i += 1
            continue

        # an end tag
        if not nested:
            raise _ParseError(f"Unexpected end tag at byte offset {begin}")
        while not _is_space(at(i)) and at(i) != ord(">"):
            i += 1
        end_tag = _decode(data[begin + 2 : i]).lower()
        while _is_space(at(i)) and at(i) != 0:
            i += 1
        if at(i) != ord(">"):
            raise _ParseError(f"Unclosed end tag at byte offset {begin}")
        tag, argument, offset, out_pos = nested[-1]
        if end_tag and end_tag != tag:
            raise _ParseError(
                f'Unmatched end tag at byte offset {begin}, expected "</{tag}>", '
                f'found "</{end_tag}>"'
            )
        if utf16 > offset:
            length = utf16 - offset
            last = entities[-1] if entities else None
            if tag in ("i", "em"):
                entities.append(_entity("Italic", offset, length))
            elif tag in ("b", "strong"):
                entities.append(_entity("Bold", offset, length))
            elif tag in ("s", "strike", "del"):
                entities.append(_entity("Strikethrough", offset, length))
            elif tag in ("u", "ins"):
                entities.append(_entity("Underline", offset, length))
            elif tag in ("tg-spoiler", "span"):
                entities.append(_entity("Spoiler", offset, length))
            elif tag == "tg-emoji":
                if not argument.isdigit() or int(argument) == 0:
                    raise _ParseError("Invalid custom emoji identifier specified")
                entities.append(_entity("CustomEmoji", offset, length, argument))
            elif tag == "tg-time":
                pass  # formatted dates are not emulated
            elif tag == "a":
                url = _checked_link(argument or _decode(out[out_pos:]))
                if url:
                    entities.append(_entity("TextUrl", offset, length, url))
            elif tag == "pre":
                if (
                    last is not None
                    and last["type"] == "code"
                    and last.get("language")
                    and (last["offset"], last["length"]) == (offset, length)
                ):
                    entities[-1] = _entity("PreCode", offset, length, last["language"])
                else:
                    entities.append(_entity("Pre", offset, length))
            elif tag == "code":
                if (
                    last is not None
                    and last["type"] == "pre"
                    and (last["offset"], last["length"]) == (offset, length)
                    and argument
                ):
                    entities[-1] = _entity("PreCode", offset, length, argument)
                else:
                    code_entity = _entity("Code", offset, length)
                    if argument:  # remembered so that an enclosing <pre> becomes PreCode
                        code_entity["language"] = argument
                    entities.append(code_entity)
            elif tag == "blockquote":
                kind = "ExpandableBlockQuote" if argument else "BlockQuote"
                entities.append(_entity(kind, offset, length))
        nested.pop()
        i += 1
    if nested:
        raise _ParseError(f'Can\'t find end tag corresponding to start tag "{nested[-1][0]}"')
    for entity in entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    return _decode(out), entities


def _parse_markdown_v2(source: str) -> tuple[str, list[JSONDict]]:
    """Port of TDLib ``parse_markdown_v2``, including its reserved-character errors."""
    data = source.encode("utf-8", "surrogatepass")
    n = len(data)

    def at(i: int) -> int:
        return data[i] if i < n else 0

    def reserved(i: int) -> _ParseError:
        return _ParseError(
            f"Character '{chr(data[i])}' is reserved and must be escaped with the preceding '\\'"
        )

    out = bytearray()
    entities: list[JSONDict] = []
    utf16 = 0
    # [kind, argument, utf16 offset, byte offset in source, position in out]
    nested: list[list[Any]] = []
    have_blockquote = False
    can_start_blockquote = True
    i = 0
    while i < n:
        c = data[i]
        if c == ord("\\") and 0 < at(i + 1) <= 126:
            i += 1
            utf16 += 1
            out.append(data[i])
            if data[i] != ord("\r"):
                can_start_blockquote = data[i] == ord("\n")
            i += 1
            continue
        reserved_chars = b"_*[]()~`>#+-=|{}.!\n"
        if nested and nested[-1][0] in ("Code", "Pre", "PreCode"):
            reserved_chars = b"`"
        if c not in reserved_chars:
            if _is_first_unit(c):
                utf16 += 2 if c >= 0xF0 else 1
                if c != ord("\r"):
                    can_start_blockquote = False
            out.append(c)
            i += 1
            continue

        is_end = False
        if nested:
            kind = nested[-1][0]
            if have_blockquote and c == ord("\n") and (i + 1 == n or at(i + 1) != ord(">")):
                is_end = True
            elif kind == "Bold":
                is_end = c == ord("*")
            elif kind == "Italic":
                is_end = c == ord("_") and at(i + 1) != ord("_")
            elif kind == "Code":
                is_end = c == ord("`")
            elif kind in ("Pre", "PreCode"):
                is_end = c == ord("`") and at(i + 1) == ord("`") and at(i + 2) == ord("`")
            elif kind in ("TextUrl", "CustomEmoji"):
                is_end = c == ord("]")
            elif kind == "Underline":
                is_end = c == ord("_") and at(i + 1) == ord("_")
            elif kind == "Strikethrough":
                is_end = c == ord("~")
            elif kind == "Spoiler":
                is_end = c == ord("|") and at(i + 1) == ord("|")

        if not is_end:
            kind = ""
            argument = ""
            byte_offset = i
            if c == ord("_"):
                if at(i + 1) == ord("_"):
                    kind = "Underline"
                    i += 1
                else:
                    kind = "Italic"
            elif c == ord("*"):
                kind = "Bold"
            elif c == ord("~"):
                kind = "Strikethrough"
            elif c == ord("|"):
                if at(i + 1) != ord("|"):
                    raise reserved(i)
                i += 1
                kind = "Spoiler"
            elif c == ord("["):
                kind = "TextUrl"
            elif c == ord("`"):
                if at(i + 1) == ord("`") and at(i + 2) == ord("`"):
                    i += 3
                    kind = "Pre"
                    language_end = i
                    while not _is_space(at(language_end)) and at(language_end) != ord("`"):
                        language_end += 1
                    if i != language_end and language_end < n and at(language_end) != ord("`"):
                        kind = "PreCode"
                        argument = _decode(data[i:language_end])
                        i = language_end
                    if at(i) in (ord("\n"), ord("\r")):
                        if at(i + 1) in (ord("\n"), ord("\r")) and at(i) != at(i + 1):
                            i += 2
                        else:
                            i += 1
                    i -= 1
                else:
                    kind = "Code"
            elif c == ord("!"):
                if at(i + 1) != ord("["):
                    raise reserved(i)
                i += 1
                kind = "CustomEmoji"
            elif c == ord("\n"):
                utf16 += 1
                out.append(c)
                can_start_blockquote = True
            elif c == ord(">"):
                if not can_start_blockquote:
                    raise reserved(i)
                if not have_blockquote:
                    kind = "BlockQuote"
                    have_blockquote = True
            else:
                raise reserved(i)
            if kind:
                nested.append([kind, argument, utf16, byte_offset, len(out)])
            i += 1
            continue

        kind = nested[-1][0]
        if c == ord("\n") and kind != "BlockQuote":
            top = nested[-1]
            if kind != "Spoiler" or not (
                top[3] == i - 2 or (top[3] == i - 3 and out and out[-1] == ord("\r"))
            ):
                raise _ParseError(f"Can't find end of {kind} entity at byte offset {top[3]}")
            nested.pop()
            kind = nested[-1][0]
            if kind != "BlockQuote":
                raise _ParseError(f"Can't find end of {kind} entity at byte offset {nested[-1][3]}")
            kind = "ExpandableBlockQuote"
        argument = nested[-1][1]
        skip = utf16 == nested[-1][2]
        if kind in ("Underline", "Spoiler"):
            i += 1
        elif kind in ("Pre", "PreCode"):
            i += 2
        elif kind in ("TextUrl", "CustomEmoji"):
            if at(i + 1) != ord("("):
                if kind == "CustomEmoji":
                    raise _ParseError("The entity must contain a tg://emoji or tg://time URL")
                url = _decode(out[nested[-1][4] :])
            else:
                i += 2
                url_begin = i
                raw_url = bytearray()
                while i < n and at(i) != ord(")"):
                    if at(i) == ord("\\") and 0 < at(i + 1) <= 126:
                        raw_url.append(at(i + 1))
                        i += 2
                        continue
                    raw_url.append(at(i))
                    i += 1
                if at(i) != ord(")"):
                    raise _ParseError(f"Can't find end of a URL at byte offset {url_begin}")
                url = _decode(raw_url)
            if kind == "CustomEmoji":
                match = re.fullmatch(r"tg://emoji\?id=(\d+)", url)
                if match is None:
                    raise _ParseError("Invalid tg://emoji or tg://time URL specified")
                argument = match.group(1)
            else:
                argument = _checked_link(url)
                skip = skip or not argument
        elif kind in ("BlockQuote", "ExpandableBlockQuote"):
            have_blockquote = False
            out.append(c)
            can_start_blockquote = True
            utf16 += 1
            skip = False
        if not skip:
            offset = nested[-1][2]
            entities.append(_entity(kind, offset, utf16 - offset, argument))
        nested.pop()
        i += 1

    if have_blockquote and nested:
        kind = "BlockQuote"
        if nested[-1][0] == "Spoiler" and nested[-1][3] == n - 2:
            nested.pop()
            kind = "ExpandableBlockQuote"
        if nested and nested[-1][0] == "BlockQuote":
            offset = nested[-1][2]
            if utf16 != offset:
                entities.append(_entity(kind, offset, utf16 - offset))
            nested.pop()
    if nested:
        raise _ParseError(
            f"Can't find end of {nested[-1][0]} entity at byte offset {nested[-1][3]}"
        )
    return _decode(out), entities


def _parse_markdown(source: str) -> tuple[str, list[JSONDict]]:
    """Port of TDLib ``parse_markdown`` (the legacy ``Markdown`` parse mode)."""
    data = source.encode("utf-8", "surrogatepass")
    n = len(data)

    def at(i: int) -> int:
        return data[i] if i < n else 0

    out = bytearray()
    entities: list[JSONDict] = []
    utf16 = 0
    i = 0
    while i < n:
        c = data[i]
        if c == ord("\\") and at(i + 1) in b"_*`[":
            i += 1
            out.append(data[i])
            utf16 += 1
            i += 1
            continue
        if c not in b"_*`[":
            if _is_first_unit(c):
                utf16 += 2 if c >= 0xF0 else 1
            out.append(c)
            i += 1
            continue
        begin = i
        end_char = ord("]") if c == ord("[") else c
        is_pre = False
        language = ""
        i += 1
        if c == ord("`") and at(i) == ord("`") and at(i + 1) == ord("`"):
            i += 2
            is_pre = True
            language_end = i
            while not _is_space(at(language_end)) and at(language_end) != ord("`"):
                language_end += 1
            if i != language_end and language_end < n and at(language_end) != ord("`"):
                language = _decode(data[i:language_end])
                i = language_end
            if at(i) in (ord("\n"), ord("\r")):
                if at(i + 1) in (ord("\n"), ord("\r")) and at(i) != at(i + 1):
                    i += 2
                else:
                    i += 1
        offset = utf16
        while i < n and (
            at(i) != end_char or (is_pre and not (at(i + 1) == ord("`") and at(i + 2) == ord("`")))
        ):
            if _is_first_unit(at(i)):
                utf16 += 2 if at(i) >= 0xF0 else 1
            out.append(at(i))
            i += 1
        if i == n:
            raise _ParseError(f"Can't find end of the entity starting at byte offset {begin}")
        if offset != utf16:
            length = utf16 - offset
            if c == ord("_"):
                entities.append(_entity("Italic", offset, length))
            elif c == ord("*"):
                entities.append(_entity("Bold", offset, length))
            elif c == ord("["):
                if at(i + 1) != ord("("):
                    url = _decode(data[begin + 1 : i])
                else:
                    i += 2
                    raw_url = bytearray()
                    while i < n and at(i) != ord(")"):
                        raw_url.append(at(i))
                        i += 1
                    url = _decode(raw_url)
                url = _checked_link(url)
                if url:
                    entities.append(_entity("TextUrl", offset, length, url))
            elif is_pre:
                if language:
                    entities.append(_entity("PreCode", offset, length, language))
                else:
                    entities.append(_entity("Pre", offset, length))
            else:
                entities.append(_entity("Code", offset, length))
        if is_pre:
            i += 2
        i += 1
    return _decode(out), entities


#: Top-level domains of bare links (TDLib knows them all; these are enough for tests).
_BARE_TLDS: Final = "com|org|net|io|me|dev|app|info|xyz|ru|no|de|uk|co|gg|ly|tk|example"

_AUTO_ENTITY_RE: Final = re.compile(
    r"(?P<bot_command>(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>]))"
    r"|(?P<email>(?<![\w.@+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b)"
    r"|(?P<mention>(?<![\w@])@[A-Za-z0-9_]{5,32}(?![\w@]))"
    r"|(?P<hashtag>(?<![\w#])#[^\W\d_][\w]{0,255})"
    r"|(?P<cashtag>(?<![\w$])\$[A-Z]{1,8}(?![\w]))"
    r"|(?P<url>\bhttps?://[^\s<>\"]+[^\s<>\".,;:!?)\]'])"
    rf"|(?P<bare_url>(?<![\w.@/])(?:[A-Za-z0-9-]+\.)+(?:{_BARE_TLDS})\b(?:/[^\s<>\"]*)?)"
)
#: Entities a client shows as something to tap (a link, a command, a mention, a tag).
_LINK_ENTITY_TYPES: Final = frozenset(
    {
        "url",
        "text_link",
        "mention",
        "text_mention",
        "bot_command",
        "email",
        "hashtag",
        "cashtag",
        "phone_number",
    }
)
_OPAQUE_ENTITY_TYPES: Final = frozenset(
    {"code", "pre", "text_link", "text_mention", "custom_emoji", "url", "mention", "bot_command"}
)
_ENTITY_ORDER: Final = (
    "mention",
    "hashtag",
    "cashtag",
    "bot_command",
    "url",
    "email",
    "phone_number",
    "bank_card_number",
    "text_link",
    "text_mention",
    "custom_emoji",
    "blockquote",
    "expandable_blockquote",
    "pre",
    "code",
    "bold",
    "italic",
    "underline",
    "strikethrough",
    "spoiler",
)


def _sort_entities(entities: list[JSONDict]) -> list[JSONDict]:
    """TDLib order: by offset, longer first, then by type."""

    def key(entity: JSONDict) -> tuple[int, int, int]:
        kind = entity.get("type", "")
        rank = _ENTITY_ORDER.index(kind) if kind in _ENTITY_ORDER else len(_ENTITY_ORDER)
        return entity["offset"], -entity["length"], rank

    return sorted(entities, key=key)


def _find_entities(text: str, existing: Iterable[JSONDict] = ()) -> list[JSONDict]:
    """Entities Telegram detects by itself in text outside opaque entities (code, pre, links,
    mentions): bot commands, e-mail addresses, mentions, hashtags, cashtags, http(s) URLs and
    bare domains (`evil.example/x`). A client shows each as a link, a tappable command or a
    mention."""
    taken = [
        (e["offset"], e["offset"] + e["length"])
        for e in existing
        if e.get("type") in _OPAQUE_ENTITY_TYPES
    ]
    found: list[JSONDict] = []
    for match in _AUTO_ENTITY_RE.finditer(text):
        kind = match.lastgroup
        assert kind is not None
        kind = "url" if kind == "bare_url" else kind
        start = utf16_len(text[: match.start()])
        length = utf16_len(match.group())
        end = start + length
        if any(start < t_end and t_start < end for t_start, t_end in taken):
            continue
        found.append({"offset": start, "length": length, "type": kind})
    return found


def _parse_text(text: str, parse_mode: str, entities_json: Any) -> tuple[str, list[JSONDict]]:
    """The Bot API stage: apply ``parse_mode`` (or take explicit ``entities``).

    Raises the server's error for an oversized raw text, an unknown parse mode or markup
    that does not parse.
    """
    if len(text.encode("utf-8", "surrogatepass")) > _MAX_RAW_TEXT_BYTES:
        raise _bad_request("Text is too long")
    mode = parse_mode.lower()
    if text and mode and mode != "none":
        parser = {
            "html": _parse_html,
            "markdownv2": _parse_markdown_v2,
            "markdown": _parse_markdown,
        }.get(mode)
        if parser is None:
            raise _bad_request("Unsupported parse_mode")
        try:
            return parser(text)
        except _ParseError as exc:
            raise _bad_request(f"Can't parse entities: {exc}") from None
    entities: list[JSONDict] = []
    if isinstance(entities_json, list):
        for raw in entities_json:
            if not isinstance(raw, dict) or "offset" not in raw or "length" not in raw:
                raise _bad_request("Can't parse MessageEntity: expected an Object")
            entities.append(dict(raw))
    return text, entities


def _fix_text(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """The TDLib stage (``fix_formatted_text``): trim, drop empty entities, detect new ones."""
    entities = [e for e in entities if e.get("length", 0) > 0]
    stripped = text.rstrip()
    if not stripped:
        raise _bad_request("Text must be non-empty")
    end16 = utf16_len(stripped)
    kept: list[JSONDict] = []
    for entity in entities:
        if entity["offset"] >= end16:
            continue
        entity = dict(entity)
        entity["length"] = min(entity["length"], end16 - entity["offset"])
        kept.append(entity)
    first_entity = min((e["offset"] for e in kept), default=end16)
    # only ' ' and '\n' before the first entity are trimmed, so chars == UTF-16 units here
    lead = min(len(stripped) - len(stripped.lstrip(" \n")), first_entity)
    text = stripped[lead:]
    for entity in kept:
        entity["offset"] -= lead
    return text, _sort_entities(kept + _find_entities(text, kept))


# --------------------------------------------------------------------------------------
# JSON object fields, as TDLib's JsonObject reads them
# --------------------------------------------------------------------------------------


def _json_string(obj: Mapping[str, Any], name: str, *, required: bool = False) -> str:
    """``JsonObject::get_{optional,required}_string_field`` (a number is taken as text)."""
    value = obj.get(name)
    if value is None:
        if required:
            raise _bad_request(f'Can\'t find field "{name}"')
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    raise _bad_request(f'Field "{name}" must be of type String')


def _json_bool(obj: Mapping[str, Any], name: str) -> bool:
    """``JsonObject::get_optional_bool_field``."""
    value = obj.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _bad_request(f'Field "{name}" must be of type Boolean')
    return value


def _reply_markup_kind(value: Mapping[str, Any]) -> str | None:
    """Which ``ReplyMarkup`` the Bot API server builds from the object (None: none)."""
    if value.get("keyboard"):
        return "keyboard"
    if value.get("inline_keyboard"):
        return "inline"
    if value.get("hide_keyboard") or value.get("remove_keyboard"):
        return "remove"
    if value.get("force_reply") or value.get("force_reply_keyboard"):
        return "force_reply"
    return None


@contextlib.contextmanager
def _reworded(prefix: str) -> Iterator[None]:
    """Prefix a 400 raised inside, as the server wraps nested parse errors."""
    try:
        yield
    except _ApiError as exc:
        if exc.message is None:
            raise
        raise _bad_request(prefix + exc.message) from None


# --------------------------------------------------------------------------------------
# World state
# --------------------------------------------------------------------------------------


@dataclass
class FakeUser:
    """A Telegram user (or the bot itself) known to the fake server."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False
    #: The user pressed Start (or wrote to the bot) in their private chat with the bot.
    started_bot: bool = False
    #: The user blocked the bot; sending to their private chat answers 403.
    blocked_bot: bool = False

    def to_json(self) -> JSONDict:
        """The ``User`` object as the server serialises it."""
        data: JSONDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass
class FakeChat:
    """A private chat, basic group or supergroup (optionally a forum)."""

    id: int
    type: ChatType
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    #: For private chats: the user on the other side.
    user_id: int | None = None
    #: The bot's own status in the chat.
    bot_status: MemberStatus = "member"
    #: Status of each user id in the chat (the bot is tracked in ``bot_status``).
    members: dict[int, MemberStatus] = field(default_factory=dict)
    #: Forum topics: thread id (the id of the topic's creation message) -> name.
    topics: dict[int, str] = field(default_factory=dict)
    #: Set on a basic group once it was upgraded to a supergroup.
    migrated_to: int | None = None
    migrated_from: int | None = None
    next_message_id: int = 1

    @property
    def is_group(self) -> bool:
        """A basic group or a supergroup."""
        return self.type in ("group", "supergroup")


@dataclass
class FakeMessage:
    """A message as stored by the server (its current state, edits included)."""

    chat_id: int
    message_id: int
    from_id: int | None
    date: int
    text: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    reply_markup: JSONDict | None = None
    edit_date: int | None = None
    #: Forum topic id (``message_thread_id``) for messages inside a topic.
    thread_id: int | None = None
    reply_to_message_id: int | None = None
    sender_chat_id: int | None = None
    #: Service fields such as ``migrate_to_chat_id`` or ``forum_topic_created``.
    service: JSONDict = field(default_factory=dict)
    #: What the bot sent before parsing (``text`` is after parse_mode processing).
    raw_text: str | None = None
    parse_mode: str | None = None
    from_bot: bool = False
    #: Whether the update for this message reached the bot (privacy mode may hide it).
    delivered: bool = True
    #: A sent file (``sendDocument``): the ``Document`` object, and its caption.
    document: JSONDict | None = None
    caption: str | None = None
    caption_entities: list[JSONDict] = field(default_factory=list)
    #: A sent photo (``sendPhoto``): its ``PhotoSize`` objects, smallest first.
    photo: list[JSONDict] | None = None
    #: The uploaded bytes of ``document`` (not part of the message JSON).
    content: bytes | None = None
    #: A user's message sent by picking an inline result: the bot it was sent via.
    via_bot_id: int | None = None
    #: Set on inline messages that carry an inline keyboard (the bot edits them by it).
    inline_message_id: str | None = None

    def links(self) -> list[tuple[str, str]]:
        """What a client makes tappable in the text: (entity type, the text it covers) for
        each link, command, mention, address or tag, detected or sent."""
        if not self.text:
            return []
        units = self.text.encode("utf-16-le", "surrogatepass")
        out = []
        for entity in self.entities:
            if entity.get("type") in _LINK_ENTITY_TYPES:
                start, end = 2 * entity["offset"], 2 * (entity["offset"] + entity["length"])
                out.append((entity["type"], units[start:end].decode("utf-16-le", "replace")))
        return out

    def buttons(self) -> list[JSONDict]:
        """The inline keyboard buttons, row after row, or [] without an inline keyboard."""
        if not self.reply_markup:
            return []
        rows = self.reply_markup.get("inline_keyboard", [])
        return [button for row in rows for button in row]

    def button(self, text: str) -> JSONDict:
        """The first inline button whose label contains ``text`` (KeyError if none)."""
        for candidate in self.buttons():
            if text in candidate.get("text", ""):
                return candidate
        labels = [b.get("text") for b in self.buttons()]
        raise KeyError(f"no button labelled {text!r} in message {self.message_id}: {labels}")


#: Calls that put a message in a chat: Telegram counts them against its flood limits
#: (an edit counts like a new message).
FLOODED_METHODS: Final = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "senddocument",
        "editmessagetext",
        "editmessagecaption",
        "editmessagereplymarkup",
    }
)


@dataclass(frozen=True, slots=True)
class FloodLimits:
    """Telegram's flood limits as the fake enforces them: at most ``group`` messages per
    ``group_window`` seconds in one group (sends and edits together), ``private`` per
    ``private_window`` in one private chat (Telegram: "about one a second; short bursts may
    go over it"), ``overall`` per ``overall_window`` for the bot.

    Windows slide (a call counts for exactly one window after it), and every window is
    multiplied by ``scale``: 0.1 runs Telegram's limits ten times faster.
    """

    group: int = 20
    group_window: float = 60.0
    private: int = 3  # about one a second, short bursts allowed (Telegram's FAQ)
    private_window: float = 3.0
    overall: int = 30
    overall_window: float = 1.0
    scale: float = 1.0


@dataclass
class RecordedCall:
    """One HTTP call to the fake, recorded when it arrives and completed when answered."""

    method: str
    #: Parameters with well-known ones decoded (chat_id as int, reply_markup as dict, ...).
    params: dict[str, Any]
    #: ``loop.time()`` when the request arrived.
    time: float
    #: The raw string arguments as the server received them.
    raw: dict[str, str] = field(default_factory=dict)
    #: Uploaded files: field name -> (file name, content).
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    status: int | None = None
    response: JSONDict | None = None
    finished: float | None = None
    #: Which client called: the first path segment of a base URL
    #: ``http://host:port/<client>/bot`` (None for the plain ``/bot`` URLs), so that a test
    #: running several bot processes on one token tells their calls apart.
    client: str | None = None
    #: The caller had gone (its connection closed) by the time of the answer: nobody read it
    #: (a long poll of a killed process, ended by the next consumer's).
    abandoned: bool = False

    @property
    def done(self) -> bool:
        """The server has answered."""
        return self.status is not None

    @property
    def ok(self) -> bool:
        """Answered with ``"ok": true``."""
        return bool(self.response and self.response.get("ok"))

    @property
    def result(self) -> Any:
        """The ``result`` of a successful call."""
        return (self.response or {}).get("result")

    @property
    def error_code(self) -> int | None:
        """The ``error_code`` of a refused call."""
        return (self.response or {}).get("error_code")

    @property
    def description(self) -> str | None:
        """The ``description`` of the answer, if any."""
        return (self.response or {}).get("description")


@dataclass
class CallbackAnswer:
    """A callback query created by ``user_presses`` and, once answered, the bot's answer."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    created: float
    answered: bool = False
    text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int = 0


@dataclass
class FakeInlineQuery:
    """An inline query created by ``user_types_inline`` and, once answered, the bot's answer."""

    id: str
    user_id: int
    #: The chat the user typed in (an inline query does not tell the bot which one).
    chat_id: int | None
    query: str
    offset: str
    created: float
    answered: bool = False
    #: The results as validated and stored by the server (article results only).
    results: list[JSONDict] = field(default_factory=list)
    cache_time: int = _DEFAULT_INLINE_CACHE_TIME
    is_personal: bool = False
    next_offset: str = ""
    button: JSONDict | None = None
    #: Answered from Telegram's cache of an earlier answer: no update reached the bot.
    from_cache: bool = False

    def result(self, result_id: str) -> JSONDict:
        """The answered result with that id (KeyError if none)."""
        for candidate in self.results:
            if candidate["id"] == result_id:
                return candidate
        ids = [r["id"] for r in self.results]
        raise KeyError(f"inline query {self.id} has no result {result_id!r}: {ids}")


#: A chat given as the object, its id, or a user (meaning that user's private chat).
ChatRef = FakeChat | FakeUser | int
#: A user given as the object or its id.
UserRef = FakeUser | int


@dataclass
class _Fault:
    """An injected failure for the next ``remaining`` matching calls."""

    remaining: int
    code: int
    description: str
    parameters: JSONDict | None
    method: str | None
    chat_id: int | None

    def matches(self, method: str, raw: Mapping[str, str]) -> bool:
        if self.method is None and method == "getupdates":
            return False  # never steal the poller's calls unless asked to
        if self.method is not None and self.method.lower() != method:
            return False
        return self.chat_id is None or _to_integer(raw.get("chat_id", "")) == self.chat_id


@dataclass
class _Update:
    update_id: int
    kind: str
    payload: JSONDict

    def to_json(self) -> JSONDict:
        return {"update_id": self.update_id, self.kind: self.payload}


@dataclass
class _Described:
    """A successful result that the server accompanies with a ``description``."""

    value: Any
    description: str


_ADMIN_RIGHTS: Final = {
    "can_manage_chat": True,
    "can_change_info": True,
    "can_delete_messages": True,
    "can_invite_users": True,
    "can_restrict_members": True,
    "can_pin_messages": True,
    "can_manage_topics": True,
    "can_promote_members": False,
    "can_manage_video_chats": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
    "can_manage_tags": False,
    "is_anonymous": False,
}

_CHAT_PERMISSIONS: Final = {
    "can_send_messages": True,
    "can_send_audios": True,
    "can_send_documents": True,
    "can_send_photos": True,
    "can_send_videos": True,
    "can_send_video_notes": True,
    "can_send_voice_notes": True,
    "can_send_polls": True,
    "can_send_other_messages": True,
    "can_add_web_page_previews": True,
    "can_change_info": False,
    "can_invite_users": True,
    "can_pin_messages": False,
    "can_manage_topics": False,
}

_NO_GIFTS: Final = {
    "unlimited_gifts": False,
    "limited_gifts": False,
    "unique_gifts": False,
    "premium_subscription": False,
    "gifts_from_channels": False,
}
_ALL_GIFTS: Final = dict.fromkeys(_NO_GIFTS, True)

_COMMAND_SCOPES: Final = frozenset(
    {
        "default",
        "all_private_chats",
        "all_group_chats",
        "all_chat_administrators",
        "chat",
        "chat_administrators",
        "chat_member",
    }
)


class FakeTelegram:
    """A fake Telegram Bot API server on 127.0.0.1 (ephemeral port), for one bot token.

    Start it with ``async with FakeTelegram() as tg`` (or ``await tg.start()`` /
    ``await tg.stop()``), then point python-telegram-bot at ``tg.base_url`` and
    ``tg.base_file_url``.  Build the world with :meth:`add_user` and :meth:`add_group`, act
    as users with :meth:`user_sends`, :meth:`user_presses`, :meth:`user_starts_bot`, ...,
    and observe the bot with :meth:`calls`, :meth:`messages_in`, :meth:`wait_for` and
    friends.

    ``privacy_mode`` (on by default, as for every new bot) hides ordinary group messages
    from the bot unless it is an administrator: it still gets commands (``/cmd`` and
    ``/cmd@this_bot``), replies to its own messages (or to messages it received), messages
    sent via the bot (inline mode) and service messages.

    ``inline_mode`` (BotFather's ``/setinline``, off for a new bot) lets users type
    ``@bot query`` anywhere (:meth:`user_types_inline`) and pick a result
    (:meth:`user_picks_inline`); ``inline_feedback`` (``/setinlinefeedback``, modelled as
    off or 100 %) makes picking a result send a ``chosen_inline_result`` update.  Both are
    plain attributes a test may flip at any time.
    """

    def __init__(
        self,
        token: str = "123:ABC",
        *,
        bot_username: str = "gnav_test_bot",
        bot_name: str = "Gnav",
        privacy_mode: bool = True,
        first_update_id: int = 500_000_001,
        callback_query_ttl: float | None = None,
        inline_mode: bool = False,
        inline_feedback: bool = False,
        inline_query_ttl: float | None = None,
        flood: FloodLimits | None = None,
        host: str = "127.0.0.1",
    ):
        bot_id = _to_integer(token.split(":", 1)[0])
        if bot_id <= 0 or ":" not in token:
            raise ValueError(f"a bot token looks like '123456:secret', not {token!r}")
        self.token = token
        self.host = host
        self.privacy_mode = privacy_mode
        #: Seconds after which an unanswered callback query can no longer be answered
        #: (None: never expires).
        self.callback_query_ttl = callback_query_ttl
        #: BotFather's /setinline: users can query the bot inline (getMe reports it).
        self.inline_mode = inline_mode
        #: BotFather's /setinlinefeedback (100 %): picking a result sends chosen_inline_result.
        self.inline_feedback = inline_feedback
        #: Seconds after which an unanswered inline query can no longer be answered
        #: (None: never expires; Telegram gives the bot about 10 s).
        self.inline_query_ttl = inline_query_ttl
        #: Telegram's flood limits, enforced (None: only injected floods).
        self.flood = flood
        #: When each chat's counted calls were accepted (oldest first), and the bot's.
        self._flood_chats: dict[int, collections.deque[float]] = {}
        self._flood_all: collections.deque[float] = collections.deque()
        #: 429 answers given by the flood limits, per chat id (0: the bot's overall limit).
        self.flood_refusals: collections.Counter[int] = collections.Counter()
        self.bot = FakeUser(id=bot_id, first_name=bot_name, username=bot_username, is_bot=True)
        self.users: dict[int, FakeUser] = {bot_id: self.bot}
        anonymous = FakeUser(
            id=GROUP_ANONYMOUS_BOT_ID,
            first_name="Group",
            username="GroupAnonymousBot",
            language_code=None,
            is_bot=True,
        )
        self.users[anonymous.id] = anonymous
        self.chats: dict[int, FakeChat] = {}
        self.webhook_url = ""
        self.webhook_secret_token = ""
        self._messages: dict[int, dict[int, FakeMessage]] = {}
        self._deleted: dict[int, set[int]] = {}
        self._updates: list[_Update] = []
        self._next_update_id = first_update_id
        self._delivered_upto = first_update_id - 1
        self._allowed_updates: frozenset[str] = DEFAULT_ALLOWED_UPDATES
        self._poll_generation = 0
        self._abort_reason = GET_UPDATES_CONFLICT
        self._next_set_webhook = 0.0
        self._commands: dict[tuple[tuple[str, int, int], str], list[JSONDict]] = {}
        self._callbacks: dict[str, CallbackAnswer] = {}
        self._inline_queries: dict[str, FakeInlineQuery] = {}
        #: Telegram's cache of inline answers: (query, offset) -> [(expiry, user id for a
        #: personal answer or None, the answered query)].
        self._inline_cache: dict[tuple[str, str], list[tuple[float, int | None, FakeInlineQuery]]]
        self._inline_cache = {}
        self._faults: list[_Fault] = []
        self._calls: list[RecordedCall] = []
        self._changed = asyncio.Event()
        self._closing = False
        self._user_ids = itertools.count(700_000_001)
        self._group_ids = itertools.count(4_100_000_001)
        self._supergroup_ids = itertools.count(1_002_100_000_001)
        self._callback_ids = itertools.count(4_242_000_000_000_000_001)
        self._inline_query_ids = itertools.count(3_131_000_000_000_000_001)
        self._inline_message_ids = itertools.count(1)
        self._app: web.Application | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._handlers: dict[str, Callable[[_Args], Any]] = {
            "getme": self._get_me,
            "setwebhook": self._set_webhook,
            "deletewebhook": self._delete_webhook,
            "getwebhookinfo": self._get_webhook_info,
            "setmycommands": self._set_my_commands,
            "getmycommands": self._get_my_commands,
            "deletemycommands": self._delete_my_commands,
            "sendmessage": self._send_message,
            "senddocument": self._send_document,
            "sendphoto": self._send_photo,
            "sendchataction": self._send_chat_action,
            "editmessagetext": self._edit_message_text,
            "editmessagecaption": self._edit_message_caption,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "answercallbackquery": self._answer_callback_query,
            "answerinlinequery": self._answer_inline_query,
            "getchat": self._get_chat,
            "getchatmember": self._get_chat_member,
            "getchatadministrators": self._get_chat_administrators,
            "close": self._close,
            "logout": self._close,
        }

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeTelegram:
        """Listen on ``host`` with an ephemeral port; returns ``self``."""
        if self._runner is not None:
            raise RuntimeError("FakeTelegram is already running")
        self._closing = False
        self._changed = asyncio.Event()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/{client}/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        site = web.TCPSite(runner, self.host, 0)
        await site.start()
        self._app, self._runner = app, runner
        self.port = runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        """Answer pending long polls with no updates, then close the server."""
        if self._runner is None:
            return
        self._closing = True
        self._notify()
        await asyncio.sleep(0)
        runner, self._runner, self._app = self._runner, None, None
        await runner.cleanup()

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def app(self) -> web.Application:
        """The aiohttp application serving the API (only while running)."""
        if self._app is None:
            raise RuntimeError("FakeTelegram is not running")
        return self._app

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if not self.port:
            raise RuntimeError("FakeTelegram is not running")
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """Pass to ``ApplicationBuilder().base_url(...)``; PTB appends the token."""
        return f"{self.root_url}/bot"

    def client_url(self, client: str) -> str:
        """A ``base_url`` that tags every call made through it with ``client``
        (``RecordedCall.client``): one per bot process sharing the token."""
        return f"{self.root_url}/{client}/bot"

    @property
    def base_file_url(self) -> str:
        """Pass to ``ApplicationBuilder().base_file_url(...)`` (files are not served)."""
        return f"{self.root_url}/file/bot"

    @property
    def api_url(self) -> str:
        """``{base_url}{token}``: append ``/methodName`` for a raw HTTP call."""
        return f"{self.base_url}{self.token}"

    @property
    def bot_id(self) -> int:
        """The bot's user id (the number before ``:`` in the token)."""
        return self.bot.id

    @property
    def bot_username(self) -> str:
        """The bot's username, without ``@``."""
        assert self.bot.username is not None
        return self.bot.username

    # ------------------------------------------------------------------ building the world

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        user_id: int | None = None,
        is_bot: bool = False,
        started_bot: bool = False,
    ) -> FakeUser:
        """Create a user; they can reach the bot privately only after :meth:`user_starts_bot`."""
        uid = user_id if user_id is not None else next(self._user_ids)
        if uid in self.users:
            raise ValueError(f"user id {uid} already exists")
        user = FakeUser(
            id=uid,
            first_name=first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
            is_bot=is_bot,
            started_bot=started_bot,
        )
        self.users[uid] = user
        return user

    def add_group(
        self,
        title: str,
        *,
        supergroup: bool = False,
        forum: bool = False,
        username: str | None = None,
        members: Iterable[UserRef] = (),
        admins: Iterable[UserRef] = (),
        creator: UserRef | None = None,
        bot_status: MemberStatus = "member",
        chat_id: int | None = None,
    ) -> FakeChat:
        """Create a basic group (or a supergroup, or a forum supergroup) the bot is in."""
        is_super = supergroup or forum or username is not None
        if chat_id is None:
            chat_id = -next(self._supergroup_ids) if is_super else -next(self._group_ids)
        if chat_id in self.chats or chat_id >= 0:
            raise ValueError(f"bad or duplicate group id {chat_id}")
        chat = FakeChat(
            id=chat_id,
            type="supergroup" if is_super else "group",
            title=title,
            username=username,
            is_forum=forum,
            bot_status=bot_status,
            # in a forum, message 1 belongs to the General topic; topics start above it
            next_message_id=2 if forum else 1,
        )
        for member in members:
            chat.members[self._user(member).id] = "member"
        for admin in admins:
            chat.members[self._user(admin).id] = "administrator"
        if creator is not None:
            chat.members[self._user(creator).id] = "creator"
        self.chats[chat.id] = chat
        self._messages[chat.id] = {}
        return chat

    def private_chat(self, user: UserRef) -> FakeChat:
        """The private chat between ``user`` and the bot (its id is the user's id)."""
        return self._private_chat(self._user(user))

    def set_member_status(self, chat: ChatRef, user: UserRef, status: MemberStatus) -> None:
        """Silently set a user's status in a group (no update is sent)."""
        self._chat(chat).members[self._user(user).id] = status

    def set_bot_status(self, chat: ChatRef, status: MemberStatus) -> None:
        """Silently set the bot's own status in a group, e.g. ``"administrator"``."""
        self._chat(chat).bot_status = status

    def create_topic(self, chat: ChatRef, name: str, *, by: UserRef) -> int:
        """A user opens a forum topic; returns its ``message_thread_id``."""
        forum = self._chat(chat)
        if not forum.is_forum:
            raise ValueError(f"chat {forum.id} is not a forum")
        author = self._join(forum, self._user(by))
        msg = self._store_message(
            forum,
            from_id=author.id,
            service={"forum_topic_created": {"name": name, "icon_color": 7322096}},
        )
        msg.thread_id = msg.message_id
        forum.topics[msg.message_id] = name
        self._deliver_user_message(forum, msg)
        return msg.message_id

    def migrate_group(self, chat: ChatRef, *, by: UserRef | None = None) -> int:
        """Upgrade a basic group to a supergroup, as Telegram does; returns the new chat id.

        Queues the two service messages Telegram sends (``migrate_to_chat_id`` in the old
        group, then ``migrate_from_chat_id`` in the new supergroup).  From then on the old
        id answers ``400 group chat was upgraded to a supergroup chat`` with
        ``parameters.migrate_to_chat_id``.
        """
        old = self._chat(chat)
        if old.type != "group" or old.migrated_to is not None:
            raise ValueError(f"chat {old.id} is not a basic group that can be upgraded")
        if by is not None:
            actor = self._user(by)
        else:
            creators = [uid for uid, st in old.members.items() if st == "creator"]
            others = [uid for uid, st in old.members.items() if st in ("administrator", "member")]
            candidates = creators or others
            actor = self._user(candidates[0]) if candidates else self.add_user("Owner")
        new = FakeChat(
            id=-next(self._supergroup_ids),
            type="supergroup",
            title=old.title,
            bot_status=old.bot_status,
            members=dict(old.members),
            migrated_from=old.id,
        )
        self.chats[new.id] = new
        self._messages[new.id] = {}
        old.migrated_to = new.id
        moved = self._store_message(old, from_id=actor.id, service={"migrate_to_chat_id": new.id})
        self._deliver_user_message(old, moved)
        arrived = self._store_message(
            new,
            from_id=GROUP_ANONYMOUS_BOT_ID,
            sender_chat_id=new.id,
            service={"migrate_from_chat_id": old.id},
        )
        self._deliver_user_message(new, arrived)
        return new.id

    # ------------------------------------------------------------------ acting as users

    def user_sends(
        self,
        user: UserRef,
        chat: ChatRef,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """``user`` writes ``text`` in ``chat``; queues the ``message`` update if the bot sees it.

        Commands such as ``/gnav@bot arg`` get a ``bot_command`` entity (mentions,
        hashtags and URLs are detected too).  In a forum, ``thread_id`` places the message
        in a topic (``message_thread_id``, ``is_topic_message`` and the implicit
        ``reply_to_message`` pointing at the topic's creation message, like Telegram).
        """
        author = self._user(user)
        target = self._chat(chat)
        if target.migrated_to is not None:
            raise ValueError(f"group {target.id} was upgraded to {target.migrated_to}")
        if target.type == "private":
            if target.user_id != author.id:
                raise ValueError("a private chat with the bot belongs to one user only")
            if author.blocked_bot:
                raise ValueError("the user blocked the bot: call user_starts_bot() to restart it")
            author.started_bot = True
        else:
            self._join(target, author)
        reply_id = reply_to.message_id if isinstance(reply_to, FakeMessage) else reply_to
        replied = self._messages_of(target).get(reply_id) if reply_id is not None else None
        if reply_id is not None and replied is None:
            raise ValueError(f"no message {reply_id} in chat {target.id}")
        if thread_id is not None:
            if not target.is_forum or thread_id not in target.topics:
                raise ValueError(f"no forum topic {thread_id} in chat {target.id}")
        elif replied is not None:
            thread_id = replied.thread_id
        msg = self._store_message(
            target,
            from_id=author.id,
            text=text,
            entities=_sort_entities(_find_entities(text)),
            thread_id=thread_id,
            reply_to_message_id=reply_id,
        )
        self._deliver_user_message(target, msg)
        return msg

    def user_presses(
        self,
        user: UserRef,
        chat: ChatRef,
        message_id: FakeMessage | int,
        callback_data: str,
        *,
        strict: bool = True,
    ) -> str:
        """``user`` presses the inline button carrying ``callback_data``; returns the query id.

        With ``strict`` (the default) the message must have a button with exactly that
        data, since a Telegram client cannot send anything else.  The answer, once the bot
        calls answerCallbackQuery, is available from :meth:`callback_answer`.
        """
        presser = self._user(user)
        target = self._chat(chat)
        mid = message_id.message_id if isinstance(message_id, FakeMessage) else message_id
        msg = self._messages_of(target).get(mid)
        if msg is None:
            raise ValueError(f"no message {mid} in chat {target.id}")
        if strict and callback_data not in [b.get("callback_data") for b in msg.buttons()]:
            raise ValueError(
                f"message {mid} has no button with callback_data {callback_data!r}: {msg.buttons()}"
            )
        if target.type == "private":
            if target.user_id != presser.id:
                raise ValueError("only the owner of a private chat can press its buttons")
        else:
            self._join(target, presser)
        query_id = str(next(self._callback_ids))
        self._callbacks[query_id] = CallbackAnswer(
            id=query_id,
            user_id=presser.id,
            chat_id=target.id,
            message_id=mid,
            data=callback_data,
            created=self._now(),
        )
        payload: JSONDict = {"id": query_id, "from": presser.to_json()}
        if msg.inline_message_id is not None:
            # a message sent via the bot: the bot knows it only by its inline message id
            payload["inline_message_id"] = msg.inline_message_id
            payload["chat_instance"] = self._chat_instance(target, inline=True)
        else:
            payload["message"] = self.message_json(msg)
            payload["chat_instance"] = self._chat_instance(target)
        payload["data"] = callback_data
        self._enqueue("callback_query", payload)
        return query_id

    def user_presses_button(self, user: UserRef, message: FakeMessage, label: str) -> str:
        """Press the first inline button of ``message`` whose label contains ``label``."""
        data = message.button(label).get("callback_data")
        if data is None:
            raise ValueError(f"button {label!r} is not a callback button")
        return self.user_presses(user, message.chat_id, message, data)

    def user_types_inline(
        self, user: UserRef, chat: ChatRef | None, query: str = "", *, offset: str = ""
    ) -> str | None:
        """``user`` types ``@bot query`` in ``chat``; returns the inline query id.

        Without inline mode nothing happens (no update; returns None).  The ``inline_query``
        update carries ``chat_type`` (``sender`` for the user's own chat with the bot) but
        never the chat id; ``chat=None`` stands for a chat of unknown type (no
        ``chat_type``).  Like Telegram, an earlier answer still in its ``cache_time``
        (for the same query and offset; for the same user only when ``is_personal``) is
        shown instead and the bot gets no update: the returned query is then answered
        already (``from_cache``).
        """
        typer = self._user(user)
        if typer.is_bot:
            raise ValueError("bots can't use inline mode")
        target = self._chat(chat) if chat is not None else None
        chat_type: str | None = None
        if target is not None:
            if target.migrated_to is not None:
                raise ValueError(f"group {target.id} was upgraded to {target.migrated_to}")
            if target.type == "private":
                if target.user_id != typer.id:
                    raise ValueError("a private chat with the bot belongs to one user only")
                chat_type = "sender"
            else:
                status = target.members.get(typer.id)
                if status not in ("creator", "administrator", "member"):
                    raise ValueError(f"user {typer.id} is not a member of chat {target.id}")
                chat_type = target.type
        if not self.inline_mode:
            return None
        query_id = str(next(self._inline_query_ids))
        record = FakeInlineQuery(
            id=query_id,
            user_id=typer.id,
            chat_id=target.id if target is not None else None,
            query=query,
            offset=offset,
            created=self._now(),
        )
        self._inline_queries[query_id] = record
        cached = self._cached_inline_answer(typer.id, query, offset)
        if cached is not None:
            record.answered = record.from_cache = True
            record.results = json.loads(json.dumps(cached.results))
            record.cache_time, record.is_personal = cached.cache_time, cached.is_personal
            record.next_offset, record.button = cached.next_offset, cached.button
            self._notify()
            return query_id
        payload: JSONDict = {"id": query_id, "from": typer.to_json()}
        if chat_type is not None:
            payload["chat_type"] = chat_type
        payload["query"] = query
        payload["offset"] = offset
        self._enqueue("inline_query", payload)
        return query_id

    def user_picks_inline(
        self, user: UserRef, chat: ChatRef, query_id: str, result_id: str
    ) -> FakeMessage:
        """``user`` taps the result ``result_id`` of their answered inline query in ``chat``.

        The result's ``input_message_content`` is posted in ``chat`` as the user's message
        ``via_bot`` (the bot gets it even in privacy mode, as Telegram delivers messages
        sent via the bot); with ``inline_feedback`` a ``chosen_inline_result`` update
        follows (``inline_message_id`` only when the result has an inline keyboard).
        """
        picker = self._user(user)
        record = self._inline_queries.get(query_id)
        if record is None:
            raise ValueError(f"unknown inline query {query_id}")
        if record.user_id != picker.id:
            raise ValueError(f"inline query {query_id} belongs to user {record.user_id}")
        if not record.answered:
            raise ValueError(f"the bot has not answered inline query {query_id}")
        result = record.result(result_id)
        target = self._chat(chat)
        if record.chat_id is not None and record.chat_id != target.id:
            raise ValueError(f"inline query {query_id} was typed in chat {record.chat_id}")
        if target.migrated_to is not None:
            raise ValueError(f"group {target.id} was upgraded to {target.migrated_to}")
        if target.type == "private":
            if target.user_id != picker.id:
                raise ValueError("a private chat with the bot belongs to one user only")
            if picker.blocked_bot:
                raise ValueError("the user blocked the bot: call user_starts_bot() to restart it")
            picker.started_bot = True
        else:
            self._join(target, picker)
        content = result["input_message_content"]
        markup = result.get("reply_markup")
        msg = self._store_message(
            target,
            from_id=picker.id,
            text=content["message_text"],
            entities=[dict(e) for e in content.get("entities", [])],
            reply_markup=json.loads(json.dumps(markup)) if markup else None,
        )
        msg.via_bot_id = self.bot.id
        if markup:
            msg.inline_message_id = self._new_inline_message_id(picker)
        self._deliver_user_message(target, msg)
        if self.inline_feedback:
            chosen: JSONDict = {"from": picker.to_json()}
            if msg.inline_message_id is not None:
                chosen["inline_message_id"] = msg.inline_message_id
            chosen["query"] = record.query
            chosen["result_id"] = result_id
            self._enqueue("chosen_inline_result", chosen)
        return msg

    def user_starts_bot(self, user: UserRef, payload: str | None = None) -> FakeMessage:
        """``user`` presses Start in the bot's private chat (``/start [payload]``).

        Marks the user reachable; a user who had blocked the bot is unblocked first (the
        bot then gets a ``my_chat_member`` update from ``kicked`` to ``member``).
        """
        starter = self._user(user)
        chat = self._private_chat(starter)
        if starter.blocked_bot:
            starter.blocked_bot = False
            self._enqueue_my_chat_member(chat, starter, "kicked", "member")
        return self.user_sends(starter, chat, "/start" if not payload else f"/start {payload}")

    def user_blocks_bot(self, user: UserRef) -> None:
        """``user`` blocks the bot: private sends now fail with 403 (bot was blocked)."""
        blocker = self._user(user)
        blocker.blocked_bot = True
        self._enqueue_my_chat_member(self._private_chat(blocker), blocker, "member", "kicked")

    def user_adds_bot(self, user: UserRef, chat: ChatRef) -> FakeMessage:
        """``user`` adds the bot to a group: ``my_chat_member``, then ``new_chat_members``."""
        adder = self._user(user)
        group = self._chat(chat)
        if not group.is_group:
            raise ValueError("bots are added to groups only")
        self._join(group, adder)
        old = group.bot_status
        group.bot_status = "member"
        self._enqueue_my_chat_member(group, adder, old, "member")
        bot_json = self.bot.to_json()
        msg = self._store_message(
            group,
            from_id=adder.id,
            service={
                "new_chat_participant": bot_json,
                "new_chat_member": bot_json,
                "new_chat_members": [bot_json],
            },
        )
        self._deliver_user_message(group, msg)
        return msg

    def kick_bot(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        """Remove the bot from a group (it gets ``my_chat_member`` with status ``kicked``)."""
        group = self._chat(chat)
        actor = self._user(by) if by is not None else self.add_user("Admin")
        old = group.bot_status
        group.bot_status = "kicked"
        self._enqueue_my_chat_member(group, actor, old, "kicked")

    # ------------------------------------------------------------------ fault injection

    def inject_flood(
        self,
        count: int = 1,
        *,
        retry_after: int = 1,
        method: str | None = None,
        chat_id: int | None = None,
    ) -> None:
        """The next ``count`` matching calls answer ``429 Too Many Requests: retry after N``.

        Matching is by method name (case-insensitive) and/or ``chat_id``; without a method,
        every method but getUpdates matches.  ``parameters.retry_after`` is ``retry_after``
        (an integer, as Telegram sends), and the ``Retry-After`` header is set.
        """
        if retry_after < 1:
            raise ValueError("Telegram's retry_after is a positive number of seconds")
        self.inject_error(
            429,
            f"Too Many Requests: retry after {retry_after}",
            count=count,
            method=method,
            chat_id=chat_id,
            parameters={"retry_after": retry_after},
        )

    def inject_error(
        self,
        code: int,
        description: str,
        *,
        count: int = 1,
        method: str | None = None,
        chat_id: int | None = None,
        parameters: JSONDict | None = None,
    ) -> None:
        """The next ``count`` matching calls answer this error envelope instead of running."""
        self._faults.append(_Fault(count, code, description, parameters, method, chat_id))

    # ------------------------------------------------------------------ inspection

    def calls(self, method: str | None = None, **params: Any) -> list[RecordedCall]:
        """Recorded calls in arrival order, optionally of one method and with given params.

        ``params`` compare with the decoded parameters, e.g.
        ``calls("sendMessage", chat_id=group.id)``.
        """
        wanted = method.lower() if method else None
        return [
            call
            for call in self._calls
            if (wanted is None or call.method.lower() == wanted)
            and all(call.params.get(k) == v for k, v in params.items())
        ]

    def bot_calls(self) -> list[RecordedCall]:
        """Recorded calls except the polling ones (getUpdates)."""
        return [call for call in self._calls if call.method != "getUpdates"]

    def messages_in(
        self,
        chat: ChatRef,
        *,
        thread_id: int | None = None,
        from_bot: bool | None = None,
    ) -> list[FakeMessage]:
        """Current (not deleted) messages of a chat, oldest first."""
        target = self._chat(chat)
        return [
            msg
            for msg in self._messages_of(target).values()
            if (thread_id is None or msg.thread_id == thread_id)
            and (from_bot is None or msg.from_bot == from_bot)
        ]

    def bot_messages(self, chat: ChatRef) -> list[FakeMessage]:
        """Current messages the bot sent in a chat, oldest first."""
        return self.messages_in(chat, from_bot=True)

    def last_message(self, chat: ChatRef, *, from_bot: bool | None = None) -> FakeMessage | None:
        """The newest current message of a chat (optionally only the bot's or only users')."""
        messages = self.messages_in(chat, from_bot=from_bot)
        return messages[-1] if messages else None

    def message(self, chat: ChatRef, message_id: int) -> FakeMessage:
        """A current message by id (KeyError when missing or deleted)."""
        return self._messages_of(self._chat(chat))[message_id]

    def was_deleted(self, chat: ChatRef, message_id: int) -> bool:
        """Whether the bot deleted that message."""
        return message_id in self._deleted.get(self._chat(chat).id, set())

    def callback_answer(self, query_id: str) -> CallbackAnswer:
        """The callback query created by :meth:`user_presses` and its answer state."""
        return self._callbacks[query_id]

    def inline_query(self, query_id: str) -> FakeInlineQuery:
        """The inline query created by :meth:`user_types_inline` and its answer state."""
        return self._inline_queries[query_id]

    def commands(
        self, scope: Mapping[str, Any] | None = None, language_code: str = ""
    ) -> list[JSONDict]:
        """The command list the bot set for exactly that scope and language."""
        key = self._scope_key(dict(scope) if scope else {"type": "default"})
        return list(self._commands.get((key, language_code), []))

    def pending_updates(self) -> list[JSONDict]:
        """Updates the bot has not confirmed yet (they are forgotten once confirmed)."""
        return [update.to_json() for update in self._updates]

    def message_json(self, msg: FakeMessage, *, with_reply: bool = True) -> JSONDict:
        """The ``Message`` object exactly as the server would serialise it now."""
        chat = self.chats[msg.chat_id]
        data: JSONDict = {"message_id": msg.message_id}
        if msg.from_id is not None:
            data["from"] = self.users[msg.from_id].to_json()
        if msg.sender_chat_id is not None:
            data["sender_chat"] = self._chat_json(self.chats[msg.sender_chat_id])
        data["chat"] = self._chat_json(chat)
        data["date"] = msg.date
        if msg.edit_date:
            data["edit_date"] = msg.edit_date
        if msg.thread_id is not None:
            data["message_thread_id"] = msg.thread_id
        if with_reply:
            reply_id = msg.reply_to_message_id
            if reply_id is None and msg.thread_id is not None and msg.thread_id != msg.message_id:
                reply_id = msg.thread_id  # implicit reply to the topic's creation message
            replied = self._messages_of(chat).get(reply_id) if reply_id is not None else None
            if replied is not None:
                data["reply_to_message"] = self.message_json(replied, with_reply=False)
        if msg.text is not None:
            data["text"] = msg.text
            if msg.entities:
                data["entities"] = [dict(e) for e in msg.entities]
        if msg.document is not None:
            data["document"] = dict(msg.document)
        if msg.photo is not None:
            data["photo"] = [dict(size) for size in msg.photo]
        if (msg.document is not None or msg.photo is not None) and msg.caption:
            data["caption"] = msg.caption
            if msg.caption_entities:
                data["caption_entities"] = [dict(e) for e in msg.caption_entities]
        data.update(json.loads(json.dumps(msg.service)))
        if msg.via_bot_id is not None:
            data["via_bot"] = self.users[msg.via_bot_id].to_json()
        if msg.reply_markup:
            data["reply_markup"] = json.loads(json.dumps(msg.reply_markup))
        if msg.thread_id is not None and chat.is_forum:
            data["is_topic_message"] = True
        return data

    # ------------------------------------------------------------------ waiting

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float = WAIT,
        what: str = "condition",
    ) -> T:
        """Wait until ``predicate()`` returns something truthy and return it.

        The predicate is re-evaluated whenever the fake's state changes (a call arrives or
        is answered, an update is queued).  Raises ``TimeoutError`` listing the recent
        calls when ``timeout`` seconds pass.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = [
                    f"{c.method}({c.params}) -> {c.status} {c.description or ''}".strip()
                    for c in self.bot_calls()[-8:]
                ]
                raise TimeoutError(
                    f"timed out after {timeout}s waiting for {what}; recent: {recent}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    async def wait_for_call(
        self, method: str, *, count: int = 1, timeout: float = WAIT, **params: Any
    ) -> RecordedCall:
        """Wait until ``count`` matching calls were answered; return the ``count``-th."""

        def found() -> RecordedCall | None:
            done = [call for call in self.calls(method, **params) if call.done]
            return done[count - 1] if len(done) >= count else None

        return await self.wait_for(found, timeout=timeout, what=f"{count}x {method}({params})")

    async def wait_for_message(
        self,
        chat: ChatRef,
        *,
        contains: str | None = None,
        after: int = 0,
        timeout: float = WAIT,
    ) -> FakeMessage:
        """Wait for a bot message in ``chat`` with id above ``after`` (and ``contains`` text)."""
        target = self._chat(chat)

        def found() -> FakeMessage | None:
            for msg in self.messages_in(target, from_bot=True):
                if msg.message_id > after and (contains is None or contains in (msg.text or "")):
                    return msg
            return None

        return await self.wait_for(found, timeout=timeout, what=f"a bot message in {target.id}")

    async def wait_for_inline_answer(
        self, query_id: str, *, timeout: float = WAIT
    ) -> list[JSONDict]:
        """Wait until the bot answered inline query ``query_id``; return its results (JSON)."""
        record = self._inline_queries[query_id]
        await self.wait_for(
            lambda: record.answered, timeout=timeout, what=f"an answer to inline query {query_id}"
        )
        return json.loads(json.dumps(record.results))

    async def wait_until_fetched(self, *, timeout: float = WAIT) -> None:
        """Wait until the bot fetched (via getUpdates) every update queued so far."""
        last = self._next_update_id - 1
        await self.wait_for(
            lambda: self._delivered_upto >= last, timeout=timeout, what=f"update {last} fetched"
        )

    # ------------------------------------------------------------------ internals: state

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    @staticmethod
    def _now() -> float:
        return time.monotonic()

    def _user(self, user: UserRef) -> FakeUser:
        uid = user.id if isinstance(user, FakeUser) else user
        try:
            return self.users[uid]
        except KeyError:
            raise ValueError(f"unknown user {uid}") from None

    def _chat(self, chat: ChatRef) -> FakeChat:
        if isinstance(chat, FakeUser):
            return self._private_chat(self._user(chat))
        cid = chat.id if isinstance(chat, FakeChat) else chat
        if cid in self.chats:
            return self.chats[cid]
        if cid in self.users:
            return self._private_chat(self.users[cid])
        raise ValueError(f"unknown chat {cid}")

    def _private_chat(self, user: FakeUser) -> FakeChat:
        chat = self.chats.get(user.id)
        if chat is None:
            chat = FakeChat(id=user.id, type="private", user_id=user.id)
            self.chats[user.id] = chat
            self._messages[user.id] = {}
        return chat

    def _messages_of(self, chat: FakeChat) -> dict[int, FakeMessage]:
        return self._messages.setdefault(chat.id, {})

    def _join(self, chat: FakeChat, user: FakeUser) -> FakeUser:
        status = chat.members.get(user.id)
        if status == "kicked":
            raise ValueError(f"user {user.id} is banned from chat {chat.id}")
        if status in (None, "left"):
            chat.members[user.id] = "member"
        return user

    def _store_message(
        self,
        chat: FakeChat,
        *,
        from_id: int | None,
        text: str | None = None,
        entities: list[JSONDict] | None = None,
        reply_markup: JSONDict | None = None,
        thread_id: int | None = None,
        reply_to_message_id: int | None = None,
        sender_chat_id: int | None = None,
        service: JSONDict | None = None,
        from_bot: bool = False,
        raw_text: str | None = None,
        parse_mode: str | None = None,
    ) -> FakeMessage:
        msg = FakeMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            from_id=from_id,
            date=int(time.time()),
            text=text,
            entities=entities or [],
            reply_markup=reply_markup,
            thread_id=thread_id,
            reply_to_message_id=reply_to_message_id,
            sender_chat_id=sender_chat_id,
            service=service or {},
            from_bot=from_bot,
            raw_text=raw_text,
            parse_mode=parse_mode,
        )
        chat.next_message_id += 1
        self._messages_of(chat)[msg.message_id] = msg
        self._notify()
        return msg

    def _bot_sees(self, chat: FakeChat, msg: FakeMessage) -> bool:
        """Whether Telegram delivers a user's message in ``chat`` to the bot."""
        if chat.type == "private":
            return True
        if chat.bot_status not in ("member", "administrator", "creator"):
            return False
        if not self.privacy_mode or chat.bot_status in ("administrator", "creator"):
            return True
        if msg.via_bot_id == self.bot.id:
            return True
        if msg.text is None:
            return True  # service messages
        head = next((e for e in msg.entities if e["offset"] == 0), None)
        if head is not None and head["type"] == "bot_command":
            command = msg.text[: head["length"]]
            _, _, addressee = command.partition("@")
            return not addressee or addressee.lower() == self.bot_username.lower()
        if msg.reply_to_message_id is not None:
            replied = self._messages_of(chat).get(msg.reply_to_message_id)
            return replied is not None and (replied.from_bot or replied.delivered)
        return False

    def _deliver_user_message(self, chat: FakeChat, msg: FakeMessage) -> None:
        msg.delivered = self._bot_sees(chat, msg)
        if msg.delivered:
            self._enqueue("message", self.message_json(msg))

    def _enqueue(self, kind: str, payload: JSONDict) -> int | None:
        if kind not in self._allowed_updates:
            _LOGGER.debug("dropping %s update: not in allowed_updates", kind)
            return None
        update = _Update(self._next_update_id, kind, payload)
        self._next_update_id += 1
        self._updates.append(update)
        self._notify()
        return update.update_id

    def _member_json(self, chat: FakeChat, user: FakeUser, status: str) -> JSONDict:
        data: JSONDict = {"user": user.to_json(), "status": status}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data["can_be_edited"] = False
            rights = dict(_ADMIN_RIGHTS)
            if chat.type != "supergroup":
                del rights["can_manage_topics"]
            if chat.type == "private":
                del rights["can_pin_messages"]
                del rights["can_manage_tags"]
            data.update(rights)
            data["can_manage_voice_chats"] = rights["can_manage_video_chats"]
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def _status_of(self, chat: FakeChat, user: FakeUser) -> str:
        if user.id == self.bot.id:
            if chat.type == "private":
                blocked = chat.user_id is not None and self.users[chat.user_id].blocked_bot
                return "kicked" if blocked else "member"
            return chat.bot_status
        if chat.type == "private":
            return "member" if chat.user_id == user.id else "left"
        return chat.members.get(user.id, "left")

    def _enqueue_my_chat_member(self, chat: FakeChat, actor: FakeUser, old: str, new: str) -> None:
        self._enqueue(
            "my_chat_member",
            {
                "chat": self._chat_json(chat),
                "from": actor.to_json(),
                "date": int(time.time()),
                "old_chat_member": self._member_json(chat, self.bot, old),
                "new_chat_member": self._member_json(chat, self.bot, new),
            },
        )

    def _chat_json(self, chat: FakeChat, *, full: bool = False) -> JSONDict:
        data: JSONDict = {"id": chat.id}
        if chat.type == "private":
            assert chat.user_id is not None
            user = self.users[chat.user_id]
            data["first_name"] = user.first_name
            if user.last_name:
                data["last_name"] = user.last_name
            if user.username:
                data["username"] = user.username
            data["type"] = "private"
            if full:
                if not user.is_bot:
                    data["can_send_gift"] = True
                if user.username:
                    data["active_usernames"] = [user.username]
                data["accepted_gift_types"] = dict(_ALL_GIFTS if not user.is_bot else _NO_GIFTS)
        elif chat.type == "group":
            data["title"] = chat.title
            data["type"] = "group"
            if full:
                data["permissions"] = dict(_CHAT_PERMISSIONS)
            data["all_members_are_administrators"] = False
            data["accepted_gift_types"] = dict(_NO_GIFTS)
        else:
            data["title"] = chat.title
            if chat.username:
                data["username"] = chat.username
            if chat.is_forum:
                data["is_forum"] = True
            data["type"] = "supergroup"
            if full:
                if chat.username:
                    data["active_usernames"] = [chat.username]
                data["permissions"] = dict(_CHAT_PERMISSIONS)
                data["accepted_gift_types"] = dict(_NO_GIFTS)
        if full:
            data["max_reaction_count"] = 11
            data["accent_color_id"] = abs(chat.id) % 7
        return data

    def _chat_instance(self, chat: FakeChat, *, inline: bool = False) -> str:
        salt = 7_777_777 if inline else 1_000_003
        return str((abs(chat.id) * 2654435761 + salt) % 9_000_000_000_000_000_000)

    def _new_inline_message_id(self, owner: FakeUser) -> str:
        """An ``inputBotInlineMessageID64`` (dc, owner, id, access hash), base64url-encoded."""
        number = next(self._inline_message_ids)
        packed = (
            (2).to_bytes(4, "little")
            + owner.id.to_bytes(8, "little", signed=True)
            + number.to_bytes(4, "little")
            + (number * 2654435761 % (1 << 63)).to_bytes(8, "little")
        )
        return base64.urlsafe_b64encode(packed).decode().rstrip("=")

    def _cached_inline_answer(
        self, user_id: int, query: str, offset: str
    ) -> FakeInlineQuery | None:
        now = self._now()
        entries = [e for e in self._inline_cache.get((query, offset), []) if e[0] > now]
        self._inline_cache[(query, offset)] = entries
        for _, owner, answered in reversed(entries):
            if owner is None or owner == user_id:
                return answered
        return None

    def _scope_key(self, scope: Mapping[str, Any]) -> tuple[str, int, int]:
        kind = str(scope.get("type", ""))
        chat_id = 0
        if kind in ("chat", "chat_administrators", "chat_member"):
            raw_chat = scope.get("chat_id")
            chat = self._lookup_chat(str(raw_chat) if raw_chat is not None else "")
            chat_id = chat.id if chat is not None else _to_integer(str(raw_chat))
        user_id = _to_integer(str(scope.get("user_id", 0))) if kind == "chat_member" else 0
        return kind, chat_id, user_id

    # ------------------------------------------------------------------ internals: HTTP

    async def _not_found(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
        )

    async def _read_args(
        self, request: web.Request, files: dict[str, tuple[str, bytes]]
    ) -> dict[str, str]:
        raw: dict[str, str] = dict(request.query)
        if not request.body_exists:
            return raw
        if request.content_type == "application/json":
            body = await request.read()
            if body.strip():
                try:
                    data = json.loads(body)
                except ValueError:
                    raise _bad_request("Can't parse JSON encoded request") from None
                if isinstance(data, dict):
                    for key, value in data.items():
                        if value is not None:
                            raw[key] = value if isinstance(value, str) else json.dumps(value)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    files[key] = (value.filename, value.file.read())
                else:
                    raw[key] = str(value)
        return raw

    def _take_fault(self, method: str, raw: Mapping[str, str]) -> _ApiError | None:
        for fault in self._faults:
            if fault.remaining > 0 and fault.matches(method, raw):
                fault.remaining -= 1
                if fault.remaining == 0:
                    self._faults.remove(fault)
                return _ApiError(fault.code, fault.description, fault.parameters)
        return None

    async def _handle(self, request: web.Request) -> web.Response:
        loop = asyncio.get_running_loop()
        token = request.match_info["token"]
        method = request.match_info["method"].lower()
        files: dict[str, tuple[str, bytes]] = {}
        call = RecordedCall(
            method=_CANONICAL_BY_LOWER.get(method, request.match_info["method"]),
            params={},
            time=loop.time(),
            client=request.match_info.get("client"),
        )
        self._calls.append(call)
        status = 200
        body: JSONDict
        try:
            raw = await self._read_args(request, files)
            call.raw, call.params, call.files = raw, _typed_params(raw), files
            self._notify()
            if token != self.token:
                malformed = re.fullmatch(r"\d+:[A-Za-z0-9_-]+", token) is None
                raise _ApiError(404, "Not Found") if malformed else _ApiError(401, "Unauthorized")
            fault = self._take_fault(method, raw)
            if fault is not None:
                raise fault
            counted = self._flood_check(method, raw, call.time)
            if method == "getupdates":
                updates = await self._get_updates(_Args(raw))
                if request.transport is not None and not request.transport.is_closing() and updates:
                    self._delivered_upto = max(self._delivered_upto, updates[-1]["update_id"])
                result: Any = updates
            else:
                handler = self._handlers.get(method)
                if handler is None:
                    raise _ApiError(404, "Not Found")
                result = handler(_Args(raw, files))
            if isinstance(result, _Described):
                body = {"ok": True, "result": result.value, "description": result.description}
            else:
                body = {"ok": True, "result": result}
            if counted is not None:
                self._flood_count(counted, call.time)
        except _ApiError as exc:
            status, body = exc.code, exc.envelope()
        call.status, call.response, call.finished = status, body, loop.time()
        call.abandoned = request.transport is None or request.transport.is_closing()
        self._notify()
        headers = None
        if status == 429 and body.get("parameters", {}).get("retry_after"):
            headers = {"Retry-After": str(body["parameters"]["retry_after"])}
        return web.json_response(body, status=status, headers=headers)

    # ------------------------------------------------------------------ internals: flood limits

    def _flood_check(self, method: str, raw: Mapping[str, str], now: float) -> int | None:
        """Refuse (429) a call beyond a flood limit; the chat id it counts for (0: a chat the
        fake cannot name, such as an inline message), or None when it is not counted."""
        limits = self.flood
        if limits is None or method not in FLOODED_METHODS:
            return None
        chat_id = _to_integer(raw.get("chat_id", "0") or "0") if "chat_id" in raw else 0
        waits = [self._flood_wait(self._flood_all, limits.overall, limits.overall_window, now)]
        if chat_id:
            group = chat_id < 0
            waits.append(
                self._flood_wait(
                    self._flood_chats.get(chat_id, collections.deque()),
                    limits.group if group else limits.private,
                    limits.group_window if group else limits.private_window,
                    now,
                )
            )
        wait = max(waits)
        if wait > 0:
            self.flood_refusals[chat_id if waits[-1] > 0 else 0] += 1
            # Real Telegram says whole seconds; a scaled window needs its fraction.
            after: float = math.ceil(wait) if limits.scale == 1 else round(wait + 0.0005, 3)
            raise _ApiError(
                429, f"Too Many Requests: retry after {after:g}", {"retry_after": after}
            )
        return chat_id

    def _flood_wait(
        self, times: collections.deque[float], limit: int, window: float, now: float
    ) -> float:
        """Seconds until one more call fits `limit` per (scaled) `window`; 0: it fits now."""
        assert self.flood is not None
        span = window * self.flood.scale
        while times and times[0] <= now - span:
            times.popleft()
        if len(times) < limit:
            return 0.0
        return times[-limit] + span - now

    def _flood_count(self, chat_id: int, now: float) -> None:
        self._flood_all.append(now)
        if chat_id:
            self._flood_chats.setdefault(chat_id, collections.deque()).append(now)

    # ------------------------------------------------------------------ internals: checks

    def _lookup_chat(self, chat_id: str) -> FakeChat | None:
        if chat_id.startswith("@"):
            name = chat_id[1:].lower()
            for chat in self.chats.values():
                if chat.username and chat.username.lower() == name:
                    return chat
            for user in self.users.values():
                if user.username and user.username.lower() == name and not user.is_bot:
                    return self._private_chat(user)
            return None
        cid = _to_integer(chat_id)
        if cid in self.chats:
            return self.chats[cid]
        known = self.users.get(cid)
        if known is not None and known.id != self.bot.id and cid > 0:
            return self._private_chat(known)
        return None

    def _check_chat(
        self, chat_id: str, access: Literal["read", "read_members", "edit", "write"]
    ) -> FakeChat:
        """``Client::check_chat`` + ``check_chat_access``."""
        if not chat_id:
            raise _bad_request("chat_id is empty")
        chat = self._lookup_chat(chat_id)
        if chat is None:
            raise _ApiError(400, CHAT_NOT_FOUND)
        need_write = access == "write"
        need_edit = access in ("edit", "write")
        if chat.type == "group":
            if access == "read_members":
                need_write = need_edit = True
            if chat.migrated_to is not None and need_write:
                raise _ApiError(400, GROUP_UPGRADED, {"migrate_to_chat_id": chat.migrated_to})
            if chat.bot_status == "kicked" and need_edit:
                raise _ApiError(403, "Forbidden: bot was kicked from the group chat")
            if chat.bot_status == "left" and need_edit:
                raise _ApiError(403, "Forbidden: bot is not a member of the group chat")
        elif chat.type == "supergroup":
            if chat.bot_status == "kicked":
                raise _ApiError(403, "Forbidden: bot was kicked from the supergroup chat")
            need_more = need_edit if chat.username else True
            if chat.bot_status == "left" and need_more:
                raise _ApiError(403, "Forbidden: bot is not a member of the supergroup chat")
        return chat

    def _check_reachable(self, chat: FakeChat) -> None:
        """Private chats: the user must have started the bot and not blocked it."""
        if chat.type != "private" or chat.user_id is None:
            return
        user = self.users[chat.user_id]
        if user.is_bot:
            raise _ApiError(403, BOT_TO_BOT)
        if user.blocked_bot:
            raise _ApiError(403, USER_BLOCKED)
        if not user.started_bot:
            raise _ApiError(403, CANT_INITIATE)

    def _check_message(
        self, chat_id: str, message_id: int, access: Literal["edit", "write"], what: str
    ) -> tuple[FakeChat, FakeMessage]:
        chat = self._check_chat(chat_id, access)
        msg = self._messages_of(chat).get(message_id) if message_id > 0 else None
        if msg is None or chat.migrated_to is not None:
            raise _bad_request(f"{what} not found")
        return chat, msg

    def _parse_inline_button(self, button: Any) -> JSONDict:
        prefix = "Can't parse inline keyboard button: "
        if not isinstance(button, dict):
            raise _bad_request(prefix + "InlineKeyboardButton must be an Object")
        text = button.get("text")
        if not isinstance(text, str):
            raise _bad_request(prefix + 'Can\'t find field "text"')
        out: JSONDict = {"text": text}
        for string_field in ("url", "callback_data"):
            value = button.get(string_field)
            if isinstance(value, str) and value:
                out[string_field] = value
                return out
        for other in (
            "callback_game",
            "pay",
            "switch_inline_query",
            "switch_inline_query_chosen_chat",
            "switch_inline_query_current_chat",
            "login_url",
            "web_app",
            "copy_text",
        ):
            if other in button:
                out[other] = button[other]
                return out
        raise _bad_request(prefix + "Text buttons are unallowed in the inline keyboard")

    def _parse_reply_markup(self, args: _Args) -> JSONDict | None:
        """``Client::get_reply_markup``: the inline keyboard to store, or None."""
        value = args.json("reply_markup", "Can't parse reply keyboard markup JSON object")
        if value is None:
            return None
        return self._parse_reply_markup_value(value)

    def _parse_reply_markup_value(self, value: Any) -> JSONDict | None:
        """The decoded ``reply_markup`` object: its inline keyboard, or None."""
        if not isinstance(value, dict):
            raise _bad_request("Object expected as reply markup")
        keyboard = value.get("keyboard")
        if keyboard is not None:
            if not isinstance(keyboard, list) or not all(isinstance(r, list) for r in keyboard):
                raise _bad_request('Field "keyboard" must be an Array of Arrays')
            for row in keyboard:
                for button in row:
                    if not isinstance(button, str | dict):
                        raise _bad_request(
                            "Can't parse keyboard button: "
                            "KeyboardButton must be a String or an Object"
                        )
        rows: list[list[JSONDict]] = []
        inline = value.get("inline_keyboard")
        if inline is not None:
            if not isinstance(inline, list):
                raise _bad_request('Field "inline_keyboard" must be of type Array')
            for row in inline:
                if not isinstance(row, list):
                    raise _bad_request(
                        'Field "inline_keyboard" of the InlineKeyboardMarkup '
                        "must be an Array of Arrays"
                    )
                rows.append([self._parse_inline_button(button) for button in row])
        if keyboard:
            return None  # a reply keyboard: shown to users, not part of the message object
        return {"inline_keyboard": rows} if rows else None

    def _validate_inline_keyboard(
        self, markup: JSONDict | None, chat_id: int | None = None
    ) -> None:
        """Checks TDLib and the Telegram servers apply when the keyboard is sent (in the
        chat `chat_id`, when known: a `web_app` button works in a private chat only)."""
        chat = self._lookup_chat(str(chat_id)) if chat_id is not None else None
        for row in (markup or {}).get("inline_keyboard", []):
            for button in row:
                if "web_app" in button and chat is not None and chat.type != "private":
                    raise _ApiError(400, BUTTON_TYPE_INVALID)
                if not button["text"]:
                    raise _bad_request("Inline keyboard button text must be non-empty")
                data = button.get("callback_data")
                if data is not None and len(data.encode("utf-8")) > _MAX_CALLBACK_DATA_BYTES:
                    raise _ApiError(400, BUTTON_DATA_INVALID)

    @staticmethod
    def _parse_outgoing_text(args: _Args) -> tuple[str, list[JSONDict]]:
        text = args.text("text")
        if not text:
            raise _bad_request("Message text is empty")
        entities = args.json("entities", "Can't parse entities JSON object")
        return _parse_text(text, args.text("parse_mode"), entities)

    @staticmethod
    def _fix_outgoing_text(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
        text, entities = _fix_text(text, entities)
        if len(text) > _MAX_TEXT_LENGTH:
            raise _ApiError(400, TEXT_TOO_LONG)
        return text, entities

    def _check_topic(self, chat: FakeChat, thread_id: int) -> int | None:
        if thread_id <= 0:
            return None
        if chat.type == "supergroup" and chat.is_forum:
            if thread_id == 1 or thread_id not in chat.topics:
                raise _bad_request("message thread not found")
            return thread_id
        return None  # reply threads of non-forum chats are not modelled

    # ------------------------------------------------------------------ methods

    def _get_me(self, args: _Args) -> JSONDict:
        data = self.bot.to_json()
        data.update(
            {
                "can_join_groups": True,
                "can_read_all_group_messages": not self.privacy_mode,
                "supports_inline_queries": self.inline_mode,
                "supports_guest_queries": False,
                "can_connect_to_business": False,
                "has_main_web_app": False,
                "has_topics_enabled": False,
                "allows_users_to_create_topics": False,
                "can_manage_bots": False,
            }
        )
        return data

    def _update_allowed_updates(self, args: _Args) -> None:
        """``Client::update_allowed_update_types``: absent or invalid keeps the old setting."""
        raw = args.text("allowed_updates")
        if not raw:
            return
        try:
            value = json.loads(raw)
        except ValueError:
            return
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return
        chosen = frozenset(v.lower() for v in value) & ALL_UPDATE_TYPES
        self._allowed_updates = chosen or DEFAULT_ALLOWED_UPDATES

    def _take_updates(self, offset: int, limit: int) -> list[JSONDict]:
        return [u.to_json() for u in self._updates if u.update_id >= offset][:limit]

    async def _get_updates(self, args: _Args) -> list[JSONDict]:
        if self.webhook_url:
            raise _ApiError(409, WEBHOOK_ACTIVE_CONFLICT)
        offset = args.integer("offset", 0)
        limit = args.integer("limit", 100, 1, 100)
        timeout = args.integer("timeout", 0, 0, _LONG_POLL_MAX_TIMEOUT)
        self._update_allowed_updates(args)
        if offset < 0:
            del self._updates[: max(0, len(self._updates) + offset)]
        elif offset > 0:
            self._updates = [u for u in self._updates if u.update_id >= offset]
        ready = self._take_updates(offset, limit)
        if timeout == 0 or ready or self._closing:
            return ready
        # A new long poll terminates the previous one with 409, like the real server.
        self._abort_reason = GET_UPDATES_CONFLICT
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            if generation != self._poll_generation:
                raise _ApiError(409, self._abort_reason)
            ready = self._take_updates(offset, limit)
            remaining = deadline - loop.time()
            if ready or self._closing or remaining <= 0:
                return ready
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def _set_webhook(self, args: _Args) -> _Described:
        url = args.text("url")
        now = self._now()
        if url:
            if now < self._next_set_webhook:
                raise _ApiError(429, "Too Many Requests: retry after 1", {"retry_after": 1})
            self._next_set_webhook = now + 1
        self._update_allowed_updates(args)
        if args.flag("drop_pending_updates"):
            self._updates.clear()
        if url == self.webhook_url:
            return _Described(
                True, "Webhook is already set" if url else "Webhook is already deleted"
            )
        was_set = bool(self.webhook_url)
        self.webhook_url = url
        self.webhook_secret_token = args.text("secret_token") if url else ""
        if url:
            self._abort_reason = "Conflict: terminated by setWebhook request"
            self._poll_generation += 1
            self._notify()
            return _Described(True, "Webhook was set")
        return _Described(True, "Webhook was deleted" if was_set else "Webhook is already deleted")

    def _delete_webhook(self, args: _Args) -> _Described:
        if args.flag("drop_pending_updates"):
            self._updates.clear()
        was_set = bool(self.webhook_url)
        self.webhook_url = ""
        self.webhook_secret_token = ""
        return _Described(True, "Webhook was deleted" if was_set else "Webhook is already deleted")

    def _get_webhook_info(self, args: _Args) -> JSONDict:
        info: JSONDict = {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if self.webhook_url:
            info["ip_address"] = "<unknown>"
        if self._allowed_updates != DEFAULT_ALLOWED_UPDATES:
            info["allowed_updates"] = sorted(self._allowed_updates)
        return info

    def _command_scope(self, args: _Args) -> tuple[str, int, int]:
        value = args.json("scope", "Can't parse BotCommandScope JSON object")
        if value is None:
            return "default", 0, 0
        prefix = "Can't parse BotCommandScope: "
        if not isinstance(value, dict):
            raise _bad_request(prefix + "BotCommandScope must be an Object")
        kind = value.get("type")
        if not isinstance(kind, str):
            raise _bad_request(prefix + 'Can\'t find field "type"')
        if kind not in _COMMAND_SCOPES:
            raise _bad_request(prefix + "Unsupported type specified")
        if kind in ("chat", "chat_administrators", "chat_member"):
            raw_chat = value.get("chat_id")
            if raw_chat is None:
                raise _bad_request(prefix + 'Can\'t find field "chat_id"')
            if str(raw_chat) == "":
                raise _bad_request(prefix + "Empty chat_id specified")
            if kind == "chat_member" and _to_integer(str(value.get("user_id", 0))) <= 0:
                raise _bad_request(prefix + "Invalid user_id specified")
            self._check_chat(str(raw_chat), "read")
        language = args.text("language_code")
        if language and re.fullmatch(r"[a-z]{2}", language) is None:
            raise _bad_request("Invalid language code specified")
        return self._scope_key(value)

    def _set_my_commands(self, args: _Args) -> bool:
        value = args.json("commands", "Can't parse commands JSON object")
        commands: list[JSONDict] = []
        if value is not None:
            if not isinstance(value, list):
                raise _bad_request("Expected an Array of BotCommand")
            for item in value:
                prefix = "Can't parse BotCommand: "
                if not isinstance(item, dict):
                    raise _bad_request(prefix + "expected an Object")
                for name in ("command", "description"):
                    if not isinstance(item.get(name), str):
                        raise _bad_request(prefix + f'Can\'t find field "{name}"')
                commands.append({"command": item["command"], "description": item["description"]})
        scope = self._command_scope(args)
        cleaned: list[JSONDict] = []
        for command in commands:
            name = command["command"].strip().removeprefix("/")
            description = command["description"].strip()
            if not name:
                raise _bad_request("Command must be non-empty")
            if len(name) > 32:
                raise _bad_request("Command length must not exceed 32")
            if not description:
                raise _bad_request("Command description must be non-empty")
            if len(description) > 256:
                raise _bad_request("Command description length must not exceed 256")
            if re.fullmatch(r"[a-z0-9_]+", name) is None:
                raise _ApiError(400, BOT_COMMAND_INVALID)
            cleaned.append({"command": name, "description": description})
        key = (scope, args.text("language_code"))
        if cleaned:
            self._commands[key] = cleaned
        else:
            self._commands.pop(key, None)
        return True

    def _get_my_commands(self, args: _Args) -> list[JSONDict]:
        key = (self._command_scope(args), args.text("language_code"))
        return [dict(c) for c in self._commands.get(key, [])]

    def _delete_my_commands(self, args: _Args) -> bool:
        self._commands.pop((self._command_scope(args), args.text("language_code")), None)
        return True

    def _reply_target(self, args: _Args) -> tuple[int, bool]:
        params = args.json("reply_parameters", "Can't parse reply parameters JSON object")
        if params is not None:
            if not isinstance(params, dict):
                raise _bad_request("Object expected as reply parameters")
            message_id = _to_integer(str(params.get("message_id", 0)))
            allow = bool(params.get("allow_sending_without_reply", False))
            return message_id, allow
        return args.integer("reply_to_message_id", 0), args.flag("allow_sending_without_reply")

    def _send_message(self, args: _Args) -> JSONDict:
        text, entities = self._parse_outgoing_text(args)
        reply_to, allow_without_reply = self._reply_target(args)
        markup = self._parse_reply_markup(args)
        chat = self._check_chat(args.text("chat_id"), "write")
        thread_id = self._check_topic(chat, args.integer("message_thread_id", 0))
        replied = self._messages_of(chat).get(reply_to) if reply_to > 0 else None
        if reply_to > 0 and replied is None and not allow_without_reply:
            raise _bad_request("message to be replied not found")
        if replied is not None and thread_id is None:
            thread_id = replied.thread_id
        self._check_reachable(chat)
        text, entities = self._fix_outgoing_text(text, entities)
        self._validate_inline_keyboard(markup, chat.id)
        msg = self._store_message(
            chat,
            from_id=self.bot.id,
            text=text,
            entities=entities,
            reply_markup=markup,
            thread_id=thread_id,
            reply_to_message_id=replied.message_id if replied is not None else None,
            from_bot=True,
            raw_text=args.text("text"),
            parse_mode=args.text("parse_mode") or None,
        )
        return self.message_json(msg)

    def _upload_place(
        self, args: _Args
    ) -> tuple[FakeChat, int | None, JSONDict | None, FakeMessage | None]:
        """Where an upload goes (``sendDocument``, ``sendPhoto``): the chat, its topic, the
        keyboard and the message replied to, checked as for a text message."""
        reply_to, allow_without_reply = self._reply_target(args)
        markup = self._parse_reply_markup(args)
        chat = self._check_chat(args.text("chat_id"), "write")
        thread_id = self._check_topic(chat, args.integer("message_thread_id", 0))
        replied = self._messages_of(chat).get(reply_to) if reply_to > 0 else None
        if reply_to > 0 and replied is None and not allow_without_reply:
            raise _bad_request("message to be replied not found")
        if replied is not None and thread_id is None:
            thread_id = replied.thread_id
        self._check_reachable(chat)
        return chat, thread_id, markup, replied

    def _store_upload(
        self,
        chat: FakeChat,
        thread_id: int | None,
        markup: JSONDict | None,
        replied: FakeMessage | None,
    ) -> FakeMessage:
        """The bot's new message carrying an upload (its file is set by the caller)."""
        msg = self._store_message(
            chat,
            from_id=self.bot.id,
            reply_markup=markup,
            thread_id=thread_id,
            reply_to_message_id=replied.message_id if replied is not None else None,
            from_bot=True,
        )
        return msg

    def _send_document(self, args: _Args) -> JSONDict:
        """A file upload (multipart ``document``); file ids and URLs are not modelled."""
        caption, _ = _parse_text(
            args.text("caption"),
            args.text("parse_mode"),
            args.json("caption_entities", "Can't parse entities JSON object"),
        )
        chat, thread_id, markup, replied = self._upload_place(args)
        upload = args.files.get("document")
        if upload is None:
            raise _bad_request("there is no document in the request")
        name, content = upload
        if not content:
            raise _bad_request("file must be non-empty")
        caption = caption.strip()
        if len(caption) > _MAX_CAPTION_LENGTH:
            raise _bad_request("message caption is too long")
        self._validate_inline_keyboard(markup)
        unique = f"AgAD{len(self._calls):06d}"
        msg = self._store_upload(chat, thread_id, markup, replied)
        mime = "application/json" if name.endswith(".json") else "application/octet-stream"
        msg.document = {
            "file_name": name or "document",
            "mime_type": mime,
            "file_id": f"BQACAgQAAx{unique}",
            "file_unique_id": unique,
            "file_size": len(content),
        }
        msg.caption = caption or None
        msg.content = content
        return self.message_json(msg)

    @staticmethod
    def _parse_caption(args: _Args) -> tuple[str, list[JSONDict]]:
        """``caption`` with ``parse_mode`` or ``caption_entities``, trimmed as TDLib does (an
        empty caption is no caption); at most 1024 characters after entity parsing."""
        caption, entities = _parse_text(
            args.text("caption"),
            args.text("parse_mode"),
            args.json("caption_entities", "Can't parse caption entities JSON object"),
        )
        if not caption.strip():
            return "", []
        caption, entities = _fix_text(caption, entities)
        if len(caption) > _MAX_CAPTION_LENGTH:
            raise _bad_request("message caption is too long")
        return caption, entities

    def _photo_sizes(self, content: bytes) -> list[JSONDict]:
        """The ``PhotoSize`` array the server makes of an uploaded picture (it decodes it)."""
        from PIL import Image, UnidentifiedImageError

        if len(content) > _MAX_PHOTO_BYTES:
            raise _bad_request("PHOTO_SAVE_FILE_INVALID")
        try:
            with Image.open(io.BytesIO(content)) as img:
                img.load()
                width, height = img.size
        except (UnidentifiedImageError, OSError, ValueError):
            raise _bad_request("IMAGE_PROCESS_FAILED") from None
        if width + height > _MAX_PHOTO_SIDES or max(width, height) > _MAX_PHOTO_RATIO * min(
            width, height
        ):
            raise _bad_request("PHOTO_INVALID_DIMENSIONS")
        sizes: list[JSONDict] = []
        longest = max(width, height)
        for box in _PHOTO_BOXES:
            scale = min(1.0, box / longest)
            w, h = max(1, round(width * scale)), max(1, round(height * scale))
            unique = f"AQAD{len(self._calls):06d}{box}"
            sizes.append(
                {
                    "file_id": f"AgACAgQAAx{unique}",
                    "file_unique_id": unique,
                    "file_size": max(1, len(content) * w * h // (width * height)),
                    "width": w,
                    "height": h,
                }
            )
            if scale == 1.0:
                break  # the photo itself: no larger copy is made
        return sizes

    def _send_photo(self, args: _Args) -> JSONDict:
        """A photo upload (multipart ``photo``), with an optional caption and keyboard; file
        ids and URLs are not modelled."""
        caption, caption_entities = self._parse_caption(args)
        chat, thread_id, markup, replied = self._upload_place(args)
        upload = args.files.get("photo")
        if upload is None:
            if args.text("photo"):
                raise _bad_request("wrong remote file identifier specified: not modelled")
            raise _bad_request("there is no photo in the request")
        _, content = upload
        if not content:
            raise _bad_request("file must be non-empty")
        sizes = self._photo_sizes(content)
        self._validate_inline_keyboard(markup)
        msg = self._store_upload(chat, thread_id, markup, replied)
        msg.photo = sizes
        msg.caption = caption or None
        msg.caption_entities = caption_entities
        msg.content = content
        return self.message_json(msg)

    def _send_chat_action(self, args: _Args) -> bool:
        chat = self._check_chat(args.text("chat_id"), "write")
        if not args.text("action"):
            raise _bad_request('Parameter "action" is required')
        self._check_topic(chat, args.integer("message_thread_id", 0))
        self._check_reachable(chat)
        return True

    def _editable(self, args: _Args) -> tuple[FakeMessage, bool]:
        """The message to edit, and whether it was named by ``inline_message_id``."""
        if not args.text("chat_id") and args.integer("message_id", 0) <= 0:
            inline_id = args.text("inline_message_id")
            if not inline_id:
                raise _bad_request("Message identifier is not specified")
            for messages in self._messages.values():
                for candidate in messages.values():
                    if candidate.inline_message_id == inline_id:
                        return candidate, True
            raise _bad_request("MESSAGE_ID_INVALID")
        chat, msg = self._check_message(
            args.text("chat_id"), args.integer("message_id", 0), "edit", "message to edit"
        )
        if not msg.from_bot:
            raise _bad_request("Message can't be edited")
        if chat.type == "private":
            self._check_reachable(chat)
        return msg, False

    def _edit_message_text(self, args: _Args) -> JSONDict | bool:
        text, entities = self._parse_outgoing_text(args)
        markup = self._parse_reply_markup(args)
        msg, inline = self._editable(args)
        if msg.text is None:
            raise _bad_request("there is no text in the message to edit")
        text, entities = self._fix_outgoing_text(text, entities)
        self._validate_inline_keyboard(markup, None if inline else msg.chat_id)
        if (text, entities, markup) == (msg.text, msg.entities, msg.reply_markup):
            raise _ApiError(400, MESSAGE_NOT_MODIFIED)
        msg.text, msg.entities, msg.reply_markup = text, entities, markup
        msg.raw_text, msg.parse_mode = args.text("text"), args.text("parse_mode") or None
        msg.edit_date = int(time.time())
        self._notify()
        return True if inline else self.message_json(msg)

    def _edit_message_caption(self, args: _Args) -> JSONDict | bool:
        """A new caption (none: the caption is removed) and keyboard of a photo or file."""
        caption, entities = self._parse_caption(args)
        markup = self._parse_reply_markup(args)
        msg, inline = self._editable(args)
        if msg.photo is None and msg.document is None:
            raise _bad_request("there is no caption in the message to edit")
        self._validate_inline_keyboard(markup)
        if (caption or None, entities, markup) == (
            msg.caption,
            msg.caption_entities,
            msg.reply_markup,
        ):
            raise _ApiError(400, MESSAGE_NOT_MODIFIED)
        msg.caption, msg.caption_entities, msg.reply_markup = caption or None, entities, markup
        msg.edit_date = int(time.time())
        self._notify()
        return True if inline else self.message_json(msg)

    def _edit_message_reply_markup(self, args: _Args) -> JSONDict | bool:
        markup = self._parse_reply_markup(args)
        msg, inline = self._editable(args)
        self._validate_inline_keyboard(markup)
        if markup == msg.reply_markup:
            raise _ApiError(400, MESSAGE_NOT_MODIFIED)
        msg.reply_markup = markup
        msg.edit_date = int(time.time())
        self._notify()
        return True if inline else self.message_json(msg)

    def _delete_message(self, args: _Args) -> bool:
        if not args.text("chat_id"):
            raise _bad_request("Chat identifier is not specified")
        message_id = args.integer("message_id", 0, 0)
        if message_id == 0:
            raise _bad_request("Message identifier is not specified")
        chat, msg = self._check_message(
            args.text("chat_id"), message_id, "write", "message to delete"
        )
        bot_is_admin = chat.bot_status in ("administrator", "creator")
        if not msg.from_bot and chat.type != "private" and not bot_is_admin:
            raise _bad_request("Message can't be deleted")
        del self._messages_of(chat)[message_id]
        self._deleted.setdefault(chat.id, set()).add(message_id)
        self._notify()
        return True

    def _answer_callback_query(self, args: _Args) -> bool:
        query = self._callbacks.get(str(_to_integer(args.text("callback_query_id"))))
        expired = (
            query is not None
            and self.callback_query_ttl is not None
            and self._now() - query.created > self.callback_query_ttl
        )
        if query is None or query.answered or expired:
            raise _ApiError(400, QUERY_ID_INVALID)
        text = args.text("text")
        if len(text) > _MAX_CALLBACK_ANSWER_CHARS:
            raise _ApiError(400, MESSAGE_TOO_LONG)
        query.answered = True
        query.text = text or None
        query.show_alert = args.flag("show_alert")
        query.url = args.text("url") or None
        query.cache_time = args.integer("cache_time", 0, 0, 24 * 30 * 60 * 60)
        self._notify()
        return True

    # answerInlineQuery: the Bot API server parses (Client::get_inline_query_results), TDLib
    # checks (InlineQueriesManager::answer_inline_query), then the Telegram server refuses.

    def _parse_inline_button_json(self, args: _Args) -> JSONDict | None:
        """``Client::get_inline_query_results_button``."""
        value = args.json("button", "Can't parse inline query results button JSON object")
        if value is None:
            return None
        with _reworded("Can't parse inline query results button: "):
            if not isinstance(value, dict):
                raise _bad_request("InlineQueryResultsButton must be an Object")
            text = _json_string(value, "text", required=True)
            if "start_parameter" in value:
                parameter = _json_string(value, "start_parameter", required=True)
                return {"text": text, "start_parameter": parameter}
            if "web_app" in value:
                web_app = value["web_app"]
                if not isinstance(web_app, dict):
                    raise _bad_request('Field "web_app" must be of type Object')
                url = _json_string(web_app, "url", required=True)
                return {"text": text, "web_app": {"url": url}}
            raise _bad_request("InlineQueryResultsButton must have exactly one optional field")

    def _parse_inline_result(self, value: Any) -> tuple[JSONDict, str | None]:
        """``Client::get_inline_query_result``: (the article result, reply markup kind)."""
        if not isinstance(value, dict):
            raise _bad_request("Inline query result must be an object")
        kind = _json_string(value, "type", required=True).lower()
        result_id = _json_string(value, "id", required=True)
        content = value.get("input_message_content")
        if content is not None and not isinstance(content, dict):
            raise _bad_request('Field "input_message_content" must be of type Object')
        text, entities = "", []
        if content is None:  # the legacy fields on the result itself
            source = value
            message_text = _json_string(value, "message_text", required=kind == "article")
        else:
            source = content
            message_text = _json_string(content, "message_text")
            if not message_text:
                if any(k in content for k in ("latitude", "phone_number", "payload")):
                    raise _bad_request(
                        "Input message content other than text is not modelled by the fake server"
                    )
                if kind == "article":
                    raise _bad_request("Input message content is not specified")
        if message_text:
            text, entities = _parse_text(
                message_text, _json_string(source, "parse_mode"), source.get("entities")
            )
        markup_value = value.get("reply_markup")
        markup: JSONDict | None = None
        markup_kind: str | None = None
        if markup_value is not None:
            if not isinstance(markup_value, dict):
                raise _bad_request('Field "reply_markup" must be of type Object')
            markup = self._parse_reply_markup_value(markup_value)
            markup_kind = _reply_markup_kind(markup_value)
        if kind != "article":
            if kind in _INLINE_RESULT_TYPES:
                raise _bad_request(f'type "{kind}" is not modelled by the fake server')
            raise _bad_request(f'type "{kind}" is unsupported for the inline query result')
        url = _json_string(value, "url")
        hide_url = _json_bool(value, "hide_url")
        title = _json_string(value, "title", required=True)
        description = _json_string(value, "description")
        result: JSONDict = {"type": "article", "id": result_id, "title": title}
        result["input_message_content"] = {"message_text": text, "entities": entities}
        if markup is not None:
            result["reply_markup"] = markup
        if url and not hide_url:
            result["url"] = url
        if description:
            result["description"] = description
        return result, markup_kind

    def _answer_inline_query(self, args: _Args) -> bool:
        query_id = str(_to_integer(args.text("inline_query_id")))
        is_personal = args.flag("is_personal")
        cache_time = args.integer(
            "cache_time", _DEFAULT_INLINE_CACHE_TIME, 0, _MAX_INLINE_CACHE_TIME
        )
        next_offset = args.text("next_offset")
        button = self._parse_inline_button_json(args)
        if button is None and args.text("switch_pm_text"):
            button = {
                "text": args.text("switch_pm_text"),
                "start_parameter": args.text("switch_pm_parameter"),
            }
        values = args.json("results", "Can't parse JSON encoded inline query results: bad JSON")
        if values is None:
            values = []
        if not isinstance(values, list):
            raise _bad_request("Expected an Array of inline query results")
        if len(values) > _MAX_INLINE_RESULTS:
            raise _bad_request("Too many inline query results specified")
        parsed: list[tuple[JSONDict, str | None]] = []
        for value in values:
            with _reworded("Can't parse inline query result: "):
                parsed.append(self._parse_inline_result(value))
        # TDLib
        if button is not None and "start_parameter" in button:
            parameter = button["start_parameter"]
            if not parameter:
                raise _bad_request("Can't use empty start_parameter")
            if len(parameter.encode("utf-8")) > 64:
                raise _bad_request("Too long start_parameter specified")
            if re.fullmatch(r"[A-Za-z0-9_-]+", parameter) is None:
                raise _bad_request("Unallowed characters in start_parameter are used")
        results: list[JSONDict] = []
        for result, markup_kind in parsed:
            if markup_kind is not None and markup_kind != "inline":
                raise _bad_request("Inline keyboard expected")
            content = result["input_message_content"]
            text, entities = _fix_text(content["message_text"], content["entities"])
            content["message_text"] = text
            if entities:
                content["entities"] = entities
            else:
                del content["entities"]
            self._validate_inline_keyboard(result.get("reply_markup"))
            results.append(result)
        # the Telegram server
        record = self._inline_queries.get(query_id)
        expired = (
            record is not None
            and self.inline_query_ttl is not None
            and self._now() - record.created > self.inline_query_ttl
        )
        if record is None or record.answered or expired:
            raise _ApiError(400, QUERY_ID_INVALID)
        if len(next_offset.encode("utf-8")) > 64:
            raise _ApiError(400, NEXT_OFFSET_INVALID)
        seen: set[str] = set()
        for result in results:
            result_id = result["id"]
            if not result_id:
                raise _ApiError(400, RESULT_ID_EMPTY)
            if len(result_id.encode("utf-8")) > _MAX_INLINE_RESULT_ID_BYTES:
                raise _ApiError(400, RESULT_ID_INVALID)
            if result_id in seen:
                raise _ApiError(400, RESULT_ID_DUPLICATE)
            seen.add(result_id)
            if not result["title"].strip():
                raise _ApiError(400, ARTICLE_TITLE_EMPTY)
            if len(result["input_message_content"]["message_text"]) > _MAX_TEXT_LENGTH:
                raise _ApiError(400, MESSAGE_TOO_LONG)
        record.answered = True
        record.results = results
        record.cache_time = cache_time
        record.is_personal = is_personal
        record.next_offset = next_offset
        record.button = button
        if cache_time > 0:
            owner = record.user_id if is_personal else None
            entry = (self._now() + cache_time, owner, record)
            self._inline_cache.setdefault((record.query, record.offset), []).append(entry)
        self._notify()
        return True

    def _get_chat(self, args: _Args) -> JSONDict:
        chat = self._check_chat(args.text("chat_id"), "read")
        return self._chat_json(chat, full=True)

    def _member_user(self, args: _Args) -> FakeUser:
        user_id = max(_to_integer(args.text("user_id")), 0)
        if user_id == 0:
            raise _bad_request("Invalid user_id specified")
        user = self.users.get(user_id)
        if user is None:
            raise _bad_request("user not found")
        return user

    def _get_chat_member(self, args: _Args) -> JSONDict:
        user = self._member_user(args)
        access: Literal["read", "read_members"] = (
            "read" if user.id == self.bot.id else "read_members"
        )
        chat = self._check_chat(args.text("chat_id"), access)
        return self._member_json(chat, user, self._status_of(chat, user))

    def _get_chat_administrators(self, args: _Args) -> list[JSONDict]:
        chat = self._check_chat(args.text("chat_id"), "read_members")
        if chat.type == "private":
            raise _bad_request("there are no administrators in the private chat")
        admins: list[JSONDict] = []
        for wanted in ("creator", "administrator"):
            for uid, status in chat.members.items():
                user = self.users[uid]
                if status == wanted and not user.is_bot:
                    admins.append(self._member_json(chat, user, status))
            if chat.bot_status == wanted:
                admins.append(self._member_json(chat, self.bot, wanted))
        return admins

    def _close(self, args: _Args) -> bool:
        return True
