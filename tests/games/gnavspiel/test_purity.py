"""The Gnavspiel engine is pure (G-rules only, chance from outside): it imports the standard
library minus I/O, time, chance, logging and concurrency, `json` only in `record.py`, and of
our own packages only itself and the engines' shared part `bot.games.common.engine` (the error
and record-error bases, the events' fields, and `safejson`'s way of cutting a value an error
line repeats), never Gnav's engine."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_architecture import ENGINE_FORBIDDEN, ROOT, _imports, _module_name, _top

ENGINE_DIR = ROOT / "bot" / "games" / "gnavspiel" / "engine"
MODULES = {_module_name(p): p for p in sorted(ENGINE_DIR.glob("*.py"))}


def test_g1_the_engine_modules_are_found() -> None:
    assert {"bot.games.gnavspiel.engine.match", "bot.games.gnavspiel.engine.record"} <= set(MODULES)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_engine_imports_only_pure_standard_library(name: str) -> None:
    import sys

    bad = []
    for imp in _imports(name, MODULES[name]):
        top = _top(imp.module)
        if top == "bot":
            ok = imp.module in ("bot", "bot.games.common") or imp.module.startswith(
                ("bot.games.gnavspiel.engine", "bot.games.common.engine")
            )
            if not ok:
                bad.append(imp.module)
        elif top == "__future__":
            continue
        elif (
            top not in sys.stdlib_module_names
            or top in ENGINE_FORBIDDEN
            or (top == "json" and not name.endswith(".record"))
        ):
            bad.append(imp.module)
    assert not bad, f"{name}: {bad}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_engine_uses_no_global_random_io_or_dynamic_code(name: str) -> None:
    tree = ast.parse(Path(MODULES[name]).read_text(encoding="utf-8"))
    bad = [
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id in ("__import__", "eval", "exec", "open", "print")
    ]
    assert not bad
