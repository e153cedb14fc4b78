"""The lobby and the table's life: open, join, leave, kick, settings, start, stop, close."""

from __future__ import annotations

from collections.abc import Sequence

from bot.service.deadlines import Deadlines
from bot.service.game import Games
from bot.service.guards import active_table, authorise, lobby_table
from bot.service.names import clean_name, unique_name
from bot.service.options import ServiceSettings
from bot.service.players import Players
from bot.service.replies import Reply, ServiceError, new_id
from bot.service.screens import Screens
from bot.service.settings import (
    SettingsForm,
    apply_changes,
    echo,
    parse_changes,
)
from bot.service.steps import Steps
from bot.service.table import BOT_PREFIX, Seat, Table, User
from bot.service.texts import Catalogs, game_key
from bot.service.uow import Session, UnitOfWork


class Lobby:
    """Commands that open, fill, configure, start and close a table."""

    def __init__(
        self,
        uow: UnitOfWork,
        *,
        games: Games,
        catalogs: Catalogs,
        players: Players,
        settings: ServiceSettings,
        screens: Screens,
        deadlines: Deadlines,
        steps: Steps,
    ) -> None:
        self.uow = uow
        self.repo = uow.repo
        self.games = games
        self.catalogs = catalogs
        self.players = players
        self.settings = settings
        self.screens = screens
        self.deadlines = deadlines
        self.steps = steps

    async def opened(
        self, s: Session, user: User, sit: bool = True, game: str | None = None
    ) -> Reply:
        """Open a table in the channel, or show the current one.

        The opener is the host and sits down, unless `sit` is false: then the host only
        watches (a table of bot seats, a demonstration, a benchmark). `game` names a
        registered game the new table plays instead of the channel's setting (`/karnaval`);
        the channel's stored settings stay as they are.
        """
        tk, table = s.key, s.table
        now = self.settings.clock.now()
        if game is not None and game not in self.games.rules:
            raise ServiceError(
                "open.unknown_game", game=echo(game), known=", ".join(self.games.rules)
            )
        if table is not None and table.status != "closed":
            self.screens.repost(table, self.screens.render(table, buttons=False))
            return Reply(s.texts.t("open.shown"))
        settings = await self.uow.channel_settings(tk)
        if game is not None:
            settings = settings.model_copy(update={"game": game})
        fresh = Table(
            key=tk,
            table_id=new_id(10),  # in every button token: long enough never to clash
            game=self.games.named(settings),
            settings=settings,
            status="lobby",
            host=user.key,
            seats=[Seat(user.key, clean_name(user.name))] if sit else [],
            created_at=now,
            row_version=table.row_version if table else None,
            message_ref=None,
        )
        fresh.seq = (table.seq + 1) if table else 0
        await self.players.remember(user)
        self.deadlines.arm(fresh)
        s.stage(fresh)
        self.screens.repost(fresh, None)  # the old table's message already shows how it ended
        self.deadlines.schedule(fresh)
        cat = s.texts
        return Reply(cat.t(game_key(cat, fresh.game, "open.opened")))

    async def joined(self, s: Session, user: User) -> Reply:
        """Sit down at the table's lobby (or take a seat back during a match)."""
        table = s.table
        if table is not None and table.status == "playing":
            return await self._take_back(table, user)
        table = lobby_table(table)
        cat = self.catalogs.cat(table)
        if table.seat_of(user.key) is not None:
            raise ServiceError("join.already")
        most = self.games.rules_of(table).players[-1]
        if len(table.seats) >= most:
            raise ServiceError("join.full", max=most)
        name = unique_name(clean_name(user.name), table.names)
        await self.players.remember(user)  # know its private reachability before the first deal
        table.seats.append(Seat(user.key, name))
        if table.host is None:
            table.host = user.key
        await self._commit_lobby(table)
        return Reply(cat.t("join.done", name=name))

    async def _take_back(self, table: Table, user: User) -> Reply:
        """During a match: a player whose seat a game lets the bot play after their timeouts
        (`rejoin`) takes it back; anyone else hears that the match has started."""
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.started")
        taken = table.seats[seat]
        outcome = self.games.rules_of(table).rejoin(table.match, seat) if taken.left else None
        if outcome is None:  # nothing to take back: still playing it, or out of the match
            raise ServiceError("join.already" if taken.in_match else "error.started")
        taken.left = False
        taken.timeouts = 0
        table.log.extend(outcome.log)
        await self.steps.after_step(table, outcome)
        return Reply(self.catalogs.cat(table).t("join.back"))

    async def left(self, s: Session, user: User) -> Reply:
        """Leave the lobby, or forfeit the match under way."""
        table = active_table(s.table)
        cat = self.catalogs.cat(table)
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.not_seated")
        if table.status == "lobby":
            await self._unseat_from_lobby(table, seat)
            return Reply(cat.t("leave.done"))
        await self.steps.forfeit(table, seat, note=("note.left", {"p": table.seats[seat].name}))
        return Reply(cat.t("leave.forfeit"))

    async def kicked(self, s: Session, user: User, who: str) -> Reply:
        """The host or a channel admin removes a seat (by name or user key)."""
        table = active_table(s.table)
        cat = self.catalogs.cat(table)
        authorise(table, user)
        seat = _find_seat(table, who)
        if seat is None:
            raise ServiceError("kick.unknown", name=echo(who))
        name = table.seats[seat].name
        if table.status == "lobby":
            await self._unseat_from_lobby(table, seat)
            return Reply(cat.t("kick.done", name=name), public=True, literals=(name,))
        await self.steps.forfeit(table, seat, note=("note.kicked", {"p": name}))
        return Reply(cat.t("kick.done", name=name), public=True, literals=(name,))

    async def configured(self, s: Session, user: User, words: Sequence[str]) -> Reply:
        """Show or change the table's settings (`lives=5 timeout=90 rules=tradisjonell`)."""
        tk, table = s.key, s.table
        words = list(words)
        active = table is not None and table.status != "closed"
        current = table.settings if active and table else await self.uow.channel_settings(tk)
        cat = self.catalogs.cat(table if active else None, current, tk.platform)
        game = table.game if active and table is not None else self.games.named(current)
        if not words:
            return Reply(self.screens.settings_text(current, game, cat), public=True)
        # Anyone may read the settings; changing them is for the host of the open table or a
        # channel admin (with no table open, for an admin only: the next table inherits them).
        if active and table is not None:
            if user.key != table.host and not user.admin:
                raise ServiceError("settings.error.not_host", host=self._host_name(table))
        elif not user.admin:
            raise ServiceError("settings.error.admin_only")
        changes = parse_changes(words)
        playing = active and table is not None and table.status == "playing"
        if playing:
            form = SettingsForm.of(
                game, self.games.rules[game].settings_model, tuple(self.games.rules)
            )
            named = [form.find(c.typed) for c in changes]
            if any(s is not None and s.name != "language" for s in named):
                raise ServiceError("settings.error.in_match")
        new = apply_changes(current, changes, game=game, models=self.games.settings_models())
        if active and table is not None and table.status == "lobby":
            rules = self.games.rules[new.game]
            if len(table.seats) > rules.players[-1]:
                raise ServiceError("settings.error.too_many", game=new.game, max=rules.players[-1])
        await self.repo.save_settings(tk.key, new.model_dump())
        game = new.game
        if active and table is not None:
            if table.status == "lobby":
                table.game = game
            table.settings = new
            table.seq += 1
            self.deadlines.arm(table, keep=True)
            self.uow.save(table)
            self.screens.show(table)
            self.deadlines.schedule(table)
        cat = self.catalogs.catalog(new.language, tk.platform)
        return Reply(self.screens.settings_text(new, game, cat), public=True)

    async def started(self, s: Session, user: User) -> Reply:
        """Start the match: bot seats are added, the first dealer drawn, the first deal made."""
        table = lobby_table(s.table)
        cat = self.catalogs.cat(table)
        authorise(table, user)
        players = self.games.rules_of(table).players
        bots = min(table.settings.bots, players[-1] - len(table.seats))
        for i in range(1, bots + 1):
            name = unique_name(cat.t("bot.name", n=i), table.names)
            table.seats.append(Seat(f"{BOT_PREFIX}{table.table_id}:{i}", name, bot=True))
        if len(table.seats) < players[0]:
            del table.seats[len(table.seats) - bots :]
            raise ServiceError("start.too_few", min=players[0])
        lobby_freeze = self.screens.render(table, buttons=False)
        table.status = "playing"
        for seat in table.seats:
            seat.left = seat.out = False
        own = self.games.own_settings(table.game, table.settings)
        table.match = self.games.rules_of(table).new_match(table.names, own, self.settings.rng)
        table.match_id = new_id(10)
        outcome = self.games.rules_of(table).start_round(table.match, self.settings.rng)
        table.log = list(outcome.log)
        await self.steps.after_step(table, outcome, freeze=lobby_freeze, new_round=True)
        return Reply(cat.t("start.done"))

    async def stopped(self, s: Session, user: User) -> Reply:
        """The host or a channel admin stops the table (the match so far is kept for export)."""
        table = active_table(s.table)
        cat = self.catalogs.cat(table)
        authorise(table, user)
        finished = None
        if table.match is not None:
            finished = self.steps.finished_match(table, winners=[])
        await self.steps.close(table, "stopped", finished)
        return Reply(cat.t("stop.done"), public=True)

    def _host_name(self, table: Table) -> str:
        """How the host is called at the table (or was last seen), for refusals naming them."""
        for seat in table.seats:
            if seat.user == table.host:
                return seat.name
        return self.players.name(table.host or "")

    async def _unseat_from_lobby(self, table: Table, seat: int) -> None:
        """Free a lobby seat; the host's role passes on; an empty lobby closes."""
        gone = table.seats.pop(seat)
        if gone.user == table.host:
            humans = table.humans
            table.host = humans[0].user if humans else None
        if table.seats:
            await self._commit_lobby(table)
        else:
            await self.steps.close(table, "empty")

    async def _commit_lobby(self, table: Table) -> None:
        table.seq += 1
        self.deadlines.arm(table)
        self.uow.save(table)
        self.screens.show(table)
        self.deadlines.schedule(table)


def _find_seat(table: Table, who: str) -> int | None:
    """The seat `who` names: a user key, else exactly its name, else its name in any case.

    Several seats matching only in case (`Alice`, `alice`) are refused, listing them.
    """
    who = who.strip()
    for i, s in enumerate(table.seats):
        if s.user == who:
            return i
    wanted = [clean_name(who)]
    if who.startswith("@"):
        wanted.append(clean_name(who[1:]))
    for name in wanted:
        for i, s in enumerate(table.seats):
            if s.name == name:
                return i
    for name in wanted:
        folded = name.casefold()
        found = [i for i, s in enumerate(table.seats) if s.name.casefold() == folded]
        if len(found) == 1:
            return found[0]
        if found:
            names = ", ".join(table.seats[i].name for i in found)
            raise ServiceError("kick.ambiguous", name=echo(who), names=names)
    return None
