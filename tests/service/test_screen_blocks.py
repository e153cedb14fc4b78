"""A preformatted block (a score grid) in a table message keeps its columns on every platform:
the service never cuts it nor the header when fitting a message, Telegram shows it in a `pre`
entity, Discord in a code block where nothing renders."""

from __future__ import annotations

from telegram import MessageEntity

from adapters.discord.buttons import MAX_CONTENT, render_text
from adapters.telegram.entities import protect
from bot.service.replies import fit_lines

GRID = " Q1   10|5   3|-20\n Q2   -60!   85*\nTot    40     65"


def test_fitting_drops_old_log_lines_never_the_header_or_the_grid() -> None:
    lines = ["Deal 4 of 28: score sheet", *(f"log line {i} " + "x" * 40 for i in range(60)), GRID]
    text = fit_lines(lines, 1000, keep=[GRID])
    assert len(text) <= 1000
    assert text.startswith("Deal 4 of 28: score sheet\n…\n")
    assert GRID in text
    assert "log line 59" in text and "log line 0 " not in text


def test_telegram_shows_the_grid_in_a_pre_entity_and_names_outside_it_as_code() -> None:
    text = f"Score sheet of http://evil.example/\n{GRID}\nhttp://evil.example/ wins"
    entities = protect(text, ["http://evil.example/"], [GRID])
    kinds = [(e.type, text[e.offset : e.offset + e.length]) for e in entities]
    assert (MessageEntity.PRE, GRID) in kinds
    assert kinds.count((MessageEntity.CODE, "http://evil.example/")) == 2
    # Nothing overlaps the block (entities other than styles cannot nest).
    pre = next(e for e in entities if e.type == MessageEntity.PRE)
    for e in entities:
        if e is not pre:
            assert e.offset + e.length <= pre.offset or e.offset >= pre.offset + pre.length


def test_discord_puts_the_grid_in_a_code_block_unescaped_and_never_drops_it() -> None:
    name = "*bold* <@123>"
    text = f"Deal 4 of 28: {name}\n{GRID}\n{name} wins"
    shown = render_text(text, [GRID])
    assert f"```\n{GRID}\n```" in shown
    assert "\\*bold\\* \\<@123>" in shown  # outside the block: escaped as before
    long_log = "\n".join(f"line {i} " + "y" * 60 for i in range(60))
    shown = render_text(f"Title\n{long_log}\n{GRID}", [GRID])
    assert len(shown) <= MAX_CONTENT and shown.startswith("Title\n…\n")
    assert f"```\n{GRID}\n```" in shown
