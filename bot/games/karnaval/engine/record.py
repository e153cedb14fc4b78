"""Karnaval match records (../shared/KARNAVAL_RECORD.md): validate, replay, outcome, export.

A record fixes chance (the draw, every deal's hands and stock) and the players' choices (bids,
plays); replaying it through the engine always gives the same outcome. An invalid record is one
`RecordError` whose message is the single error line: the location (`deal 2, play 5:`) and what
is wrong, the first fault met in the order of checks the record format lays down. A value of the
record repeated in a line (a name, a card, a choice) is cut to 80 characters, as `errors.cut`
shows it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from bot.games.karnaval.engine.errors import MAX_SHOWN, RuleError, cut, shown
from bot.games.karnaval.engine.game import CHOICE_WORDS, Karnaval, draw_winner

GAME = "karnaval"


class RecordError(ValueError):
    """An invalid Karnaval record; the message is the one error line, location first."""

    def __init__(self, line: str, error: RuleError | None = None) -> None:
        super().__init__(line)
        self.line = line
        self.error = error  # the engine's typed error behind it, if any


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_record(text: str) -> Any:
    """Parse a record's text as RFC 8259 JSON: no byte-order mark, no NaN or Infinity, nothing
    after the value (RecordError `file: not valid JSON (...)`). Reading the file is the
    caller's business: the engine does no I/O."""
    if text.startswith("\ufeff"):
        raise RecordError("file: not valid JSON (a byte-order mark is not allowed)")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise RecordError(f"file: not valid JSON ({exc})") from None
    except ValueError as exc:
        raise RecordError(f"file: not valid JSON ({exc})") from None
    except RecursionError:
        raise RecordError("file: not valid JSON (nested too deeply to read)") from None


def _is_str_list(value: Any) -> TypeGuard[list[str]]:
    return type(value) is list and all(type(c) is str for c in value)


