"""The outbox survives SIGKILL between commit and send: a child process playing with a slow
platform is killed at a random point; every message it committed and had not sent goes out
after the restart, private pieces in their newest version only."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.games.registry import all_games
from bot.service.service import TableService
from bot.service.table import TableKey
from storage.sqlite import SqliteRepository
from tests.service.fakes import RecordingNotifier

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
