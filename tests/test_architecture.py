"""The import arrows of docs/architecture.md, enforced by parsing every module's imports (ast).

- every game's engine (`bot/games/<game>/engine`) is pure: the standard library only, and none of
  it that does I/O, time, chance, logging or concurrency; `json` only in its `record.py` (parsing
  a record's text); of ours only itself and the engines' shared part (`bot/games/common/engine`,
  pure by the same rule, which imports no game); no use of the global `random` module, and no
  dynamic imports.
- no game imports another: what two games share lives in `bot/games/common`, which imports no
  game.
- `bot/service` never imports `adapters` or `storage` (it owns ports they implement), and
  `bot/service`, `storage` and `adapters` import no game: only the composition root does.
- `storage` never imports `adapters`; adapters never import each other.
- `gnav-bot replay` starts without any platform library.
- `bot/service`, `storage` and `adapters` name no game: the words of every hosted game (stay,
  swap, piece, lives, Narr, trick, bid, trump, joker, chips, pot, loan, card, and the games'
  own names) are no identifier and no string constant there, and no key of the service's
  catalog; games' words and texts live in `bot/games/<game>/`.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUR_PACKAGES = ("bot", "adapters", "storage")

#: Standard-library modules the engine may not touch: I/O, OS, time, chance, logging, threads,
#: networking, processes, dynamic loading.
ENGINE_FORBIDDEN = frozenset(
    {
        "asyncio",
        "concurrent",
        "ctypes",
        "datetime",
        "glob",
        "http",
        "importlib",
        "io",
        "logging",
        "multiprocessing",
        "os",
        "pathlib",
        "pickle",
        "random",
        "secrets",
        "select",
        "selectors",
        "shelve",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "ssl",
        "subprocess",
        "sys",
        "tempfile",
        "threading",
        "time",
        "urllib",
        "uuid",
        "warnings",
    }
)
#: Modules allowed in one module of each engine only (by its name inside the engine): parsing a
#: record's text, and the hardened JSON reading it uses.
ENGINE_ALLOWED_IN = {"json": {"record", "safejson"}}

ADAPTERS = ("telegram", "discord", "console", "web")


@dataclass(frozen=True)
class Import:
    """One imported module name, absolute, with the line that imports it."""

    module: str
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(*packages: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in packages:
        base = ROOT / package
        if base.exists():
            for path in sorted(base.rglob("*.py")):
                found[_module_name(path)] = path
    return found


def _imports(name: str, path: Path) -> list[Import]:
    """Every module `name` imports anywhere in its body (also inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    result: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            result += [Import(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            result.append(Import(module, node.lineno))
            # `from bot.games.gnav import engine` imports its engine: count names as modules too.
            result += [Import(f"{module}.{alias.name}", node.lineno) for alias in node.names]
    return result


def _top(module: str) -> str:
    return module.partition(".")[0]


def _is_ours(module: str) -> bool:
    return _top(module) in OUR_PACKAGES


#: Every game's engine modules.
ENGINE = _modules(*(str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("bot/games/*/engine"))))


#: The engines' shared pure part: every engine may import it; it imports no game.
COMMON_ENGINE = "bot.games.common.engine"


def _engine_of(name: str) -> str:
    """The engine package a module belongs to: `bot.games.<game>.engine`."""
    return ".".join(name.split(".")[:4])


def test_the_engines_are_found() -> None:
    """The checker sees the engines' modules (a wrong path would pass vacuously)."""
    gnav = {"match", "record", "pieces"}
    assert {f"bot.games.gnav.engine.{m}" for m in gnav} <= set(ENGINE)
    assert {f"{COMMON_ENGINE}.{m}" for m in ("errors", "events", "record", "safejson")} <= set(
        ENGINE
    )


def _engine_violations(name: str, path: Path) -> list[str]:
    stdlib = sys.stdlib_module_names
    bad = []
    for imp in _imports(name, path):
        top = _top(imp.module)
        if _is_ours(imp.module):
            # `from bot import engine` names the bare `bot` package too: only what follows counts.
            # An engine builds on itself and on the engines' shared pure part, never on another
            # game's engine or anything else of ours.
            own = _engine_of(name)
            inside = any(
                imp.module == a or imp.module.startswith(a + ".") for a in (own, COMMON_ENGINE)
            )
            packages = {"bot", "bot.games", own.rpartition(".")[0], "bot.games.common"}
            if not inside and imp.module not in packages:
                bad.append(
                    f"line {imp.line}: {imp.module} (an engine imports only itself and "
                    f"{COMMON_ENGINE})"
                )
            continue
        if top == "__future__":
            continue
        if top not in stdlib:
            bad.append(f"line {imp.line}: {imp.module} is not in the standard library")
        elif top in ENGINE_FORBIDDEN:
            bad.append(f"line {imp.line}: {imp.module} (no I/O, time, chance or logging)")
        elif top in ENGINE_ALLOWED_IN and name.rpartition(".")[2] not in ENGINE_ALLOWED_IN[top]:
            bad.append(f"line {imp.line}: {imp.module} only in {sorted(ENGINE_ALLOWED_IN[top])}")
    return bad


@pytest.mark.parametrize("name", sorted(ENGINE))
def test_engine_imports_only_pure_standard_library(name: str) -> None:
    """The engine imports pure standard library modules and itself only."""
    bad = _engine_violations(name, ENGINE[name])
    assert not bad, f"{name}: " + "; ".join(bad)


@pytest.mark.parametrize("name", sorted(ENGINE))
def test_engine_uses_no_global_random_and_no_dynamic_import(name: str) -> None:
    """Chance enters from outside (docs/architecture.md): no `random.x(...)`, no `__import__`."""
    tree = ast.parse(ENGINE[name].read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "random":
                bad.append(f"line {node.lineno}: random.{node.attr}")
        elif isinstance(node, ast.Name) and node.id in ("__import__", "eval", "exec", "open"):
            bad.append(f"line {node.lineno}: {node.id}")
    assert not bad, f"{name}: " + "; ".join(bad)


def _violations(packages: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for name, path in _modules(*packages).items():
        for imp in _imports(name, path):
            if any(imp.module == f or imp.module.startswith(f + ".") for f in forbidden):
                bad.append(f"{name} line {imp.line}: {imp.module}")
    return bad


def test_service_imports_no_adapter_and_no_storage() -> None:
    """The service owns ports; adapters and storage implement them."""
    assert not _violations(("bot/service",), ("adapters", "storage"))


def test_service_storage_and_adapters_import_no_game() -> None:
    """Only the composition root knows the games: the service hosts them through its game
    interface, storage keeps their JSON, adapters show the service's screens."""
    assert not _violations(
        ("bot/service", "storage", "adapters"), ("bot.games", "bot.games.gnav.engine")
    )


def test_adapters_do_not_import_the_runner() -> None:
    """The runner drives the adapters; they only know the service (no import loop)."""
    assert not _violations(("adapters",), ("bot.runner", "bot.cli"))


def test_storage_imports_no_adapter() -> None:
    """Storage knows nothing of the chat platforms."""
    assert not _violations(("storage",), ("adapters",))


def test_games_import_no_adapter_and_no_storage() -> None:
    """Game modules sit beside the service: no adapter, no storage."""
    assert not _violations(("bot/games",), ("adapters", "storage"))


#: The games' packages (`bot/games/<game>/`), the shared part `bot/games/common` apart.
GAMES = sorted(
    p.name
    for p in (ROOT / "bot" / "games").iterdir()
    if (p / "__init__.py").exists() and p.name != "common"
)


def test_the_games_are_found() -> None:
    """The checker sees the games' packages (a wrong path would pass vacuously)."""
    assert {"gnav", "gnavspiel", "karnaval"} <= set(GAMES)


@pytest.mark.parametrize("game", [*GAMES, "common"])
def test_no_game_imports_another(game: str) -> None:
    """What two games share lives in `bot/games/common` (issue 32): a game imports no other
    game, and the shared part imports none."""
    others = tuple(f"bot.games.{g}" for g in GAMES if g != game)
    assert not _violations((f"bot/games/{game}",), others)


def test_gnavspiel_loads_nothing_of_gnav() -> None:
    """Gnavspiel's rules, view, engine, record reader, bots and page load no module of Gnav,
    not even through the shared part (issue 32)."""
    code = (
        "import sys\n"
        "import bot.games.gnavspiel.game, bot.games.gnavspiel.web, bot.games.gnavspiel.search\n"
        "import bot.games.gnavspiel.engine.record\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    loaded = done.stdout.split()
    assert "bot.games.gnavspiel.engine.record" in loaded
    assert [m for m in loaded if m == "bot.games.gnav" or m.startswith("bot.games.gnav.")] == []


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapters_never_import_each_other(adapter: str) -> None:
    """Telegram, Discord and the console adapter stay independent."""
    others = tuple(f"adapters.{a}" for a in ADAPTERS if a != adapter)
    base = ROOT / "adapters"
    bad: list[str] = []
    for path in (base / adapter, base / f"{adapter}.py"):
        if path.is_dir():
            bad += _violations((f"adapters/{adapter}",), others)
        elif path.exists():
            name = _module_name(path)
            bad += [
                f"{name} line {i.line}: {i.module}"
                for i in _imports(name, path)
                if any(i.module == o or i.module.startswith(o + ".") for o in others)
            ]
    assert not bad


def test_the_checker_resolves_relative_imports_and_flags_bad_ones(tmp_path: Path) -> None:
    """The checker itself, on a made-up engine module."""
    path = tmp_path / "fake.py"
    path.write_text(
        "from .match import Match\nfrom .. import service\nimport os.path\n"
        "def f():\n    import random\n    return random.random()\n",
        encoding="utf-8",
    )
    modules = [i.module for i in _imports("bot.games.gnav.engine.fake", path)]
    assert modules == [
        "bot.games.gnav.engine.match",
        "bot.games.gnav.engine.match.Match",
        "bot.games.gnav",
        "bot.games.gnav.service",
        "os.path",
        "random",
    ]
    bad = _engine_violations("bot.games.gnav.engine.fake", path)
    assert [b.split(":")[0] for b in bad] == ["line 2", "line 3", "line 5"]


def test_the_checker_lets_an_engine_import_the_shared_engine_and_no_other_game(
    tmp_path: Path,
) -> None:
    """The checker itself: the shared pure part is allowed, another game's engine, the shared
    web part and the service are not."""
    path = tmp_path / "fake.py"
    path.write_text(
        "from bot.games.common.engine.errors import RuleError\n"
        "from bot.games.common.engine import safejson\n"
        "from bot.games.gnav.engine.errors import RuleError as Gnav\n"
        "from bot.games.common import web\n"
        "from bot.games import karnaval\n"
        "from bot import service\n"
        "from .cards import DECK\n",
        encoding="utf-8",
    )
    bad = _engine_violations("bot.games.gnavspiel.engine.fake", path)
    assert [b.split(":")[0] for b in bad] == ["line 3", "line 3", "line 4", "line 5", "line 6"]


PLATFORM_LIBRARIES = ("telegram", "discord", "aiosqlite", "asyncpg", "pydantic", "aiohttp")


def test_replay_imports_no_platform_library() -> None:
    """`gnav-bot replay` runs the engine alone: no chat platform, storage or settings library."""
    record = ROOT / "tests" / "vectors" / "public" / "horse_redirect.json"
    code = (
        "import sys, io, contextlib\n"
        "from bot.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['replay', {str(record)!r}])\n"
        "print(rc)\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    rc, modules = done.stdout.splitlines()
    assert rc == "0"
    loaded = {m.partition(".")[0] for m in modules.split()}
    assert not loaded & set(PLATFORM_LIBRARIES)
    assert not {m for m in loaded if m in ("adapters", "storage")}


#: Gnav's own statistics counters: the service, storage and adapters never name them.
GNAV_WORDS = re.compile(r"\b(lives_lost|times_paid|refusals)\b")
#: The one place allowed to name them: the migration turning Gnav's old columns into rows.
GNAV_WORDS_ALLOWED_IN = {"storage.migrations"}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
        ):
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _named(path: Path) -> list[tuple[int | str, str]]:
    """What a module names in code, with its line: identifiers, attributes, keywords, imports
    and string constants (SQL, keys, texts); docstrings and comments are prose, left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.keyword):
            names = [node.arg or ""]
        elif isinstance(node, ast.alias):
            names = [node.name, node.asname or ""]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            names = [node.value]
        found.extend((getattr(node, "lineno", "?"), text) for text in names)
    return found


def _gnav_words(path: Path) -> list[str]:
    """Where a module names a Gnav counter in code (prose may still speak of refusals)."""
    return [
        f"line {line}: {m.group()}"
        for line, text in _named(path)
        for m in GNAV_WORDS.finditer(text)
    ]


GENERIC = _modules("bot/service", "storage", "adapters")


def test_generic_code_is_found() -> None:
    """The checker sees the service, storage and adapters (a wrong path passes vacuously)."""
    assert {"bot.service.queries", "storage.sqlite", "storage.migrations"} <= set(GENERIC)
    assert any(name.startswith("adapters.telegram") for name in GENERIC)


@pytest.mark.parametrize("name", sorted(set(GENERIC) - GNAV_WORDS_ALLOWED_IN))
def test_service_storage_and_adapters_name_no_gnav_counter(name: str) -> None:
    """Statistics are the game's: its counters are data here, never code or columns."""
    bad = _gnav_words(GENERIC[name])
    assert not bad, f"{name}: " + "; ".join(bad)


def test_the_gnav_word_checker_flags_code_not_prose(tmp_path: Path) -> None:
    """The checker itself: identifiers, keywords, SQL and keys count; comments and docs not."""
    path = tmp_path / "fake.py"
    path.write_text(
        '"""Refusals and lives_lost in a docstring are prose."""\n'
        "# lives_lost in a comment is prose too\n"
        "def f(refusals):\n"
        '    """times_paid here is prose."""\n'
        "    x.lives_lost = g(times_paid=1)\n"
        '    return "SELECT refusals FROM stats", {"lives_lost": 1}, "no refusal"\n',
        encoding="utf-8",
    )
    assert [b.partition(":")[0] for b in _gnav_words(path)] == [
        "line 3",
        "line 5",
        "line 5",
        "line 6",
        "line 6",
    ]


#: The words of every hosted game (Gnav, Gnavspiel, Karnaval) and the names of the games that
#: are not the bot's own name: generic code names none of them (issue 18).
GAME_WORDS = frozenset(
    {
        "stay", "stays", "swap", "swaps", "swapped", "piece", "pieces", "lives", "narr",
        "trick", "tricks", "bid", "bids", "trump", "trumps", "joker", "jokers", "chip",
        "chips", "pot", "pots", "loan", "loans", "card", "cards", "gnavspiel", "karnaval",
    }
)  # fmt: skip
#: Where generic code may still name them, and why (each one line).
GAME_WORDS_ALLOWED_IN = {
    # Schema steps of before games had their own counters: they rename Gnav's old columns.
    "storage.migrations",
}


def _words(text: str) -> list[str]:
    """The words of an identifier (snake_case, camelCase) or of a text, in lower case."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[^a-z]+", spaced.lower()) if w]


def _game_words(path: Path) -> list[str]:
    """Where a module names a game's word in code (docstrings and comments may speak of games)."""
    return [
        f"line {line}: {word} ({text[:40]!r})"
        for line, text in _named(path)
        for word in _words(text)
        if word in GAME_WORDS
    ]


@pytest.mark.parametrize("name", sorted(set(GENERIC) - GAME_WORDS_ALLOWED_IN))
def test_service_storage_and_adapters_name_no_game_word(name: str) -> None:
    """No hosted game's word in generic code: a game's words live in bot/games/<game>/."""
    bad = _game_words(GENERIC[name])
    assert not bad, f"{name}: " + "; ".join(bad)


def test_the_game_word_checker_flags_code_and_texts_not_prose(tmp_path: Path) -> None:
    """The checker itself: identifiers (any case), keys and texts count; docs and comments
    do not; a word inside another (`stayed`, `potential`, `cardinal`) is not the word."""
    path = tmp_path / "fake.py"
    path.write_text(
        '"""Stay, swap and the Narr in a docstring are prose."""\n'
        "# a trick in a comment is prose too\n"
        "def my_piece(jokerCount):\n"
        '    """Bids here are prose."""\n'
        '    return {"button.stay": 1}, "potential cardinal", x.TrumpSuit\n',
        encoding="utf-8",
    )
    assert sorted(b.partition(" (")[0] for b in _game_words(path)) == [
        "line 3: joker",
        "line 3: piece",
        "line 5: stay",
        "line 5: trump",
    ]


@pytest.mark.parametrize("language", ["en", "nb", "ru", "pt", "de"])
def test_the_service_catalog_has_no_key_naming_a_game_word(language: str) -> None:
    """The service's catalog holds the service's texts; a game's are in its own (`gnav.*` in
    bot/games/gnav/i18n), so no key of it names a game's word."""
    path = ROOT / "bot" / "i18n" / f"{language}.json"
    keys = json.loads(path.read_text(encoding="utf-8"))
    bad = [k for k in keys if any(w in GAME_WORDS for w in _words(k))]
    assert not bad, f"{path.name}: {bad}"


# -- the shape of the service (issue 32, docs/design.md) ------------------------------------

SERVICE = _modules("bot/service")
#: The jobs: side by side, none importing another (docs/design.md, "The service's parts").
JOBS = ("lobby", "play", "timers", "queries", "pages", "lifecycle")
#: The most floors the import picture of bot/service may have: the service, the jobs, what
#: they share (the unit of work, the screens, the outbox), the table and the game interface,
#: the values and ports.
MAX_FLOORS = 5
#: The longest a module of bot/service may be.
MAX_LINES = 400
#: Port objects the service holds: their optional capabilities are declared in ports.py
#: (`PacedChannels`, `PacedPrivate`, `Refreshing`, `Repository.shared`), never looked up.
PORT_NAMES = frozenset({"notifier", "repo", "n", "store"})


def _service_imports(path: Path) -> set[str]:
    """The bot.service modules `path` imports (anywhere, also for types only)."""
    name = _module_name(path)
    found = set()
    for i in _imports(name, path):
        parts = i.module.split(".")
        if parts[:2] == ["bot", "service"] and len(parts) >= 3:
            found.add(".".join(parts[:3]))
    return found - {name}


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each module's floor in an import graph: 1 for a module importing none of the graph,
    else one more than the highest module it imports."""
    found: dict[str, int] = {}

    def floor(module: str, seen: tuple[str, ...] = ()) -> int:
        if module in found:
            return found[module]
        assert module not in seen, f"an import loop: {' -> '.join((*seen, module))}"
        below = [floor(m, (*seen, module)) for m in graph[module] if m in graph]
        found[module] = 1 + max(below, default=0)
        return found[module]

    for module in graph:
        floor(module)
    return found


def test_the_service_has_at_most_five_floors() -> None:
    """The import picture of bot/service: at most five floors (it had eleven)."""
    graph = {name: _service_imports(path) for name, path in SERVICE.items()}
    found = floors(graph)
    top = max(found.values())
    assert top <= MAX_FLOORS, sorted(found.items(), key=lambda kv: -kv[1])


def test_the_floor_counter_counts_the_longest_chain() -> None:
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": {"d"}, "d": set(), "e": set()}
    assert floors(graph) == {"a": 4, "b": 3, "c": 2, "d": 1, "e": 1}


@pytest.mark.parametrize("job", JOBS)
def test_no_job_module_imports_another(job: str) -> None:
    """Lobby, play, timers, queries, pages and lifecycle sit side by side: each uses the
    unit of work, the screens and the outbox, never another job (the steps of a match reach
    the lobby and the timers through the `Steps` Protocol)."""
    path = ROOT / "bot" / "service" / f"{job}.py"
    others = {f"bot.service.{j}" for j in JOBS if j != job}
    assert not _service_imports(path) & others


@pytest.mark.parametrize("name", sorted(SERVICE))
def test_no_module_of_the_service_is_over_400_lines(name: str) -> None:
    lines = SERVICE[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name}: {lines} lines"


def _port_probes(path: Path) -> list[str]:
    """`getattr` calls on a port object (`self.notifier`, `repo`...) in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and node.args
        ):
            continue
        target = node.args[0]
        while isinstance(target, ast.Call):
            target = target.func  # `getattr(self._for(user), ...)`
        named = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if named in PORT_NAMES or named.lstrip("_") in ("for", "notifier", "repo"):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("name", sorted(SERVICE))
def test_no_getattr_on_a_port_in_the_service(name: str) -> None:
    """Optional capabilities of stores and notifiers are declared in ports.py's Protocols."""
    assert not _port_probes(SERVICE[name])


def test_the_port_probe_checker_flags_getattr_on_a_port(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(self, repo, user):\n"
        "    a = getattr(self.notifier, 'ready', None)\n"
        "    b = getattr(repo, 'shared', False)\n"
        "    c = getattr(self._for(user), 'refreshes', None)\n"
        "    d = getattr(settings, 'ge', None)\n"
    )
    assert [p.split(":")[0] for p in _port_probes(probe)] == ["line 2", "line 3", "line 4"]


#: Where an attribute of another object may be set after it is built: `TableService`'s
#: public registration points, for the composition root and the adapters made after the
#: service (bot/runner.py, bot/metrics.py, adapters/web/stack.py), and a part's own cache
#: (`Table.cache`, its per-process memo, no collaborator).
WIRED_BY_THE_ROOT = frozenset(
    {
        ("TableService", "use_metrics"),
        ("TableService", "bot_delay"),
        ("TableService", "on_store_lost"),
        ("TableService", "links"),
    }
)
OWN_PARTS = frozenset({"cache"})
#: Calls that register something in another object's collection.
REGISTERING = frozenset({"append", "extend", "add", "insert"})


def _bound_before(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Lambdas of a constructor that close over a local name or a `self.` attribute the
    constructor binds only later (a closure standing in for a part not yet built)."""
    later: dict[str, int] = {}
    for node in ast.walk(fn):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                later.setdefault(target.id, node.lineno)
            elif isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self":
                later.setdefault(f"self.{target.attr}", node.lineno)
    found = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Lambda):
            continue
        own = {a.arg for a in node.args.args}
        for used in ast.walk(node.body):
            if isinstance(used, ast.Name) and used.id not in own:
                name = used.id
            elif isinstance(used, ast.Attribute) and ast.unparse(used.value) == "self":
                name = f"self.{used.attr}"
            else:
                continue
            if later.get(name, 0) > node.lineno:
                found.append(f"line {node.lineno}: a lambda uses {name}, bound later")
    return found


def _of_another(collection: ast.expr, params: set[str]) -> bool:
    """Whether `collection` belongs to another object (`uow.on_commit`, `self.uow.hooks`, a
    constructor's parameter), not to the object itself (`self._ahead`) or a local."""
    if isinstance(collection, ast.Name):
        return collection.id in params
    return isinstance(collection, ast.Attribute) and ast.unparse(collection.value) != "self"


def _late_wiring(path: Path) -> list[str]:
    """Where a part of the service is wired after it is built: an attribute set on another
    object (`self.<part>.<hook> = ...`, or a constructor's `<part>.<hook> = ...`), a method
    of its own put in another object's list (`uow.on_commit.append(self._committed)`), or a
    constructor's lambda standing in for a part built after it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        functions = [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        methods = {f.name for f in functions}
        for fn in functions:
            if (cls.name, fn.name) in WIRED_BY_THE_ROOT:
                continue
            args = fn.args.args + fn.args.kwonlyargs
            params = {a.arg for a in args} - {"self"} if fn.name == "__init__" else set()
            if fn.name == "__init__":
                found.extend(_bound_before(fn))
            for node in ast.walk(fn):
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                    targets = [node.target]
                for target in targets:
                    if not isinstance(target, ast.Attribute):
                        continue
                    owner = target.value
                    of_part = (
                        isinstance(owner, ast.Attribute)
                        and ast.unparse(owner.value) == "self"
                        and owner.attr not in OWN_PARTS
                    )
                    if of_part or (isinstance(owner, ast.Name) and owner.id in params):
                        found.append(f"line {node.lineno}: {ast.unparse(target)} = ...")
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in REGISTERING
                    and _of_another(node.func.value, params)
                ):
                    for arg in node.args:
                        if (
                            isinstance(arg, ast.Attribute)
                            and ast.unparse(arg.value) == "self"
                            and arg.attr in methods
                        ):
                            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("name", sorted(SERVICE))
def test_no_part_of_the_service_is_wired_after_it_is_built(name: str) -> None:
    """Each part of the service gets what it uses in its constructor (issue 32): no hook set
    on a part after it is built, no listener of its own put in another part's list, no
    closure standing in for a part built later. A cycle is closed by a collaborator made
    before both sides (readback.py, commits.py, `deadlines.Wake`). Only `TableService`'s
    public registration points, for what the composition root and the adapters make after
    the service, set a part's attribute (`WIRED_BY_THE_ROOT`)."""
    assert not _late_wiring(SERVICE[name])


def test_the_wiring_checker_flags_hooks_set_after_construction(tmp_path: Path) -> None:
    wired = tmp_path / "wired.py"
    wired.write_text(
        "class Timers:\n"
        "    def __init__(self, uow, thinking):\n"
        "        self.table = None\n"
        "        thinking.on_ready = self._thought\n"
        "        uow.on_commit.append(self._committed)\n"
        "        self._ahead = []\n"
        "        self._ahead.append(self._thought)\n"
        "    def _thought(self, key): ...\n"
        "    def _committed(self, key): ...\n"
        "    def run(self, table):\n"
        "        self.deadlines.wake = object()\n"
        "        self.cache.memo = 1\n"
        "        table.deadline = 2\n"
        "class Service:\n"
        "    def __init__(self, make):\n"
        "        self.outbox = make(lambda key: self.uow.render(key), lambda k: screens.show(k))\n"
        "        self.uow = uow = make(self.outbox)\n"
        "        screens = make(uow)\n"
        "        self.handlers = {1: lambda c: uow.run(c)}\n"
    )
    assert [p.split(":")[0] for p in _late_wiring(wired)] == [
        "line 4",
        "line 5",
        "line 11",
        "line 16",
        "line 16",
    ]