def _names_list(names: list[str]) -> str:
    names = [cut(n) for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _clip(message: str, names: Sequence[str]) -> str:
    """An engine message with long player names in it cut to what an error line may echo."""
    for name in names:
        if len(name) > MAX_SHOWN:
            message = message.replace(name, cut(name))
    return message


def new_match_from_record(record: Any) -> Karnaval:
    """Check the record, its seats and its draw (steps 1-2) and set up the match."""
    if not isinstance(record, dict) or record.get("game") != GAME:
        raise RecordError('game: a Karnaval record has "game": "karnaval"')
    seats = record.get("seats")
    if (
        type(seats) is not list
        or not 3 <= len(seats) <= 6
        or not all(type(s) is str and s for s in seats)
        or len(set(seats)) != len(seats)
    ):
        raise RecordError("seats: 3 to 6 distinct player names")
    draw_in = record.get("draw")
    rounds: list[dict[int, str]] | None = None
    if draw_in is not None:
        if type(draw_in) is not list or not draw_in:
            raise RecordError("draw: a list of rounds, each an object of player: card")
        index = {name: i for i, name in enumerate(seats)}
        # A round repeated as one parsed object (safejson shares equal rounds) is converted
        # once and stays one object, which is what lets draw_winner and the match pass over a
        # long tie at a pointer a round (a hostile record: a million tied rounds). By the id of
        # a round of `draw_in` (which keeps it alive meanwhile), the rounds found in C.
        converted: dict[int, dict[int, str]] = {}
        for key, rnd in dict(zip(map(id, draw_in), draw_in, strict=True)).items():
            if type(rnd) is dict and all(k in index for k in rnd):
                converted[key] = {index[k]: v for k, v in rnd.items()}
            else:
                converted[key] = {-1: ""}  # not drawn by seated players: "wrong players"
        rounds = list(map(converted.__getitem__, map(id, draw_in)))
        try:
            draw_winner(seats, rounds)
        except RuleError as exc:
            r = exc.params.get("round")
            if exc.key == "karnaval.error.draw_undecided":
                line = (
                    f"draw: {_names_list(exc.params['players'])} tie for lowest in round "
                    f"{exc.params['last']} and must draw again"
                )
                raise RecordError(line, exc) from None
            where = "draw" if r is None else f"draw, round {r}"
            raise RecordError(f"{where}: {_clip(exc.message, seats)}", exc) from None
    return Karnaval(seats, rounds)


def replay_record(record: Any) -> tuple[Karnaval, dict[str, Any]]:
    """Validate and fold a record through the engine: the match and its outcome."""
    k = new_match_from_record(record)
    deals = record.get("deals")
    if type(deals) is not list:
        raise RecordError("deals: a list of deals is required")
    names = k.names
    n = k.n
    seat_of = {name: i for i, name in enumerate(names)}
    order_names = [names[s] for s in k.order]
    for d_no, deal in enumerate(deals, 1):
        at = f"deal {d_no}"
        if d_no > k.deal_total:
            raise RecordError(f"{at}: the match is over after {k.deal_total} deals")
        if type(deal) is not dict:
            raise RecordError(f"{at}: a deal is an object with hands, stock, bids, plays")
        hands = deal.get("hands")
        bad_hands = f"{at}: hands must be an object of player: list of cards"
        if type(hands) is not dict:
            raise RecordError(bad_hands)
        if set(hands) != set(names):
            exactly = ", ".join(cut(name) for name in order_names)
            raise RecordError(f"{at}: hands must be given for exactly {exactly}")
        if not all(_is_str_list(hands[p]) for p in order_names):
            raise RecordError(bad_hands)
        stock = deal.get("stock")
        if not _is_str_list(stock):
            raise RecordError(f"{at}: stock must be a list of cards")
        by_seat = [hands[name] for name in names]
        try:
            k.start_deal(by_seat, stock)
        except RuleError as exc:
            raise RecordError(f"{at}: {_clip(exc.message, names)}", exc) from None
        cards = k.deal_info(d_no - 1)["cards"]
        bids = deal.get("bids")
        if bids is None:
            bids = []
        if type(bids) is not list:
            raise RecordError(f"{at}: bids must be a list of [player, number]")
        for b_no, entry in enumerate(bids[:n], 1):
            if (
                type(entry) is not list
                or len(entry) != 2
                or type(entry[0]) is not str
                or type(entry[1]) is not int
            ):
                raise RecordError(f"{at}: a bid is [player, whole number] (entry {b_no} of bids)")
            name, number = entry
            seat = seat_of.get(name)
            turn = k.turn
            assert turn is not None
            if seat is None:
                raise RecordError(
                    f"{at}: it is {cut(names[turn])}'s turn to bid, not {cut(name)}'s"
                )
            try:
                k.bid(seat, number)
            except RuleError as exc:
                raise RecordError(f"{at}: {_clip(exc.message, names)}", exc) from None
        if len(bids) > n:
            raise RecordError(f"{at}: too many bids ({len(bids)} for {n} players)")
        plays = deal.get("plays")
        if plays is None:
            plays = []
        if type(plays) is not list:
            raise RecordError(f"{at}: plays must be a list of plays")
        if plays and len(bids) < n:
            raise RecordError(f"{at}: plays before all bids are in")
        current = k.current
        assert current is not None
        for p_no, entry in enumerate(plays, 1):
            where = f"{at}, play {p_no}"
            if current.complete:
                raise RecordError(f"{where}: the deal is over (all {cards} tricks are played)")
            _play_entry(k, where, entry, seat_of)
        if not current.complete and d_no < len(deals):
            raise RecordError(f"{at}: the deal is unfinished but the record goes on")
    return k, outcome(k)


def _play_entry(k: Karnaval, where: str, entry: Any, seat_of: Mapping[str, int]) -> None:
    """Check one entry of `plays` in the record format's order and play it."""
    if (
        type(entry) is not list
        or len(entry) not in (2, 3)
        or type(entry[0]) is not str
        or not (
            type(entry[1]) is str
            or (type(entry[1]) is list and len(entry[1]) == 2 and _is_str_list(entry[1]))
        )
        or (len(entry) == 3 and type(entry[2]) is not str)
    ):
        raise RecordError(
            f"{where}: a play is [player, card], [player, card, choice] or "
            "[player, [card, card]] (+ choice)"
        )
    name = entry[0]
    cards = (entry[1],) if type(entry[1]) is str else tuple(entry[1])
    choice = entry[2] if len(entry) == 3 else None
    if choice is not None and choice not in CHOICE_WORDS:
        raise RecordError(f"{where}: unknown choice {shown(choice)} (top, under, high, low, take)")
    turn = k.turn
    assert turn is not None
    seat = seat_of.get(name)
    if seat != turn:
        raise RecordError(f"{where}: it is {cut(k.names[turn])}'s turn, not {cut(name)}'s")
    try:
        k.play(turn, cards, choice)
    except RuleError as exc:
        raise RecordError(f"{where}: {_clip(exc.message, k.names)}", exc) from None


def outcome(k: Karnaval) -> dict[str, Any]:
    """The outcome JSON of a match so far (KARNAVAL_RECORD.md "Outcome")."""
    names = k.names
    order = k.order

    def per_player(values: list[int]) -> dict[str, int]:
        return {names[s]: values[s] for s in order}

    deals = []
    for d in k.deals:
        info = k.deal_info(d.index)
        bids = dict(d.bids)
        deals.append(
            {
                "deal": d.index + 1,
                "quarter": info["quarter"],
                "number": info["number"],
                "cards": info["cards"],
                "dealer": names[info["dealer"]],
                "leader": names[info["leader"]],
                "trump_card": d.trump_card,
                "trump": d.trump,
                "bids": {names[s]: bids[s] for s in order if s in bids},
                "tricks": [names[s] for s in d.tricks],
                "taken": per_player(d.taken(k.n)),
                "scores": None if d.scores is None else per_player(d.scores),
                "complete": d.complete,
            }
        )
    quarters = [
        {
            "quarter": q["quarter"],
            "sums": per_player(q["sums"]),
            "premiums": per_player(q["premiums"]),
            "penalties": per_player(q["penalties"]),
            "totals": per_player(q["totals"]),
        }
        for q in k.quarter_rows()
    ]
    totals = k.totals()
    winners = k.winners
    phase = k.phase
    nxt: dict[str, Any] | None
    if phase == "over":
        nxt = None
    elif phase == "deal":
        dealer = k.next_dealer
        assert dealer is not None
        nxt = {"deal": len(k.deals) + 1, "action": "deal", "player": names[dealer]}
    else:
        turn = k.turn
        assert turn is not None
        nxt = {"deal": len(k.deals), "action": phase, "player": names[turn]}
    return {
        "order": [names[s] for s in order],
        "deals": deals,
        "quarters": quarters,
        "totals": None if totals is None else per_player(totals),
        "winners": None if winners is None else [names[s] for s in winners],
        "next": nxt,
    }


def export_record(k: Karnaval) -> dict[str, Any]:
    """The record of a match as played so far (a half-made step of `act` is not a play)."""
    names = k.names
    record: dict[str, Any] = {"game": GAME, "seats": list(names)}
    if k.draw is not None:
        record["draw"] = [{names[s]: c for s, c in sorted(r.items())} for r in k.draw]
    deals = []
    for d in k.deals:
        plays: list[list[Any]] = []
        for p in d.plays:
            entry: list[Any] = [names[p.seat], p.cards[0] if len(p.cards) == 1 else list(p.cards)]
            if p.choice is not None:
                entry.append(p.choice)
            plays.append(entry)
        deals.append(
            {
                "hands": {names[s]: list(d.hands[s]) for s in k.order},
                "stock": list(d.stock),
                "bids": [[names[s], b] for s, b in d.bids],
                "plays": plays,
            }
        )
    record["deals"] = deals
    return record
