"""Karnaval in Russian (`language=ru`) letters its cards as Russian players say them: Т (туз),
К (король), Д (дама), В (валет), as the game's Russian rules name the ranks (K1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.games.karnaval.game import KarnavalRules, KarnavalView
from bot.service.commands import Configure, Join, Open, Rules, Start
from bot.service.i18n import catalog, with_game_messages
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness
from tests.service.karnaval_walk import karnaval_words

ROOT = Path(__file__).resolve().parent.parent.parent
#: A card lettered as the English deck prints it (`Q♠`, `A♥`), at a word's start.
LATIN = re.compile(r"(?<![^\s,(])[AKQJ][♠♥♦♣]")
#: A card lettered in Russian (Cyrillic Т К Д В).
CYRILLIC = re.compile(r"(?<![^\s,(])[ТКДВ][♠♥♦♣]")


async def test_karnaval_cards_in_russian_are_lettered_t_k_d_v_K1(harness: Harness) -> None:
    # In the hand, the buttons, the table's log and status, the private lines, the web view.
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    reply = await svc.handle(Configure(CHANNEL, ALICE, ["language=ru", "bots=1", "game=karnaval"]))
    assert reply.ok, reply.text
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    seen = await karnaval_words(harness)
    text = "\n".join(seen)
    assert not LATIN.search(text), LATIN.search(text)
    hands = [x for x in seen if x.startswith("Ваши карты")]
    found = {m.group()[0] for x in hands for m in CYRILLIC.finditer(x)}
    assert {"К", "Д", "В"} <= found, (found, hands)  # (no ace came to a person: the replay's)
    rules_text = (await svc.handle(Rules(CHANNEL))).text
    assert "Т К Д В 10 9 8 7 6 (туз, король, дама, валет)" in rules_text, rules_text


def test_karnaval_replay_page_in_russian_letters_its_cards_t_k_d_v_K1() -> None:
    view = KarnavalView(KarnavalRules())
    cat = with_game_messages(catalog("ru"), [view.messages])
    path = ROOT / "tests" / "vectors" / "karnaval" / "public" / "four_jokers_karnaval.json"
    steps = view.web_replay(json.loads(path.read_text(encoding="utf-8")), cat)
    text = json.dumps(steps, ensure_ascii=False)
    assert steps and not LATIN.search(text), LATIN.search(text)
    found = {m.group()[0] for m in CYRILLIC.finditer(text)}
    assert found == {"Т", "К", "Д", "В"}, found
