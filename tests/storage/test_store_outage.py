"""Stores that go away and come back: PostgreSQL behind a cut network, SQLite on a full disk.

Every method raises the one StoreUnavailable (with a reason) while the store is away, nothing
of a failed write is stored, and the store serves again by itself once it is back. SQLite
checkpoints and cuts back its WAL after a write failed for space and after writing again.
"""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.service.ports import Claim, StoreUnavailable, TableRow
from storage.postgres import PostgresRepository
from storage.sqlite import SqliteRepository
from tests.storage.disk import fill, small_tmpfs
from tests.storage.gate import TcpGate, gated_postgres


def row(key: str, version: int, blob: str = "") -> TableRow:
    return TableRow(
        key=key,
        version=version,
        status="lobby",
        state={"n": version, "blob": blob},
        deadline=None,
        updated_at=float(version),
        table_id=key[-6:],
    )


@pytest.fixture
async def gated() -> AsyncIterator[tuple[PostgresRepository, TcpGate]]:
    """A PostgreSQL store whose connections pass a gate the test closes and opens."""
    async with gated_postgres() as store:
        yield store


async def test_postgres_away_raises_store_unavailable_and_serves_again(
    gated: tuple[PostgresRepository, TcpGate],
) -> None:
    repo, gate = gated
    await repo.save_table(row("t:1", 1), expected_version=None)
    await gate.close()
    with pytest.raises(StoreUnavailable, match="PostgreSQL store") as caught:
        await repo.save_table(row("t:1", 2), expected_version=1)
    assert "\n" not in caught.value.reason
    with pytest.raises(StoreUnavailable):
        await repo.load_table("t:1")
    with pytest.raises(StoreUnavailable):
        await repo.claim_timers(Claim("me", 0.0, 5.0))
    await gate.open()
    # Back by itself: the pool connects again; the failed save stored nothing.
    stored = await repo.load_table("t:1")
    assert stored is not None and stored.version == 1
    await repo.save_table(row("t:1", 2), expected_version=1)
    assert (await repo.table_version("t:1")) == 2


# ------------------------------------------------------------------ SQLite on a full disk
@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs (root only: skipped where mounting is not allowed)."""
    with small_tmpfs(tmp_path) as point:
        yield point


async def test_sqlite_full_disk_fails_whole_writes_then_writes_again_with_a_small_wal(
    small_disk: Path,
) -> None:
    path = small_disk / "gnav.sqlite3"
    repo = await SqliteRepository.open(path)
    try:
        await repo.save_table(row("t:1", 1), expected_version=None)
        filler = fill(small_disk)
        failures: list[StoreUnavailable] = []
        big = "x" * 20_000
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for version in range(2, 40):
                try:
                    await repo.save_table(row("t:1", version, big), expected_version=version - 1)
                except StoreUnavailable as exc:
                    failures.append(exc)
                    break
            # Several writes in one batch fail together, none applied alone.
            many = await asyncio.gather(
                *(
                    repo.save_table(row(f"t:n{i}", 1, big), expected_version=None)
                    for i in range(20)
                ),
                return_exceptions=True,
            )
            gc.collect()
        assert failures, "the disk never filled"
        reason = failures[0].reason
        assert "database or disk is full" in reason and "needs about" in reason
        assert all(isinstance(r, StoreUnavailable) for r in many)
        assert not [w for w in caught if "never retrieved" in str(w.message)]
        stored = await repo.load_table("t:1")
        assert stored is not None
        kept = stored.version
        # Space freed: the next write succeeds and the WAL is folded back and cut.
        filler.unlink()
        await repo.save_table(row("t:1", kept + 1, big), expected_version=kept)
        wal = Path(f"{path}-wal")
        assert not wal.exists() or wal.stat().st_size < 100_000  # checkpointed, cut back
        for version in range(kept + 2, kept + 30):  # play continues
            await repo.save_table(row("t:1", version, big), expected_version=version - 1)
        assert (await repo.table_version("t:1")) == kept + 29
        assert [await repo.load_table(f"t:n{i}") for i in range(20)] == [None] * 20
    finally:
        await repo.close()
