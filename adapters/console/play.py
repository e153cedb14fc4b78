"""`gnav-bot play`: a match in the terminal through the real service and SQLite store.

Input is read line by line, from a keyboard or a pipe (`printf 'stay\nswap\n' | gnav-bot play`);
a line is read only when the local player has to act. Quitting (or the end of the input) keeps
the match in the store: running the command again continues it.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from bot.service.service import TableService
from bot.service.table import Table, TableKey, User

TABLE = TableKey("console", "local")

HELP = (
    "Commands: stay (s) · swap (w) · piece (p) · next (n) · rules · help (h) · quit (q).\n"
    "On your turn: stay keeps your piece, swap asks your left neighbour (the dealer swaps with "
    "the bag)."
)

_ALIASES = {
    "s": "stay",
    "stay": "stay",
    "w": "swap",
    "swap": "swap",
    "p": "piece",
    "piece": "piece",
    "n": "next",
    "next": "next",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
    "h": "help",
    "help": "help",
    "?": "help",
    "rules": "rules",
}


@dataclass(slots=True)
class PlayOptions:
    """What `gnav-bot play` was asked for."""

    players: int = 4
    lives: int = 3
    profile: str = "norsk"
    language: str = "en"
    name: str = "You"
    new: bool = False


async def _read_line() -> str | None:
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return None if line == "" else line.strip()


async def play(service: TableService, options: PlayOptions, console: Console) -> int:
    """Run the local table until the match ends, the player quits or the input ends."""
    me = User("console:you", options.name)
    timers = asyncio.create_task(service.run(), name="gnav-timers")
    try:
        await service.resume()
        table = await service.status(TABLE)
        if table is not None and table.status != "closed" and options.new:
            await service.stop(TABLE, User(me.key, me.name, admin=True))
            table = None
        if table is None or table.status == "closed":
            await _new_match(service, me, options, console)
        else:
            console.print(Text("Continuing the saved match (use --new for a fresh one).", "dim"))
        console.print(Text(HELP, style="dim"))
        return await _loop(service, me, console)
    finally:
        timers.cancel()
        await asyncio.gather(timers, return_exceptions=True)
        await service.shutdown()


async def _new_match(
    service: TableService, me: User, options: PlayOptions, console: Console
) -> None:
    await service.open(TABLE, me)
    words = [
        f"bots={options.players - 1}",
        f"lives={options.lives}",
        f"rules={options.profile}",
        f"language={options.language}",
        "timeout=600",
        "delay=1",
    ]
    reply = await service.configure(TABLE, me, words)
    if not reply.ok:
        raise SystemExit(f"gnav-bot play: {reply.text}")
    reply = await service.start(TABLE, me)
    if not reply.ok:
        raise SystemExit(f"gnav-bot play: {reply.text}")


def _my_turn(table: Table, me: User) -> bool:
    match = table.match
    seat = table.seat_of(me.key)
    return (
        table.status == "playing"
        and match is not None
        and match.phase == "play"
        and seat is not None
        and match.turn == seat
    )


async def _loop(service: TableService, me: User, console: Console) -> int:
    prompted_seq = -1
    while True:
        await service.outbox.drain()
        table = await service.status(TABLE)
        if table is None or table.status == "closed":
            await service.outbox.drain()
            return 0
        if not _my_turn(table, me):
            await asyncio.sleep(0.02)
            continue
        if table.seq != prompted_seq:
            piece = await service.my_piece(TABLE, me)
            console.print(Text(f"{piece.text}  Your turn: stay or swap? ", style="bold"), end="")
            prompted_seq = table.seq
        line = await _read_line()
        if line is not None and not sys.stdin.isatty():
            console.print(Text(line, style="italic"))  # echo what the pipe said
        if line is None:
            console.print()
            console.print(Text("Input ended: the match is saved; run again to continue.", "dim"))
            return 0
        command = _ALIASES.get(line.casefold())
        if command is None:
            if line:
                console.print(Text(f'"{line}" is not a command. {HELP}'))
            prompted_seq = -1
            continue
        if command == "quit":
            console.print(Text("The match is saved: run gnav-bot play again to continue.", "dim"))
            return 0
        if command == "help":
            console.print(Text(HELP))
            prompted_seq = -1
            continue
        if command == "rules":
            console.print(Text((await service.rules_help(TABLE)).text))
            prompted_seq = -1
            continue
        if command == "piece":
            console.print(Text((await service.my_piece(TABLE, me)).text))
            prompted_seq = -1
            continue
        if command == "next":
            reply = await service.next_round(TABLE, me)
        else:
            reply = await service.act(TABLE, me, command)
        if not reply.ok:
            console.print(Text(reply.text))
            prompted_seq = -1
