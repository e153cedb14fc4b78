"""`gnav-bot play`: a match in the terminal through the real service and SQLite store.

Input is read line by line, from a keyboard or a pipe (`printf 'stay\nswap\n' | gnav-bot play`);
a line is read only when the local player has to act, and in a terminal only what is typed
after the question appeared counts. In a terminal the table also waits for Enter after each
reveal before the next deal. Quitting, Ctrl-C (or the end of the input) keeps the match in the
store: every action was committed when it was made, and running the command again continues it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import sys
from dataclasses import dataclass, field, replace

from rich.console import Console
from rich.text import Text

from adapters.console.stdin import LineReader
from bot.service.game import Choice
from bot.service.i18n import Catalog, catalog
from bot.service.service import TableService
from bot.service.settings import SettingsError, TableSettings, apply_changes, parse_changes
from bot.service.table import TableKey, User
from bot.service.views import TableView

TABLE = TableKey("console", "local")

#: The commands, in the order of the catalog's `console.words` groups.
COMMANDS = ("stay", "swap", "piece", "rules", "help", "quit")

#: English words work in every language; `next` is what Enter between rounds means.
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


def aliases(cat: Catalog) -> dict[str, str]:
    """What can be typed in the catalog's language (its `console.words`), English too."""
    words = dict(_ALIASES)
    groups = cat.t("console.words").split(" · ")
    for command, group in zip(COMMANDS, groups, strict=True):
        for word in group.split():
            words[word.casefold()] = command
    return words


@dataclass(slots=True)
class PlayOptions:
    """What `gnav-bot play` was asked for."""

    players: int = 4
    lives: int = 3
    profile: str = "norsk"
    language: str = "en"
    name: str = "You"
    #: The game of a new table (a saved match keeps its own).
    game: str = "gnav"
    new: bool = False
    #: The game's own settings words (`rules=norsk lives=3`, `game=karnaval`): the composition
    #: root knows the games; this table only types them.
    settings: tuple[str, ...] = ()
    #: The options given on the command line (not defaults): a saved match ignores them.
    given: tuple[str, ...] = field(default=())
    #: The language the table speaks, once known (a saved match keeps its own).
    spoken: str = ""

    def cat(self) -> Catalog:
        """The catalog of the table's language."""
        return catalog(self.spoken or self.language)


class PlayConsole(Console):
    """rich's Console, except that a closed output pipe (`| head`, or `| tee` ended by Ctrl-C)
    silences it instead of raising SystemExit inside the event loop (which would skip closing
    the store); `output_gone` then tells the game loop to stop."""

    output_gone = False

    def on_broken_pipe(self) -> None:
        """The reader of the output went away: print nothing more."""
        self.quiet = True
        self.output_gone = True
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)


#: Seconds before the next deal when nobody presses Enter (a terminal waits for Enter).
PAUSE_IN_TERMINAL = 300
PAUSE_IN_PIPE = 1


async def play(
    service: TableService,
    options: PlayOptions,
    console: Console,
    reader: LineReader | None = None,
) -> int:
    """Run the local table until the match ends, the player quits or the input ends."""
    me = User("console:you", options.name)
    reader = reader or LineReader(sys.stdin)
    timers = asyncio.create_task(service.run(), name="gnav-timers")
    try:
        if options.new:
            words = _new_words(options, pause=reader.tty)
            # Nothing is abandoned before the new match is known to start: its settings
            # are checked first (a refusal is one line, the saved match kept).
            _check_words(service, words, options)
            abandoned = await _abandon(service, me, console)
            if abandoned:
                console.print(Text(options.cat().t("console.abandoned"), "dim"))
            table = None
        else:
            # Whether a match is saved is known before it is restored, so the line saying it
            # is continued comes before the restored table (which resume posts), always.
            table = await service.status(TABLE, me.key)
            if table is not None and table.status != "closed":
                options.spoken = table.settings.language
                console.print(Text(options.cat().t("console.continuing"), "dim"))
                ignored = " ".join(_ignored(table, me, options))
                if ignored:
                    text = options.cat().t("console.ignored", options=ignored)
                    console.print(Text(text, "bold"))
            await service.resume()
            table = await service.status(TABLE, me.key)
        if table is None or table.status == "closed":
            options.spoken = options.language
            words = _new_words(options, pause=reader.tty)
            await _new_match(service, me, words)
        console.print(Text(options.cat().t("console.help"), style="dim"))
        return await _loop(service, me, console, reader, options.cat())
    finally:
        timers.cancel()
        await asyncio.gather(timers, return_exceptions=True)
        await service.shutdown()


async def _abandon(service: TableService, me: User, console: Console) -> bool:
    """--new: stop a saved match without showing it again (nor "the bot restarted")."""
    quiet, console.quiet = console.quiet, True
    try:
        await service.resume()
        table = await service.status(TABLE, me.key)
        if table is None or table.status == "closed":
            return False
        await service.stop(TABLE, User(me.key, me.name, admin=True))
        return True
    finally:
        await service.drain()  # what resume and stop queued goes out unseen
        console.quiet = quiet


def _ignored(table: TableView, me: User, options: PlayOptions) -> list[str]:
    """The command-line options the saved match does not follow, as they were typed."""
    seat = table.seat_of(me.key)
    saved = {
        "players": len(table.seats),
        "lives": table.settings.of(table.game).get("lives", 3),
        "profile": table.settings.of(table.game).get("rules", table.game),
        "game": table.game,
        "language": table.settings.language,
        "name": table.seats[seat].name if seat is not None else None,
    }
    out = []
    for name in options.given:
        value = getattr(options, name)
        if name in saved and saved[name] != value:
            out.append(f"--{name} {shlex.quote(str(value))}")
    return out


