"""A table set to German (`language=de`, issue 19) speaks German in each game, through the
service: the table message, its buttons, a player's private text, help and rules (N25)."""

from __future__ import annotations

from bot.service.commands import Configure, Help, Join, Open, PrivateView, Rules, Sheet, Start
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness
from tests.service.karnaval_walk import karnaval_words


async def _start(h: Harness, *words: str) -> str:
    """Open a table in German with `words`, seat Alice and Bob and a bot, start: the table
    message's text."""
    svc = h.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    reply = await svc.handle(Configure(CHANNEL, ALICE, ["language=de", "bots=1", *words]))
    assert reply.ok, reply.text
    assert "Sprache de" in reply.text, reply.text
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await h.settle()
    return h.notifier.last(CHANNEL.key).screen.text


async def test_gnav_in_german_keeps_the_norwegian_calls_N25(harness: Harness) -> None:
    text = await _start(harness)
    assert "🎲 Gnav · Runde 1 · Geber" in text, text
    assert "ist dran" in text and "bleiben oder tauschen" in text, text
    assert "turn" not in text
    buttons = harness.notifier.buttons(CHANNEL.key)
    assert {"Bleiben · Jeg står", "Tauschen · Jeg bytter", "Mein Stein"} <= set(buttons)
    svc = harness.service
    piece = await svc.handle(PrivateView(CHANNEL, ALICE))
    assert piece.text.startswith("Runde 1: D") or "keinen Stein" in piece.text, piece.text
    help_text = (await svc.handle(Help(CHANNEL))).text
    assert "So spielst du hier" in help_text and "language=nb" in help_text
    assert "Bleiben oder Tauschen" in help_text  # Gnav's own help lines (gnav.help)
    rules = (await svc.handle(Rules(CHANNEL))).text
    assert "42 Steine" in rules and "«Stå for gjøk!»" in rules and "3 Leben" in rules


async def test_gnavspiel_in_german_G4_C19(harness: Harness) -> None:
    text = await _start(harness, "rules=gnavspiel")
    table = await harness.table()
    assert table.game == "gnavspiel"
    assert "Gnavspiel · Spiel 1 · Geber" in text and "Marken" in text, text
    assert "chips" not in text and "dealer" not in text
    svc = harness.service
    help_text = (await svc.handle(Help(CHANNEL))).text
    for word in ("Passen", "abgelehnt", "1 Marke leihen", "„Meine Karte“"):
        assert word in help_text, (word, help_text)
    rules = (await svc.handle(Rules(CHANNEL))).text
    assert "Joker (niedrigste)" in rules and "König (höchste)" in rules and "Pott" in rules
    # Whoever decides first (a bot may have offered already), the buttons are German ones.
    german = {"Passen", "Annehmen", "Ablehnen", "Aufhören", "Kaufen", "🂠 Meine Karte"}
    buttons = set(harness.notifier.buttons(CHANNEL.key))
    assert "🂠 Meine Karte" in buttons
    assert all(
        b in german or b.startswith(("Tausch anbieten: ", "Weiter anbieten: ")) for b in buttons
    ), buttons
    mine = await svc.handle(PrivateView(CHANNEL, ALICE))
    assert mine.text.startswith("Spiel 1: Deine Karte ist "), mine.text


async def test_karnaval_in_german_K6_K7(harness: Harness) -> None:
    text = await _start(harness, "game=karnaval")
    table = await harness.table()
    assert table.game == "karnaval"
    assert "Karnaval · Viertel 1, Spiel 1/3 · 6 Karten · Geber" in text, text
    assert "quarter" not in text and "dealer" not in text
    hand = await harness.service.handle(PrivateView(CHANNEL, ALICE))
    assert "Deine Karten (* Trumpf):" in hand.text, hand.text
    rules = (await harness.service.handle(Rules(CHANNEL))).text
    assert "Farbe bedienen" in rules and "Stiche" in rules


async def test_karnaval_cards_in_german_are_lettered_as_german_players_say_them(
    harness: Harness,
) -> None:
    # Issue 19, languages: Dame (D) and Bube (B) for the queen and the jack, König K, Ass A;
    # in the hand, the buttons, the table's log and status, the private lines, the web view.
    import re

    await _start(harness, "game=karnaval")
    english = re.compile(r"(?<![^\s,(])[QJ][♠♥♦♣]")
    german = re.compile(r"(?<![^\s,(])[DB][♠♥♦♣]")
    seen = await karnaval_words(harness)
    text = "\n".join(seen)
    assert not english.search(text), english.search(text)
    hands = [x for x in seen if x.startswith("Deine Karten")]
    assert any(german.search(x) for x in hands), hands


async def test_karnaval_sheet_rows_are_labelled_in_german_K20(harness: Harness) -> None:
    # Issue 19, languages: the sheet's quarters (Viertel) and totals (Gesamt), not the
    # engine's Q1 and Total.
    await _start(harness, "game=karnaval")
    sheet = (await harness.service.handle(Sheet(CHANNEL))).text
    labels = [line.split("|")[0].strip() for line in sheet.splitlines()[1:]]
    assert {"V1", "V2", "V3", "V4", "Gesamt"} <= set(labels), labels
    assert not {"Q1", "Total"} & set(labels)
    table = await harness.table()
    view = harness.service.view_of(table)
    cat = harness.service.texts(table)
    assert view.render_sheet(table.match, table.names, cat) == sheet
