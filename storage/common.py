"""Helpers shared by the storage back-ends: statistics arithmetic and the order of `top`."""

from __future__ import annotations

from collections.abc import Iterable

from bot.service.ports import PlayerStats, StatDelta

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
