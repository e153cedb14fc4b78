"""A private screen says each thing once on Telegram and Discord (issue 30 point 2): the
screens of whole games (tests/service/table_walk.py) as each adapter renders them never list
a choice in the text that a button offers too; on Telegram a hand's card buttons come in a
row per suit."""

from __future__ import annotations

import pytest

from adapters.discord.buttons import build_view, render_text
from adapters.telegram.keyboards import keyboard
from bot.service.ports import Screen
from tests.service.conftest import Harness
from tests.service.table_walk import Walk, listed_twice, walk

#: A card's button label ends with its suit's mark; a joker is 🃏.
SUITS = "♠♥♦♣"


def _suit(label: str) -> str | None:
    """The suit a card button's label names (🃏 for a joker), None for any other button."""
    if label == "🃏":
        return label
    return label[-1] if label and label[-1] in SUITS and len(label) <= 3 else None


async def _karnaval(players: int = 4, deals: int = 4) -> Walk:
    return await walk(Harness(seed=11), "karnaval", players, seed=11, deals=deals)


def _screens(w: Walk) -> list[Screen]:
    """Every screen with buttons the person was shown: private ones, and the group's (a
    popup shown over the table's buttons is the service test's: it has none of its own)."""
    screens = (*w.private, *w.views, *(s for _, s in w.table))
    return [s for s in screens if s.buttons and all(b.token or b.url for r in s.buttons for b in r)]


async def test_telegram_card_buttons_come_in_a_row_per_suit() -> None:
    w = await _karnaval()
    hands = 0
    for screen in w.private:
        markup = keyboard(screen, private=True)
        if markup is None:
            continue
        rows = [
            [_suit(b.text) for b in row if b.callback_data and _suit(b.text)]
            for row in markup.inline_keyboard
        ]
        rows = [r for r in rows if r]
        if sum(len(r) for r in rows) < 4:
            continue
        hands += 1
        assert all(len(set(r)) == 1 for r in rows), (screen.text, rows)
        suits = [r[0] for r in rows]
        assert len(suits) == len(set(suits)), (screen.text, rows)  # one row a suit
    assert hands >= 3


@pytest.mark.parametrize(("game", "players"), [("karnaval", 4), ("gnavspiel", 4), ("gnav", 4)])
async def test_no_telegram_or_discord_screen_lists_a_choice_twice(game: str, players: int) -> None:
    w = await walk(Harness(seed=12), game, players, seed=12, deals=3)
    checked = 0
    for screen in _screens(w):
        markup = keyboard(screen, private=True)
        assert markup is not None
        labels = [b.text for row in markup.inline_keyboard for b in row if b.callback_data]
        assert not listed_twice(screen.text, labels), screen.text
        view = build_view(screen)
        assert view is not None
        labels = [
            str(getattr(item, "label", ""))
            for item in view.children
            if getattr(item, "url", None) is None
        ]
        assert not listed_twice(render_text(screen.text, screen.blocks), labels), screen.text
        checked += 1
    assert checked > 5


async def test_a_karnaval_table_message_at_6_players_stays_small_on_telegram_and_discord() -> None:
    """Issue 30 point 1 as each chat shows the message (Discord escapes markdown in names,
    fences a block): at most 15 lines and 900 characters up to the end of the first 12-card
    deal."""
    w = await walk(Harness(seed=6), "karnaval", 6, seed=6, deals=19)
    assert any(d == 19 for d, _ in w.table)
    for _, screen in w.table:
        for text in (screen.text, render_text(screen.text, screen.blocks)):
            lines = text.splitlines()
            assert len(lines) <= 15 and len(text) <= 900, text
