"""Player names as the tables show them: cleaned, of bounded length, and never two alike.

A display name comes from the platform and may contain anything its owner typed. Before it
is seated it loses what is invisible or reorders text (zero-width and bidirectional controls,
other format and control characters, lone surrogates, private-use characters: an unterminated
U+202E would reverse the rest of a line), its blanks are collapsed, and a name longer than
`MAX_NAME` characters is cut at a word with "…". Two seated names that would look the same
get a visible suffix (`Tor`, `Tor (2)`).

What a name could become on a platform (a link, a command, a mention, markup) is the
adapters' business: they escape or wrap names when they render text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

from bot.service.i18n import catalog

#: Longest player name, in characters (Telegram's first+last name can be 128, Discord's 32).
MAX_NAME = 32
#: What a name made only of removed characters becomes.
EMPTY_NAME = "?"
#: The catalog's name of a person who gave none (`player.default`: "Player", "Игрок"), the
#: people's counterpart of the bots' `bot.name` ("Bot 1", "Бот 1").
DEFAULT_NAME_KEY = "player.default"

#: Unicode categories removed from names: controls, format characters (zero-width, bidi
#: controls, invisible operators), surrogates, private use, unassigned, line/paragraph breaks.
_REMOVED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Characters outside those categories that still render as nothing (Hangul fillers, the
#: braille blank, combining grapheme joiner, variation selectors stay: they shape emoji).
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")

#: Letters of other scripts that look like Latin ones (the usual homoglyphs), for comparing.
_LOOKALIKES = str.maketrans(
    {
        # Cyrillic
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "l", "Ј": "J", "Ѕ": "S", "Ԛ": "Q",
        "Ԝ": "W", "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
        "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l",
        # Greek
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v",
        "α": "a", "ι": "i", "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
        # Latin and digits that are easily taken for one another
        "I": "l", "1": "l", "|": "l", "0": "O",
    }
)  # fmt: skip


def clean_name(name: str, limit: int = MAX_NAME) -> str:
    """A display name fit for a table: visible characters only, blanks collapsed, at most
    `limit` characters (cut at a word, with "…"); "?" when nothing visible is left."""
    name = unicodedata.normalize("NFC", "".join(_kept(name)))
    name = " ".join(name.split())
    return shorten(name, limit) or EMPTY_NAME


def _kept(name: str) -> Iterable[str]:
    for ch in name:
        if ch in _INVISIBLE or unicodedata.category(ch) in _REMOVED:
            continue
        yield ch


def shorten(name: str, limit: int = MAX_NAME) -> str:
    """`name` within `limit` characters: cut at the last word that fits, with "…"."""
    if len(name) <= limit:
        return name
    head = name[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:  # a word boundary not too far back
        head = head[:space]
    return head.rstrip(" -,.;:") + "…"


def look(name: str) -> str:
    """What a name looks like, for telling apart names that would read the same."""
    folded = unicodedata.normalize("NFKC", name).translate(_LOOKALIKES)
    stripped = "".join(
        ch for ch in unicodedata.normalize("NFD", folded) if unicodedata.category(ch) != "Mn"
    )
    return " ".join(stripped.split())


def unique_name(name: str, taken: Sequence[str]) -> str:
    """`name`, or `name (n)` when a seated name already looks the same (still within
    `MAX_NAME` characters)."""
    looks = {look(t) for t in taken}
    if look(name) not in looks:
        return name
    n = 2
    while True:
        suffix = f" ({n})"
        candidate = shorten(name, MAX_NAME - len(suffix)) + suffix
        if look(candidate) not in looks:
            return candidate
        n += 1


def default_name(language: str) -> str:
    """The name of a person who gave none, in the table's `language` ("Spiller", "Игрок")."""
    return catalog(language).t(DEFAULT_NAME_KEY)
