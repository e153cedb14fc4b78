"""The finished parts of a game's `dump`: the rounds that are over, stored once each.

A game's `dump` (bot/service/game.py) may put its match's finished rounds under `PARTS`; the
table stores them beside its row (bot/service/table.py, `TableRow.parts`) and gives them back
to `load`. `split_parts` and `join_parts` cut a dump's list of rounds so and put it together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The key of a game's `dump` under which it may put its match's finished parts: a list of JSON
#: objects (its rounds that are over, with all their moves) that only ever grows at its end, a
#: part never changing once in it. The service stores each part once, append-only
#: (`TableRow.parts`), and keeps only the rest of the dump in the table's row, so the bytes
#: written per move stay flat from the first round to the last; `load` gets the dump with the
#: whole list back. A dump without this key is stored whole.
PARTS = "finished_parts"


def split_parts(data: dict[str, Any], key: str, live: int = 1) -> tuple[dict[str, Any], list[Any]]:
    """`data` keeping only the last `live` items of its list `key` (the round under way, which
    may still change), and the items before them: the finished parts a `dump` puts under
    `PARTS`. `join_parts` undoes it."""
    items = list(data[key])
    cut = max(0, len(items) - live)
    return {**data, key: items[cut:]}, items[:cut]


def join_parts(data: dict[str, Any], key: str, parts: Sequence[Any] | None) -> dict[str, Any]:
    """`data` with the finished `parts` (from `split_parts`; None for a dump stored before
    parts were) put back in front of its list `key`."""
    return {**data, key: [*(parts or ()), *data[key]]}
