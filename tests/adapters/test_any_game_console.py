"""The tests-only high-card game (tests/games/highcard.py) in the terminal table: the real
console adapter and SQLite, input from a file as from a pipe; every choice typed by its number.
No line of service, storage or adapter code was written for this game."""

from __future__ import annotations

import io
import random
from pathlib import Path

from rich.console import Console

from adapters.console.notifier import ConsoleNotifier
from adapters.console.play import PlayOptions, play
from adapters.console.stdin import LineReader
from bot.games.registry import all_games
from bot.service.service import TableService
from bot.service.table import TableKey
from storage.sqlite import SqliteRepository
from tests.games.highcard import high_card


async def test_high_card_is_played_to_its_end_in_the_terminal(tmp_path: Path) -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, highlight=False, soft_wrap=True)
    repo = await SqliteRepository.open(tmp_path / "store.sqlite3")
    notifier = ConsoleNotifier(console, "console:you")
    service = TableService(
        repo,
        notifier,
        rng=random.Random(5),
        bot_delay=0.0,
        games={"highcard": high_card(), **all_games()},
    )
    typed = tmp_path / "typed.txt"
    typed.write_text("1\n" * 40, encoding="utf-8")  # always the first card listed
    options = PlayOptions(players=3, name="Me", settings=("game=highcard",), new=True)
    try:
        with typed.open(encoding="utf-8") as stdin:
            status = await play(service, options, console, LineReader(stdin), notifier=notifier)
        table = await service.table_state(TableKey("console", "local"))
    finally:
        await repo.close()
    text = out.getvalue()
    assert status == 0
    assert "1) Play" in text  # the choices listed with numbers, from the game's labels
    assert "wins the match" in text
    assert table is not None and table.game == "highcard" and table.status == "closed"
    assert table.match.winners
    # Every round the person played the first (lowest) card of their hand.
    me = table.seat_of("console:you")
    for played in table.match.rounds:
        assert played["played"][str(me)] == min(played["hands"][me])
