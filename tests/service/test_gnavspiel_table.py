"""Gnavspiel at the Gnav table (issue 12 point 2), through the service with people and bots:
choices pressed from the table message, timeouts, export and replay, no hidden card shown."""

from __future__ import annotations

import random
import re

from bot.games.gnavspiel.engine.record import outcome
from bot.games.replay import replay_text
from bot.service import tokens
from bot.service.commands import (
    Configure,
    Export,
    Help,
    Join,
    Leave,
    Open,
    Press,
    Rules,
    Start,
    Stats,
    Top,
)
from bot.service.table import User
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness

#: Public log keys that may name a card: a taboo card drawn (G5), the stand call (G10) and
#: the reveal (G7).
CARD_KEYS = {"gnavspiel.ev.taboo", "gnavspiel.ev.stand", "gnavspiel.ev.reveal"}
VIEW = {"view", "join", "leave", "start", "next"}


async def _open(h: Harness, *words: str) -> None:
    svc = h.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    reply = await svc.handle(Configure(CHANNEL, ALICE, ["rules=gnavspiel", "bots=2", *words]))
    assert reply.ok, reply.text
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await h.settle()


def _choice_buttons(h: Harness) -> dict[str, str]:
    return {
        label: token
        for label, token in h.notifier.buttons(CHANNEL.key).items()
        if tokens.decode(token) is not None and tokens.decode(token).action not in VIEW
    }


async def _play(h: Harness, rng: random.Random, *, timeouts: bool = False) -> list:
    """Play to the end: people press a random button of the table message (now and then they
    let the timer run); returns every public log line seen."""
    svc = h.service
    seen: list = []
    for _ in range(3000):
        await h.settle()
        table = await h.table()
        seen.extend(line for line in table.log if line not in seen[-len(table.log) :])
        if table.status == "closed":
            return seen
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            h.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = table.seats[deciders[0]]
        if seat.bot:
            continue
        if timeouts and rng.random() < 0.2:
            h.clock.advance(table.settings.turn_timeout + 1)
            continue
        buttons = _choice_buttons(h)
        assert buttons, h.notifier.last(CHANNEL.key).screen.text
        # The other person's press of these buttons is refused (G4: only the offered answers).
        other = BOB if seat.user == ALICE.key else ALICE
        label = rng.choice(sorted(b for b in buttons if not b.startswith("Decline")))
        refused = await svc.handle(Press(CHANNEL, other, buttons[label]))
        assert not refused.ok
        reply = await svc.handle(Press(CHANNEL, User(seat.user, seat.name), buttons[label]))
        assert reply.ok, (label, reply.text)
    raise AssertionError("the match did not end")


async def test_a_whole_gnavspiel_match_with_people_and_bots_G1_G9_C23(harness: Harness) -> None:
    await _open(harness, "chips=3", "deals=6")
    table = await harness.table()
    assert table.game == "gnavspiel"
    seen = await _play(harness, random.Random(3))
    table = await harness.table()
    m = table.match.m
    assert table.closed_reason == "finished", table.closed_reason
    assert m.phase == "over" and m.result is not None
    assert sum(m.result.balance) == 3 * 4  # C23: balances add up to the chips dealt
    final = harness.notifier.last(CHANNEL.key).screen.text
    assert "takes the pot" in final and "Balances:" in final
    # Nothing hidden in a public line: only the rules' own shown cards carry one.
    for key, params in seen:
        assert not key.startswith("gnavspiel.private.")
        if "card" in params or "hands" in params:
            assert key in CARD_KEYS, key
    for msg in harness.notifier.posts(CHANNEL.key):
        for screen in msg.history:
            assert "Your card" not in screen.text
    # Export, then replay: the same outcome (G9).
    exported = await harness.service.handle(Export(CHANNEL))
    assert exported.document is not None
    record = exported.document[1].decode()
    assert replay_text(record) == outcome(m)
    # Statistics (matches, wins, deals, chips paid, pots, loans) and the top list.
    stats = await harness.service.handle(Stats(CHANNEL, ALICE))
    assert "Gnavspiel matches" in stats.text and "deals" in stats.text
    top = await harness.service.handle(Top(CHANNEL))
    assert top.ok


async def test_timeouts_pass_refuse_borrow_and_three_forfeit_C19(harness: Harness) -> None:
    await _open(harness, "chips=2", "variants=stand")
    await _play(harness, random.Random(5), timeouts=True)
    table = await harness.table()
    assert table.status == "closed"
    exported = await harness.service.handle(Export(CHANNEL))
    assert replay_text(exported.document[1].decode()) == outcome(table.match.m)


