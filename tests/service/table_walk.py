"""Whole games through the service with one person and bot seats, keeping every table message
a group is shown and every private screen the person gets: used by the tests of the table
message's size and of screens that say a choice twice (tests/service/test_table_state.py) and
by benchmarks/table_screens.py, which prints their figures.

The person (Alice, seat 1) plays a random legal choice (seeded) whenever she decides, after
asking for her private screen as a player tapping the table's button would; the bots play
themselves; the next deal comes when its delay has passed on the fake clock.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.service.commands import Act, Configure, Open, PrivateView, Start
from bot.service.ports import Button, Screen
from bot.service.table import User
from tests.service.conftest import ALICE, CHANNEL, Harness


@dataclass
class Walk:
    """What one game showed: every version of every group message (in order), each with the
    number of deals dealt when it was shown, and every private screen the person got."""

    table: list[tuple[int, Screen]] = field(default_factory=list)
    #: The group's messages in the order they were posted: (deals dealt, message ref).
    messages: list[tuple[int, str]] = field(default_factory=list)
    #: Every version of each group message, by its ref.
    versions: dict[str, list[Screen]] = field(default_factory=dict)
    private: list[Screen] = field(default_factory=list)
    #: What the table's private-screen button showed the person at each of her turns, with
    #: the buttons of her choices beside it (the screen's own, or the table message's).
    views: list[Screen] = field(default_factory=list)
    steps: int = 0


async def walk(
    h: Harness,
    game: str,
    players: int,
    *,
    seed: int = 1,
    language: str = "en",
    words: Sequence[str] = (),
    deals: int | None = None,
    max_steps: int = 20000,
) -> Walk:
    """Play `game` at `players` seats (Alice and bots) to its end, or until `deals` deals are
    dealt and the last of them is over. `words`: more settings (`rules=tradisjonell`)."""
    svc = h.service
    rng = random.Random(seed)
    out = Walk()
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    setting = [f"game={game}", f"bots={players - 1}", f"language={language}", *words]
    reply = await svc.handle(Configure(CHANNEL, ALICE, setting))
    assert reply.ok, reply.text
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    seen: dict[str, int] = {}  # message ref -> versions kept of it
    for _ in range(max_steps):
        await h.settle()
        table = await h.table()
        view = svc.view_of(table)
        dealt = view.round_number(table.match) if table.match is not None else 0
        for m in h.notifier.posts(CHANNEL.key):
            kept = seen.get(m.ref, 0)
            out.table.extend((dealt, s) for s in m.history[kept:])
            if kept == 0:
                out.messages.append((dealt, m.ref))
            seen[m.ref] = len(m.history)
        if table.status == "closed":
            break
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            if deals is not None and dealt >= deals:
                break
            h.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = next((d for d in deciders if not table.seats[d].bot), None)
        if seat is None:
            continue
        user = User(table.seats[seat].user, table.seats[seat].name)
        shown = await svc.handle(PrivateView(CHANNEL, user))  # the table's button, tapped
        status = await svc.status(CHANNEL, user.key)
        assert status is not None and status.choices
        # What the button showed, with the choices beside it: its own buttons, else (a game
        # whose choices are the table message's buttons, under the popup) the table's.
        beside = shown.buttons or (tuple(Button(x, "") for x in status.labels),)
        out.views.append(Screen(shown.text, beside))
        # A choice offered may still be refused (Gnav's tradisjonell offers a Narr holder
        # to stay: issue 30 point 5, not this walk's to judge): then another one.
        offered = list(status.choices)
        rng.shuffle(offered)
        for choice in offered:
            reply = await svc.handle(Act(CHANNEL, user, choice.action, arg=choice.arg))
            if reply.ok:
                break
        assert reply.ok, (offered, reply.text)
        out.steps += 1
    else:
        raise AssertionError(f"{game} did not end in {max_steps} steps")
    out.versions = {m.ref: list(m.history) for m in h.notifier.posts(CHANNEL.key)}
    out.private = list(h.notifier.private_screens.get(ALICE.key, []))
    return out


#: What separates the items of a list written in a sentence.
_LIST = re.compile(r"\s*[,;/]\s*")


def repeated_choices(screen: Screen) -> list[str]:
    """The choices a screen says twice (`listed_twice` of its text and choice buttons)."""
    return listed_twice(screen.text, [b.label for row in screen.buttons for b in row if not b.url])


def listed_twice(text: str, labels: Sequence[str]) -> list[str]:
    """The choices (`labels` of buttons, not links) that `text` also writes as a list: two or
    more of them in one line, apart as a sentence lists things ("You may: 10♦, Q♣, J♣" above
    buttons 10♦, Q♣, J♣). A hand shown once as cards, the buttons being some of them, is not
    a list of the choices."""
    if len(labels) < 2:
        return []
    out: list[str] = []
    for line in text.splitlines():
        items = [x.strip() for x in _LIST.split(line.split(":", 1)[-1]) if x.strip()]
        named = [x for x in items if x in labels]
        if len(named) >= 2:
            out.extend(named)
    return out


def size(screen: Screen) -> tuple[int, int]:
    """A screen's text as a chat shows it: (lines, characters)."""
    return len(screen.text.splitlines()), len(screen.text)
