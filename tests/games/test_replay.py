"""`gnav-bot replay` for every game (bot/games/replay.py): one `file:` line for any file that
holds no record, one `game:` line naming the registered games for an unknown one, and no error
line that repeats more than 80 characters of a value the record holds (issue 19)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.games import replay
from bot.games.common.engine.safejson import MAX_SHOWN
from bot.games.registry import GAME_NAMES, all_games
from tests.games.gnav.engine.vectors import run_gnav_bot

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
#: One small public record of each game (game -> path).
SAMPLES = {
    "gnav": VECTORS / "public" / "horse_redirect.json",
    "gnavspiel": VECTORS / "gnavspiel" / "public" / "record_example.json",
    "karnaval": VECTORS / "karnaval" / "public" / "seed_example.json",
}
#: A character no vector holds: a value made of it is easy to find in an error line.
LONG = "Ж"


def _sample(game: str) -> Any:
    return json.loads(SAMPLES[game].read_text(encoding="utf-8"))


def _line(record: Any) -> str | None:
    """The error line of `record` through the whole replay, or None when it replays."""
    try:
        replay.replay_text(json.dumps(record, ensure_ascii=False))
    except replay.ReplayError as exc:
        return exc.line
    return None


def test_every_registered_game_replays_and_the_names_agree() -> None:
    assert tuple(all_games()) == GAME_NAMES
    assert set(replay._REPLAY) == set(GAME_NAMES)
    assert set(SAMPLES) == set(GAME_NAMES)
    for game in GAME_NAMES:
        assert replay.game_of(_sample(game)) == game
        assert _line(_sample(game)) is None


@pytest.mark.parametrize("game", ["chess", "", 7, None, ["karnaval"]])
def test_an_unknown_game_is_one_line_naming_the_games(game: Any) -> None:
    line = _line({"game": game, "seats": ["A", "B", "C"]})
    assert line is not None and line.startswith("game: ") and "\n" not in line
    assert f"(games: {', '.join(GAME_NAMES)})" in line
    assert json.dumps(game) in line


def test_an_unknown_game_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "chess.json"
    path.write_text('{"game": "chess"}', encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ('game: "chess" is not a known game (games: gnav, gnavspiel, karnaval)\n')


@pytest.mark.parametrize("game", sorted(SAMPLES))
def test_a_truncated_file_is_a_file_fault_whatever_the_game(game: str, tmp_path: Path) -> None:
    text = SAMPLES[game].read_text(encoding="utf-8")
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("file: not valid JSON: line ") and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "text",
    ["", " \n", "{", '\ufeff{"game": "karnaval"}', '{"seats": NaN}', "[1, -Infinity]", "{} {}"],
    ids=["empty", "blank", "open", "bom", "nan", "infinity", "two-values"],
)
def test_every_file_fault_is_one_file_line(text: str) -> None:
    with pytest.raises(replay.ReplayError) as info:
        replay.replay_text(text)
    assert info.value.line.startswith("file: ") and "\n" not in info.value.line


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], bool]]:
    """Every string of a record: (path, is a key of an object)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key), True
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _places(item, (*path, i))
    elif isinstance(value, str):
        yield path, False


def _replaced(record: Any, path: tuple[Any, ...], is_key: bool, new: str) -> Any:
    record = copy.deepcopy(record)
    node = record
    for step in path[:-1]:
        node = node[step]
    if is_key:
        node[new] = node.pop(path[-1])
    else:
        node[path[-1]] = new
    return record


def _renamed(value: Any, old: str, new: str) -> Any:
    """`value` with the player name `old` written `new` everywhere (keys and values)."""
    if isinstance(value, dict):
        return {(new if k == old else k): _renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    return new if value == old else value


def _short(game: str) -> Any:
    """The sample cut to its first round or deal: every string of it is one case."""
    record = _sample(game)
    key = "deals" if game == "karnaval" else "rounds"
    record[key] = record[key][:1]
    return record


def _faults(record: Any, game: str) -> Iterator[Any]:
    """Records with one fault each that the engine itself finds (turn, hand, deal)."""
    key, moves = ("deals", "plays") if game == "karnaval" else ("rounds", "actions")
    first = record[key][0]
    for i in range(len(first[moves])):
        bad = copy.deepcopy(record)
        del bad[key][0][moves][i]
        yield bad
    if game == "karnaval":
        bad = copy.deepcopy(record)
        bad["deals"][0]["bids"] = bad["deals"][0]["bids"][1:] + bad["deals"][0]["bids"][:1]
        yield bad


@pytest.mark.parametrize("game", sorted(SAMPLES))
def test_no_error_line_repeats_more_than_80_characters_of_a_value(game: str) -> None:
    """Every string of a record (card, name, verb, choice, key) made 5,000 characters long, and
    every player named with 5,000 characters in records the engine refuses: the line holds at
    most 80 characters of it, as docs/MATCH_RECORD.md and docs/KARNAVAL_RECORD.md say."""
    record = _short(game)
    long = LONG * 5000
    lines = 0
    for path, is_key in _places(record):
        line = _line(_replaced(record, path, is_key, long))
        if line is not None:
            lines += 1
            assert LONG * MAX_SHOWN not in line, (path, line[:300])
            assert LONG not in line or LONG + "…" in line, (path, line[:300])  # shown as cut
            # In JSON quotes, the opening quote is one of the 80 and no closing one follows.
            assert LONG + '…"' not in line, (path, line[:300])
    seats = record["seats"]
    for seat in seats:
        for bad in _faults(_renamed(record, seat, long), game):
            line = _line(bad)
            if line is not None:
                lines += 1
                assert LONG * MAX_SHOWN not in line, (seat, line[:300])
                assert LONG + '…"' not in line, (seat, line[:300])
    assert lines > 30  # the cases did reach error lines
