"""The outbox survives SIGKILL between commit and send: a child process playing with a slow
platform is killed at a random point; every message it committed and had not sent goes out
after the restart, private pieces in their newest version only. A process killed right after
its N-th send sends again, once restarted, at most that one (each message is marked sent
before its lane sends the next), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.games.registry import all_games
from bot.service.service import TableService
from bot.service.store import Repository
from bot.service.table import TableKey
from storage.postgres import PostgresRepository
from storage.sqlite import SqliteRepository
from tests.service.fakes import RecordingNotifier
from tests.service.marking_child import POSTS, result
from tests.storage.conftest import PG_DSN, fresh_pg_schema

ROOT = Path(__file__).resolve().parents[2]


class AnyRefNotifier(RecordingNotifier):
    """Takes edits of messages the killed process posted (their refs are the platform's)."""

    async def edit(self, channel, message_ref, screen):  # type: ignore[no-untyped-def]
        if message_ref not in self.messages:
            self.order.append(("edit", channel, screen.text))
            return True
        return await super().edit(channel, message_ref, screen)


def _unsent(db: Path) -> list[tuple[str, str | None, str | None]]:
    """What the killed process committed and had not marked sent: (kind, target, text); the
    text is None for a shot of the table (rendered when delivered)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT kind, target, payload FROM outbox ORDER BY id").fetchall()
    finally:
        conn.close()
    return [(k, t, json.loads(p)["screen"].get("text")) for k, t, p in rows]


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_sigkill_between_commit_and_send_loses_no_message(tmp_path: Path, seed: int) -> None:
    db = tmp_path / "gnav.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.service.outbox_child", str(db), str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    kill_after = random.Random(seed).randrange(3, 60)
    deadline = time.monotonic() + 60
    try:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("COMMITTED") and int(line.split()[1]) >= kill_after:
                os.kill(child.pid, signal.SIGKILL)
                break
            assert time.monotonic() < deadline, "the child made no progress"
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL, child.stderr.read() if child.stderr else ""
    unsent = _unsent(db)
    assert unsent, "the child was killed with nothing left to send: kill it sooner"

    repo = await SqliteRepository.open(db)
    notifier = AnyRefNotifier()
    try:
        service = TableService(repo, notifier, bot_delay=60.0, games=all_games())
        assert await service.resume() == 1
        await service.outbox.drain()
        assert _unsent(db) == []
    finally:
        await repo.close()
    public = [t for kind, _, t in notifier.order if kind in ("post", "edit")]
    public += [m.screen.text for m in notifier.messages.values()]
    public += [s.text for m in notifier.messages.values() for s in m.history]
    told = {user: texts for user, texts in notifier.private.items()}
    newest_tell = {target: text for kind, target, text in unsent if kind == "tell"}
    for user, text in newest_tell.items():
        assert told[user] == [text]  # only the newest piece, never an older one
    # Every table message committed is posted: one each, with the restored one after them
    # (a shot is rendered at delivery, a rendered one is posted as it was committed).
    posted = [m for m in notifier.messages.values() if m.channel == "test:outbox"]
    committed_posts = [text for kind, _, text in unsent if kind == "post_table"]
    assert len(posted) == len(committed_posts) + 1
    for text, message in zip(committed_posts, posted, strict=False):
        if text is not None:
            assert message.history[0].text == text
    # The table message shows the table as committed, whatever edits were pending.
    table = await service.table_state(TableKey("test", "outbox"))
    newest = posted[-1].screen
    assert newest.text.endswith(service.render(table).text)
    assert any("restarted" in text for text in public)


@pytest.fixture(params=["sqlite", "postgres"])
async def store_args(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[list[str]]:
    """How the child and the restarted process open one store: SQLite or PostgreSQL."""
    if request.param == "sqlite":
        yield ["sqlite", str(tmp_path / "gnav.sqlite3")]
        return
    async with fresh_pg_schema() as schema:
        yield ["postgres", PG_DSN, schema]


async def _open(args: list[str]) -> Repository:
    if args[0] == "sqlite":
        return await SqliteRepository.open(args[1])
    return await PostgresRepository.open(args[1], schema=args[2], max_size=5)


@pytest.mark.parametrize("kill_after", [3, 23])
async def test_a_process_killed_right_after_a_send_sends_again_at_most_that_one(
    tmp_path: Path, store_args: list[str], kill_after: int
) -> None:
    """The child commits 30 group posts at once (more than a claim's batch) and dies by
    SIGKILL right after its `kill_after`-th post returns from the platform (its own
    platform kills it, on that event). The restarted process sends again at most one of
    those: the one whose send was in flight; and every post of the run went out."""
    log = tmp_path / "sent.jsonl"
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.service.marking_child",
        str(log),
        str(kill_after),
        *store_args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        out, err = await asyncio.wait_for(child.communicate(), 60)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    assert child.returncode == -signal.SIGKILL, (out + err).decode()
    before = [text for kind, _, text in map(json.loads, log.read_text().splitlines())]
    first = [t for t in before if t.startswith("result ")]
    assert first == [result(i) for i in range(kill_after)]

    repo = await _open(store_args)
    notifier = AnyRefNotifier()
    try:
        service = TableService(repo, notifier, bot_delay=60.0, games=all_games())
        await service.resume()
        await service.outbox.drain()
        again = [m.history[0].text for m in notifier.messages.values()]
        await service.shutdown()
    finally:
        await repo.close()
    resent = [t for t in again if t in first]
    assert len(resent) <= 1, resent
    assert set(first) | set(again) >= {result(i) for i in range(POSTS)}  # nothing lost
