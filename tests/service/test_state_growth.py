"""Issue 17 point 6: a game's stored state grows with its round, not with the game. The finished
deals of a Karnaval game (its `PARTS`) are each stored once, append-only, beside the table's row;
the row keeps only the deal under way, so the bytes written per move stay flat from the first
deal to the last, and a restarted service loads the same match back."""

from __future__ import annotations

import json
from typing import Any

from bot.games.karnaval.engine.record import export_record
from bot.service.commands import Configure, Open, Start
from bot.service.parts import PARTS
from bot.service.ports import TableRow
from bot.service.table import User
from storage.common import dump_json
from storage.memory import MemoryRepository
from tests.service.conftest import CHANNEL, Harness

HOST = User("test:host", "Host")


class MeasuredMemory(MemoryRepository):
    """The in-memory store, keeping what each save wrote: (deals so far, row bytes, part
    bytes, seqs of the parts added)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[int, int, int, list[int]]] = []

    async def save_table(self, row: TableRow, **kwargs: Any) -> Any:  # type: ignore[override]
        """Measure, then save as usual."""
        match = row.state.get("match")
        deals = 0 if match is None else match[PARTS] + len(match["match"]["deals"])
        parts = sum(len(dump_json(p.data)) for p in row.parts)
        self.writes.append((deals, len(dump_json(row.state)), parts, [p.seq for p in row.parts]))
        return await super().save_table(row, **kwargs)


async def test_karnaval_state_after_deal_12_grows_by_less_than_the_record_of_the_deals() -> None:
    repo = MeasuredMemory()
    h = Harness(seed=11, repo=repo)
    svc = h.service
    assert (await svc.handle(Open(CHANNEL, HOST, sit=False))).ok
    reply = await svc.handle(Configure(CHANNEL, HOST, ["game=karnaval", "bots=3", "delay=0"]))
    assert reply.ok, reply.text
    assert (await svc.handle(Start(CHANNEL, HOST))).ok
    await h.settle()  # the bots play the whole game
    table = await h.table()
    assert table.status == "closed" and table.match.k.phase == "over"
    writes = [w for w in repo.writes if w[0] > 0]
    assert max(w[0] for w in writes) == 12

    def row_after(deal: int) -> int:
        return [w[1] for w in writes if w[0] == deal][-1]

    def per_move(deal: int) -> float:
        sizes = [w[1] + w[2] for w in writes if w[0] == deal]
        return sum(sizes) / len(sizes)

    record = export_record(table.match.k)
    later_deals = len(json.dumps(record["deals"][1:], separators=(",", ":")))
    # The row after deal 12 is no larger than after deal 1 by more than the deals since.
    assert row_after(12) - row_after(1) <= later_deals
    # Far less in fact: the row holds one deal, whichever it is (12 cards a hand, not 6).
    assert row_after(12) <= 2 * row_after(1)
    # Bytes written per move (row and parts) at the last deal within 2x of the first.
    assert per_move(12) <= 2 * per_move(1)
    # Every finished deal was written once: deals 1-11 as parts 0-10, deal 12 in the row.
    added = [seq for w in writes for seq in w[3]]
    assert added == list(range(11))
    # A restarted service reads the same match back (parts and row joined again).
    again = h.make_service()
    loaded = await again.table_state(CHANNEL)
    assert loaded is not None and loaded is not table
    rules = svc.game_of(table)
    assert rules.dump(loaded.match) == rules.dump(table.match)
    assert export_record(loaded.match.k) == record
