"""The `gnav-bot` command line as a newcomer meets it: options, messages, the docs' examples.

The terminal itself (Ctrl-C, type-ahead, the pause after a reveal) is tested on a
pseudo-terminal in tests/adapters/test_console_terminal.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import BotSettings

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "tests" / "vectors" / "public"


def _gnav_bot(
    *args: str, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GNAV_DB", "COLUMNS")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd or ROOT,
        env=env,
        check=False,
    )


# ----------------------------------------------------------------------------- small things
def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"gnav-bot {version('gnav-bot')}"


def test_replay_reads_standard_input() -> None:
    record = (PUBLIC / "horse_redirect.json").read_text(encoding="utf-8")
    from_stdin = _gnav_bot("replay", "-", stdin=record)
    from_file = _gnav_bot("replay", str(PUBLIC / "horse_redirect.json"))
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout


def test_replay_of_an_empty_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "record.json"
    empty.write_text("\n", encoding="utf-8")
    assert main(["replay", str(empty)]) == 2
    assert capsys.readouterr().err == f"file: {empty}: empty file, no match record in it\n"


def test_replay_of_an_outcome_says_it_is_an_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    outcome = PUBLIC / "horse_redirect.outcome.json"
    assert main(["replay", str(outcome)]) == 2
    err = capsys.readouterr().err
    assert "looks like an outcome" in err and "not a match record" in err


def test_run_with_an_env_file_that_does_not_exist_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "prod.env"
    assert main(["run", "--env-file", str(missing)]) == 78  # EX_CONFIG: not restarted
    assert capsys.readouterr().err == f"gnav-bot run: --env-file {missing}: no such file\n"


def test_log_level_in_any_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOG_LEVEL", "debug")
    assert BotSettings(_env_file=None).log_level == "DEBUG"  # type: ignore[call-arg]
    monkeypatch.setenv("LOG_LEVEL", " Warning ")
    assert BotSettings(_env_file=None).log_level == "WARNING"  # type: ignore[call-arg]


def test_setting_errors_carry_no_pydantic_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_TOKEN", "1:abc")
    monkeypatch.setenv("TELEGRAM_MODE", "webhook")
    monkeypatch.delenv("TELEGRAM_WEBHOOK_URL", raising=False)
    assert main(["run"]) == 78  # EX_CONFIG: not restarted
    err = capsys.readouterr().err
    assert "TELEGRAM_MODE=webhook needs TELEGRAM_WEBHOOK_URL" in err
    assert "Value error" not in err


def test_discord_voice_warnings_are_silenced() -> None:
    code = (
        "import logging, discord\n"
        "logging.basicConfig()\n"
        "from adapters.discord.platform import GnavClient\n"
        "GnavClient(intents=discord.Intents.none())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "PyNaCl" not in done.stderr and "davey" not in done.stderr


# ----------------------------------------------------------------------------- gnav-bot play
def test_piped_output_is_not_wrapped_at_80_columns(tmp_path: Path) -> None:
    done = _gnav_bot(
        "play",
        "--db",
        str(tmp_path / "g.sqlite3"),
        "--seed",
        "7",
        "--bot-delay",
        "0",
        stdin="quit\n",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "Type: stay (s) · swap (w) · piece (p) · table · rules · help (h) · quit (q)." in lines
    assert any(len(line) > 80 for line in lines)


def test_a_saved_match_names_the_options_it_ignores_and_new_starts_quietly(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "g.sqlite3")
    first = _gnav_bot(
        "play", "--db", db, "--seed", "7", "--bot-delay", "0", "--name", "Olga", stdin="quit\n"
    )
    assert first.returncode == 0, first.stderr
    again = _gnav_bot(
        "play",
        "--db",
        db,
        "--bot-delay",
        "0",
        "--players",
        "6",
        "--name",
        "Kari",
        "--lives",
        "3",
        stdin="quit\n",
    )
    assert again.returncode == 0, again.stderr
    assert "Continuing the saved match" in again.stdout
    ignored = re.search(r"Ignored for the saved match: (.*)\. To start", again.stdout)
    assert ignored and ignored.group(1) == "--players 6 --name Kari"  # --lives 3 is as saved
    assert "gnav-bot play --new --players 6 --name Kari" in again.stdout
    fresh = _gnav_bot(
        "play",
        "--db",
        db,
        "--bot-delay",
        "0",
        "--new",
        "--players",
        "6",
        "--name",
        "Kari",
        stdin="quit\n",
    )
    assert fresh.returncode == 0, fresh.stderr
    # The old table is not shown again, nor "the bot restarted".
    assert "Olga" not in fresh.stdout and "restarted" not in fresh.stdout
    assert "The saved match was abandoned" in fresh.stdout
    assert "Kari" in fresh.stdout and "Continuing" not in fresh.stdout


def test_play_on_a_busy_web_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Issue 31, point 6: `play --web --port <busy>` says so in one line (no traceback)."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _gnav_bot(
            "play", "--db", str(tmp_path / "g.sqlite3"), "--web", "--port", str(port),
            stdin="quit\n",
        )  # fmt: skip
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"gnav-bot play: --port {port}: ") and "in use" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_the_terminal_and_the_bot_keep_separate_default_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31, point 6: the bot (`run`) never restores the terminal's match: `play` has a
    store of its own by default; $GNAV_DB, when set, is the store of both."""
    from bot.cli import build_parser, default_db_path

    monkeypatch.delenv("GNAV_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    terminal = build_parser().parse_args(["play"]).db
    bot = default_db_path()  # what `run` opens (bot/runner.py) without GNAV_DB
    assert terminal != bot, terminal
    assert Path(terminal).parent == Path(bot).parent == tmp_path / "gnav-bot"
    monkeypatch.setenv("GNAV_DB", str(tmp_path / "chosen.sqlite3"))
    assert build_parser().parse_args(["play"]).db == default_db_path() == os.environ["GNAV_DB"]


def test_replay_help_names_the_terminals_export(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    assert "`export`" in " ".join(capsys.readouterr().out.split())


# ----------------------------------------------------------------------------- the docs
def _code_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.startswith("    ")]


def test_readme_examples_run_what_the_set_up_commands_installed() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in _code_lines(readme):
        # After `python3 -m venv .venv && .venv/bin/pip install -e .`, `gnav-bot` is not on
        # PATH: every example calls .venv/bin/gnav-bot.
        if re.match(r"gnav-bot \w+: ", line):
            continue  # what it prints (an error line), not a command
        words = re.split(r"[\s|]+", line)
        assert "gnav-bot" not in words, line
    assert "pip install -e '.[postgres]'" in readme and "gnav-bot[postgres]" in readme


def test_telegram_docs_webhook_in_a_container_and_restarts() -> None:
    doc = (ROOT / "docs" / "telegram.md").read_text(encoding="utf-8")
    assert "TELEGRAM_WEBHOOK_LISTEN=0.0.0.0" in doc
    assert "container's own loopback" in doc  # the reason
    assert "at most 10 times" not in doc  # the unit restarts for ever now
    assert "STARTUP_RETRY_SECONDS" in doc and "gnav-bot[postgres]" in doc
