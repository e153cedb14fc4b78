"""Gnavspiel match records (MATCH_RECORD.md, "Profile `gnavspiel`"): validate, replay, export.

A record fixes chance (each deal and the whole stock, top first) and every decision, one action
per decision. Folding it through the engine always gives the same outcome. Every problem is one
`RecordError` line naming the round and action (1-based), worded as MATCH_RECORD.md's Errors
section words it. A value of the record repeated in a line (a name, a card, a verb) is cut to
80 characters, as `safejson.cut` shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.games.common.engine.record import RecordError as _SharedRecordError
from bot.games.common.engine.record import where as _where
from bot.games.common.engine.safejson import MAX_SHOWN, cut, shown
from bot.games.gnavspiel.engine.cards import CARD_BY_NAME, CARD_NAMES
from bot.games.gnavspiel.engine.errors import RuleError
from bot.games.gnavspiel.engine.events import event_text
from bot.games.gnavspiel.engine.match import (
    ACTIONS,
    DEFAULT_CHIPS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_CARD,
    VARIANTS,
    Match,
    RoundLog,
)

PROFILE = "gnavspiel"


class RecordError(_SharedRecordError):
    """An invalid gnavspiel record; the message is one line naming where and what.

    It subclasses the record error Gnav's reader raises (bot/games/common/engine), so
    `gnav-bot replay` reports both the same way.
    """


def _clip(message: str, seats: Sequence[str]) -> str:
    """An engine message with long seat names in it cut to what an error line may echo."""
    for name in seats:
        if len(name) > MAX_SHOWN:
            message = message.replace(name, cut(name))
    return message


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def new_match_from_record(record: Any) -> Match:
    """Validate a record's header (profile, seats, chips, deals, variants, dealer); set up."""
    if not isinstance(record, Mapping):
        raise RecordError("a match record is a JSON object")
    if record.get("profile") != PROFILE:
        raise RecordError(f'profile {shown(record.get("profile"))} is not "gnavspiel"')
    seats = record.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s for s in seats):
        raise RecordError('"seats" must be a list of player names')
    if len(set(seats)) != len(seats):
        dup = next(s for s in seats if seats.count(s) > 1)
        raise RecordError(f"seats: {shown(dup)} is seated twice")
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise RecordError(
            f"seats: gnavspiel needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(seats)} (G1)"
        )
    chips = record.get("chips", DEFAULT_CHIPS)
    if not _whole(chips) or chips < 2:
        raise RecordError(
            "chips: every player starts with the same whole number of chips, at least 2 (G2, C14)"
        )
    deals = record.get("deals")
    if deals is not None and (not _whole(deals) or deals < 1):
        raise RecordError(
            "deals: the agreed number of deals is a whole number of at least 1, or null (C20)"
        )
    variants = record.get("variants", [])
    if not isinstance(variants, list):  # optional, but a list when given (null is not)
        raise RecordError('variants: a list of "stand" and "jack_taboo" (G10, C24)')
    for v in variants:
        if not isinstance(v, str) or v not in VARIANTS:
            raise RecordError(
                f'variants: {shown(v)} is not a gnavspiel variant (known: "stand",'
                ' "jack_taboo") (G10, C24)'
            )
        if variants.count(v) > 1:
            raise RecordError(f'variants: "{v}" is listed twice (G10, C24)')
    if "dealer" not in record:
        raise RecordError('"dealer" is missing: the dealer of round 1')
    dealer = record["dealer"]
    if not isinstance(dealer, str) or dealer not in seats:
        raise RecordError(f"dealer: {shown(dealer)} is not seated")
    return Match(
        seats,
        chips=chips,
        deals=deals or 0,
        variants=variants,
        dealer=seats.index(dealer),
    )


def _card(value: Any, round_no: int) -> int:
    card = CARD_BY_NAME.get(value) if isinstance(value, str) else None
    if card is None:
        raise RecordError(f"{_where(round_no)}: card {shown(value)} is not a gnavspiel card")
    return card


def _read_deal(match: Match, rnd: Any, round_no: int) -> tuple[list[int], list[int]]:
    """A round's `deal` and `stock`, checked against the deck and the players still in."""
    where = _where(round_no)
    if not isinstance(rnd, Mapping):
        raise RecordError(f"{where}: a round is an object with deal, stock and actions")
    deal = rnd.get("deal")
    stock = rnd.get("stock")
    if not isinstance(deal, Mapping):
        raise RecordError(f"{where}: the deal must map each player still in to its card")
    if not isinstance(stock, list):
        raise RecordError(f"{where}: the stock must list every card not dealt, top first")
    seats = match.seats
    want = {seats[s] for s in match.players_left}
    if set(deal) != want:
        names = ", ".join(cut(seats[s]) for s in match.players_left)
        raise RecordError(f"{where}: the deal must give one card to each player still in: {names}")
    cards = [NO_CARD] * match.n
    for name, value in deal.items():
        cards[seats.index(name)] = _card(value, round_no)
    stock_cards = [_card(v, round_no) for v in stock]
    seen: set[int] = set()
    for c in [c for c in cards if c != NO_CARD] + stock_cards:
        if c in seen:
            raise RecordError(
                f'{where}: card "{CARD_NAMES[c]}" appears twice (the deck has one of each, G1)'
            )
        seen.add(c)
    for c, name in enumerate(CARD_NAMES):
        if c not in seen:
            raise RecordError(
                f'{where}: card "{name}" is missing (the stock holds every card not dealt)'
            )
    return cards, stock_cards