async def test_the_offered_player_answers_from_the_table_message_G4(harness: Harness) -> None:
    svc = harness.service
    rng = random.Random(1)
    await _open(harness)
    for _ in range(400):
        await harness.settle()
        table = await harness.table()
        m = table.match.m
        if m.phase == "play" and m.step == "answer" and not table.seats[m.target].bot:
            text = harness.notifier.last(CHANNEL.key).screen.text
            assert f"{table.names[m.offerer]} offers {table.names[m.target]}" in text
            buttons = _choice_buttons(harness)
            assert {"Accept", "Refuse"} <= set(buttons)
            return
        deciders = m.deciders()
        if not deciders:
            harness.clock.advance(60)
            continue
        seat = table.seats[deciders[0]]
        if seat.bot:
            continue
        buttons = _choice_buttons(harness)
        offer = [b for b in buttons if b.startswith("Offer")]
        label = offer[0] if offer else rng.choice(sorted(buttons))
        assert (await svc.handle(Press(CHANNEL, User(seat.user, seat.name), buttons[label]))).ok
    raise AssertionError("no person was offered an exchange")


async def test_gnavspiel_rules_help_and_settings_shown(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    await svc.handle(
        Configure(CHANNEL, ALICE, ["rules=gnavspiel", "deals=4", "variants=jack_taboo"])
    )
    rules = await svc.handle(Rules(CHANNEL))
    assert "14 cards" in rules.text and "4 deals" in rules.text and "J is taboo" in rules.text
    shown = await svc.handle(Configure(CHANNEL, ALICE, []))
    assert "chips 5" in shown.text and "deals 4" in shown.text
    await harness.settle()
    assert "Gnavspiel table" in harness.notifier.last(CHANNEL.key).screen.text
    nb = await svc.handle(Configure(CHANNEL, ALICE, ["language=nb"]))
    assert nb.ok
    assert "sjetonger" in (await svc.handle(Rules(CHANNEL))).text


async def test_export_during_a_deal_never_shows_its_cards_G3(harness: Harness) -> None:
    await _open(harness)
    exported = await harness.service.handle(Export(CHANNEL))
    assert exported.document is not None
    assert '"rounds": []' in exported.document[1].decode()


async def test_help_explains_gnavspiel_timeouts_in_every_language_C19(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    plain = (await svc.handle(Help(CHANNEL))).text
    assert "Gnavspiel" not in plain  # a Gnav table's help has no Gnavspiel lines
    await svc.handle(Configure(CHANNEL, ALICE, ["rules=gnavspiel"]))
    words = {
        "en": ("a pass", "refused", "borrowing 1 chip"),
        "nb": ("pass", "avslått", "låne 1 sjetong"),
        "ru": ("пасом", "отказом", "займом 1 фишки"),
        "pt": ("passar", "recusada", "pedir 1 ficha"),
        "de": ("Passen", "abgelehnt", "1 Marke leihen"),
    }
    for language, expected in words.items():
        assert (await svc.handle(Configure(CHANNEL, ALICE, [f"language={language}"]))).ok
        text = (await svc.handle(Help(CHANNEL))).text
        assert "/gnav" in text  # the service's own lines stay
        for word in expected:
            assert word in text, (language, word)


async def _last_person_out(h: Harness, how: str) -> None:
    await _open(h, "chips=2")
    svc = h.service
    if how == "leave":
        assert (await svc.handle(Leave(CHANNEL, ALICE))).ok
        assert (await svc.handle(Leave(CHANNEL, BOB))).ok
        await h.settle()
        return
    for _ in range(2000):  # people let every timer run out (three times: they leave)
        await h.settle()
        table = await h.table()
        if table.status == "closed":
            return
        h.clock.advance(max(table.settings.turn_timeout, table.settings.next_round_delay) + 1)


async def test_bots_finish_a_gnavspiel_match_with_its_winner_G9_C23() -> None:
    for how in ("leave", "timeouts"):
        for seed in (1, 2, 3):
            h = Harness(seed=seed)
            await _last_person_out(h, how)
            table = await h.table()
            m = table.match.m
            assert table.status == "closed" and table.closed_reason == "finished", (how, seed)
            assert m.phase == "over" and m.result is not None
            assert sum(m.result.balance) == 2 * 4  # C23
            winner = table.names[m.result.winner]
            text = h.notifier.last(CHANNEL.key).screen.text
            assert f"The bots played on: {winner} won the match" in text, text
            # The game's own word for what the bots played on: deals, never rounds.
            assert re.search(r"won the match, \d+ deals? later\.", text), text
            assert "round" not in text.split("The bots played on")[1], text
            stored = await h.repo.last_finished_match(CHANNEL.key)
            assert stored is not None and stored.winners == [winner]


async def test_bots_finish_announces_the_pot_and_every_balance_C23(harness: Harness) -> None:
    await _last_person_out(harness, "leave")
    table = await harness.table()
    r = table.match.m.result
    assert r is not None
    text = harness.notifier.last(CHANNEL.key).screen.text
    assert "takes the pot" in text
    balances = ", ".join(f"{table.names[s]} {b}" for s, b in enumerate(r.balance))
    assert f"Balances: {balances}" in text
