"""State growth benchmark: bytes of stored state written per move, first deal against last.

One table of bot seats per game plays a whole match through the real `TableService` on SQLite
(bots act as soon as they are due). Every `save_table` is measured: the bytes of the table's
state JSON it writes plus the bytes of the finished parts it appends (`TableRow.parts`, each
stored once). Printed per game: saves (moves and other commits), the mean bytes per save
during the first round or deal and during the last, their ratio, and the whole match's total.
A state that keeps every finished deal grows with the deal number (Karnaval: quadratic over the
game); one that stores a finished deal once stays flat.

The last line is one JSON object. Run: `.venv/bin/python benchmarks/state_growth.py` (about a
minute; `--seed N`).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script, this folder comes first on sys.path and benchmarks/storage.py would
    # shadow the `storage` package: put the repository root there instead.
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import json
import random
import statistics
import tempfile
from typing import Any

from bot.games.registry import all_games
from bot.service.commands import Configure, Open, Start
from bot.service.ports import Delivery, Screen, TableRow
from bot.service.service import TableService
from bot.service.table import TableKey, User
from storage.sqlite import SqliteRepository

HOST = User("bench:host", "Host")
#: (label, settings typed at the table): each a whole match of bot seats.
GAMES = (
    ("gnav 6", ["game=gnav", "bots=6", "lives=3"]),
    ("gnavspiel 6", ["game=gnavspiel", "bots=6", "chips=5"]),
    ("karnaval 3", ["game=karnaval", "bots=3"]),
    ("karnaval 6", ["game=karnaval", "bots=6"]),
)


class QuietNotifier:
    """Sends nothing."""

    async def post(self, channel: str, screen: Screen) -> str | None:
        """Pretend to post."""
        return "1"

    async def edit(self, channel: str, message_ref: str, screen: Screen) -> bool:
        """Pretend to edit."""
        return True

    async def tell(self, user: str, screen: Screen) -> Delivery:
        """Pretend to tell."""
        return Delivery.DELIVERED


class MeasuredSqlite(SqliteRepository):
    """SQLite that counts the bytes of table state (and appended parts) each save writes."""

    saves: list[int]

    async def save_table(self, row: TableRow, **kwargs: Any) -> Any:  # type: ignore[override]
        """Count the state's bytes and the parts', then save as usual."""
        size = len(json.dumps(row.state, separators=(",", ":")))
        for part in row.parts:
            size += len(json.dumps(part.data, separators=(",", ":")))
        self.saves.append(size)
        return await super().save_table(row, **kwargs)


async def one_match(folder: Path, label: str, settings: list[str], seed: int) -> dict[str, Any]:
    """Play one match of bot seats; bytes per save by round."""
    repo = await MeasuredSqlite.open(folder / f"{label.replace(' ', '_')}.sqlite3")
    repo.saves = []
    service = TableService(
        repo, QuietNotifier(), rng=random.Random(seed), bot_delay=0.0, games=all_games()
    )
    key = TableKey("bench", label.replace(" ", "_"))
    await service.handle(Open(key, HOST, sit=False))
    reply = await service.handle(Configure(key, HOST, [*settings, "delay=0"]))
    assert reply.ok, reply.text
    reply = await service.handle(Start(key, HOST))
    assert reply.ok, reply.text
    by_round: dict[int, list[int]] = {}
    idle = 0
    while True:
        before = len(repo.saves)
        acted = await service.tick()
        table = await service.table_state(key)
        assert table is not None
        if table.match is not None:
            number = service.games_of.view_of(table).round_number(table.match)
            by_round.setdefault(number, []).extend(repo.saves[before:])
        if table.status != "playing":
            break
        idle = 0 if acted else idle + 1
        if idle > 1000:
            raise RuntimeError(f"{label}: the match stopped making progress")
        await asyncio.sleep(0)
    await service.shutdown()
    await repo.close()
    rounds = sorted(r for r in by_round if r > 0 and by_round[r])
    first, last = by_round[rounds[0]], by_round[rounds[-1]]
    return {
        "game": label,
        "rounds": rounds[-1],
        "saves": len(repo.saves),
        "bytes_per_save_first": round(statistics.fmean(first)),
        "bytes_per_save_last": round(statistics.fmean(last)),
        "last_over_first": round(statistics.fmean(last) / statistics.fmean(first), 2),
        "bytes_total": sum(repo.saves),
    }


async def main() -> None:
    """Every game once; one line each, then the JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, settings in GAMES:
            fig = await one_match(Path(tmp), label, settings, args.seed)
            results.append(fig)
            print(
                f"{label}: {fig['rounds']} rounds, {fig['saves']} saves; bytes per save "
                f"first round {fig['bytes_per_save_first']:,}, last {fig['bytes_per_save_last']:,}"
                f" (x{fig['last_over_first']}); {fig['bytes_total']:,} bytes in all"
            )
    print(json.dumps({r["game"]: r for r in results}))


if __name__ == "__main__":
    asyncio.run(main())
