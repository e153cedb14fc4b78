"""The table message: rendering a table as a platform-neutral screen, and queueing it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from bot.service import tokens
from bot.service.game import Games, GameView
from bot.service.i18n import Catalog
from bot.service.moves import Choice
from bot.service.options import ServiceSettings
from bot.service.ports import (
    Button,
    Picture,
    Screen,
    TableShot,
)
from bot.service.replies import MAX_TEXT, fit_lines
from bot.service.settings import TableSettings, settings_lines
from bot.service.table import Table
from bot.service.texts import Catalogs, game_key

#: Choices' labels kept per catalog (`Screens._labels`) before they are forgotten.
LABELS_KEPT = 4096


class Queueing(Protocol):
    """What the screens ask of the outbox: table messages queued (`bot/service/outbox.py`)."""

    def edit_table(
        self, channel: str, screen: Screen | TableShot | tuple[TableShot, Screen]
    ) -> None: ...
    def post_table(
        self,
        channel: str,
        screen: Screen | TableShot | tuple[TableShot, Screen],
        freeze: Screen | TableShot | None,
    ) -> None: ...


def _turn_words(cat: Catalog, game: str, shows: GameView) -> tuple[str, str]:
    """A round under way in `game`'s words in `cat`: the catalog key of whose turn it is, the
    label of the button that shows a seat its private screen; looked up once per catalog and
    game (`Catalog.kept`), not at every render."""
    key = f"screens.turn.{game}"
    words: tuple[str, str] | None = cat.kept.get(key)
    if words is None:
        words = cat.kept[key] = (game_key(cat, game, "turn.now"), cat.t(shows.view_label))
    return words


def _next_words(cat: Catalog, game: str) -> tuple[str, str]:
    """Between rounds in `game`'s words in `cat`: the catalog key of when the next round
    comes, the label of the button that deals it (once per catalog and game)."""
    key = f"screens.next.{game}"
    words: tuple[str, str] | None = cat.kept.get(key)
    if words is None:
        label = cat.t(game_key(cat, game, "button.next"))
        words = cat.kept[key] = (game_key(cat, game, "next.in"), label)
    return words


class Screens:
    """Renders tables and private screens, and queues table messages (posted anew or edited
    in place)."""

    def __init__(
        self, games: Games, catalogs: Catalogs, settings: ServiceSettings, outbox: Queueing
    ) -> None:
        self.games = games
        self.catalogs = catalogs
        self.settings = settings
        self.outbox = outbox

    def _token(self, table: Table, action: str) -> str:
        return tokens.encode(table.table_id, table.seq, action)

    def render(
        self,
        table: Table,
        *,
        buttons: bool = True,
        note: str | None = None,
        view: str = "auto",
    ) -> Screen:
        """The table message: lobby, round under way, reveal, or the end.

        `view` "round" shows the round's log even after its reveal (the frozen round message).
        """
        cat = self.catalogs.cat(table)
        lines: list[str] = []
        if note:
            lines.append(note)
        rows: list[tuple[Button, ...]] = []
        blocks: list[str] = []
        picture: Picture | None = None
        log: tuple[str, ...] = ()
        told: tuple[str, ...] = ()
        s = table.settings
        names = table.names
        if table.status == "lobby":
            shows = self.games.view_of(table)
            lines.append(shows.lobby_title(self.games.own_settings(table.game, s), cat))
            level = cat.t(f"level.{s.level}")
            lines.append(cat.t("lobby.settings", timeout=s.turn_timeout, bots=s.bots, level=level))
            for i, seat in enumerate(table.seats, 1):
                host = cat.t("lobby.host_mark") if seat.user == table.host else ""
                lines.append(f"{i}. {seat.name}{host}")
            lines.append(
                cat.t(
                    "lobby.hint",
                    seated=len(table.seats),
                    min=self.games.rules_of(table).players[0],
                    max=self.games.rules_of(table).players[-1],
                )
            )
            rows.append(
                (
                    Button(
                        cat.t("button.join"), self._token(table, "join"), "success", kind="join"
                    ),
                    Button(cat.t("button.leave"), self._token(table, "leave"), kind="leave"),
                    Button(
                        cat.t("button.start"), self._token(table, "start"), "primary", kind="start"
                    ),
                )
            )
        elif table.match is not None:
            match = table.match
            rules = self.games.rules_of(table)
            shows = self.games.view_of(table)
            deciders = table.deciders_for(rules)
            in_round = bool(deciders)
            if in_round or view == "round":
                lines.extend(self._round_lines(table, names, cat))
                log = tuple(table.cache.rendered_log) if table.log else ()
            else:
                lines.extend(shows.render_reveal(match, names, cat))
                told = tuple(shows.told_lines(match, names, cat))  # the log's own lines
                block = shows.render_block(match, names, cat)  # a score grid, after a deal
                if block:
                    lines.append(block)
                    blocks.append(block)
                # A picture the round's end carries (`render_picture`).
                picture = shows.render_picture(match, names, cat)
            if table.status == "closed":
                lines.append(cat.t(f"closed.{table.closed_reason or 'stopped'}"))
            elif view == "round" and not in_round:
                pass  # the frozen message of a round that has ended
            elif in_round:
                turn, label = _turn_words(cat, table.game, shows)  # a game's own wording
                who = ", ".join([names[d] for d in deciders])
                lines.append(cat.t(turn, name=who, seconds=s.turn_timeout))
                if buttons:  # a frozen message has none
                    if shows.public_choices:
                        rows.extend(self.choice_rows(table, deciders, cat))
                    rows.append((Button(label, self._token(table, "view"), kind="view"),))
                    rows.extend(self.hint_row(table, cat))
            elif not rules.winners(match):
                # A game's own word for what comes next (Gnavspiel's and Karnaval's deal).
                nxt, label = _next_words(cat, table.game)
                lines.append(cat.t(nxt, seconds=s.next_round_delay))
                if buttons:
                    rows.append(
                        (Button(label, self._token(table, "next"), "primary", kind="next"),)
                    )
        else:
            lines.append(cat.t(f"closed.{table.closed_reason or 'stopped'}"))
        link = self._page_link(table) if buttons else None
        if link is not None:
            rows.append((Button(cat.t("button.web"), "", url=link),))
        return Screen(
            fit_lines(lines, MAX_TEXT, keep=blocks),
            tuple(rows) if buttons else (),
            literals=tuple(names),
            blocks=tuple(blocks),
            image=picture,
            log=log,
            language=cat.language,
            told=told,
        )

    def choice_rows(
        self, table: Table, seats: Sequence[int], cat: Catalog
    ) -> list[tuple[Button, ...]]:
        """The buttons of `seats`' choices, each carrying its seat's own version."""
        grouped: dict[tuple[int, int], list[Button]] = {}
        for seat in seats:
            for c, label, token in self.labelled(table, seat, cat):
                grouped.setdefault((seat, c.row), []).append(Button(label, token, c.role))
        return [tuple(row) for _, row in sorted(grouped.items())]

    def labelled(
        self, table: Table, seat: int, cat: Catalog
    ) -> tuple[tuple[Choice, str, str], ...]:
        """`seat`'s choices now, each with its label in the game's words and its button token
        (carrying the seat's own version): made once per state and language, for the seat's
        buttons and its web page alike."""
        version = table.seats[seat].seq
        kept = table.cache.labelled.get(seat)
        if kept is not None and kept[0] == table.seq and kept[1] == version and kept[2] is cat:
            return kept[3]
        view = self.games.view_of(table)
        labels = self._labels(cat)
        table_id = table.table_id
        made = []
        for c in table.choices_for(self.games.rules_of(table), seat):
            found = labels.get(id(c))
            if found is None or found[0] is not c or found[1] is not view:
                found = labels[id(c)] = (c, view, view.render_line(c.label, cat))
            made.append((c, found[2], tokens.encode(table_id, version, c.action, c.arg)))
        done = tuple(made)
        table.cache.labelled[seat] = (table.seq, version, cat, done)
        return done

    @staticmethod
    def _labels(cat: Catalog) -> dict[int, tuple[Choice, object, str]]:
        """Choices' labels as `cat` says them, by the choice (its `id`, the choice itself
        held beside its label: no other object takes its place) and the view that said it.
        A game makes most choices once and shares them across states and tables (a card to
        play, Stay): its buttons' labels are said once per catalog, not at every state; a
        choice is frozen, its label never changes. Bounded: forgotten past `LABELS_KEPT`."""
        labels: dict[int, tuple[Choice, object, str]] | None = cat.kept.get("screens.labels")
        if labels is None or len(labels) > LABELS_KEPT:
            labels = cat.kept["screens.labels"] = {}
        return labels

    def private_screen(self, table: Table, seat: int, cat: Catalog) -> Screen:
        """What one seat sees privately: the game's text and, for a game whose choices are
        private, the seat's choices as buttons carrying the seat's own version; and the
        player's own link to the web table, when it is served."""
        view = self.games.view_of(table)
        text = view.private_text(table.match, seat, cat)
        rows = () if view.public_choices else tuple(self.choice_rows(table, [seat], cat))
        if rows:
            rows = (*rows, *self.hint_row(table, cat))
        link = self.seat_link_row(table, table.seats[seat].user, cat)
        if link:
            rows = (*rows, link)
        return Screen(text, rows, literals=tuple(table.names), language=cat.language)

    def hint_row(self, table: Table, cat: Catalog) -> list[tuple[Button, ...]]:
        """The Hint button (issue 33) where the table has `hints=on` and its game gives hints:
        a press answers the presser alone with what `strong` would choose for their seat."""
        if table.settings.hints != "on" or not self.games.rules_of(table).gives_hints:
            return []
        return [(Button(cat.t("button.hint"), self._token(table, "hint"), kind="hint"),)]

    def _page_link(self, table: Table) -> str | None:
        """The web table's public address for the table message (docs/web.md), while open."""
        links = self.settings.links
        if links is None or table.status == "closed":
            return None
        return links.table_link(table.table_id, table.key.platform)

    def seat_link_row(self, table: Table, user: str, cat: Catalog) -> tuple[Button, ...]:
        """A player's own signed web-table link as a button row (empty without the web)."""
        links = self.settings.links
        link = None if links is None else links.seat_link(table.table_id, user)
        return () if link is None else (Button(cat.t("button.web_own"), "", url=link),)

    def _round_lines(self, table: Table, names: list[str], cat: Catalog) -> list[str]:
        """A round under way (or just ended, frozen): the game's state (`render_status`),
        then the newest few entries of the round's log (`GameView.recent_events`), never the
        whole log: it grows with every move, the state says what happened; the whole log is
        the `log` command's and the record's (and `Screen.log` carries it, for a terminal)."""
        view = self.games.view_of(table)
        lines = view.render_status(table.match, names, cat)
        recent = self.round_log(table, cat)[-view.recent_events :] if view.recent_events else []
        # What the state says already (a game's last exchange is made of log lines) goes once:
        # a line of one line is in one of the state's exactly when it is in their text.
        said = "\n".join(lines)
        recent = [
            line
            for line in recent
            if not (
                line in said
                if lines and "\n" not in line
                else any(line in shown for shown in lines)
            )
        ]
        if recent:
            lines.append("—")
            lines.extend(recent)
        return lines

    def round_log(self, table: Table, cat: Catalog) -> list[str]:
        """The round's log in `cat`'s language, one entry a line (as `Screen.log` has it)."""
        # The log only grows during a round (a new round's is a new list): each line is
        # rendered once per catalog. The cache holds the very list it rendered, so no other
        # list can take its place; a table whose command failed is dropped, cache and all.
        kept = table.cache
        cache = kept.rendered_log
        log = table.log
        made_for = kept.rendered_for
        if made_for is None or made_for[0] is not log or made_for[1] is not cat:
            cache.clear()
            kept.rendered_for = (log, cat)
        elif len(cache) > len(log):
            cache.clear()
        if len(cache) < len(log):
            render_line = self.games.view_of(table).render_line
            cache.extend([render_line(line, cat) for line in log[len(cache) :]])
        return cache

    def shown(self, table: Table) -> Screen:
        """The table message as the table is now, with its buttons: the one its last commit
        showed (`show`, `repost`: the same row version and `seq`), else rendered (and kept
        for the next page of the same state)."""
        kept = table.cache.shown
        version = table.row_version or 0
        if kept is not None and kept[0] == version and kept[1] == table.seq:
            return kept[2]
        screen = self.render(table)
        table.cache.shown = (version, table.seq, screen)
        return screen

    def render_table(self, table: Table, buttons: bool, note: str | None) -> Screen:
        """The table message (for a shot rendered at its delivery)."""
        return self.render(table, buttons=buttons, note=note)

    def show(self, table: Table) -> None:
        """Show the table in its message, edited in place, rendered now: a command shows its
        table once it is done changing it, so each edit shows its own moment. The store keeps
        a shot of the table, this process the rendering, sent as it is; after a restart, or in
        another process, the shot is rendered when delivered, showing the newest state. A
        table that has closed keeps its last screen itself (a newer table at the same key
        must not stand in for it)."""
        screen = self.render(table)
        table.cache.shown = ((table.row_version or 0) + 1, table.seq, screen)
        if table.status == "closed":
            self.outbox.edit_table(table.key.key, screen)
        else:
            shot = TableShot(table.table_id, table.message_no)
            self.outbox.edit_table(table.key.key, (shot, screen))

    def repost(
        self, table: Table, freeze: Screen | None, note: str | None = None, *, keep: bool = False
    ) -> None:
        """Post the table in a new message, rendered now (a new message is a moment of the
        table's story); the old one shows `freeze`. `keep`: the command is done changing the
        table, and its next step freezes this state (a round's reveal, then the next deal):
        the rendering is kept for `frozen`."""
        table.message_no += 1
        screen = self.render(table, note=note)
        if note is None:
            table.cache.shown = ((table.row_version or 0) + 1, table.seq, screen)
            if keep:
                table.cache.kept_screen = table.cache.shown
        self.outbox.post_table(table.key.key, screen, freeze)

    def frozen(self, table: Table) -> Screen:
        """The table message without buttons, as the table is now: the message posted for
        this very state (the same version and `seq`, kept by `repost`) without its buttons,
        else rendered (the text never depends on the buttons)."""
        kept, table.cache.kept_screen = table.cache.kept_screen, None
        if kept is not None and kept[0] == table.row_version and kept[1] == table.seq:
            return replace(kept[2], buttons=())
        return self.render(table, buttons=False)

    def settings_text(self, s: TableSettings, game: str, cat: Catalog) -> str:
        """The settings of a table of `game`: the game's own (none: no empty field), then the
        generic ones; a delay of 0 reads "at once", in the game's word for a round."""
        own = settings_lines(s, game, self.games.rules[game].settings_model)
        nxt = "settings.next" if s.next_round_delay else "settings.next_now"
        return cat.t(
            "settings.shown",
            game=game,
            own="".join(f"{word} {value} · " for word, value in own),
            timeout=s.turn_timeout,
            language=s.language,
            next=cat.t(game_key(cat, game, nxt), delay=s.next_round_delay),
            bots=s.bots,
            level=s.level,
            hints=s.hints,
        )
