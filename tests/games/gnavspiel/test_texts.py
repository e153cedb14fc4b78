"""Gnavspiel's cards named in the table's language (issue 19): German players read Ass, Bube,
Dame, König; the record keeps its own spelling (G1)."""

from __future__ import annotations

import pytest

from bot.games.gnavspiel.game import GnavspielMatch, GnavspielRules, GnavspielView, card_text
from bot.service.game import Outcome
from bot.service.i18n import LANGUAGES, Catalog, catalog, with_game_messages
from tests.games.gnavspiel.helpers import new_match

RULES = GnavspielRules()
VIEW = GnavspielView(RULES)


def _cat(language: str) -> Catalog:
    return with_game_messages(catalog(language), [VIEW.messages])


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_has_a_name_in_every_language_G1(language: str) -> None:
    cat = _cat(language)
    for card in ("Joker", "A", "2", "10", "J", "Q", "K"):
        assert card_text(cat, card).strip()
    assert card_text(cat, "7") == "7"


def test_german_names_the_cards_as_german_players_do_G1() -> None:
    de = _cat("de")
    assert [card_text(de, c) for c in ("A", "J", "Q", "K", "Joker")] == [
        "Ass",
        "Bube",
        "Dame",
        "König",
        "Joker",
    ]
    assert card_text(_cat("en"), "Q") == "Q"


def test_reveal_private_card_and_taboo_draw_in_german_G5_G7() -> None:
    # Cid deals (acts last): everyone passes, Cid draws a taboo K, then takes the 9.
    m = new_match({"Ann": "Q", "Bob": "7", "Cid": "3"}, top=["K", "9"])
    t = GnavspielMatch(m)
    out = Outcome()
    for seat, action in ((0, "pass"), (1, "pass"), (2, "draw")):
        step = RULES.act(t, seat, action)
        out.log += step.log
        out.private += step.private
    de = _cat("de")
    lines = [VIEW.render_line(line, de) for line in out.log]
    assert any(line == "Cid kauft König: tabu, die Karte kommt unter den Stock." for line in lines)
    reveal = next(line for line in lines if line.startswith("Aufdecken: "))
    assert reveal == "Aufdecken: Ann Dame, Bob 7, Cid 9", lines
    assert VIEW.render_line(out.log[-1], _cat("en")) != VIEW.render_line(out.log[-1], de)
    shown = VIEW.render_reveal(t, list(m.seats), de)
    assert "Karten: Ann Dame, Bob 7, Cid 9" in shown, shown
    private = [VIEW.render_line(line, de) for _, line in out.private]
    assert "Du hast 9 gekauft" in private, private
