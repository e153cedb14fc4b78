"""Helpers shared by the storage back-ends: JSON encoding, statistics arithmetic, `top` order."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from bot.service.ports import PlayerStats, StatDelta

# One encoder for every save (json.dumps would build one per call). Without the circular check
# a cyclic document fails with RecursionError instead of ValueError: still refused, and every
# save of a table's state is a little cheaper.
_ENCODER = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False
)


def dump_json(value: Any) -> str:
    """Compact JSON text for a stored document (state, record, settings).

    Raises TypeError for what JSON cannot hold, ValueError for NaN or infinity and
    UnicodeEncodeError (a ValueError) for a lone surrogate, which no store can keep as UTF-8.
    """
    text = _ENCODER.encode(value)
    text.encode("utf-8")
    return text


def load_json(text: str) -> Any:
    """Parse stored JSON text."""
    return json.loads(text)


#: The counters of a statistics row, in storage column order.
STAT_FIELDS: tuple[str, ...] = (
    "matches",
    "wins",
    "rounds",
    "lives_lost",
    "times_paid",
    "refusals",
)


def add_stats(table: dict[tuple[str, str], PlayerStats], delta: StatDelta) -> None:
    """Add one delta to an in-memory statistics table."""
    key = (delta.chat, delta.user)
    row = table.get(key)
    if row is None:
        row = table[key] = PlayerStats(user=delta.user, name=delta.name)
    row.name = delta.name
    for name in STAT_FIELDS:
        setattr(row, name, getattr(row, name) + getattr(delta, name))


def top_key(stats: PlayerStats) -> tuple[float, float, float, str]:
    """Sort key of `top`: most wins, then fewest lives lost per round, then most matches."""
    per_round = stats.lives_lost / stats.rounds if stats.rounds else 0.0
    return (-stats.wins, per_round, -stats.matches, stats.name.casefold())


def rank_top(rows: Iterable[PlayerStats], limit: int) -> list[PlayerStats]:
    """The best `limit` rows by `top_key` (players with at least one match)."""
    return sorted((r for r in rows if r.matches or r.rounds), key=top_key)[:limit]


class DuplicateMatchError(ValueError):
    """A finished match's id is already stored; the save that carried it stored nothing."""
