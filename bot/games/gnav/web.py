"""Gnav's replay on the web page: a finished match's record as steps, the table after each
deal and each action (MATCH_RECORD.md), folded by the engine's own record reader. Gnavspiel's
records have the same rounds of actions and use it too."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.service.i18n import Catalog


def replay_steps(
    record: dict[str, Any],
    cat: Catalog,
    view: Any,
    fold: Callable[[Any], tuple[Any, Any]],
    wrap: Callable[[Any], Any] = lambda m: m,
) -> list[dict[str, Any]]:
    """The steps of a record of rounds of `[player, verb]` actions: the record cut after each
    action and folded by `fold` (the engine's `replay_record`); `wrap` makes the folded match
    what `view` (the game's GameView) renders."""
    rounds = record.get("rounds") or []
    seats: Sequence[str] = record.get("seats") or []
    steps: list[dict[str, Any]] = []
    for r, rnd in enumerate(rounds):
        actions = rnd.get("actions") or []
        for a in range(len(actions) + 1):
            cut = {**record, "rounds": [*rounds[:r], {**rnd, "actions": actions[:a]}]}
            try:
                match, _ = fold(cut)
            except ValueError:  # the engines' RecordError: a record this page cannot cut
                return steps
            table = wrap(match)
            lines = list(view.render_status(table, seats, cat))
            deciders = set(view.rules.deciders(table))
            if not deciders:
                lines += view.render_reveal(table, seats, cat)
            if a:
                name, verb = actions[a - 1]
                lines += ["—", f"{name}: {verb}"]
            steps.append(
                {
                    "text": "\n".join(lines),
                    "shapes": view.web_view(table, None, seats, cat),
                    "seats": [{"name": n, "turn": i in deciders} for i, n in enumerate(seats)],
                }
            )
    return steps
