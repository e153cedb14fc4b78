"""Match records (MATCH_RECORD.md): validate, replay into an outcome, export a played match.

A record fixes chance (deals, bag order) and the players' choices; folding it through the
engine always gives the same outcome. Every problem is reported as one `RecordError` line that
names the round and action (1-based).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.games.common.engine import safejson
from bot.games.common.engine.record import RecordError
from bot.games.common.engine.record import where as _where
from bot.games.common.engine.safejson import cut, shown
from bot.games.gnav.engine.errors import RuleError
from bot.games.gnav.engine.events import event_text
from bot.games.gnav.engine.match import NO_PIECE, Match, RoundLog
from bot.games.gnav.engine.pieces import RANK_BY_TEXT, RANK_NAMES, parse_rank
from bot.games.gnav.engine.profiles import PROFILES

#: Exact record spellings of the ranks; anything else goes through `parse_rank` (and its errors).
_rank_of = RANK_BY_TEXT.get


def parse_record(text: str) -> Any:
    """Parse a record's JSON text: RecordError naming line and column when it is not JSON,
    or what makes it unusable (a huge integer, deep nesting, a lone surrogate).

    Reading the file is the caller's business (`bot.cli`): the engine does no I/O.
    """
    try:
        return safejson.loads(text)
    except safejson.JsonError as exc:
        raise RecordError(str(exc)) from None


def _clip(message: str, seats: Sequence[str]) -> str:
    """An engine message with long seat names in it cut to what an error line may echo."""
    for name in seats:
        if len(name) > safejson.MAX_SHOWN:
            message = message.replace(name, name[: safejson.MAX_SHOWN - 1] + "…")
    return message


def new_match_from_record(record: Any) -> Match:
    """Validate a record's header (profile, seats, lives, dealer) and set up its match."""
    if not isinstance(record, Mapping):
        raise RecordError("a match record is a JSON object")
    profile = record.get("profile", "norsk")
    if profile == "gnavspiel":
        raise RecordError('profile "gnavspiel" is not supported yet (RULES.md section 3)')
    if not isinstance(profile, str) or profile not in PROFILES:
        known = ", ".join(sorted(PROFILES))
        raise RecordError(f"profile {shown(profile)} is not known (known: {known})")
    seats = record.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s for s in seats):
        raise RecordError('"seats" must be a list of player names')
    if len(set(seats)) != len(seats):
        dup = next(s for s in seats if seats.count(s) > 1)
        raise RecordError(f"{shown(dup)} is seated twice")
    p = PROFILES[profile]
    if not p.min_players <= len(seats) <= p.max_players:
        raise RecordError(
            f"{profile} needs {p.min_players} to {p.max_players} players, not {len(seats)} (N3)"
        )
    lives_in = record.get("lives", {})
    if not isinstance(lives_in, Mapping):
        raise RecordError('"lives" must map player names to whole numbers')
    lives = [p.default_lives] * len(seats)
    for name, value in lives_in.items():
        if name not in seats:
            raise RecordError(f"lives: {shown(name)} is not seated")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RecordError(
                f"lives: {cut(name)} has {shown(value)}: a whole number of at least 1 (N3)"
            )
        lives[seats.index(name)] = value
    if "dealer" not in record:
        raise RecordError('"dealer" is missing: the seated player who deals the first round')
    dealer = record["dealer"]
    if dealer not in seats:
        raise RecordError(f"dealer {shown(dealer)} is not seated")
    return Match(seats, profile=p, lives=lives, dealer=seats.index(dealer))


