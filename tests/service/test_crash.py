"""A process playing a match is killed with SIGKILL mid-round; a new one resumes the match."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bot.games.gnav.engine.record import replay_record
from bot.games.registry import all_games
from bot.service.commands import Act
from bot.service.service import TableService
from storage.sqlite import SqliteRepository
from tests.service.crash_child import HUMAN, KEY
from tests.service.fakes import RecordingNotifier

ROOT = Path(__file__).resolve().parents[2]


async def test_sigkill_mid_round_resumes_from_last_committed_action(tmp_path: Path) -> None:
    db = tmp_path / "gnav.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.service.crash_child", str(db)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    last: tuple[int, int, int] | None = None
    deadline = time.monotonic() + 60
    try:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("COMMITTED"):
                _, seq, rounds, actions = line.split()
                last = (int(seq), int(rounds), int(actions))
                if last[1] >= 3 and last[2] >= 1:
                    os.kill(child.pid, signal.SIGKILL)  # mid-round, right after a commit
                    break
            assert time.monotonic() < deadline, "the child made no progress"
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL, child.stderr.read() if child.stderr else ""
    assert last is not None

    repo = await SqliteRepository.open(db)
    notifier = RecordingNotifier()
    try:
        service = TableService(repo, notifier, bot_delay=0.0, games=all_games())
        assert await service.resume() == 1
        table = await service.table_state(KEY)
        # Everything the child had committed is there (perhaps one step more).
        assert table.seq >= last[0]
        assert len(table.match.history) >= last[1]
        assert table.status == "playing"
        # Lives and the record agree: the record replays to the restored match.
        record = service.game_of(table).record(table.match)
        _, outcome = replay_record(record)
        restored_lives = dict(zip(table.names, table.match.lives, strict=True))
        assert outcome["rounds"][-1]["lives"] == restored_lives
        await service.outbox.drain()
        assert any("restored" in m.screen.text for m in notifier.posts(KEY.key))
        # The match goes on to its end from there.
        for _ in range(5000):
            while await service.tick():
                pass
            table = await service.table_state(KEY)
            if table.status == "closed":
                break
            match = table.match
            if match.phase == "play" and table.seats[match.turn].user == HUMAN.key:
                assert (await service.handle(Act(KEY, HUMAN, "stay"))).ok
        table = await service.table_state(KEY)
        assert table.status == "closed"
        _, final = replay_record(service.game_of(table).record(table.match))
        assert final["rounds"][: len(outcome["rounds"]) - 1] == outcome["rounds"][:-1]
    finally:
        await repo.close()
