"""Issue 8, point 8: `gnav-bot replay` never crashes on hostile files: one line, exit 2, and
no error line echoes more than 80 characters of the offending value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.games.gnav.engine.record import RecordError, parse_record, replay_record
from tests.games.gnav.engine.test_record_errors import _record
from tests.games.gnav.engine.vectors import run_gnav_bot


def _replay_file(tmp_path: Path, text: str) -> tuple[int, str, str]:
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    done = run_gnav_bot("replay", str(path))
    return done.returncode, done.stdout, done.stderr


def _one_clear_line(code: int, out: str, err: str) -> str:
    """JSON Python cannot hold is a fault of the file (`file: `), as for every game."""
    assert code == 2, err
    assert out == ""
    assert err.startswith("file: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def test_replay_refuses_an_integer_of_4301_digits(tmp_path: Path) -> None:
    text = json.dumps(_record(lives={"A": 1})).replace('"A": 1}', '"A": ' + "9" * 4301 + "}")
    err = _one_clear_line(*_replay_file(tmp_path, text))
    assert "9" * 81 not in err


def test_replay_refuses_json_nested_1000_levels_deep(tmp_path: Path) -> None:
    err = _one_clear_line(*_replay_file(tmp_path, "[" * 1000 + "]" * 1000))
    assert "nested" in err
    err = _one_clear_line(*_replay_file(tmp_path, '{"seats": ' + "[" * 200 + "]" * 200 + "}"))
    assert "nested" in err


def test_replay_refuses_a_lone_surrogate_in_a_name(tmp_path: Path) -> None:
    text = json.dumps(_record()).replace('"A"', '"A\\ud800"')
    code, out, err = _replay_file(tmp_path, text)
    _one_clear_line(code, out, err)
    assert "surrogate" in err
    with pytest.raises(RecordError, match="surrogate"):
        parse_record('{"x": "\\udfff"}')


@pytest.mark.parametrize(
    "changes",
    [
        {"seats": ["A" * 500, "A" * 500]},
        {"profile": "p" * 500},
        {"dealer": "x" * 500},
        {"lives": {"A": "x" * 500}},
        {"lives": {"y" * 500: 1}},
        {"lives": {"A": -(10**4000)}},
    ],
    ids=["seated-twice", "profile", "dealer", "lives-value", "lives-name", "lives-huge"],
)
def test_error_lines_echo_at_most_80_characters_of_a_value(changes: dict) -> None:
    with pytest.raises(RecordError) as info:
        replay_record(_record(**changes))
    message = str(info.value)
    for ch in "Apxy9":
        assert ch * 81 not in message, message
    assert len(message) < 240, message


@pytest.mark.parametrize(
    ("where", "value"),
    [("deal", {"Z" * 300: "V"}), ("deal", {"A": "r" * 300}), ("bag", ["q" * 300])],
)
def test_round_errors_echo_at_most_80_characters(where: str, value: object) -> None:
    record = _record()
    record["rounds"][0][where] = value
    with pytest.raises(RecordError) as info:
        replay_record(record)
    message = str(info.value)
    assert all(ch * 81 not in message for ch in "Zrq"), message


def test_long_seat_names_are_cut_in_engine_messages() -> None:
    long = "L" * 300
    record = _record(seats=[long, "B", "C", "D"])
    record["rounds"][0]["deal"] = {long: "0", "B": "Hest", "C": "VIII", "D": "V"}
    record["rounds"][0]["actions"] = [["B", "stay"]]  # not B's turn: the engine names L...
    with pytest.raises(RecordError) as info:
        replay_record(record)
    assert "L" * 81 not in str(info.value)
