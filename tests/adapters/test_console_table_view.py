"""The terminal's table view (issue 30 point 1): the compact state the chat's table message
shows (the game's `render_status`, whose turn) is printed once before each of the player's
questions, and on the `table` word in every language; the log's entries are printed as they
happen in between, and the same block never twice in a row."""

from __future__ import annotations

import asyncio
import io
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from adapters.console.notifier import ConsoleNotifier, state_block
from adapters.console.play import aliases, help_text
from bot.games.registry import all_games
from bot.service.i18n import LANGUAGES, catalog, with_game_messages
from bot.service.ports import Screen

ROOT = Path(__file__).resolve().parent.parent.parent
HEADER = "Karnaval · quarter "
QUESTIONS = ("Your turn: ", "Your bid: ")


def _typed(tmp_path: Path, typed: str, *args: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["GNAV_DB"] = str(tmp_path / "play.db")
    command = [sys.executable, "-m", "bot", "play", "--seed", "3", "--name", "Me"]
    done = subprocess.run(
        [*command, "--bot-delay", "0", *args],
        input=typed,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _blocks(lines: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    """(line index, the block) of every state block printed: a header up to the next blank
    line, the log's separator or a prompt."""
    found = []
    for i, line in enumerate(lines):
        if line.startswith(HEADER):
            block = []
            for following in lines[i:]:
                if not following.strip() or following == "—" or following.startswith("Type "):
                    break
                block.append(following)
            found.append((i, tuple(block)))
    return found


def test_a_karnaval_deal_in_the_terminal_shows_the_state_at_each_question(
    tmp_path: Path,
) -> None:
    lines = _typed(tmp_path, "1\ntable\n" + "1\n" * 40 + "quit\n", "--game", "karnaval")
    text = "\n".join(lines)
    questions = [i for i, line in enumerate(lines) if line.startswith(QUESTIONS)]
    assert len(questions) > 8, text
    blocks = _blocks(lines)
    starts = [i for i, _ in blocks]
    previous = 0
    for q in questions:
        # The state as it stands is printed since the last question, once: the last block
        # before the question ends with whose turn it is (the player's).
        shown = [(i, b) for i, b in blocks if previous <= i < q]
        between = lines[previous + 1 : q]
        if not shown:  # the same state (a Karnaval's second card): nothing happened since
            quiet = ("Type ", "🔒 ", "")
            assert all(line.startswith(quiet) for line in between), between
            continue
        # The newest block says whose turn it is (a new message's after its newest events).
        assert any(line.startswith("▶ Me's turn") for line in lines[shown[-1][0] : q]), shown
        assert sum(1 for i in starts if previous <= i < q) <= 2, lines[previous : q + 1]
        previous = q
    # `table` prints the block at once, right under the word typed.
    asked = next(i for i, line in enumerate(lines) if line.endswith(": table"))
    after = [b for i, b in blocks if asked < i <= asked + 2]
    assert after and after[0][-1].startswith("▶ Me's turn"), lines[asked : asked + 12]
    # Never the same block twice in a row, but where `table` asked for it.
    for (i, a), (j, b) in itertools.pairwise(blocks):
        if a == b:
            assert any(line.endswith(": table") for line in lines[i:j]), lines[i : j + 1]


def test_a_question_prints_the_state_once_and_table_prints_it_again() -> None:
    """The notifier alone: the block before a question only when it changed since it was
    printed; `table` prints it whenever asked."""
    title, seat, turn = "Karnaval · deal 1", "▶ Me · bid 1 · took 0", "▶ Me's turn."

    async def story() -> list[str]:
        out = io.StringIO()
        notifier = ConsoleNotifier(Console(file=out, width=200), "me")
        log = ("Bo bids 2.",)
        ref = await notifier.post("t", Screen(f"{title}\n{seat}\n—\n{log[0]}\n{turn}", log=log))
        assert ref is not None
        notifier.show_state()  # the message just printed shows it: not again
        log2 = (*log, "Bo plays K♣.")
        changed = f"{title}\n{seat}\nOn the table: Bo K♣\n—\n{log2[1]}\n{turn}"
        await notifier.edit("t", ref, Screen(changed, log=log2))
        notifier.show_state()  # a question: the state changed since, printed once
        notifier.show_state()  # the same question asked again: not twice in a row
        notifier.show_state(asked=True)  # `table`
        return out.getvalue().splitlines()

    lines = asyncio.run(story())
    assert lines.count(title) == 3, lines  # the message, the question, `table`
    assert lines.count("On the table: Bo K♣") == 2, lines
    assert lines.count("Bo plays K♣.") == 1 and lines.count("Bo bids 2.") == 1, lines
    # The state's own lines stay, even one a log entry says too (Gnavspiel's last exchange
    # of one event); the newest entries under the separator go, whose turn stays.
    screen = Screen("a\nx\n—\nx\ny\n▶ b", log=("x", "y"))
    assert state_block(screen) == ["a", "x", "▶ b"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_table_is_a_word_of_the_terminal_and_its_help_in_every_language(language: str) -> None:
    cat = with_game_messages(catalog(language), [g.view.messages for g in all_games().values()])
    for game in all_games():
        words = aliases(cat, game)
        own = [w for w, command in words.items() if command == "table"]
        assert "table" in own and len(own) >= (1 if language == "en" else 2), (game, own)
        local = own[-1] if language == "en" else next(w for w in own if w != "table")
        assert f" {local} " in help_text(cat, game), (game, local, help_text(cat, game))
