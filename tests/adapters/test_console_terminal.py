"""`gnav-bot play` in a real (pseudo-)terminal: Ctrl-C, type-ahead, the pause after a reveal.

Each test starts the console script of this environment on a pty, as a person would in a
terminal: the pty is its controlling terminal, so a written `\\x03` is Ctrl-C (SIGINT to the
process) and the line discipline works as it does for a keyboard.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pty = pytest.importorskip("pty")

ROOT = Path(__file__).resolve().parents[2]
GNAV_BOT = Path(sys.executable).with_name("gnav-bot")
#: The console script of this environment, else the module (a source tree not installed).
COMMAND = [str(GNAV_BOT)] if GNAV_BOT.exists() else [sys.executable, "-m", "bot"]
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
#: How long a wait for something the terminal shows may take: a last guard only (each wait
#: returns as soon as its text appears), generous so that a loaded machine never fails it.
WAIT = 120.0
TURN = "Your turn: stay or swap?"
NEXT = "Enter: the next round"


class Terminal:
    """`gnav-bot play ARGS` on a pty; `stdout_pipe` sends its output to a pipe (`| tee`)."""

    def __init__(self, args: list[str], *, stdout_pipe: bool = False) -> None:
        self.output = b""
        self.pipe_out = b""
        read_end = write_end = -1
        if stdout_pipe:
            read_end, write_end = os.pipe()
        env = {k: v for k, v in os.environ.items() if k not in ("GNAV_DB", "COLUMNS")}
        env["PYTHONUNBUFFERED"] = "1"
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty is its controlling terminal
            try:
                # As a shell starts a command in the foreground: Ctrl-C interrupts it. A test
                # run started in the background (no job control) ignores SIGINT, and exec
                # would hand that on to the program, which then could not be interrupted.
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                if stdout_pipe:
                    os.dup2(write_end, 1)
                    os.close(read_end)
                    os.close(write_end)
                os.chdir(ROOT)
                os.execve(COMMAND[0], [*COMMAND, *args], env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.pipe: int | None = None
        if stdout_pipe:
            os.close(write_end)
            self.pipe = read_end
        self.status: int | None = None

    @property
    def text(self) -> str:
        """What was shown so far (the terminal and the pipe), without colour codes."""
        return ANSI.sub(b"", self.output + self.pipe_out).decode("utf-8", "replace")

    def _pump(self, timeout: float) -> None:
        fds = [self.fd] + ([self.pipe] if self.pipe is not None else [])
        ready, _, _ = select.select(fds, [], [], timeout)
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                data = b""
            if fd == self.fd:
                self.output += data
            else:
                self.pipe_out += data
                if not data:
                    os.close(fd)
                    self.pipe = None

    def wait_for(self, text: str, count: int = 1, timeout: float = WAIT) -> None:
        """Wait until `text` was shown `count` times."""
        deadline = time.monotonic() + timeout
        while self.text.count(text) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"no {text!r} (x{count}) within {timeout} s:\n{self.text}")
            if self.poll() is not None:
                self._pump(0.1)
                if self.text.count(text) >= count:
                    return
                raise AssertionError(f"exited ({self.status}) before {text!r}:\n{self.text}")
            self._pump(0.05)

    def _read_to_the_end(self) -> None:
        """After the exit: everything the process wrote is buffered; read it all."""
        while True:
            fds = [self.fd] + ([self.pipe] if self.pipe is not None else [])
            ready, _, _ = select.select(fds, [], [], 0)
            if not ready:
                return
            before = len(self.output) + len(self.pipe_out)
            self._pump(0)
            if len(self.output) + len(self.pipe_out) == before and self.pipe is None:
                return  # the terminal is at its end (EIO), the pipe closed

    def settle(self, seconds: float) -> None:
        """Collect output for a while."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._pump(0.05)

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def poll(self) -> int | None:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def wait(self, timeout: float = WAIT) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"still running after {timeout} s:\n{self.text}")
            self._pump(0.02)
        self._read_to_the_end()
        assert self.status is not None
        return self.status

    def close(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)
        if self.pipe is not None:
            os.close(self.pipe)


def _play(db: Path, *more: str, stdout_pipe: bool = False) -> Terminal:
    args = ["play", "--db", str(db), "--seed", "7", "--bot-delay", "0", "--name", "Tester"]
    return Terminal([*args, *more], stdout_pipe=stdout_pipe)


