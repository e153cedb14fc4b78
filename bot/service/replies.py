"""What a command answers and how it refuses: `Reply`, `ServiceError`, the refusals of a table
in the wrong state, and the text limits every screen keeps."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.service.ports import Button

#: Longest table message text (Discord allows 2,000 characters, Telegram 4,096).
MAX_TEXT = 1900
#: Longest private popup (Telegram's callback alert allows 200 characters).
MAX_ALERT = 200


@dataclass(slots=True)
class Reply:
    """The answer to the person who sent a command.

    `public` replies are for the whole channel (stats, rules); others are for the sender only
    (an ephemeral message, a popup, or a reply where the platform has nothing private).
    `alert` asks for a popup (a private piece in the chat).
    """

    text: str
    ok: bool = True
    public: bool = False
    alert: bool = False
    document: tuple[str, bytes] | None = None
    #: Pieces of `text` people chose (names, values they typed): shown as typed, never as a
    #: link, a command, a mention or markup (see `Screen.literals`).
    literals: tuple[str, ...] = ()
    #: Buttons for the sender only (a private hand to choose from), where the platform can
    #: show them with a private reply (Discord's ephemeral message); a popup shows the text.
    buttons: tuple[tuple[Button, ...], ...] = ()
    #: Preformatted pieces of `text` (a score sheet, on lines of its own): shown in monospace
    #: with their columns kept where the platform can (as `Screen.blocks`).
    blocks: tuple[str, ...] = ()


class ServiceError(Exception):
    """A refused command; `code` is a catalog key."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def fit_lines(lines: Sequence[str], limit: int, keep: Sequence[str] = ()) -> str:
    """`lines` joined within `limit` characters: the oldest lines after the first (the log) go
    first, never the first line (the header) nor a preformatted block in `keep` (a score
    grid: cut, it would lose its columns); "…" marks where lines were left out."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    if not keep:
        return fit_text(text, limit)
    head, rest = lines[0], list(lines[1:])
    kept = set(keep)
    size = len(text)
    dropped = False
    i = 0
    while size + (2 if not dropped else 0) > limit and i < len(rest):
        if rest[i] in kept:
            i += 1
            continue
        size -= len(rest[i]) + 1
        del rest[i]
        dropped = True
    out = "\n".join([head, *(["…"] if dropped else []), *rest])
    # Still too long (a block alone over the limit): the end is cut, the header kept.
    return out if len(out) <= limit else out[: limit - 1] + "…"


def fit_text(text: str, limit: int) -> str:
    """Keep the end of a long text (the newest lines) within `limit` characters."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    head = lines[0]
    rest = lines[1:]
    while rest and len(head) + 2 + sum(len(x) + 1 for x in rest) > limit:
        rest.pop(0)
    out = "\n".join([head, "…", *rest])
    return out if len(out) <= limit else out[: limit - 1] + "…"


def new_id(length: int = 6) -> str:
    """A random id of `length` lowercase letters and digits (a table's, a match's)."""
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    return "".join(secrets.choice(alphabet) for _ in range(length))
