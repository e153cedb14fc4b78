"""What the games' web pages share: a seat's own piece or card as a tile, and the replay of a
finished match whose record has rounds of `[player, verb]` actions (Gnav's and Gnavspiel's,
MATCH_RECORD.md): the record folded by the engine's own reader, the table after each deal and
each action."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.service.game import GameRuleError
from bot.service.i18n import Catalog


def own_tile(name: str) -> dict[str, Any]:
    """The viewer's own piece or card as a tile, named in the table's language (its name is its
    accessible name)."""
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
