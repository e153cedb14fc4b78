"""Instructions executed per command, counted by valgrind's cachegrind (issue 32's measure).

Wall time on these shared machines moves by ±10% from run to run; the number of instructions
the interpreter executes for the same work does not (within about 0.5%: the store's thread and
the event loop's order are the only sources of variation). So a change to the service's core
is compared here exactly, before and after, in instructions per command.

Kinds of command, each played by a child process under
`valgrind --tool=cachegrind --cache-sim=no`:

- `gnav`, `karnaval`: the play of `benchmarks/service.py`: tables of bot seats (6 for Gnav,
  4 for Karnaval) on SQLite, every bot's step a command through the service's timers
  (`TableService.tick`), the notifier sending nothing;
- `press`: a person's button press as a chat adapter hands it to the service
  (`TableService.press(key, user, token)`), on Karnaval tables where every seat is a person
  who presses the first button of the newest private screen that asks them something;
- `web`: the same presses arriving from the web page (`WebServer`'s own press path: the
  token checked against the page's table, the presser's seat looked up, then the press),
  with one page of each seat open, so the pushes after each commit are counted too.

Each kind is run twice in fresh processes with the same set-up, once stopping after `--few`
commands and once after `--many`: the difference of the two counts over the difference of the
commands is the cost of a command with the interpreter's start, the imports and the tables'
set-up subtracted. The garbage collector is tuned once the tables are set up, as `gnav-bot run`
tunes it once its tables are restored (bot/runtime.py): with CPython's default thresholds a full
collection falling inside one of the two runs and not the other moves a kind's figure by up to
100k instructions per command. The terminal's turn is not counted here (its loop reads a
terminal).

Prints one line per kind and a last JSON line. Run (about 15 minutes under valgrind on 2 cores):
`.venv/bin/python benchmarks/instructions.py` (`--kinds gnav press` for some of them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bot.service.commands import Configure, Join, Open, Press, Start

if __package__ in (None, ""):
    # Run as a script, this folder comes first on sys.path and benchmarks/storage.py would
    # shadow the `storage` package: put the repository root there instead.
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
from typing import Any

KINDS = ("gnav", "karnaval", "press", "web")


# ---------------------------------------------------------------------------- the children


class _Recorder:
    """A notifier that sends nothing and keeps each user's newest private screen."""

    def __init__(self) -> None:
        self.posts = 0
        self.newest: dict[str, Any] = {}

    async def post(self, channel: str, screen: Any) -> str | None:
        """Count a post."""
        self.posts += 1
        return str(self.posts)

    async def edit(self, channel: str, message_ref: str, screen: Any) -> bool:
        """An edit goes nowhere."""
        return True

    async def tell(self, user: str, screen: Any) -> Any:
        """Keep the newest private screen with buttons to press."""
        from bot.service.ports import Delivery

        if any(b.token for row in screen.buttons for b in row):
            self.newest[user] = screen
        return Delivery.DELIVERED


async def _bots(kind: str, commands: int, folder: Path) -> int:
    """Bot tables of `kind` playing until `commands` commands were handled."""
    from benchmarks.service import NullNotifier, TimedService, setup_tables
    from bot.games.registry import all_games
    from bot.runtime import tune_garbage_collector
    from storage.sqlite import SqliteRepository

    repo = await SqliteRepository.open(folder / "play.sqlite3")
    service = TimedService(
        repo, NullNotifier(), rng=random.Random(1), bot_delay=0.0, games=all_games()
    )
    if kind == "gnav":
        await setup_tables(service, 30, "t", 6)
    else:
        await setup_tables(service, 30, "t", 4, ("game=karnaval",))
    tune_garbage_collector()  # as `gnav-bot run` does once its tables are restored
    while len(service.latencies) < commands:
        if await service.tick() == 0:
            await asyncio.sleep(0)
    await service.drain()
    await repo.close()
    return len(service.latencies)