def _pending(match: Match) -> str:
    """`Bob is to choose "borrow" or "decline"`: the open decision, for an unfinished round."""
    seat = match.deciders()[0]
    words = [f'"{c.action}"' for c in match.choices(seat)]
    may = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    return f"{cut(match.seats[seat])} is to choose {may}"


def replay_record(record: Any) -> tuple[Match, dict[str, Any]]:
    """Validate and replay a gnavspiel record; returns the match and its outcome JSON."""
    match = new_match_from_record(record)
    rounds = record.get("rounds")  # required (MATCH_RECORD.md): only chips, deals, variants
    if not isinstance(rounds, list):  # are optional
        raise RecordError('"rounds" must be a list of rounds')
    seats = match.seats
    for i, rnd in enumerate(rounds, start=1):
        if match.phase == "over":
            raise RecordError(f"{_where(i)}: the match is already over")
        if match.phase != "deal":
            raise RecordError(
                f"{_where(i - 1)}: the round is unfinished ({_pending(match)}) but the record"
                " goes on"
            )
        cards, stock = _read_deal(match, rnd, i)
        try:
            match.start_deal(cards, stock)
        except RuleError as exc:
            raise RecordError(f"{_where(i)}: {_clip(exc.message, seats)}") from None
        actions = rnd.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError(f"{_where(i)}: actions must be a list of [player, verb]")
        for j, action in enumerate(actions, start=1):
            where = _where(i, j)
            if (
                not isinstance(action, list)
                or len(action) != 2
                or not all(isinstance(x, str) for x in action)
            ):
                raise RecordError(f"{where}: an action is [player, verb], two strings")
            name, verb = action
            if verb not in ACTIONS:
                raise RecordError(
                    f"{where}: {shown(verb)} is not a gnavspiel action"
                    f" (known: {', '.join(ACTIONS)})"
                )
            if name not in seats:
                raise RecordError(f"{where}: {shown(name)} is not seated")
            try:
                match.act(seats.index(name), verb)
            except RuleError as exc:
                raise RecordError(f"{where}: {_clip(exc.message, seats)}") from None
    return match, outcome(match)


def outcome(match: Match) -> dict[str, Any]:
    """The outcome JSON of a match's rounds so far (MATCH_RECORD.md, gnavspiel "Outcome")."""
    seats = match.seats
    rounds = [_round_outcome(match, log) for log in match.history]
    result = match.result
    res: dict[str, Any] | None = None
    if result is not None:
        res = {
            "winner": seats[result.winner],
            "by": result.by,
            "pot": result.pot,
            "collects": {seats[s]: d for s, d in result.collects},
            "takes": result.takes,
            "balance": {seats[s]: b for s, b in enumerate(result.balance)},
        }
    return {"rounds": rounds, "result": res}


def _round_outcome(match: Match, log: RoundLog) -> dict[str, Any]:
    seats = match.seats
    done = log.end is not None
    chips = log.chips if done else match.chips
    debts = log.debts if done else match.debts
    pot = log.pot if done else match.pot
    return {
        "dealer": seats[log.dealer],
        "events": [event_text(e, seats) for e in log.events],
        "end": log.end,
        "hands": {seats[s]: CARD_NAMES[c] for s, c in sorted(log.hands.items())},
        "chips": {seats[s]: v for s, v in enumerate(chips)},
        "debts": {seats[s]: v for s, v in enumerate(debts)},
        "pot": pot,
        "eliminated": [seats[s] for s in log.eliminated] if done else [],
    }


def export_record(match: Match) -> dict[str, Any]:
    """The record of a match played so far; replaying it reproduces the match's outcome.

    A deal under way is left out (its cards are still hidden): a match in progress exports the
    finished deals only.
    """
    seats = match.seats
    logs = [log for log in match.history if log.end is not None]
    s = match.settings
    return {
        "profile": PROFILE,
        "seats": list(seats),
        "chips": s.chips,
        "deals": s.deals or None,
        "variants": [v for v in VARIANTS if v in s.variants],
        "dealer": seats[match.first_dealer],
        "rounds": [_round_record(seats, log) for log in logs],
    }


def _round_record(seats: list[str], log: RoundLog) -> dict[str, Any]:
    return {
        "deal": {seats[s]: CARD_NAMES[c] for s, c in enumerate(log.deal) if c != NO_CARD},
        "stock": [CARD_NAMES[c] for c in log.stock],
        "actions": [[seats[s], verb] for s, verb in log.actions],
    }