def _continue(db: Path) -> str:
    """Run again with `quit` from a pipe: what the continued match shows."""
    done = subprocess.run(
        [*COMMAND, "play", "--db", str(db), "--bot-delay", "0"],
        cwd=ROOT,
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("stdout_pipe", [False, True], ids=["terminal", "piped-output"])
def test_ctrl_c_at_the_prompt_exits_at_once_with_the_match_saved(
    tmp_path: Path, stdout_pipe: bool
) -> None:
    db = tmp_path / "gnav.sqlite3"
    term = _play(db, stdout_pipe=stdout_pipe)
    try:
        term.wait_for(TURN)
        term.type(b"\x03")
        # Nothing more is typed: a read left blocked in a thread would hold the exit until
        # Enter, for ever; exiting at all is exiting at once.
        status = term.wait()
    finally:
        term.close()
    assert status == 130, term.text
    assert "The match is saved" in term.text
    assert "Traceback" not in term.text
    shown = _continue(db)
    assert "Continuing the saved match" in shown and "Tester" in shown


def test_ctrl_c_while_the_bots_play_and_with_the_reader_of_the_output_gone(
    tmp_path: Path,
) -> None:
    # `gnav-bot play | tee log`: Ctrl-C ends tee too, so the output pipe is closed.
    db = tmp_path / "gnav.sqlite3"
    term = _play(db, "--players", "8", stdout_pipe=True)
    try:
        term.wait_for("Gnav")
        assert term.pipe is not None
        # Ctrl-C reaches the whole foreground group at once: the bot and `tee`, whose end
        # then closes the bot's output (so the interrupt comes first, the closed pipe after).
        term.type(b"\x03")
        os.close(term.pipe)
        term.pipe = None
        status = term.wait()
    finally:
        term.close()
    assert status == 130, term.text
    assert "Traceback" not in term.text and "Exception" not in term.text


def test_keys_typed_before_the_question_are_not_its_answer(tmp_path: Path) -> None:
    db = tmp_path / "gnav.sqlite3"
    term = _play(db, "--players", "3")
    try:
        term.wait_for(TURN)
        # "stay", and a "swap" typed ahead: it must not answer a later question.
        term.type(b"stay\nswap\n")
        term.wait_for(NEXT)  # after the reveal the terminal waits for Enter
        term.settle(1.5)
        assert "round 2" not in term.text  # no next deal without Enter
        # Enter deals round 2; a "swap" typed with it comes before that round's question.
        term.type(b"\nswap\n")
        term.wait_for(TURN, count=2)
        term.settle(0.5)
        assert "Tester swaps" not in term.text, term.text
        term.type(b"stay\n")
        term.wait_for("Tester: «Jeg står»", count=2)
        term.type(b"\x03")
        assert term.wait() == 130
    finally:
        term.close()


def _play_through(term: Terminal, answer: bytes, timeout: float = 5 * WAIT) -> int:
    """Answer every question (`answer` on a turn, Enter between rounds) until the end."""
    deadline = time.monotonic() + timeout
    turns = nexts = 0
    while term.poll() is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"no end within {timeout} s:\n{term.text}")
        term._pump(0.05)
        text = term.text
        if text.count(TURN) > turns:
            turns = text.count(TURN)
            term.type(answer)
        elif text.count(NEXT) > nexts:
            nexts = text.count(NEXT)
            term.type(b"\n")
    return term.wait()


def _rounds(text: str) -> list[list[str]]:
    """The output cut at each round's table message (the part before the first one first)."""
    parts: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("🎲 Gnav · round"):
            parts.append([])
        parts[-1].append(line.strip())
    return parts


def test_a_person_knocked_out_sees_the_match_end_with_a_winner(tmp_path: Path) -> None:
    # Seed 7, one life each, always "swap": Tester is out in round 2 with three bots left.
    term = _play(tmp_path / "gnav.sqlite3", "--lives", "1")
    try:
        status = _play_through(term, b"swap\n")
    finally:
        term.close()
    text = term.text
    assert status == 0, text
    assert "❌ Tester is out" in text
    assert "No player is left" not in text
    result = [line for line in text.splitlines() if "🏆" in line]
    assert len(result) == 1 and "won the match" in result[0], text
    assert text.rstrip().endswith("The match is over. gnav-bot play starts a new one."), text


def test_no_result_before_its_reveal_and_none_twice(tmp_path: Path) -> None:
    term = _play(tmp_path / "gnav.sqlite3", "--lives", "1")
    try:
        assert _play_through(term, b"swap\n") == 0
    finally:
        term.close()
    text = term.text
    assert "pays a life" not in text and "wins the match" not in text
    before, *rounds = _rounds(text)
    assert not any(line.startswith(("👊", "💤", "💸", "❌")) for line in before), before
    for lines in rounds:
        reveal = next((i for i, line in enumerate(lines) if "Reveal of round" in line), None)
        for i, line in enumerate(lines):
            if line.startswith(("💸", "❌")):
                assert reveal is not None and i > reveal, lines  # results after the reveal
            if line.startswith(("👊", "💤", "💸", "❌", "🔁", "🙋")):
                assert lines.count(line) == 1, f"twice: {line!r}\n{lines}"
            if line == "—":
                assert i + 1 < len(lines) and lines[i + 1] and not lines[i + 1].startswith("▶")
            if "After a swap" in line:  # the public swap first, then what it means for you
                assert lines[i - 1].startswith("🔁") and "Tester" in lines[i - 1], lines


def test_the_terminal_speaks_the_tables_language(tmp_path: Path) -> None:
    term = _play(tmp_path / "gnav.sqlite3", "--language", "ru", "--players", "3")
    try:
        term.wait_for("Ваш ход: стою или меняю?")
        term.type(b"\xd1\x81\xd1\x82\xd0\xbe\xd1\x8e\n")  # "стою"
        term.wait_for("Tester: «Jeg står»")
        term.type(b"\x03")
        assert term.wait() == 130
    finally:
        term.close()
    text = term.text
    assert "стою (с)" in text  # the local words, in help
    for english in ("Your turn", "Type:", "Turn time", "press Join", "(600", "Bot seats"):
        assert english not in text, english
    assert "Партия сохранена" in text
