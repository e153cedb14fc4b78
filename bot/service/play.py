"""Playing: a seat's choices and button presses, the steps after each (commit, then tell),
new rounds, forfeits, private messages and statistics."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.service import rounds
from bot.service.deadlines import Deadlines
from bot.service.game import Games, LogLine, Outcome
from bot.service.guards import playing_table
from bot.service.options import ServiceSettings
from bot.service.outgoing import Outgoing
from bot.service.players import Players
from bot.service.ports import (
    FinishedMatch,
    Notifier,
    Refreshing,
    Screen,
    StatDelta,
    capable,
)
from bot.service.replies import MAX_ALERT, MAX_TEXT, Reply, ServiceError, fit_text
from bot.service.screens import Screens
from bot.service.table import ACTED, Table, User
from bot.service.texts import Catalogs, game_key
from bot.service.uow import Session, UnitOfWork

#: The most choices and deals the bots make to finish a match no person is left in.
MAX_PLAYOUT_STEPS = 10_000


@dataclass(eq=False)
class Play:
    """Commands of a match under way and what follows each step."""

    uow: UnitOfWork
    games: Games
    catalogs: Catalogs
    players: Players
    settings: ServiceSettings
    screens: Screens
    deadlines: Deadlines
    outbox: Outgoing
    notifier: Notifier

    async def acted(
        self,
        s: Session,
        user: User,
        action: str,
        seq: int | None = None,
        arg: str | None = None,
    ) -> Reply:
        """One of the game's choices for the user's seat (`seq`: the pressed button's version,
        the seat's own; None when typed, as in the terminal)."""
        table = playing_table(s.table)
        cat = s.texts
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.not_seated")
        match = table.match
        rules = s.rules
        deciders = table.deciders_for(rules)
        if seq is not None and not (seat in deciders and seq == table.seats[seat].seq):
            # Not this seat's current button: another seat's (a wrong-person press) or old.
            if table.cache.timed_out.get(user.key) == seq:
                raise ServiceError("error.timed_out")
            owner = next((d for d in deciders if table.seats[d].seq == seq), None)
            if owner is None or seat in deciders:
                raise ServiceError("error.stale")
            raise ServiceError("error.not_your_turn", name=table.seats[owner].name)
        if not deciders:
            raise ServiceError("error.between_rounds")
        if seat not in deciders:
            raise ServiceError("error.not_your_turn", name=table.seats[deciders[0]].name)
        if not any(c.key == (action, arg) for c in table.choices_for(rules, seat)):
            raise ServiceError("error.unknown_action", action=action[:40])
        outcome = rules.act(match, seat, action, arg)
        table.seats[seat].timeouts = 0
        table.seats[seat].mark = ACTED
        table.log.extend(outcome.log)
        await self.after_step(table, outcome)
        key = game_key(cat, table.game, f"act.{action}")  # `gnav.act.stay`
        return Reply(cat.t(key) if cat.has(key) else cat.t("act.done"))

    async def dealt(self, s: Session, user: User, seq: int | None = None) -> Reply:
        """Deal the next round now instead of waiting for the delay."""
        table = playing_table(s.table)
        cat = s.texts
        if seq is not None and seq != table.seq:
            raise ServiceError("error.stale")
        if table.seat_of(user.key) is None and not user.admin:
            raise ServiceError("error.not_seated")
        if table.deciders_for(s.rules):
            raise ServiceError("next.already")
        await self.deal(table)
        return Reply(cat.t("next.done"))

    async def shown_to(self, s: Session, user: User) -> Reply:
        """A seated player's piece, for a popup or an ephemeral message (always works)."""
        table = playing_table(s.table)
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.not_seated")
        view = s.view
        cat = s.texts
        if view.public_choices:
            # The choices are on the table message: this is only what the seat may see.
            text = view.private_text(table.match, seat, cat)
            link = self.screens.seat_link_row(table, user.key, cat)
            return Reply(fit_text(text, MAX_ALERT), alert=True, buttons=(link,) if link else ())
        screen = self.screens.private_screen(table, seat, cat)
        # A popup (Telegram) shows the text only; where the platform can, the buttons too.
        return Reply(screen.text, alert=True, buttons=screen.buttons)

    async def hinted(self, s: Session, user: User) -> Reply:
        """The hint for `user`'s seat, at a table with `hints=on` (issue 33): what `strong`
        would choose now, sampled by the game from that seat's own knowledge only
        (`GameRules.hint`); a popup or an ephemeral answer."""
        table = playing_table(s.table)
        rules = s.rules
        if table.settings.hints != "on" or not rules.gives_hints:
            raise ServiceError("hint.off")
        seat = table.seat_of(user.key)
        if seat is None:
            raise ServiceError("error.not_seated")
        found = rules.hint(table.match, seat, self.settings.rng)
        if found is None:
            raise ServiceError("hint.none")
        cat = s.texts
        view = s.view
        label = found.choice.label
        for c in rules.choices(table.match, seat):  # the game's words for the choice
            if c.key == found.choice.key and not label[0]:  # unless the hint words it itself
                label = c.label
        text = cat.t(
            game_key(cat, table.game, "hint.text"),  # a game's own measure of sure
            choice=view.render_line(label, cat),
            share=round(100 * found.share),
            worlds=found.worlds,
        )
        return Reply(fit_text(text, MAX_ALERT), alert=True)

    async def after_step(
        self,
        table: Table,
        *steps: Outcome,
        freeze: Screen | None = None,
        new_round: bool = False,
    ) -> None:
        """Settle automatic moves, commit, then tell people (in that order)."""
        table.cache.deciders_at = None  # the step moved the match: ask again
        outcomes = list(steps)
        rules = self.games.rules_of(table)
        if not any(o.round_over for o in outcomes):
            outcomes.extend(rounds.settle(table, rules))
        for o in outcomes:
            table.put_out(o)
        stats: list[StatDelta] = []
        finished = None
        round_over = any(o.round_over for o in outcomes)
        for o in outcomes:
            stats.extend(rounds.stat_deltas(table, o))
        winners = rules.winners(table.match)
        round_freeze = None
        if round_over:
            round_freeze = self.screens.render(table, buttons=False, view="round")
        if winners:
            finished = self.finished_match(table, winners=winners)
            stats.extend(rounds.match_deltas(table, rules))
            table.status = "closed"
            table.closed_reason = "finished"
        elif rounds.no_humans_left(table):
            await self._bots_finish(table, outcomes, stats, round_freeze)
            return
        table.seq += 1
        moved = rounds.refresh_choices(table, rules)
        self.deadlines.arm(table)
        self.uow.save(table, stats=stats, finished=finished)
        # Committed: now people may be told: the public event first, then what it means for
        # each player: a seat whose own choices changed gets its whole private screen (which
        # says what it holds too), the others the game's private lines. A deal is the
        # exception: each player learns what they were dealt before the deal's message, whose
        # lines may name it ("Alice: «Bank, bank, bank!»" for a Narr), and a question comes
        # after it (issue 30: cause before effect).
        choosing = rounds.choosing(table, rules, self.games.view_of(table), moved)
        if new_round:
            self._tell_outcomes(table, outcomes, skip=choosing)
            outcomes = []
            self.screens.repost(table, freeze)
        elif round_over:
            # The round's last moves in its message, what they meant for each player ("from
            # the bag you now hold XII"), and only then the reveal in a new message.
            assert round_freeze is not None  # rendered above for a round that ended
            self.outbox.edit_table(table.key.key, round_freeze)
            self._tell_outcomes(table, outcomes, skip=choosing)
            outcomes = []
            self.screens.repost(table, None, keep=True)  # the next deal freezes it
        else:
            self.screens.show(table)
        self._tell_outcomes(table, outcomes, skip=choosing)
        self._tell_choices(table, choosing)
        self.deadlines.schedule(table)

    async def _bots_finish(
        self,
        table: Table,
        outcomes: list[Outcome],
        stats: list[StatDelta],
        round_freeze: Screen | None,
    ) -> None:
        """No person is left in the match, only bots: they play it to its end at once, the
        whole is committed once, then the table shows where the people left and one message
        the result (never a replay round by round)."""
        rules = self.games.rules_of(table)
        view = self.games.view_of(table)
        match = table.match
        table.status = "closed"
        table.closed_reason = "humans_out"
        left_screen = self.screens.render(table, buttons=False)  # the state the last person saw
        rounds_before = view.round_number(match)
        for _ in range(MAX_PLAYOUT_STEPS):
            if rules.winners(match):
                break
            deciders = rules.deciders(match)
            if not deciders:  # between rounds: the next one
                table.put_out(rules.start_round(match, self.settings.rng))
                continue
            seat = deciders[0]
            if table.seats[seat].bot:
                choice = rules.bot_choice(match, seat, self.settings.rng)
            else:  # a person leaving at the end of the round: the timeout choice
                choice = rules.timeout_choice(match, seat)
            table.put_out(rules.act(match, seat, choice.action, choice.arg))
        # The round's log where people left it: where the last steps' private lines belong.
        story = list(self.screens.round_log(table, self.catalogs.cat(table)))
        table.log = []
        winners = rules.winners(match)
        if winners:
            table.closed_reason = "finished"
        stats.extend(rounds.match_deltas(table, rules))
        finished = self.finished_match(table, winners=winners)
        table.seq += 1
        rounds.refresh_choices(table, rules)
        self.deadlines.arm(table)
        self.uow.save(table, stats=stats, finished=finished)
        cat = self.catalogs.cat(table)
        more = view.round_number(match) - rounds_before
        names = ", ".join(table.seats[i].name for i in winners)
        # A game words its rounds its own way (`<game>.result.*`: "deals" in the card games).
        if not winners:
            result = cat.t(game_key(cat, table.game, "result.unfinished"), count=more)
        else:
            key = "result.bots_winner" if len(winners) == 1 else "result.bots_winners"
            key = game_key(cat, table.game, key)
            result = cat.t(key, count=more, names=names)
        key = table.key.key
        if round_freeze is None:
            self.outbox.edit_table(key, left_screen)  # a seat left: its message, no buttons
            self._tell_outcomes(table, outcomes, round_no=rounds_before, story=story)
        else:
            # The round's last moves, what they meant for each player, then its reveal.
            self.outbox.edit_table(key, round_freeze)
            self._tell_outcomes(table, outcomes, round_no=rounds_before, story=story)
            table.message_no += 1
            self.outbox.post_table(key, left_screen, None)
        # Then the game's own account of the end, when it has one (`result_lines`).
        final = list(view.result_lines(match, table.names, cat)) if winners else []
        text = "\n".join([result, *final, cat.t("closed.finished")])
        # The end's picture, when the game draws one (`render_picture`), goes with it.
        picture = view.render_picture(match, table.names, cat) if winners else None
        self.outbox.post(
            key,
            Screen(
                fit_text(text, MAX_TEXT),
                literals=tuple(table.names),
                image=picture,
                language=cat.language,
            ),
        )
        self.deadlines.schedule(table)

    async def close(self, table: Table, reason: str, finished: FinishedMatch | None = None) -> None:
        """Close the table for `reason` (a `closed.*` message) and show it."""
        table.status = "closed"
        table.closed_reason = reason
        table.deadline = table.deadline_kind = None
        table.seq += 1
        self.uow.save(table, finished=finished)
        self.screens.show(table)

    async def deal(self, table: Table) -> None:
        freeze = self.screens.frozen(table)  # the reveal, as its message was posted
        outcome = self.games.rules_of(table).start_round(table.match, self.settings.rng)
        table.log = list(outcome.log)
        await self.after_step(table, outcome, freeze=freeze, new_round=True)

    async def forfeit(self, table: Table, seat: int, note: LogLine) -> None:
        if not table.seats[seat].in_match:
            raise ServiceError("error.already_out")
        table.log.append(note)
        table.seats[seat].left = True
        outcome = self.games.rules_of(table).forfeit(table.match, seat)
        table.log.extend(outcome.log)
        await self.after_step(table, outcome)

    def _tell_choices(self, table: Table, seats: set[int]) -> None:
        """Send each of `seats` their private screen with its buttons, where private messages
        reach them; the others pull it in the chat (the view button, or inline mode)."""
        if not seats:
            return  # nobody's choices changed (a game whose choices are on the table message)
        cat = self.catalogs.cat(table)
        # A notifier may refresh a private view a player pulled in the chat (Discord's
        # ephemeral "My hand"): such a player is told too, though not reachable by DM.
        notifier = self.notifier
        refreshes = notifier.refreshes if capable(notifier, Refreshing) else None
        for seat in sorted(seats):
            s = table.seats[seat]
            refused = self.players.refused(s.user)
            if refused and (refreshes is None or not refreshes(s.user)):
                continue  # never retry a player the platform refused for good
            self.outbox.tell(table.key.key, s.user, self.screens.private_screen(table, seat, cat))

    def _tell_outcomes(
        self,
        table: Table,
        outcomes: Iterable[Outcome],
        round_no: int | None = None,
        skip: set[int] | frozenset[int] = frozenset(),
        story: list[str] | None = None,
    ) -> None:
        """The game's private lines of each step, in order. The steps' public lines are the
        end of the round's log (`story`, rendered; the table's by default), each step's
        appended in turn, which places each private line where its step says
        (`Outcome.private_after`)."""
        steps = list(outcomes)
        if not any(o.private for o in steps):
            return  # no step has a private line (most steps of most games)
        if story is None:
            story = self.screens.round_log(table, self.catalogs.cat(table))
        start = len(story or ()) - sum(len(o.log) for o in steps)
        for o in steps:
            self._tell_private(table, o, round_no=round_no, skip=skip, before=story, at=start)
            start += len(o.log)

    def _tell_private(
        self,
        table: Table,
        outcome: Outcome,
        round_no: int | None = None,
        skip: set[int] | frozenset[int] = frozenset(),
        before: list[str] | None = None,
        at: int = -1,
    ) -> None:
        """The game's private lines of one step, each to its own seat (except `skip`). `at` is
        where the step's public lines begin in the rendered round log `before` (-1: not
        there); a line's screen carries that log up to the event it tells of (`Screen.log`),
        for a platform that prints one story (the terminal)."""
        if not outcome.private:
            return
        view = self.games.view_of(table)
        if round_no is None:
            round_no = view.round_number(table.match)
        cat = self.catalogs.cat(table)
        for i, (seat, line) in enumerate(outcome.private):
            s = table.seats[seat]
            if s.bot or seat in skip:
                continue
            if self.players.refused(s.user):
                continue  # never retry a player the platform refused for good
            text = cat.t(
                game_key(cat, table.game, "private.header"),  # a game's name for rounds
                round=round_no,
                table=table.key.key,
            )
            text = f"{text}\n{view.render_line(line, cat)}"
            placed: tuple[str, ...] = ()
            if before is not None and at >= 0 and i < len(outcome.private_after):
                placed = tuple(before[: at + outcome.private_after[i]])
            # Every private message carries the player's own signed web link (docs/web.md),
            # from the deal's first one on: a game whose choices are public sends no other.
            link = self.screens.seat_link_row(table, s.user, cat)
            self.outbox.tell(
                table.key.key,
                s.user,
                Screen(
                    text,
                    (link,) if link else (),
                    literals=tuple(table.names),
                    language=cat.language,
                    log=placed,
                ),
            )

    def finished_match(self, table: Table, winners: list[int]) -> FinishedMatch:
        """The table's match as it is stored once finished (or stopped)."""
        rules, now = self.games.rules_of(table), self.settings.clock.now()
        return rounds.finished_match(table, rules, winners, now)
