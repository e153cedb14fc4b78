"""Issue 8, point 6: the store fails loudly and clearly.

`gnav-bot run` and `gnav-bot play` on a store they cannot use print one line naming the store
and the cause and exit 2, without a traceback and without writing to the file; a SQLite file
deleted or replaced under the running bot is detected at the next commit.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service.ports import StoreError, StoreLost
from storage.sqlite import SqliteRepository
from tests.games.gnav.engine.vectors import gnav_bot_command


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GNAV_", "TELEGRAM_", "DISCORD_"))
    }
    env.update(extra)
    return env


def gnav_bot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*gnav_bot_command(), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
        input="q\n",
    )


def run_on(db: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = _env(TELEGRAM_TOKEN="123:not-a-real-token", GNAV_DB=str(db), **extra)
    return gnav_bot("run", "--env-file", os.devnull, env=env)


def play_on(db: Path) -> subprocess.CompletedProcess[str]:
    return gnav_bot("play", "--db", str(db), "--seed", "1", env=_env())


def one_line(done: subprocess.CompletedProcess[str], command: str, *words: str) -> str:
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"gnav-bot {command}: cannot open the "), err
    for word in words:
        assert word in err, err
    return err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def a_database(path: Path, rows: int = 100) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x TEXT)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * rows)
    return path


@pytest.mark.parametrize("command", ["run", "play"])
def test_store_that_is_not_a_database_fails_with_one_line(tmp_path: Path, command: str) -> None:
    db = tmp_path / "corrupt.sqlite3"
    db.write_bytes(b"this is not a database at all, but it is long enough " * 4)
    before = digest(db)
    done = run_on(db) if command == "run" else play_on(db)
    one_line(done, command, str(db), "not a SQLite database")
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corrupt.sqlite3"]


@pytest.mark.parametrize("command", ["run", "play"])
def test_truncated_store_fails_with_one_line_and_is_not_written(
    tmp_path: Path, command: str
) -> None:
    whole = a_database(tmp_path / "whole.sqlite3")
    db = tmp_path / "cut.sqlite3"
    data = whole.read_bytes()
    db.write_bytes(data[: len(data) // 2 + 100])
    before = digest(db)
    done = run_on(db) if command == "run" else play_on(db)
    one_line(done, command, str(db), "truncated")
    assert digest(db) == before


@pytest.mark.parametrize("command", ["run", "play"])
def test_unopenable_store_fails_with_one_line(tmp_path: Path, command: str) -> None:
    for db in (tmp_path, tmp_path / "a-file" / "gnav.sqlite3"):
        (tmp_path / "a-file").write_text("x")
        done = run_on(db) if command == "run" else play_on(db)
        one_line(done, command, str(db))


def test_unreachable_postgres_fails_with_one_line_without_the_password(tmp_path: Path) -> None:
    pytest.importorskip("asyncpg")
    done = run_on(tmp_path / "unused", GNAV_DATABASE_URL="postgresql://u:sekret@127.0.0.1:9/x")
    err = one_line(done, "run", "PostgreSQL store postgresql://u:***@127.0.0.1:9/x")
    assert "sekret" not in err


def test_postgres_without_its_driver_names_the_extra(tmp_path: Path) -> None:
    fake = tmp_path / "no-asyncpg"
    fake.mkdir()
    (fake / "asyncpg.py").write_text("raise ImportError('No module named asyncpg')\n")
    env = _env(
        TELEGRAM_TOKEN="123:not-a-real-token",
        GNAV_DATABASE_URL="postgresql://u@127.0.0.1:9/x",
        PYTHONPATH=os.pathsep.join([str(fake), *sys.path]),
    )
    done = gnav_bot("run", "--env-file", os.devnull, env=env)
    one_line(done, "run", "pip install 'gnav-bot[postgres]'")


async def test_read_only_store_is_a_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only file (simulated: tests may run as root, whom permissions do not stop)."""
    import storage.sqlite as module

    db = a_database(tmp_path / "ro.sqlite3")

    async def read_only(*args: object, **kwargs: object) -> object:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(module, "connect", read_only)
    with pytest.raises(StoreError, match=r"SQLite store .*ro\.sqlite3: it is read-only"):
        await SqliteRepository.open(db)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files")
@pytest.mark.parametrize("command", ["run", "play"])
def test_read_only_store_fails_with_one_line(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = a_database(folder / "gnav.sqlite3")
    before = digest(db)
    db.chmod(0o444)
    folder.chmod(0o555)
    try:
        done = run_on(db) if command == "run" else play_on(db)
        one_line(done, command, str(db))
    finally:
        folder.chmod(0o755)
    assert digest(db) == before


# ------------------------------------------------------------------ the file goes away
@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_store_file_deleted_or_replaced_is_detected_at_commit(
    tmp_path: Path, how: str
) -> None:
    db = tmp_path / "gnav.sqlite3"
    repo = await SqliteRepository.open(db)
    try:
        await repo.save_settings("c", {"lives": 3})
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        if how == "replaced":
            a_database(db, rows=1)
        with pytest.raises(StoreLost, match=how):
            await repo.save_settings("c", {"lives": 4})
        with pytest.raises(StoreLost):
            await repo.save_player("u", {})
    finally:
        await repo.close()
