"""A walk through the first deals of a started Karnaval table as its people play it (random
legal choices, the bots playing themselves), collecting every word a person is shown: used by
the tests of a language's card letters (tests/service/test_german.py, test_russian.py)."""

from __future__ import annotations

import random

from bot.service.commands import Act, PrivateView
from bot.service.table import User
from tests.service.conftest import CHANNEL, Harness


async def karnaval_words(harness: Harness, deals: int = 3, seed: int = 5) -> list[str]:
    """Every text and button label of the first `deals` deals of the started table at
    `CHANNEL`: each person's hand (which must offer buttons) and choices at their turn, their
    web view's tiles and facts, then every table message's versions and every private
    screen, with their buttons."""
    svc = harness.service
    rng = random.Random(seed)
    seen: list[str] = []
    for _ in range(600):  # three deals of six cards: kings, queens and jacks come to a person
        await harness.settle()
        table = await harness.table()
        rules = svc.game_of(table)
        if not rules.deciders(table.match):
            if svc.view_of(table).round_number(table.match) == deals:
                break
            harness.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = rules.deciders(table.match)[0]
        s = table.seats[seat]
        if s.bot:
            continue
        user = User(s.user, s.name)
        hand = await svc.handle(PrivateView(CHANNEL, user))
        assert hand.buttons
        seen += [hand.text] + [b.label for row in hand.buttons for b in row]
        view = await svc.status(CHANNEL, s.user)
        assert view is not None and len(view.labels) == len(view.choices)
        seen.extend(view.labels)
        shapes = svc.view_of(table).web_view(table.match, seat, table.names, svc.texts(table))
        seen += [t["text"] for t in shapes["own"]["tiles"]] + shapes.get("facts", [])
        choice = rng.choice(list(view.choices))
        assert (await svc.handle(Act(CHANNEL, user, choice.action, arg=choice.arg))).ok
    else:
        raise AssertionError(f"{deals} deals were not played in 600 steps")
    for m in harness.notifier.posts(CHANNEL.key):
        seen += [s.text for s in m.history]
        seen += [b.label for s in m.history for row in s.buttons for b in row]
    for screens in harness.notifier.private_screens.values():
        seen += [s.text for s in screens]
        seen += [b.label for s in screens for row in s.buttons for b in row]
    return seen
