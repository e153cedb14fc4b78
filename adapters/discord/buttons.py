"""Table-message buttons: service screens as Discord views, and the one persistent handler.

Every button's `custom_id` is the service's token (`g:<table id>:<version>:<action>[:<arg>]`),
so one `DynamicItem` whose template matches any token routes every press, on old messages as on
new ones, to `TableService.handle` as a `Press`. Views built here contain only that item:
discord.py then keeps nothing per message, and a restarted process needs nothing but the
registration in `setup_hook`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, Protocol

import discord

from bot.service import tokens
from bot.service.ports import Button, Screen

log = logging.getLogger(__name__)

#: Discord's limits for one message (content characters, rows, buttons per row, label length).
MAX_CONTENT = 2000
MAX_ROWS = 5
MAX_PER_ROW = 5
MAX_LABEL = 80

#: Any button token of ours; the service decodes it and refuses a stale or foreign one.
TOKEN_TEMPLATE = tokens.TEMPLATE

#: The service's button roles as Discord styles.
_STYLES: dict[str, discord.ButtonStyle] = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


class PressHandler(Protocol):
    """What a press is handed to (the platform's interaction handler)."""

    async def press(self, interaction: discord.Interaction[Any], token: str) -> None:
        """Answer a press of the button carrying `token`."""
        ...


class GnavButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TOKEN_TEMPLATE):
    """A table-message button; rebuilt from its custom_id on every press, whatever the process."""

    def __init__(
        self,
        token: str,
        label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(label=label[:MAX_LABEL] or "·", custom_id=token, style=style),
            row=row,
        )
        self.token = token

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> GnavButton:
        """The pressed button, from the message the press came with (discord.py calls this)."""
        label = getattr(item, "label", None) or ""
        style = getattr(item, "style", discord.ButtonStyle.secondary)
        return cls(match.group(0), label, style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the press to the platform's handler (it answers within Discord's 3 s)."""
        handler: PressHandler | None = getattr(interaction.client, "gnav_handler", None)
        if handler is not None:
            await handler.press(interaction, self.token)


def build_view(screen: Screen) -> discord.ui.View | None:
    """The screen's button rows as a persistent view (None when the screen has no buttons)."""
    if not screen.buttons:
        return None
    view = discord.ui.View(timeout=None)
    for r, row in enumerate(_discord_rows(screen.buttons)):
        for button in row:
            if button.url:  # a link (the web table): no custom_id, nothing comes back
                link: discord.ui.Button[Any] = discord.ui.Button(
                    label=button.label[:MAX_LABEL] or "·", url=button.url, row=r
                )
                view.add_item(link)
                continue
            style = _STYLES.get(button.role, discord.ButtonStyle.secondary)
            view.add_item(GnavButton(button.token, button.label, style, row=r))
    return view


def _discord_rows(rows: Sequence[Sequence[Button]]) -> list[list[Button]]:
    """The screen's rows as Discord allows them: a row of more than 5 buttons goes on over
    several rows, at most 5 rows in all (25 buttons). When the screen's rows do not fit so (a
    hand of cards in a row per suit), its buttons are packed in order, 5 a row."""
    out: list[list[Button]] = []
    for row in rows:
        for start in range(0, len(row), MAX_PER_ROW):
            out.append(list(row[start : start + MAX_PER_ROW]))
    if len(out) > MAX_ROWS:
        flat = [b for row in rows for b in row]
        out = [flat[i : i + MAX_PER_ROW] for i in range(0, len(flat), MAX_PER_ROW)]
    if len(out) > MAX_ROWS:
        log.warning("a screen with %d rows of buttons: only %d fit on Discord", len(out), MAX_ROWS)
    return out[:MAX_ROWS]


def render_text(text: str, blocks: Sequence[str] = ()) -> str:
    r"""Service text as Discord content: markdown in names escaped, within 2,000 characters.

    The service's texts are plain; a player called `*x*` must not turn the table bold, nor one
    called `<@id>`, `<@&role>`, `<#channel>`, `<t:0:R>` or `</gnav stop:1>` render as a mention,
    a role, a channel, a timestamp or a clickable command: every `<` is escaped (`\<` shows
    the text as typed). A preformatted block (`blocks`: a score grid) goes into a code block,
    where nothing renders, with its columns kept; it is never cut.
    """
    units: list[str] = []  # lines of the message; a block is one unit
    fenced: set[int] = set()
    rest = text
    for block in blocks:
        start = rest.find(block) if block else -1
        if start == -1:
            continue
        units.extend(_escape_lines(rest[:start]))
        fenced.add(len(units))
        units.append("```\n" + block.replace("```", "ˋˋˋ") + "\n```")
        rest = rest[start + len(block) :]
    units.extend(_escape_lines(rest))
    out = "\n".join(units)
    if len(out) <= MAX_CONTENT:
        return out
    # Escapes can push a 1,900-character table over Discord's limit: drop the oldest log
    # lines (after the title), as the service itself does, never a block.
    head, body = units[0], list(enumerate(units))[1:]
    size = len(out) + 2
    dropped = False
    i = 0
    while size > MAX_CONTENT and i < len(body):
        index, unit = body[i]
        if index in fenced:
            i += 1
            continue
        size -= len(unit) + 1
        del body[i]
        dropped = True
    out = "\n".join([head, *(["…"] if dropped else []), *(u for _, u in body)])
    return out if len(out) <= MAX_CONTENT else out[: MAX_CONTENT - 1] + "…"


def _escape_lines(text: str) -> list[str]:
    """The lines of plain `text`, markdown and `<` escaped (no empty edge lines around a block)."""
    if not text:
        return []
    escaped = discord.utils.escape_markdown(text).replace("<", "\\<")
    return escaped.strip("\n").split("\n") if escaped.strip("\n") else []