def _new_words(options: PlayOptions, *, pause: bool) -> list[str]:
    """The settings words of a new terminal table: the game's own, then the table's."""
    return [
        *(options.settings or (f"lives={options.lives}", f"rules={options.profile}")),
        f"bots={options.players - 1}",
        f"language={options.language}",
        "timeout=600",
        f"delay={PAUSE_IN_TERMINAL if pause else PAUSE_IN_PIPE}",
    ]


def _check_words(service: TableService, words: list[str], options: PlayOptions) -> None:
    """Refuse (SystemExit with one line) settings a new table would not take."""
    try:
        apply_changes(
            TableSettings(),
            parse_changes(words),
            game=service.default_game,
            models=service.settings_models(),
        )
    except SettingsError as exc:
        raise SystemExit(f"gnav-bot play: {options.cat().t(exc.code, **exc.params)}") from None


async def _new_match(service: TableService, me: User, words: list[str]) -> None:
    # The terminal's own channel: its one person may set it up before the table opens, so
    # the table is the chosen game in the chosen language from its first message on.
    reply = await service.configure(TABLE, replace(me, admin=True), words)
    if not reply.ok:
        raise SystemExit(f"gnav-bot play: {reply.text}")
    await service.open(TABLE, me)
    reply = await service.start(TABLE, me)
    if not reply.ok:
        raise SystemExit(f"gnav-bot play: {reply.text}")


#: At most this many plain choices (no argument) are asked by their words ("stay or swap?");
#: otherwise the choices are listed with numbers.
_WORDS_MAX = 3


def _question(cat: Catalog, choices: list[Choice]) -> str:
    """The question of a turn: the choices' words, or a numbered list of their labels (`cat`:
    the table's catalog, the game's own texts included)."""
    if len(choices) <= _WORDS_MAX and all(c.arg is None for c in choices):
        words = [c.action for c in choices]
        ask = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
        return f"Your turn: {ask}? "
    listed = "  ".join(f"{i}) {cat.t(c.label[0], **c.label[1])}" for i, c in enumerate(choices, 1))
    return f"\nYour turn: {listed}\nType a number: "


def _chosen(line: str, choices: list[Choice]) -> Choice | None:
    """The choice a line names: its number in the list, or its word when only one has it."""
    text = line.strip().casefold()
    if text.isascii() and text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1]
    named = [c for c in choices if c.action == text]
    return named[0] if len(named) == 1 else None


#: `_ask` found the table moved on (a timeout, the next deal) before a line came.
_MOVED_ON = object()


async def _ask(service: TableService, reader: LineReader, seq: int) -> object:
    """The next line (None at the end of the input), or _MOVED_ON once the table changed."""
    read = asyncio.ensure_future(reader.readline())
    try:
        while True:
            await asyncio.wait({read}, timeout=0.1)
            if read.done():
                return read.result()
            table = await service.status(TABLE)
            if table is None or table.seq != seq:
                return _MOVED_ON
    finally:
        if not read.done():
            read.cancel()
            await asyncio.gather(read, return_exceptions=True)


async def _loop(
    service: TableService, me: User, console: Console, reader: LineReader, cat: Catalog
) -> int:
    words = aliases(cat)
    help_text = cat.t("console.help")
    prompted_seq = -1
    while True:
        await service.drain()
        if getattr(console, "output_gone", False):
            return 0
        table = await service.status(TABLE, me.key)
        if table is None or table.status == "closed":
            await service.drain()
            return 0
        choices = list(table.choices)
        my_turn = bool(choices)
        if not my_turn and not (reader.tty and table.phase == "between"):
            await asyncio.sleep(0.02)
            continue
        if table.seq != prompted_seq:
            if my_turn:
                piece = await service.my_piece(TABLE, me)
                if {c.action for c in choices} <= set(words.values()):
                    # Choices the terminal has words for, in the table's language.
                    prompt = cat.t("console.prompt.turn", piece=piece.text)
                else:
                    prompt = f"{piece.text}  {_question(service.texts(table), choices)}"
            else:
                prompt = cat.t("console.prompt.next")
            reader.discard_typeahead()  # keys typed before the question are not its answer
            console.print(Text(prompt, style="bold"), end="")
            prompted_seq = table.seq
        answer = await _ask(service, reader, table.seq)
        if answer is _MOVED_ON:
            console.print()
            continue
        line = answer if isinstance(answer, str) else None
        if line is not None and not reader.tty:
            console.print(Text(line, style="italic"))  # echo what the pipe said
        if line is None:
            console.print()
            console.print(Text(cat.t("console.input_ended"), "dim"))
            return 0
        picked = _chosen(line, choices) if my_turn else None
        if picked is not None:
            reply = await service.act(TABLE, me, picked.action, arg=picked.arg)
            if not reply.ok:
                console.print(Text(reply.text))
                prompted_seq = -1
            continue
        command = "next" if not line and not my_turn else words.get(line.casefold())
        if command is None:
            if line:
                console.print(Text(f"{cat.t('console.not_command', line=line)}\n{help_text}"))
            prompted_seq = -1
            continue
        if command == "quit":
            console.print(Text(cat.t("console.saved"), "dim"))
            return 0
        if command == "help":
            console.print(Text(help_text))
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
