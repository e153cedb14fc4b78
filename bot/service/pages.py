"""The web table's view: one viewer's page of a table, JSON-ready (docs/web.md).

A page view is built like the chat's `TableView`, from the committed table under its lock: the
public table message's lines, the viewer's own choices with their button tokens, the game's
optional `web_public(match, names, cat)` shapes and its `web_own(match, seat, names, cat)` for
the viewer's seat only. A spectator (no viewer, or one who is not seated) gets the public part
alone. Nothing else of the table is put in, so a page cannot show what its viewer may not see.
The pages of one push share their public part, built once (`Pages._public`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from bot.service.game import Games, GameView, with_own
from bot.service.i18n import Catalog
from bot.service.options import ServiceSettings
from bot.service.screens import Screens
from bot.service.table import Table, TableKey
from bot.service.texts import Catalogs
from bot.service.uow import UnitOfWork

#: Table actions a proven viewer may press on the page (the chat's "view" button is the page).
PAGE_TABLE_ACTIONS = frozenset({"join", "leave", "start", "next", "hint"})


@dataclass(frozen=True, slots=True)
class PageView:
    """One viewer's view of one table: where it lives, its version, the viewer's seat, and the
    JSON-ready `data` the page draws."""

    key: str
    table_id: str
    version: int
    seat: int | None
    data: dict[str, Any]


class Pages:
    """Builds the web table's per-viewer views."""

    def __init__(
        self,
        uow: UnitOfWork,
        games: Games,
        catalogs: Catalogs,
        settings: ServiceSettings,
        screens: Screens,
    ) -> None:
        self.uow = uow
        self.repo = uow.repo
        self.games = games
        self.catalogs = catalogs
        self.settings = settings
        self.screens = screens
        #: The page's own words per language, platform and game.
        self._page_words: dict[tuple[str, str, str], dict[str, str]] = {}

    def _words(self, cat: Catalog, where: tuple[str, str, str]) -> dict[str, str]:
        """The page's words for a table of a language, a platform and a game (`where`), made
        once (every page shares them: never changed)."""
        words = self._page_words.get(where)
        if words is None:
            words = page_words(cat)
            words["left"] = cat.t("web.left", seconds="{seconds}")  # filled in by the page
            words["game"] = game_name(cat, where[2])
            self._page_words[where] = words
        return words

    async def page_view(self, table_id: str, viewer: str | None = None) -> PageView | None:
        """The table with `table_id` as `viewer` (a user key; None: a spectator) may see it;
        None when no table has that id."""
        views = await self.page_views(table_id, [viewer])
        return None if views is None else views[viewer]

    async def page_views(
        self, table_id: str, viewers: Sequence[str | None]
    ) -> dict[str | None, PageView] | None:
        """The table with `table_id` as each of `viewers` may see it, built together from one
        load under one lock (the pushes after a commit); None when no table has that id."""
        async with self._table(table_id) as table:
            if table is None:
                return None
            public = self._public(table)  # once for all of them
            return {viewer: self._page(public, viewer) for viewer in viewers}

    async def seat_at(self, table_id: str, user: str) -> tuple[TableKey, str] | None:
        """Where the table `table_id` lives and the name of `user`'s seat at it (a press from
        the page acts as that seat); None when no table has that id or `user` sits at none."""
        async with self._table(table_id) as table:
            seat = table.seat_of(user) if table is not None else None
            if table is None or seat is None:
                return None
            return table.key, table.seats[seat].name

    @asynccontextmanager
    async def _table(self, table_id: str) -> AsyncIterator[Table | None]:
        """The table `table_id` as committed, under its lock (a closed one read from the
        store, not cached); None when no table has that id."""
        key = await self._key_by_id(table_id)
        if key is None:
            yield None
            return
        async with self.uow.lock(key):
            table = await self.uow.load(key)
            if table is None or table.table_id != table_id:
                row = await self.repo.load_table_by_id(table_id)
                table = None if row is None else Table.from_row(row, self.games.rules)
            yield table

    async def replay_frames(self, table_id: str) -> dict[str, Any] | None:
        """The finished match of the table `table_id` as the replay page's frames (the game's
        optional `web_replay` folds its record); None when there is none."""
        row = await self.repo.load_table_by_id(table_id)
        if row is None:
            return None
        table = Table.from_row(row, self.games.rules)
        found = await self.repo.last_finished_match(row.key)
        if found is None or table.match_id is None or found.match_id != table.match_id:
            return None
        view = self.games.view_of(table)
        return replay_frames(view, found.record, self.catalogs.cat(table), table_id=table_id)

    async def _key_by_id(self, table_id: str) -> str | None:
        """Where the table `table_id` lives: found through the unit of work's index (no scan
        of the cache), else by the store."""
        known = self.uow.index.key_of(table_id)
        if known is not None:
            cached = self.uow.cached.get(known)
            if cached is not None and cached.table_id == table_id:
                return known
        row = await self.repo.load_table_by_id(table_id)
        return None if row is None else row.key

    def _public(self, table: Table) -> _Public:
        """What every viewer's page of `table` shares, built once per push: the table
        message (as the commit showed it: `Screens.shown`), the seats, the game's public
        shapes, the table actions a seated viewer may press, the page's words."""
        rules = self.games.rules_of(table)
        view = self.games.view_of(table)
        cat = self.catalogs.cat(table)
        screen = self.screens.shown(table)
        match = table.match
        names = table.names
        playing = match is not None and table.status == "playing"
        deciders = table.deciders_for(rules) if playing else ()
        # A button's kind is its table action (screens.py), so no token is decoded again.
        actions = [
            {"token": b.token, "label": b.label, "role": b.role}
            for row in screen.buttons
            for b in row
            if b.kind in PAGE_TABLE_ACTIONS and b.token
        ]
        deadline = table.deadline if table.deadline_kind == "turn" and deciders else None
        data: dict[str, Any] = {
            "table": table.table_id,
            "game": table.game,
            "status": table.status,
            "version": table.row_version or 0,
            "language": table.settings.language,
            "text": screen.text,
            # The round's whole log, one entry a line: the page's log box shows it (the table
            # message's text shows the state and only the newest events; the page draws the
            # state at the table). Empty outside a round: the box shows `text` then.
            "log": list(screen.log),
            "blocks": list(screen.blocks),
            "seats": [
                {
                    "name": s.name,
                    "bot": s.bot,
                    "in": match is None or s.in_match,
                    "turn": i in deciders,
                    "you": False,
                }
                for i, s in enumerate(table.seats)
            ],
            "you": None,
            "deadline": deadline,
            "now": self.settings.clock.now(),
            "choices": [],
            "actions": [],  # a spectator's page has nothing to press
            "shapes": {} if match is None else view.web_public(match, names, cat),
            "words": self._words(cat, (table.settings.language, table.key.platform, table.game)),
        }
        return _Public(table, view, cat, names, deciders, actions, data)

    def _page(self, public: _Public, viewer: str | None) -> PageView:
        """`viewer`'s page: the public one, with a seated viewer's own seat, choices, table
        actions and own shapes (`web_own`) put in."""
        table = public.table
        seat = table.seat_of(viewer) if viewer is not None else None
        data = public.data
        if seat is not None:
            seats = list(data["seats"])
            seats[seat] = {**seats[seat], "you": True}
            shapes = data["shapes"]
            if table.match is not None:
                own = public.view.web_own(table.match, seat, public.names, public.cat)
                shapes = with_own(shapes, own)
            data = {
                **data,
                "seats": seats,
                "you": seat,
                "choices": self._choices(public, seat) if seat in public.deciders else [],
                "actions": public.actions,
                "shapes": shapes,
            }
        return PageView(table.key.key, table.table_id, table.row_version or 0, seat, data)

    def _choices(self, public: _Public, seat: int) -> list[dict[str, Any]]:
        """The deciding `seat`'s choices, each with its button token (the seat's version), as
        its buttons say them (`Screens.labelled`)."""
        return [
            {"token": token, "label": label, "role": c.role, "row": c.row, "arg": c.arg}
            for c, label, token in self.screens.labelled(public.table, seat, public.cat)
        ]


