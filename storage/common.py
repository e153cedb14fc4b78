"""Helpers shared by the storage back-ends: JSON encoding, statistics arithmetic, `top` order."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from bot.service.ports import PlayerStats, StatDelta

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dump_json(value: Any) -> str:
    """Compact JSON text for a stored document (state, record, settings).

    orjson encodes a table's state several times faster than the standard library, which
    matters because every accepted command stores its table. It refuses what no store can
    keep: TypeError for what JSON cannot hold, ValueError for a lone surrogate (not UTF-8) and
    for NaN or infinity (orjson would write null; a game state never holds such a number).
    """
    try:
        data = orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError as exc:
        if "surrogates" in str(exc) or "UTF-8" in str(exc):
            raise ValueError(str(exc)) from None
        raise TypeError(str(exc)) from None
    return data.decode()


def load_json(text: str) -> Any:
    """Parse stored JSON text."""
    return orjson.loads(text)


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
