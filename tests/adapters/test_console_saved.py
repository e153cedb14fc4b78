"""`gnav-bot play` with a saved match: continuing it with the same command, switching games
with `--new` (nothing abandoned before the new match is known to start), and options that
contradict each other refused in one line (issue 19, the terminal, item 1; issue 20, item 4)."""

from __future__ import annotations

import io
import os
import random
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from adapters.console.notifier import ConsoleNotifier
from adapters.console.play import TABLE, PlayOptions, play
from adapters.console.stdin import LineReader
from bot.games.registry import all_games
from bot.service.service import TableService
from storage.sqlite import SqliteRepository
from tests.games.gnav.engine.vectors import gnav_bot_command


def _play(db: Path, *args: str, stdin: str = "quit\n") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GNAV_DB", "COLUMNS")}
    return subprocess.run(
        [*gnav_bot_command(), "play", "--db", str(db), "--bot-delay", "0", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_the_same_command_continues_a_saved_karnaval_match(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    first = _play(db, "--game", "karnaval", "--seed", "3", "--name", "Olga")
    assert first.returncode == 0, first.stderr
    again = _play(db, "--game", "karnaval")
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr and "AttributeError" not in again.stderr
    lines = again.stdout.splitlines()
    continuing = lines.index("Continuing the saved match (use --new for a fresh one).")
    restored = next(i for i, line in enumerate(lines) if line.startswith("♻️"))
    # The line saying the match is continued comes before the restored table, always.
    assert continuing < restored, again.stdout
    assert "Olga" in again.stdout and "Ignored" not in again.stdout


def test_new_switches_from_a_saved_karnaval_match_to_gnavspiel(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    assert _play(db, "--game", "karnaval", "--seed", "3").returncode == 0
    fresh = _play(db, "--new", "--profile", "gnavspiel", "--players", "3")
    assert fresh.returncode == 0, fresh.stderr
    assert "There is no setting" not in fresh.stdout + fresh.stderr
    assert "The saved match was abandoned" in fresh.stdout
    assert "Gnavspiel table" in fresh.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--game", "karnaval", "--profile", "gnavspiel"), "--profile gnavspiel"),
        (("--game", "karnaval", "--profile", "tradisjonell"), "--profile tradisjonell"),
        (("--game", "gnavspiel", "--profile", "norsk"), "--profile norsk"),
        (("--game", "karnaval", "--lives", "5"), "--lives"),
    ],
)
def test_contradicting_options_are_one_line_and_keep_the_saved_match(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    db = tmp_path / "g.sqlite3"
    assert _play(db, "--game", "karnaval", "--seed", "3", "--name", "Olga").returncode == 0
    refused = _play(db, "--new", *args)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1 and said in refused.stderr, refused.stderr
    kept = _play(db)
    assert "Continuing the saved match" in kept.stdout and "Olga" in kept.stdout


async def test_new_with_settings_the_table_refuses_abandons_nothing(tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "g.sqlite3")
    out = io.StringIO()
    console = Console(file=out, width=120, highlight=False, soft_wrap=True)
    typed = tmp_path / "typed.txt"
    typed.write_text("quit\n", encoding="utf-8")

    notifier = ConsoleNotifier(console, "console:you")

    def service() -> TableService:
        return TableService(repo, notifier, rng=random.Random(1), bot_delay=0.0, games=all_games())

    try:
        first = PlayOptions(players=3, name="Olga", settings=("game=karnaval",))
        with typed.open(encoding="utf-8") as stdin:
            assert await play(service(), first, console, LineReader(stdin), notifier=notifier) == 0
        bad = PlayOptions(settings=("game=gnavspiel", "chips=99"), new=True)
        with typed.open(encoding="utf-8") as stdin, pytest.raises(SystemExit) as refused:
            await play(service(), bad, console, LineReader(stdin), notifier=notifier)
        assert "chips" in str(refused.value) and "99" in str(refused.value)
        kept = await service().table_state(TABLE)
    finally:
        await repo.close()
    assert kept is not None and kept.status != "closed" and kept.game == "karnaval"
    assert "abandoned" not in out.getvalue()


def test_level_is_the_tables_and_a_saved_match_keeps_its_own(tmp_path: Path) -> None:
    """`--level strong` (issue 22) is the new table's bot level, shown with its bot seats; a
    saved match keeps its level and says so when another is asked for."""
    db = tmp_path / "g.sqlite3"
    first = _play(db, "--game", "karnaval", "--level", "strong", "--seed", "3")
    assert first.returncode == 0, first.stderr
    assert "bots play strong" in first.stdout
    again = _play(db, "--game", "karnaval", "--level", "easy")
    assert again.returncode == 0, again.stderr
    assert "--level easy" in again.stdout  # ignored: the saved match plays on as it was


@pytest.mark.parametrize(
    ("game", "held"),
    [
        (("--game", "karnaval"), "🔒 Your hand"),
        (("--players", "3"), "🔒 Round 1: you hold "),
        (("--profile", "gnavspiel", "--players", "3"), "🔒 Deal 1: your card is "),
    ],
)
def test_a_resumed_match_shows_the_recap_once_and_what_the_player_holds(
    tmp_path: Path, game: tuple[str, ...], held: str
) -> None:
    """Issue 30, point 5: continuing a saved match prints the round once (the restored
    table, not first the old message's log as well) and the player's own hand or piece."""
    db = tmp_path / "g.sqlite3"
    first = _play(db, *game, "--seed", "3", "--name", "Olga")
    assert first.returncode == 0, first.stderr
    again = _play(db)
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    restored = next(i for i, line in enumerate(lines) if line.startswith("♻️"))
    recap = lines[restored + 1 :]
    logged = [line for line in recap if line.startswith("—")]
    assert len(logged) == 1, again.stdout
    story = recap[recap.index("—") + 1 :]
    for line in story:
        if line and not line.startswith(("▶", "🔒", "Your turn")):
            assert lines.count(line) == 1, (line, again.stdout)  # each line of it once
    own = [line for line in lines if line.startswith(held)]
    assert len(own) == 1 and lines.index(own[0]) > restored, again.stdout


def _started(db: Path, *args: str) -> subprocess.Popen[str]:
    """A terminal left running on `db`, its input a pipe the test writes to; returned once
    it printed its first line (it holds the store before it prints anything)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GNAV_DB", "COLUMNS")}
    running = subprocess.Popen(
        [*gnav_bot_command(), "play", "--db", str(db), "--bot-delay", "0", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert running.stdout is not None
    assert running.stdout.readline() != "", running.communicate(timeout=60)
    return running


def test_a_second_terminal_on_the_same_match_refuses_in_one_line(tmp_path: Path) -> None:
    """Issue 31, point 6: while one terminal plays a saved match, a second one on the same
    store refuses (one line, exit status not 0) and changes nothing; once the first quits, or
    is killed (the lock goes with the process), the match is continued."""
    db = tmp_path / "g.sqlite3"
    first = _started(db, "--game", "karnaval", "--seed", "3", "--name", "Olga")
    try:
        second = _play(db)
        assert second.returncode != 0 and second.stdout == "", second.stdout
        assert len(second.stderr.splitlines()) == 1, second.stderr
        assert "another terminal" in second.stderr and str(db) in second.stderr
        out, err = first.communicate("quit\n", timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    assert "Olga" in out and "Continuing" not in out
    killed = _started(db)
    killed.kill()  # SIGKILL: no clean-up of its own
    killed.communicate(timeout=60)
    after = _play(db)
    assert after.returncode == 0, after.stderr
    assert "Continuing the saved match" in after.stdout and "Olga" in after.stdout


@pytest.mark.parametrize(
    ("game", "moves"),
    [
        (("--game", "karnaval", "--players", "3"), 12),
        (("--players", "3"), 2),
        (("--profile", "gnavspiel"), 3),
    ],
)
def test_export_writes_a_record_that_replays(
    tmp_path: Path, game: tuple[str, ...], moves: int
) -> None:
    """Issue 31, point 6: `export FILE` in the terminal writes the match record; `gnav-bot
    replay FILE` replays it (after a whole deal and mid-deal: the deal under way, whose record
    would show the bots' cards, is left out)."""
    db = tmp_path / "g.sqlite3"
    record = tmp_path / "record.json"
    typed = "1\n" * moves + f"export {record}\n" + "quit\n"  # a deal or more, not the match
    played = _play(db, *game, "--seed", "3", "--name", "Olga", stdin=typed)
    assert played.returncode == 0, played.stderr
    assert f"gnav-bot replay {record} " in played.stdout, played.stdout[-1500:]
    replayed = subprocess.run(
        [*gnav_bot_command(), "replay", str(record)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stderr
    assert "Olga" in replayed.stdout


def test_a_finished_match_is_exported_with_play_export(tmp_path: Path) -> None:
    """A match that ended (the terminal then stops asking) is exported from the command line:
    `gnav-bot play --export FILE` writes the last match's record, opens no table."""
    db = tmp_path / "g.sqlite3"
    record = tmp_path / "finished.json"
    played = _play(db, "--players", "3", "--seed", "3", "--name", "Olga", stdin="1\n" * 40)
    assert played.returncode == 0 and "The match is over" in played.stdout, played.stdout
    written = _play(db, "--export", str(record))
    assert written.returncode == 0, written.stderr
    assert (
        written.stdout == f"The match record is in {record}: gnav-bot replay {record} replays it.\n"
    )
    replayed = subprocess.run(
        [*gnav_bot_command(), "replay", "--compact", str(record)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stderr
    assert '"winners": ["Bot 2"]' in replayed.stdout, replayed.stdout[-500:]
    nothing = _play(tmp_path / "empty.sqlite3", "--export", str(tmp_path / "none.json"))
    assert nothing.returncode == 2 and nothing.stdout == "", nothing.stdout
    assert nothing.stderr == "No match has been played at this table yet.\n"
    assert not (tmp_path / "none.json").exists()
