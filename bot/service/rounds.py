"""What a step of a match changes at a table, beside the game's own state: the seats whose
choices moved (their buttons' versions), the seats that left playing their timeout choice,
who chooses privately now, and the statistics and record of a round or match. Plain functions
of the table and its game's rules, for `Play` (play.py)."""

from __future__ import annotations

from collections.abc import Iterable

from bot.service.game import GameRules, GameView
from bot.service.moves import Outcome
from bot.service.ports import FinishedMatch, StatDelta
from bot.service.table import ACTED, Table


def refresh_choices(table: Table, rules: GameRules) -> list[int]:
    """Move the version of every seat whose choices changed, and only theirs.

    A seat's buttons carry its own version, so a private keyboard stays valid while other
    seats act, and goes stale once the seat itself acted or its choices changed. The new
    version is the table's (just moved on), so versions of different seats never collide
    and a press of another seat's current button is told apart from an old one.
    """
    deciders = set(table.deciders_for(rules)) if table.status == "playing" else set()
    moved = []
    for i, seat in enumerate(table.seats):
        mark = ""
        if i in deciders:
            mark = "|".join(f"{c.action}:{c.arg or ''}" for c in table.choices_for(rules, i))
        if mark != seat.mark:
            seat.mark = mark
            seat.seq = table.seq
            moved.append(i)
    return moved


def settle(table: Table, rules: GameRules) -> list[Outcome]:
    """Seats that left but still decide (the game keeps them in the round under way, or
    plays them to the end) take their timeout choice at once (no waiting)."""
    outcomes = []
    match = table.match
    while True:
        leaving = [s for s in rules.deciders(match) if table.seats[s].left]
        if not leaving:
            break
        seat = leaving[0]
        choice = rules.timeout_choice(match, seat)
        o = rules.act(match, seat, choice.action, choice.arg)
        table.seats[seat].mark = ACTED
        table.log.extend(o.log)
        outcomes.append(o)
    return outcomes


def choosing(table: Table, rules: GameRules, view: GameView, moved: Iterable[int]) -> set[int]:
    """The people among `moved` (seats whose choices just changed) who now choose
    privately: a game with private choices, a seat that decides, not a bot."""
    if view.public_choices or table.status != "playing":
        return set()
    deciders = set(table.deciders_for(rules))
    return {s for s in moved if s in deciders and not table.seats[s].bot}


def no_humans_left(table: Table) -> bool:
    """Whether every person at the table is out of its match (only bots play on)."""
    humans = [i for i, s in enumerate(table.seats) if not s.bot]
    if not humans:
        return False
    return not any(table.seats[i].in_match for i in humans)


def stat_deltas(table: Table, outcome: Outcome) -> list[StatDelta]:
    """What a step's round statistics add for each person."""
    out = []
    for seat, counters in outcome.round_stats.items():
        s = table.seats[seat]
        if s.bot:
            continue
        out.append(
            StatDelta(
                chat=table.key.chat_key,
                user=s.user,
                name=s.name,
                game=table.game,
                counters=dict(counters),
            )
        )
    return out


def match_deltas(table: Table, rules: GameRules) -> list[StatDelta]:
    """What the finished match adds for each person (a match, a win)."""
    winners = set(rules.winners(table.match))
    # Issue 33: a match played where hints were on is counted as such (`/stats` says so).
    hinted = {"hinted": 1} if table.settings.hints == "on" else {}
    return [
        StatDelta(
            chat=table.key.chat_key,
            user=s.user,
            name=s.name,
            game=table.game,
            counters={"matches": 1, "wins": 1 if i in winners else 0, **hinted},
        )
        for i, s in enumerate(table.seats)
        if not s.bot
    ]


def finished_match(table: Table, rules: GameRules, winners: list[int], now: float) -> FinishedMatch:
    """The table's match as it is stored once finished (or stopped)."""
    assert table.match_id is not None
    return FinishedMatch(
        match_id=table.match_id,
        chat=table.key.chat_key,
        table_key=table.key.key,
        game=table.game,
        record=rules.record(table.match),
        winners=[table.seats[i].name for i in winners],
        finished_at=now,
    )
