"""Button tokens: table id, state sequence number and action in a few bytes.

Telegram allows 64 bytes of callback data and Discord 100 characters of custom_id, so a token
is `g:<table id>:<seq>:<action>` in ASCII. The sequence number is the table's state version at
render time: a press whose number is not current is stale and is refused, never applied twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "g"
#: Actions a button may carry.
ACTIONS = frozenset({"join", "leave", "start", "stay", "swap", "piece", "next"})
_TOKEN = re.compile(r"^g:([0-9a-z]{1,12}):([0-9a-z]{1,10}):([a-z]{1,8})$")
MAX_BYTES = 64


@dataclass(frozen=True, slots=True)
class Token:
    """A decoded button token."""

    table_id: str
    seq: int
    action: str

    def encode(self) -> str:
        """The token as text (at most 64 bytes)."""
        text = f"{PREFIX}:{self.table_id}:{_b36(self.seq)}:{self.action}"
        assert len(text.encode()) <= MAX_BYTES
        return text


def encode(table_id: str, seq: int, action: str) -> str:
    """Encode a token for a button."""
    if action not in ACTIONS:
        raise ValueError(f"unknown button action {action!r}")
    return Token(table_id, seq, action).encode()


def decode(text: str) -> Token | None:
    """Decode a token; None when `text` is not one of ours (or is malformed)."""
    m = _TOKEN.match(text)
    if not m or m.group(3) not in ACTIONS:
        return None
    return Token(m.group(1), int(m.group(2), 36), m.group(3))


def _b36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if value < 0:
        raise ValueError("sequence numbers are not negative")
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out