def replay_record(record: Any) -> tuple[Match, dict[str, Any]]:
    """Fold a record through the engine: the match and its outcome (MATCH_RECORD.md)."""
    match = new_match_from_record(record)
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError('"rounds" must be a list')
    seats = match.seats
    index = {name: i for i, name in enumerate(seats)}
    for r_no, rnd in enumerate(rounds, 1):
        where = _where(r_no)
        if match.phase == "finished":
            raise RecordError(f"{where}: the match is already over (N23)")
        if match.phase == "play":
            turn = match.turn
            assert turn is not None
            raise RecordError(
                f"{_where(r_no - 1)}: the round stops short ({cut(seats[turn])} is still to act), "
                f"but only the last round may stop short"
            )
        if not isinstance(rnd, Mapping):
            raise RecordError(f"{where}: a round is a JSON object")
        deal_in = rnd.get("deal")
        if not isinstance(deal_in, Mapping):
            raise RecordError(f'{where}: "deal" must map player names to ranks')
        deal: dict[int, int] = {}
        for name, rank in deal_in.items():
            if name not in index:
                raise RecordError(f"{where}: {shown(name)} in the deal is not seated")
            value = _rank_of(rank) if type(rank) is str else None
            if value is None:
                try:
                    value = parse_rank(rank)
                except ValueError as exc:
                    raise RecordError(f"{where}: {_clip(str(exc), seats)}") from None
            deal[index[name]] = value
        bag_in = rnd.get("bag", [])
        if not isinstance(bag_in, list):
            raise RecordError(f'{where}: "bag" must be a list of ranks')
        bag = [_rank_of(x, -1) if type(x) is str else -1 for x in bag_in]
        if -1 in bag:  # something not written exactly as a rank: parse_rank says what
            try:
                bag = [parse_rank(x) for x in bag_in]
            except ValueError as exc:
                raise RecordError(f"{where}: bag: {_clip(str(exc), seats)}") from None
        try:
            match.start_round(deal, bag)
        except RuleError as exc:
            raise RecordError(f"{where}: {_clip(exc.message, seats)}") from None
        actions = rnd.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError(f'{where}: "actions" must be a list of [player, "stay" | "swap"]')
        play = match.act
        for a_no, action in enumerate(actions, 1):
            if (
                type(action) is not list
                or len(action) != 2
                or type(action[0]) is not str
                or type(action[1]) is not str
            ):
                raise RecordError(f'{_where(r_no, a_no)}: an action is [player, "stay" | "swap"]')
            name, verb = action
            seat = index.get(name)
            if seat is not None and match.phase == "play" and (verb == "stay" or verb == "swap"):
                try:  # the common case, checked by the engine itself
                    play(seat, verb)
                except RuleError as exc:
                    raise RecordError(
                        f"{_where(r_no, a_no)}: {_clip(exc.message, seats)}"
                    ) from None
                continue
            at = _where(r_no, a_no)
            if seat is None:
                raise RecordError(f"{at}: {shown(name)} is not seated")
            if verb == "forfeit":  # gnav-bot's extension: a player leaves the match
                try:
                    match.forfeit(index[name])
                except RuleError as exc:
                    raise RecordError(f"{at}: {_clip(exc.message, seats)}") from None
                continue
            if match.phase != "play":
                log = match.history[-1]
                if log.end == "redeal":
                    raise RecordError(f"{at}: the deal is void (C1): the round has no actions")
                raise RecordError(f"{at}: the round is over ({log.end}); no more actions")
            if verb not in ("stay", "swap"):
                raise RecordError(f"{at}: {shown(verb)} is not an action: stay, swap or forfeit")
            try:
                match.act(index[name], verb)
            except RuleError as exc:
                raise RecordError(f"{at}: {_clip(exc.message, seats)}") from None
    return match, outcome(match)


def outcome(match: Match) -> dict[str, Any]:
    """The outcome JSON of a match's rounds so far (MATCH_RECORD.md "Outcome")."""
    seats = match.seats
    rounds = [_round_outcome(match, log) for log in match.history]
    winners = None if match.winners is None else [seats[s] for s in sorted(match.winners)]
    return {"rounds": rounds, "winners": winners}


def _round_outcome(match: Match, log: RoundLog) -> dict[str, Any]:
    seats = match.seats
    lives = log.lives if log.end is not None else match.lives
    return {
        "dealer": seats[log.dealer],
        "events": [event_text(e, seats) for e in log.events],
        "end": log.end,
        "hands": {seats[s]: RANK_NAMES[r] for s, r in sorted(log.hands.items())},
        "lives": {seats[s]: v for s, v in enumerate(lives)},
        "eliminated": [seats[s] for s in log.eliminated],
    }


def export_record(match: Match) -> dict[str, Any]:
    """The match record of a match played so far; replaying it reproduces the match."""
    seats = match.seats
    return {
        "profile": match.profile.name,
        "seats": list(seats),
        "lives": {seats[s]: v for s, v in enumerate(match.initial_lives)},
        "dealer": seats[match.first_dealer],
        "rounds": [_round_record(seats, log) for log in match.history],
    }


def _round_record(seats: Sequence[str], log: RoundLog) -> dict[str, Any]:
    return {
        "deal": {seats[s]: RANK_NAMES[r] for s, r in enumerate(log.deal) if r != NO_PIECE},
        "bag": [RANK_NAMES[r] for r in log.bag],
        "actions": [[seats[s], verb] for s, verb in log.actions],
    }
