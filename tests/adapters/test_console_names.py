"""A name longer than 32 characters is cut at a word, in the terminal too (`--name`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.games.gnav.engine.vectors import gnav_bot_command


def test_play_name_is_cut_at_a_word_and_cleaned(tmp_path: Path) -> None:
    name = "Bartholomew Aloysius Fitzgerald-Smythe the Third\u202e\u200b"
    args = ["play", "--db", str(tmp_path / "g.db"), "--seed", "1", "--players", "2"]
    done = subprocess.run(
        [*gnav_bot_command(), *args, "--name", name],
        input="q\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("GNAV_")},
    )
    assert done.returncode == 0, done.stderr
    assert "1. Bartholomew Aloysius… (host)" in done.stdout
    assert "Fitzgerald" not in done.stdout
    assert "\u202e" not in done.stdout and "\u200b" not in done.stdout
