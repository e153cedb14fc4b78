"""Button tokens: the one codec of every adapter, `g:<table id>:<version>:<action>[:<arg>]`.

Telegram allows 64 bytes of callback data and Discord 100 characters of custom_id, so a token is
short ASCII. The table is named by its random id, so a button works wherever it is pressed (the
group, a private chat, an ephemeral message, an inline result). The version is the table's state
version for table actions (`TABLE_ACTIONS`) and the pressing seat's own version for a game's
choices: a press whose version is not current is stale and is refused, never applied twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "g"
#: Actions of the table itself; every other action is one of the game's choices.
TABLE_ACTIONS = frozenset({"join", "leave", "start", "next", "view", "hint"})
#: A game action: lower-case letters and underscores.
ACTION_PATTERN = r"[a-z][a-z_]{0,11}"
#: A choice's argument: a card, a number, a side ("top"), a seat.
ARG_PATTERN = r"[0-9A-Za-z_.+-]{1,24}"
#: What adapters match to route a press (Discord's DynamicItem template).
TEMPLATE = rf"g:[0-9a-z]{{1,12}}:[0-9a-z]{{1,10}}:{ACTION_PATTERN}(?::{ARG_PATTERN})?"
# Matched with `fullmatch`: `$` would also accept a trailing newline.
_TOKEN = re.compile(
    rf"g:([0-9a-z]{{1,12}}):([0-9a-z]{{1,10}}):({ACTION_PATTERN})(?::({ARG_PATTERN}))?"
)
_ACTION = re.compile(ACTION_PATTERN)
_ARG = re.compile(ARG_PATTERN)
MAX_BYTES = 64


@dataclass(frozen=True, slots=True)
class Token:
    """A decoded button token."""

    table_id: str
    seq: int
    action: str
    arg: str | None = None

    def encode(self) -> str:
        """The token as text (at most 64 bytes)."""
        return _text(self.table_id, self.seq, self.action, self.arg)


def _text(table_id: str, seq: int, action: str, arg: str | None) -> str:
    text = f"{PREFIX}:{table_id}:{_b36(seq)}:{action}"
    if arg is not None:
        text += f":{arg}"
    # ASCII (the usual case) is a byte a character: no need to encode it to count.
    if (len(text) if text.isascii() else len(text.encode())) > MAX_BYTES:
        raise ValueError(f"button token longer than {MAX_BYTES} bytes: {text!r}")
    return text


#: Actions and arguments already checked (`encode`): a game has a few dozen of each, encoded
#: at every state. Bounded: forgotten past `CHECKED_KEPT`.
_checked: set[tuple[str, str | None]] = set()
CHECKED_KEPT = 4096


def encode(table_id: str, seq: int, action: str, arg: str | None = None) -> str:
    """Encode a token for a button (ValueError for an action or argument a token cannot carry)."""
    if (action, arg) not in _checked:
        if not _ACTION.fullmatch(action):
            raise ValueError(f"a button action is [a-z_]{{1,12}}, not {action!r}")
        if arg is not None and not _ARG.fullmatch(arg):
            raise ValueError(f"a button argument is [0-9A-Za-z_.+-]{{1,24}}, not {arg!r}")
        if len(_checked) >= CHECKED_KEPT:
            _checked.clear()
        _checked.add((action, arg))
    return _text(table_id, seq, action, arg)  # what Token(...).encode() gives, without one


def decode(text: str) -> Token | None:
    """Decode a token; None when `text` is not one of ours (or is malformed)."""
    if len(text) > MAX_BYTES:
        return None
    m = _TOKEN.fullmatch(text)
    if not m:
        return None
    return Token(m.group(1), int(m.group(2), 36), m.group(3), m.group(4))


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _b36(value: int) -> str:
    digits = _DIGITS
    if value < 0:
        raise ValueError("sequence numbers are not negative")
    if value < 1296:  # one or two digits: most versions
        return digits[value] if value < 36 else digits[value // 36] + digits[value % 36]
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out
