"""Karnaval in Russian (`language=ru`) letters its cards as Russian players say them: Т (туз),
К (король), Д (дама), В (валет), as the game's Russian rules name the ranks (K1)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from bot.games.karnaval.game import KarnavalRules, KarnavalView
from bot.service.i18n import catalog, with_game_messages
from bot.service.table import User
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness

ROOT = Path(__file__).resolve().parent.parent.parent
#: A card lettered as the English deck prints it (`Q♠`, `A♥`), at a word's start.
LATIN = re.compile(r"(?<![^\s,(])[AKQJ][♠♥♦♣]")
#: A card lettered in Russian (Cyrillic Т К Д В).
CYRILLIC = re.compile(r"(?<![^\s,(])[ТКДВ][♠♥♦♣]")


async def test_karnaval_cards_in_russian_are_lettered_t_k_d_v_K1(harness: Harness) -> None:
    # In the hand, the buttons, the table's log and status, the private lines, the web view.
    svc = harness.service
    assert (await svc.open(CHANNEL, ALICE)).ok
    assert (await svc.join(CHANNEL, BOB)).ok
    reply = await svc.configure(CHANNEL, ALICE, ["language=ru", "bots=1", "game=karnaval"])
    assert reply.ok, reply.text
    assert (await svc.start(CHANNEL, ALICE)).ok
    rng = random.Random(5)
    seen: list[str] = []
    for _ in range(600):  # three deals of six cards: kings, queens and jacks come to a person
        await harness.settle()
        table = await harness.table()
        rules = svc.game_of(table)
        if not rules.deciders(table.match):
            if svc.view_of(table).round_number(table.match) == 3:
                break
            harness.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = rules.deciders(table.match)[0]
        s = table.seats[seat]
        if s.bot:
            continue
        user = User(s.user, s.name)
        hand = await svc.private_view(CHANNEL, user)
        seen += [hand.text] + [b.label for row in hand.buttons for b in row]
        view = await svc.status(CHANNEL, s.user)
        assert view is not None and len(view.labels) == len(view.choices)
        seen.extend(view.labels)
        shapes = svc.view_of(table).web_view(table.match, seat, table.names, svc.texts(table))
        seen += [t["text"] for t in shapes["own"]["tiles"]] + shapes.get("facts", [])
        choice = rng.choice(list(view.choices))
        assert (await svc.act(CHANNEL, user, choice.action, arg=choice.arg)).ok
    for m in harness.notifier.posts(CHANNEL.key):
        seen += [s.text for s in m.history]
        seen += [b.label for s in m.history for row in s.buttons for b in row]
    for screens in harness.notifier.private_screens.values():
        seen += [s.text for s in screens]
        seen += [b.label for s in screens for row in s.buttons for b in row]
    text = "\n".join(seen)
    assert not LATIN.search(text), LATIN.search(text)
    hands = [x for x in seen if x.startswith("Ваши карты")]
    found = {m.group()[0] for x in hands for m in CYRILLIC.finditer(x)}
    assert {"К", "Д", "В"} <= found, (found, hands)  # (no ace came to a person: the replay's)
    rules_text = (await svc.rules_help(CHANNEL)).text
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