@dataclass(frozen=True, slots=True)
class _Public:
    """The part of a table's pages every viewer shares (`Pages._public`); `data` is a
    spectator's whole page, and never changed (each seat's page is a copy)."""

    table: Table
    view: GameView
    cat: Catalog
    names: list[str]
    deciders: tuple[int, ...]
    actions: list[dict[str, Any]]
    data: dict[str, Any]


def replay_frames(
    view: GameView, record: dict[str, Any], cat: Catalog, *, table_id: str = ""
) -> dict[str, Any] | None:
    """A match record as the replay page's frames: `{"title", "steps": [view, ...]}`, each
    view drawn by the same page as a live one (nothing to press); None when the game has no
    `web_replay`."""
    folded = view.web_replay(record, cat)
    if folded is None:
        return None
    words = {**page_words(cat), "game": game_name(cat, view.name)}
    words["count"] = cat.t("web.step.count", n="{n}", total="{total}")  # filled in by the page
    steps = []
    for i, step in enumerate(folded):
        steps.append(
            {
                "table": table_id or "replay",
                "game": view.name,
                "status": "replay",
                "version": i,
                "deal": step.get("deal", 0),
                "language": cat.language,
                "text": step["text"],
                "blocks": [],
                "seats": [
                    {"name": s["name"], "bot": False, "in": True, "turn": s["turn"], "you": False}
                    for s in step["seats"]
                ],
                "you": None,
                "deadline": None,
                "choices": [],
                "actions": [],
                "shapes": step["shapes"],
                "words": words,
            }
        )
    title = f"{words['game']} · {cat.t('web.replay')}"
    return {"title": title, "language": cat.language, "steps": steps}


#: The page's own words (bot/i18n's `web.*` keys), by their name on the page.
PAGE_WORDS = (
    "title",
    "mine",
    "table",
    "log",
    "sheet",
    "spectator",
    "denied",
    "closed",
    "replay",
    "your_turn",
    "turn",
    "you",
    "bot",
    "out",
    "seats",
)
#: The replay's step buttons' accessible names (`web.step.*`).
STEP_WORDS = ("first", "back", "next", "deal")


def game_name(cat: Catalog, game: str) -> str:
    """The game's name as players of the table's language say it (the game's own catalog's
    `<game>.web.name`: Карнавал on a Russian table)."""
    key = f"{game}.web.name"
    return cat.t(key) if cat.has(key) else game


def page_words(cat: Catalog) -> dict[str, str]:
    """The words the page draws, in the table's language."""
    words = {k: cat.t(f"web.{k}") for k in PAGE_WORDS}
    words.update({f"step_{k}": cat.t(f"web.step.{k}") for k in STEP_WORDS})
    return words
