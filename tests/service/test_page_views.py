"""The web table's page views (bot/service/pages.py) are built once per push for all viewers
(the public part shared, each seat's own part added): every viewer's JSON must be byte for
byte what a page built the straightforward way shows, one viewer at a time: the table message
rendered afresh, every button's token decoded, the game's whole `web_view` for the viewer's
seat. Checked after every command of whole matches of each game, for each seat, a stranger
and a spectator (K4, N1, G4: a seat's own holding reaches that seat's page only)."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from bot.service import tokens
from bot.service.commands import Configure, Join, Open, Press, Start
from bot.service.pages import PAGE_TABLE_ACTIONS, game_name, page_words
from bot.service.service import TableService
from bot.service.table import Table, User
from tests.service.conftest import CHANNEL, Harness


def straightforward(svc: TableService, table: Table, viewer: str | None) -> dict[str, Any]:
    """`viewer`'s page of `table` built alone, nothing shared or kept from before."""
    rules = svc.games_of.rules_of(table)
    view = svc.view_of(table)
    cat = svc.texts(table)
    screen = svc.screens.render(table)
    seat = table.seat_of(viewer) if viewer is not None else None
    match = table.match
    deciders = (
        tuple(rules.deciders(match)) if match is not None and table.status == "playing" else ()
    )
    actions = []
    if seat is not None:
        for row in screen.buttons:
            for b in row:
                decoded = tokens.decode(b.token) if b.token else None
                if decoded is not None and decoded.action in PAGE_TABLE_ACTIONS:
                    actions.append({"token": b.token, "label": b.label, "role": b.role})
    choices = []
    if seat is not None and seat in deciders:
        version = table.seats[seat].seq
        for c in rules.choices(match, seat):
            choices.append(
                {
                    "token": tokens.encode(table.table_id, version, c.action, c.arg),
                    "label": view.render_line(c.label, cat),
                    "role": c.role,
                    "row": c.row,
                    "arg": c.arg,
                }
            )
    words = page_words(cat)
    words["left"] = cat.t("web.left", seconds="{seconds}")
    return {
        "table": table.table_id,
        "game": table.game,
        "status": table.status,
        "version": table.row_version or 0,
        "language": table.settings.language,
        "text": screen.text,
        "log": list(screen.log),
        "blocks": list(screen.blocks),
        "seats": [
            {
                "name": s.name,
                "bot": s.bot,
                "in": match is None or s.in_match,
                "turn": i in deciders,
                "you": i == seat,
            }
            for i, s in enumerate(table.seats)
        ],
        "you": seat,
        "deadline": table.deadline if table.deadline_kind == "turn" and deciders else None,
        "now": svc.clock.now(),
        "choices": choices,
        "actions": actions,
        "shapes": {} if match is None else view.web_view(match, seat, table.names, cat),
        "words": {**words, "game": game_name(cat, table.game)},
    }


@pytest.mark.parametrize("game", ["gnav", "gnavspiel", "karnaval"])
async def test_every_viewers_page_is_the_one_built_alone_after_every_command(game: str) -> None:
    h = Harness(seed=11)
    svc = h.service
    people = [User(f"test:p{i}", f"P{i}") for i in range(3)]
    viewers: list[str | None] = [None, "test:stranger", *(p.key for p in people)]
    assert (await svc.handle(Open(CHANNEL, people[0], game=game))).ok
    for p in people[1:]:
        assert (await svc.handle(Join(CHANNEL, p))).ok
    assert (await svc.handle(Configure(CHANNEL, people[0], ["bots=1", "delay=0"]))).ok
    assert (await svc.handle(Start(CHANNEL, people[0]))).ok
    rng = random.Random(3)
    checked = shown_own = 0
    for _ in range(2000):
        await h.settle()
        table = await h.table()
        assert table is not None
        views = await svc.page_views(table.table_id, viewers)
        assert views is not None
        for viewer in viewers:
            got = orjson.dumps(views[viewer].data)
            assert got == orjson.dumps(straightforward(svc, table, viewer)), viewer
            checked += 1
            shapes = views[viewer].data["shapes"]
            shown_own += "own" in shapes
            if game == "karnaval" and "own" in shapes:  # the order the page has always had
                assert list(shapes) == [
                    "facts",
                    "seats",
                    "middle",
                    "tricks",
                    "taker",
                    "own",
                    "sheet",
                ]
        if table.status != "playing":
            break
        pressable = [
            (p, entry["token"])
            for p in people
            for entry in views[p.key].data["choices"] + views[p.key].data["actions"]
            if entry["token"] and tokens.decode(entry["token"]).action not in ("leave", "hint")
        ]
        if pressable:
            who, token = rng.choice(pressable)
            await svc.handle(Press(CHANNEL, who, token))
        else:
            h.clock.advance(5)
    assert table.status != "playing", "the match was played to its end"
    assert checked > 50 and shown_own > 0
