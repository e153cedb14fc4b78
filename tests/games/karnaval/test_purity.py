"""The Karnaval engine is pure like bot/engine (docs/architecture.md): standard library only,
none of it doing I/O, time, chance, logging or concurrency; `json` only in record.py; of our
packages only itself and the engines' shared part (bot/games/common/engine); no global
`random`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_architecture import ENGINE_FORBIDDEN

ENGINE = Path(__file__).resolve().parents[3] / "bot" / "games" / "karnaval" / "engine"
MODULES = sorted(ENGINE.glob("*.py"))


def test_the_engine_is_found() -> None:
    assert {p.stem for p in MODULES} >= {"cards", "errors", "events", "game", "record"}


@pytest.mark.parametrize("path", MODULES, ids=[p.stem for p in MODULES])
def test_engine_imports_only_pure_standard_library(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module is not None
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top == "bot":
                assert name.startswith(("bot.games.karnaval.engine", "bot.games.common.engine")), (
                    name
                )
                continue
            assert top not in ENGINE_FORBIDDEN, name
            if top == "json":
                assert path.stem == "record", name
            assert top in {"__future__", "collections", "dataclasses", "typing", "json"}, name
