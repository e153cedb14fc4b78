"""Names shown as typed: `code` entities over the pieces of a text people chose.

Telegram turns plain text into links by itself: a URL (`http://evil.example/`, even a bare
`evil.example`), a bot command (`/gnav_stop`, which a host might tap), a `@mention`, an
e-mail address, a `#hashtag`, a `$CASHTAG`, a phone number. `link_preview_options` only hides
the preview; the text stays a link. What it never does is detect an entity inside a `code`
entity (entities other than bold, italic, underline, strikethrough and spoiler cannot contain
one another, Bot API "Formatting options"). So a name that could be read as one of those is
sent inside a `code` entity: shown as typed, in monospace, tappable only to copy it. Plain
names (letters, digits, blanks, `-'()`) stay as they are. Sending entities also means no
`parse_mode`: nothing in a name is ever parsed as markup.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from telegram import MessageEntity

#: Characters a name may have and still never be read as a link, command or mention.
_PLAIN_PUNCTUATION = frozenset(" -'()’")
#: Enough digits in a row (with separators) to be taken for a phone or card number.
_DIGITS = re.compile(r"\d[\d\s().-]{5,}\d")


def needs_protection(literal: str) -> bool:
    """Whether Telegram could turn any part of `literal` into a link, command or mention."""
    for ch in literal:
        if ch in _PLAIN_PUNCTUATION:
            continue
        if unicodedata.category(ch)[0] in "LMN":  # letters, marks, numbers
            continue
        return True
    return _DIGITS.search(literal) is not None


def protect(text: str, literals: Iterable[str], blocks: Iterable[str] = ()) -> list[MessageEntity]:
    """`code` entities covering every occurrence in `text` of a literal that needs it, and a
    `pre` entity over each preformatted block (a score grid keeps its columns; nothing inside
    a `pre` entity is ever turned into a link either).

    Blocks are placed first, then longer literals; nothing overlaps. Offsets and lengths are in
    UTF-16 code units, as Telegram counts them.
    """
    pre: list[tuple[int, int]] = []
    for block in blocks:
        start = text.find(block)
        if block and start != -1:
            pre.append((start, start + len(block)))
    wanted = sorted({x for x in literals if x and needs_protection(x)}, key=len, reverse=True)
    spans: list[tuple[int, int]] = list(pre)
    for literal in wanted:
        start = text.find(literal)
        while start != -1:
            end = start + len(literal)
            if not any(start < e and s < end for s, e in spans):
                spans.append((start, end))
            start = text.find(literal, start + 1)
    entities = []
    for start, end in sorted(spans):
        offset = _utf16(text[:start])
        kind = MessageEntity.PRE if (start, end) in pre else MessageEntity.CODE
        entities.append(MessageEntity(kind, offset, _utf16(text[start:end])))
    return entities


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
