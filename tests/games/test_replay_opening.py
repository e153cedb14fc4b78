"""Issue 30, point 9: a replay's steps are the table's log lines, the deal's own opening lines
included (a Narr's knock, N5; Gnavspiel's ante, G2), not only what the actions said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.games.gnav.engine.record import replay_record as gnav_fold
from bot.games.gnav.game import GnavRules, GnavView
from bot.games.gnavspiel.engine.record import replay_record as gnavspiel_fold
from bot.games.gnavspiel.game import GnavspielRules, GnavspielView
from bot.service.i18n import catalog, with_game_messages

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _steps(view: Any, record: dict[str, Any]) -> list[dict[str, Any]]:
    cat = with_game_messages(catalog("en"), [view.messages])
    return list(view.web_replay(record, cat))


def _first_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    firsts: dict[int, dict[str, Any]] = {}
    for step in steps:
        firsts.setdefault(step["deal"], step)
    return [firsts[d] for d in sorted(firsts)]


def test_a_gnav_replay_tells_the_narr_holders_knock_at_the_deal_N5() -> None:
    knocks = 0
    for path in sorted((VECTORS / "own").glob("*.json")):
        if path.name.endswith(".outcome.json") or path.name.startswith("invalid_"):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        try:
            gnav_fold(record)
        except ValueError:
            continue  # a record the engine refuses: not a replay
        steps = _steps(GnavView(GnavRules()), record)
        rounds = record["rounds"]
        for first in _first_steps(steps):
            r = first["deal"]
            cut = {**record, "rounds": [*rounds[:r], {**rounds[r], "actions": []}]}
            match, _ = gnav_fold(cut)
            knocked = [
                e.seats[0] for e in (match.log.events if match.log else []) if e.kind == "knock"
            ]
            told = first["text"].split("—", 1)[1] if "—" in first["text"] else ""
            for seat in knocked:
                assert f"👊 {match.seats[seat]}: «Bank, bank, bank!»" in told, (path.name, r)
                knocks += 1
    assert knocks > 0  # the vectors deal a Narr somewhere


def test_a_gnavspiel_replay_starts_each_deal_with_its_ante_G2() -> None:
    antes = 0
    for path in sorted((VECTORS / "gnavspiel" / "public").glob("*.json")):
        if path.name.endswith(".outcome.json") or path.name.startswith("invalid_"):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        steps = _steps(GnavspielView(GnavspielRules()), record)
        rounds = record["rounds"]
        for first in _first_steps(steps):
            r = first["deal"]
            cut = {**record, "rounds": [*rounds[:r], {**rounds[r], "actions": []}]}
            match, _ = gnavspiel_fold(cut)
            kinds = [e.kind for e in (match.log.events if match.log else [])]
            if "ante" in kinds:
                assert "Everyone puts 1 chip into the pot." in first["text"], (path.name, r)
                antes += 1
    assert antes > 0
