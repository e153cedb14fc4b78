"""Screens as inline keyboards, and the deep links that open the bot's private chat.

A service button becomes a callback button whose data is the service's token (at most 64
bytes, as Telegram requires). Table messages that have a Join or a private-screen button (known
by the button's kind, never its label) also get a URL button, in the screen's language, to
`t.me/<bot>?start=<payload>`: one tap opens the private chat, and the payload says which table
the player came from (signed: a chat id written in by hand is refused).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from adapters.telegram import texts
from bot.service.i18n import DEFAULT_LANGUAGE
from bot.service.ports import Button, Screen
from bot.service.table import TableKey

#: Telegram's limit for a /start parameter: 1-64 characters of A-Z a-z 0-9 _ -.
MAX_PAYLOAD = 64
#: Buttons in one keyboard row at most (Telegram takes 8; a card's button stays legible).
MAX_PER_ROW = 8
#: `g<chat>[_<topic>]s<signature>`: a chat id alone is guessable, its signature is not.
_PAYLOAD = re.compile(r"^g(-?\d{1,20})(?:_(\d{1,12}))?s([0-9a-f]{16})$")


def payload_secret(bot_token: str) -> bytes:
    """The key deep-link payloads are signed with: derived from the bot's token (secret, and
    the same in every process of the bot), never the token itself."""
    return hashlib.sha256(b"gnav-bot deep link\0" + bot_token.encode()).digest()


def _signature(secret: bytes, body: str) -> str:
    return hmac.new(secret, body.encode(), hashlib.sha256).hexdigest()[:16]


def encode_payload(key: TableKey, secret: bytes) -> str:
    """The signed deep-link payload naming a table's chat (and forum topic):
    `g-100123_42s<16 hex digits>`."""
    body = f"g{key.chat}" + (f"_{key.thread}" if key.thread else "")
    payload = f"{body}s{_signature(secret, body)}"
    if len(payload) > MAX_PAYLOAD or not _PAYLOAD.match(payload):
        raise ValueError(f"no deep-link payload for {key.key}")
    return payload


def decode_payload(payload: str, secret: bytes) -> TableKey | None:
    """The table a /start payload names, or None when it is not one of ours (or its
    signature is wrong: someone wrote a chat id in by hand)."""
    m = _PAYLOAD.match(payload.strip())
    if m is None:
        return None
    body = payload.strip()[: m.start(3) - 1]
    if not hmac.compare_digest(_signature(secret, body), m.group(3)):
        return None
    return TableKey("telegram", m.group(1), m.group(2))


def deep_link(bot_username: str, key: TableKey, secret: bytes) -> str:
    """`https://t.me/<bot>?start=<payload>`: opens the private chat with a Start button."""
    return f"https://t.me/{bot_username}?start={encode_payload(key, secret)}"


def _button(b: Button, private: bool) -> InlineKeyboardButton:
    """A service button: a callback button, or a link (the web table). In a private chat an
    https link opens as a Mini App (`web_app`), which Telegram refuses in groups: there it is
    a `url` button (the Mini App's own `t.me/<bot>/<app>` link)."""
    if not b.url:
        return InlineKeyboardButton(b.label, callback_data=b.token)
    if private and b.url.startswith("https://") and not b.url.startswith("https://t.me/"):
        return InlineKeyboardButton(b.label, web_app=WebAppInfo(b.url))
    return InlineKeyboardButton(b.label, url=b.url)


def keyboard(
    screen: Screen, link: str | None = None, *, private: bool = False
) -> InlineKeyboardMarkup | None:
    """The inline keyboard of a screen; `link` adds the private-chat button where it helps;
    `private`: the screen goes to a private chat (link buttons open as Mini Apps).

    None when the screen has no buttons (a frozen message: editing with no keyboard removes
    the old one).
    """
    rows: list[list[InlineKeyboardButton]] = []
    for row in _rows(screen.buttons):
        out = [_button(b, private) for b in row]
        rows.append(out)
        if link is None:
            continue
        # The link is in the screen's language, beside the button whose kind it helps.
        kinds = {b.kind for b in row}
        lang = screen.language or DEFAULT_LANGUAGE
        if "view" in kinds:
            # The round's private-screen row: the link sits beside the popup it replaces.
            out.append(InlineKeyboardButton(texts.text(lang, "link_button"), url=link))
        elif "join" in kinds:
            rows.append([InlineKeyboardButton(texts.text(lang, "link_button"), url=link)])
    return InlineKeyboardMarkup(rows) if rows else None


def _rows(rows: Sequence[Sequence[Button]]) -> list[Sequence[Button]]:
    """The screen's rows as they go (a hand's cards come a row per suit), each of more than
    `MAX_PER_ROW` buttons going on over several rows: a phone shows them all legibly."""
    out: list[Sequence[Button]] = []
    for row in rows:
        out.extend(row[i : i + MAX_PER_ROW] for i in range(0, max(len(row), 1), MAX_PER_ROW))
    return out


def link_markup(language: str, link: str) -> InlineKeyboardMarkup:
    """A single private-chat button (under a /gnav_join reply)."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(texts.text(language, "link_button"), url=link)]]
    )
