"""Gnav on the web page: the viewer's own piece, every seat's lives at the seat (N1: a piece
is hidden from the others until the reveal), and the replay of a finished match: the record
folded by the engine's own reader, the table after each deal and each action (MATCH_RECORD.md),
every seat's piece shown from the deal on. Gnavspiel's records have the same rounds of actions
and use the replay too (bot/games/gnavspiel/web.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.games.gnav.engine.match import NO_PIECE, Match
from bot.service.game import GameRuleError
from bot.service.i18n import Catalog


def web_view(
    match: Match,
    seat: int | None,
    names: Sequence[str],
    cat: Catalog,
    label: str,
    piece: Callable[[int], str],
) -> dict[str, Any]:
    """The page's shapes of a Gnav match for `seat` (None: a spectator): each seat's lives and
    the dealer (`seats`), and `seat`'s own piece only; `label` titles the piece, `piece` names
    a rank."""
    # The round's own dealer: after the reveal the engine has already passed the deal on.
    dealer = match.history[-1].dealer if match.history else match.dealer
    seats = []
    for i in range(len(names)):
        facts = [
            {"sym": "♥", "text": cat.t("gnav.web.lives", lives=match.lives[i])}
            if match.in_match[i]
            else {"sym": "", "text": cat.t("gnav.seat.out")}
        ]
        if i == dealer:
            facts.append({"sym": cat.t("gnav.seat.dealer_mark"), "text": cat.t("gnav.web.dealer")})
        seats.append({"facts": facts})
    out: dict[str, Any] = {"seats": seats}
    if seat is not None and match.phase == "play" and 0 <= seat < len(names):
        rank = match.hands[seat]
        if rank != NO_PIECE:
            out["own"] = {"title": label, "tiles": [piece_tile(rank, piece)]}
    return out


def piece_tile(rank: int, piece: Callable[[int], str]) -> dict[str, Any]:
    """A piece as a tile (its name is its accessible name)."""
    name = piece(rank)
    return {"id": "own", "text": name, "tone": "", "note": "", "label": name}


def replay_steps(
    record: dict[str, Any],
    cat: Catalog,
    view: Any,
    fold: Callable[[Any], tuple[Any, Any]],
    wrap: Callable[[Any], Any] = lambda m: m,
    hands: Callable[[Any], list[list[dict[str, Any]]]] | None = None,
    opening: Callable[[Any], list[Any]] | None = None,
) -> list[dict[str, Any]]:
    """The steps of a record of rounds of `[player, verb]` actions: the record cut at each
    round's start and folded by `fold` (the engine's `replay_record`), then each action made
    by the game's rules (`view.rules`), so each step's lines are the round's log as the table
    showed it, in the table's language; `wrap` makes the folded match what `view` renders;
    `hands` gives every seat's piece or card now as tiles (the record is public: each is
    shown from the deal on, and where it went); `opening` gives the deal's own public log
    lines (a Narr's knock, the ante) from the folded match, as the table said them before
    anyone acted. `deal` numbers each step's round."""
    rounds = record.get("rounds") or []
    seats: Sequence[str] = record.get("seats") or []
    steps: list[dict[str, Any]] = []
    rules = view.rules
    for r, rnd in enumerate(rounds):
        actions = rnd.get("actions") or []
        cut = {**record, "rounds": [*rounds[:r], {**rnd, "actions": []}]}
        try:
            match, _ = fold(cut)
        except ValueError:  # the engines' RecordError: a record this page cannot cut
            return steps
        table = wrap(match)
        story = [view.render_line(line, cat) for line in (opening(table) if opening else [])]
        for a in range(len(actions) + 1):
            if a:
                name, verb = actions[a - 1]
                seat = list(seats).index(name) if name in seats else -1
                try:
                    if verb == "forfeit":
                        outcome = rules.forfeit(table, seat)
                    else:
                        outcome = rules.act(table, seat, verb)
                except (GameRuleError, ValueError, IndexError):  # a record the rules refuse
                    return steps
                story += [view.render_line(line, cat) for line in outcome.log]
            lines = list(view.render_status(table, seats, cat))
            deciders = set(rules.deciders(table))
            if not deciders:
                lines += view.render_reveal(table, seats, cat)
            if story:
                lines += ["—", *story]
            shapes = view.web_view(table, None, seats, cat)
            shapes["hands"] = hands(table) if hands is not None else []
            steps.append(
                {
                    "text": "\n".join(lines),
                    "shapes": shapes,
                    "deal": r,
                    "seats": [{"name": n, "turn": i in deciders} for i, n in enumerate(seats)],
                }
            )
    return steps


def gnav_hands(match: Match, piece: Callable[[int], str]) -> list[list[dict[str, Any]]]:
    """Every seat's piece now (the replay's: the record is public)."""
    return [[] if rank == NO_PIECE else [piece_tile(rank, piece)] for rank in match.hands]