async def _people(kind: str, commands: int, folder: Path) -> int:
    """Karnaval tables of people pressing buttons (`press`: as a chat adapter hands a press
    to the service; `web`: through the web server's press path) until `commands` presses
    were applied."""
    from adapters.web.auth import SecretHolder, Viewer
    from adapters.web.hub import Hub, Page
    from adapters.web.server import WebServer
    from bot.games.registry import all_games
    from bot.runtime import tune_garbage_collector
    from bot.service.service import TableService
    from bot.service.table import TableKey, User
    from storage.sqlite import SqliteRepository

    repo = await SqliteRepository.open(folder / "play.sqlite3")
    notifier = _Recorder()
    service = TableService(repo, notifier, rng=random.Random(1), bot_delay=0.0, games=all_games())
    tables = 10
    seats = 4
    people: dict[str, tuple[TableKey, User]] = {}
    for t in range(tables):
        key = TableKey("bench", f"p{t}")
        users = [User(f"bench:u{t}_{s}", f"P{t}{s}") for s in range(seats)]
        host = users[0]
        assert (await service.handle(Open(key, host, game="karnaval"))).ok
        for user in users[1:]:
            assert (await service.handle(Join(key, user))).ok
        assert (await service.handle(Configure(key, host, ["delay=0"]))).ok
        assert (await service.handle(Start(key, host))).ok
        for user in users:
            people[user.key] = (key, user)
    await service.drain()

    server = None
    pages: dict[str, tuple[Page, Viewer]] = {}
    if kind == "web":

        class _Socket:
            """A page's socket that drops what is pushed to it."""

            closed = False

            async def send_str(self, data: str) -> None:
                return None

            async def close(self, **_: Any) -> None:
                self.closed = True

        hub = Hub(service)
        service.subscribe(hub.committed)  # as adapters/web/stack.py does
        server = WebServer(service, hub, SecretHolder(b"bench" * 8), clock=lambda: 0.0)
        for user_key, (key, user) in people.items():
            table_id = _table_id(service, key)
            page = Page(_Socket(), table_id, user_key)
            hub.add(page)
            assert await hub.send_first(page) is not None
            pages[user_key] = (page, Viewer(user_key, user.name, None, table_id))

    tune_garbage_collector()  # as `gnav-bot run` does once its tables are restored
    applied = 0
    idle = 0
    while applied < commands:
        pressed = False
        for user_key in list(notifier.newest):
            screen = notifier.newest.pop(user_key)
            token = next(b.token for row in screen.buttons for b in row if b.token)
            key, user = people[user_key]
            if server is None:
                reply = await service.handle(Press(key, user, token))
                ok = reply.ok
            else:
                page, viewer = pages[user_key]
                ok = bool((await server._press(page, viewer, token))["ok"])
            if ok:
                applied += 1
                pressed = True
            if applied >= commands:
                break
        if not pressed:
            await service.tick()
            await service.drain()
            idle += 1
            if idle > 10_000:
                raise RuntimeError("no press was applied for a long while")
        else:
            idle = 0
    await service.drain()
    if server is not None:
        await server.hub.close()
    await repo.close()
    return applied


def _table_id(service: Any, key: Any) -> str:
    """The stored id of the table at `key` (the benchmark may look inside what it measures)."""
    return str(service.uow.cached[key.key].table_id)


def child(kind: str, commands: int) -> None:
    """Play `commands` commands of `kind` and print how many were played (one JSON line)."""
    os.environ.setdefault("PYTHONHASHSEED", "0")
    with tempfile.TemporaryDirectory(prefix="gnav-instructions-") as tmp:
        folder = Path(tmp)
        if kind in ("gnav", "karnaval"):
            played = asyncio.run(_bots(kind, commands, folder))
        else:
            played = asyncio.run(_people(kind, commands, folder))
    print(json.dumps({"kind": kind, "commands": played}))


# ---------------------------------------------------------------------------- the parent


def count(kind: str, commands: int) -> tuple[int, int]:
    """(instructions, commands) of one child run under cachegrind."""
    with tempfile.TemporaryDirectory(prefix="gnav-cachegrind-") as tmp:
        out = Path(tmp) / "cachegrind.out"
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        proc = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                f"--cachegrind-out-file={out}",
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                kind,
                "--commands",
                str(commands),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{kind} under cachegrind failed:\n{proc.stderr[-2000:]}")
        played = json.loads(proc.stdout.strip().splitlines()[-1])["commands"]
        summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
        if summary is None:
            raise RuntimeError("no summary line in cachegrind's output")
        return int(summary.group(1)), int(played)


def main() -> None:
    """Count each kind at two sizes and print the instructions per command."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--few", type=int, default=100, help="commands of the short run")
    parser.add_argument("--many", type=int, default=400, help="commands of the long run")
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--commands", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.commands)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    figures: dict[str, int] = {}
    for kind in args.kinds:
        low, low_n = count(kind, args.few)
        high, high_n = count(kind, args.many)
        per = (high - low) / (high_n - low_n)
        figures[kind] = round(per)
        print(
            f"{kind}: {per / 1000:,.0f}k instructions per command "
            f"({high_n - low_n} commands between the two runs)"
        )
    if "press" in figures and "web" in figures:
        print(f"a web press / a chat press: {figures['web'] / figures['press']:.2f}")
    print(json.dumps({"instructions_per_command": figures}))


if __name__ == "__main__":
    main()
