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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.text import Text

from adapters.console.notifier import ConsoleNotifier
from adapters.console.stdin import LineReader
from bot.service.commands import (
    Act,
    AskHint,
    Configure,
    Export,
    NextRound,
    Open,
    PrivateView,
    Rules,
    Sheet,
    Start,
    Stop,
)
from bot.service.game import Choice
from bot.service.i18n import Catalog, catalog
from bot.service.service import TableService
from bot.service.settings import (
    SettingsError,
    TableSettings,
    apply_changes,
    echo,
    game_settings,
    parse_changes,
)
from bot.service.table import TableKey, User
from bot.service.views import TableView

TABLE = TableKey("console", "local")

#: The terminal's own commands, in the order of the catalog's `console.words` groups; the
#: game's words (`<game>.console.words`) name its choices, `view` (what the seat holds) and
#: `sheet` (the whole score sheet, where the game keeps one). `export` may name a file.
COMMANDS = ("rules", "help", "quit", "export")
EXPORT = "export"
#: Issue 33: at a table with `hints=on`, what the `strong` level would choose (its words are
#: the catalog's `console.hint_words`).
HINT = "hint"
VIEW = "view"
SHEET = "sheet"
#: The table's state again (`console.table_words`): the chat's table message, without its log.
TABLE_VIEW = "table"

#: Words of every language; `next` is what Enter between rounds means.
_ALIASES = {"n": "next", "next": "next", "?": "help"}


def _groups(cat: Catalog, key: str) -> list[str]:
    return cat.t(key).split(" · ") if cat.has(key) else []


def aliases(cat: Catalog, game: str = "") -> dict[str, str]:
    """What can be typed in the catalog's language, English too: the terminal's commands
    (`console.words`, and `console.hint_words` for the hint) and the game's words
    (`<game>.console.words`: `action: word word`) for its choices and for `view`."""
    words = dict(_ALIASES)
    for source in (cat.fallback, cat):  # English first: the language's own words win
        if source is None:
            continue
        hint_words = source.t("console.hint_words") if source.has("console.hint_words") else ""
        for word in hint_words.split():  # issue 33: asked at a table with hints=on
            words[word.casefold()] = HINT
        for command, group in zip(COMMANDS, _groups(source, "console.words"), strict=True):
            for word in group.split():
                words[word.casefold()] = command
        for group in _groups(source, f"{game}.console.words"):
            target, _, typed = group.partition(":")
            for word in typed.split():
                words[word.casefold()] = target.strip()
        if source.has("console.table_words"):  # the table's state (the terminal's own word)
            for word in source.t("console.table_words").split():
                words[word.casefold()] = TABLE_VIEW
    return words


def _own(cat: Catalog, game: str, key: str) -> str:
    """The game's own wording of a terminal message (`<game>.<key>`) where it has one."""
    own = f"{game}.{key}"
    return own if cat.has(own) else key


def help_text(cat: Catalog, game: str) -> str:
    """The terminal's help at a table of `game`: the game's own, else the terminal's; then
    how the match record is written (`export`)."""
    return f"{cat.t(_own(cat, game, 'console.help'))}\n{cat.t('console.help.export')}"


async def export(service: TableService, cat: Catalog, path: str = "") -> tuple[bool, str]:
    """Write the match record (MATCH_RECORD.md, KARNAVAL_RECORD.md: what `gnav-bot replay`
    reads) of the terminal's match, or of its last finished one, to `path` (default: the
    record's own name in the current directory): whether it was written, and the line saying
    where or why not. The deal under way is not in it: its record would show the bots'
    hidden cards (the service's export leaves it out)."""
    reply = await service.handle(Export(TABLE))
    if reply.document is None:
        return False, reply.text
    name, body = reply.document
    target = Path(path).expanduser() if path else Path(name)
    try:
        target.write_bytes(body + b"\n")
    except OSError as exc:
        error = exc.strerror or type(exc).__name__
        return False, cat.t("console.export_failed", path=shlex.quote(str(target)), error=error)
    return True, cat.t("console.exported", path=shlex.quote(str(target)))


@dataclass(slots=True)
class PlayOptions:
    """What `gnav-bot play` was asked for."""

    players: int = 4
    language: str = "en"
    level: str = "normal"
    #: `hints=on`: the `hint` word answers (issue 33).
    hints: str = "off"
    name: str = "You"
    new: bool = False
    #: The game's settings words of a new table, its name first (`game=karnaval`): the
    #: composition root knows the games; this table only types them.
    settings: tuple[str, ...] = ()
    #: The options given on the command line (not defaults), as typed (`("players", "6")`):
    #: a saved match ignores those it does not follow, and says so.
    given: tuple[tuple[str, str], ...] = field(default=())
    #: The settings word each given option of a game stands for (the composition root's:
    #: an option's `--name` to `word=value`), to compare with a saved table's settings.
    words_of: Mapping[str, str] = field(default_factory=dict)
    #: The language the table speaks, once known (a saved match keeps its own).
    spoken: str = ""
    #: Called with the table's id once it is open or continued (`--web` prints the link).
    on_table: Callable[[str], Awaitable[None]] | None = None

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
    *,
    notifier: ConsoleNotifier,
) -> int:
    """Run the local table until the match ends, the player quits or the input ends.

    `notifier` is the service's: what it is told wakes the game loop (a push, never a poll).
    """
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
                ignored = " ".join(_ignored(service, table, me, options))
                if ignored:
                    text = options.cat().t("console.ignored", options=ignored)
                    console.print(Text(text, "bold"))
                _help(service, table, console)
            await service.resume()
            table = await service.status(TABLE, me.key)
            if table is not None and table.status != "closed":
                await _show_own(service, me, table, notifier)
        if table is None or table.status == "closed":
            options.spoken = options.language
            words = _new_words(options, pause=reader.tty)
            await _new_match(service, me, words, console)
        if options.on_table is not None:
            shown = await service.status(TABLE, me.key)
            if shown is not None:
                await options.on_table(shown.table_id)
        return await _loop(service, me, console, reader, notifier)
    finally:
        timers.cancel()
        await asyncio.gather(timers, return_exceptions=True)
        await service.shutdown()


async def _show_own(
    service: TableService, me: User, table: TableView, notifier: ConsoleNotifier
) -> None:
    """A restored match: once the restored table is printed, what the player holds (their
    hand or piece), which the process before told them and this one cannot repeat."""
    await service.drain()
    notifier.show_private()
    if table.phase != "round" or table.seat_of(me.key) is None:
        return
    reply = await service.handle(PrivateView(TABLE, me))
    if reply.ok:
        notifier.print_own(reply.text, table.labels, asked=True)


async def _abandon(service: TableService, me: User, console: Console) -> bool:
    """--new: stop a saved match without showing it again (nor "the bot restarted")."""
    quiet, console.quiet = console.quiet, True
    try:
        await service.resume()
        table = await service.status(TABLE, me.key)
        if table is None or table.status == "closed":
            return False
        await service.handle(Stop(TABLE, User(me.key, me.name, admin=True)))
        return True
    finally:
        await service.drain()  # what resume and stop queued goes out unseen
        console.quiet = quiet


def _ignored(service: TableService, table: TableView, me: User, options: PlayOptions) -> list[str]:
    """The command-line options the saved match does not follow, as they were typed."""
    seat = table.seat_of(me.key)
    out = []
    for name, value in options.given:
        if name == "players":
            followed = str(len(table.seats)) == value
        elif name == "name":
            followed = seat is not None and table.seats[seat].name == options.name
        elif name in options.words_of:
            followed = _follows(service, table, options.words_of[name])
        else:
            continue
        if not followed:
            out.append(f"--{name} {shlex.quote(value)}")
    return out


def _follows(service: TableService, table: TableView, word: str) -> bool:
    """Whether the table's settings already say what a settings word would set."""
    models = {name: game.settings_model for name, game in service.games.items()}
    saved = table.settings
    try:
        new = apply_changes(saved, parse_changes([word]), game=table.game, models=models)
    except SettingsError:
        return False  # a word of another game: not this table's
    if new.game != table.game:
        return False

    def shown(s: TableSettings) -> tuple[object, ...]:
        own = game_settings(s, table.game, models[table.game])
        return (s.model_dump(exclude={"games"}), own.model_dump())

    return shown(new) == shown(saved)


def _new_words(options: PlayOptions, *, pause: bool) -> list[str]:
    """The settings words of a new terminal table: the game's own, then the table's."""
    return [
        *options.settings,
        f"bots={options.players - 1}",
        f"language={options.language}",
        f"level={options.level}",
        f"hints={options.hints}",
        "timeout=600",
        f"delay={PAUSE_IN_TERMINAL if pause else PAUSE_IN_PIPE}",
    ]


def _check_words(service: TableService, words: list[str], options: PlayOptions) -> None:
    """Refuse (SystemExit with one line) settings a new table would not take."""
    try:
        models = {name: game.settings_model for name, game in service.games.items()}
        apply_changes(TableSettings(), parse_changes(words), game=next(iter(models)), models=models)
    except SettingsError as exc:
        raise SystemExit(f"gnav-bot play: {options.cat().t(exc.code, **exc.params)}") from None


async def _new_match(service: TableService, me: User, words: list[str], console: Console) -> None:
    # The terminal's own channel: its one person may set it up before the table opens, so
    # the table is the chosen game in the chosen language from its first message on.
    reply = await service.handle(Configure(TABLE, replace(me, admin=True), words))
    if not reply.ok:
        raise SystemExit(f"gnav-bot play: {reply.text}")
    await service.handle(Open(TABLE, me))
    await service.drain()  # the lobby, then the help, then the first deal
    table = await service.status(TABLE, me.key)
    if table is not None:
        _help(service, table, console)
    reply = await service.handle(Start(TABLE, me))
    if not reply.ok:
        raise SystemExit(f"gnav-bot play: {reply.text}")


def _help(service: TableService, table: TableView, console: Console) -> None:
    console.print(Text(help_text(service.texts(table), table.game), style="dim"))


#: At most this many plain choices (no argument) are asked by their words ("stay or swap?");
#: otherwise the choices are listed with numbers.
_WORDS_MAX = 3

#: The longest part of a typed line an answer repeats.
_ECHO = 80


def _label(cat: Catalog, choice: Choice) -> str:
    key, params = choice.label
    return cat.t(key, **params) if key else choice.action


def _values(choices: Sequence[Choice]) -> list[int] | None:
    """The numbers of a question whose choices are one action each with a number that its
    label shows (`{n}`: a bid): typed as the number itself, `2` bids 2. None for any other
    question (a card, an offer to a seat: typed by their number in the list)."""
    if not choices or len({c.action for c in choices}) != 1:
        return None
    values = []
    for c in choices:
        arg = c.arg or ""
        if not (arg.isascii() and arg.isdigit()) or str(c.label[1].get("n")) != arg:
            return None
        values.append(int(arg))
    return values


def _spans(values: Sequence[int]) -> str:
    """Numbers as runs: `0-6`, or `0-2, 4-6` where one is missing."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _question(
    cat: Catalog, choices: list[Choice], game: str = "", labels: Sequence[str] = ()
) -> str:
    """The question of a turn: the choices' words (where the game has a word for each of a
    few plain choices, `<game>.console.words`), the numbers themselves (a bid: `0 1 2 3`,
    typed as they are), or a numbered list of their labels (`cat`: the table's catalog, the
    game's own texts included; `labels`: as the game renders them, when given)."""
    shown = {}
    for group in _groups(cat, f"{game}.console.words"):
        target, _, typed = group.partition(":")
        if typed.split():
            shown[target.strip()] = typed.split()[0]  # the first word of the language's group
    plain = len(choices) <= _WORDS_MAX and all(c.arg is None for c in choices)
    if plain and all(c.action in shown for c in choices):
        asked = [shown[c.action] for c in choices]
        ask = asked[-1]
        if len(asked) > 1:
            ask = ", ".join(asked[:-1]) + cat.t("console.or") + ask
        return cat.t("console.prompt.words", words=ask)
    values = _values(choices)
    if values is not None:
        listed = "  ".join(str(v) for v in values)
        return cat.t(_own(cat, game, "console.prompt.values"), values=listed)
    shown_labels = labels or [_label(cat, c) for c in choices]
    listed = "  ".join(f"{i}) {label}" for i, label in enumerate(shown_labels, 1))
    return cat.t("console.prompt.choices", choices=listed)


def _chosen(
    line: str,
    choices: list[Choice],
    cat: Catalog | None = None,
    words: dict[str, str] | None = None,
    labels: Sequence[str] = (),
) -> Choice | None:
    """The choice a line names: its number in the list (a bid: the number it bids), its
    label (`labels`, as shown, or the catalog's), its action's word (with its argument:
    `bid 2`) when only one choice has it."""
    text = " ".join(line.split()).casefold()
    if text.isascii() and text.isdigit():
        values = _values(choices)
        if values is not None:
            return choices[values.index(int(text))] if int(text) in values else None
        if 1 <= int(text) <= len(choices):
            return choices[int(text) - 1]
        return None
    if not labels and cat is not None:
        labels = [_label(cat, c) for c in choices]
    if labels:
        labelled = [c for c, label in zip(choices, labels, strict=True) if label.casefold() == text]
        if len(labelled) == 1:
            return labelled[0]
    word, _, arg = text.partition(" ")
    action = (words or {}).get(word, word)
    named = [c for c in choices if c.action == action and (c.arg or "").casefold() == arg]
    return named[0] if len(named) == 1 else None


def _refusal(
    cat: Catalog,
    line: str,
    choices: list[Choice],
    game: str,
    words: Mapping[str, str] | None = None,
) -> str:
    """What a line that is neither a choice nor a command answers: a number out of the list,
    or a word of one of the choices with an argument none has (`bid 9` where bids go to 6),
    says which numbers there are (a bid's: the bids themselves); anything else is not a
    command, then the game's help."""
    text = line.strip()
    shown = echo(text, _ECHO)
    first = text.split()[0].casefold() if text.split() else ""
    action = (words or {}).get(first, first)
    named = any(c.action == action and c.arg is not None for c in choices)
    if choices and ((text.isascii() and text.isdigit()) or named):
        values = _values(choices)
        if values is not None:
            return cat.t("console.out_of_values", line=shown, values=_spans(values))
        return cat.t("console.out_of_range", line=shown, n=len(choices))
    return f"{cat.t('console.not_command', line=shown)}\n{help_text(cat, game)}"


#: `_ask` found the table moved on (a timeout, the next deal) before a line came.
_MOVED_ON = object()

#: No question or wait ever times out to look at the table: every change of the table is
#: delivered to the notifier (a timer's too), and that push wakes it (issue 18: told, not
#: polling).


async def _ask(
    service: TableService, notifier: ConsoleNotifier, reader: LineReader, me: User, seq: int
) -> object:
    """The next line (None at the end of the input), or _MOVED_ON once the table changed:
    what the notifier is told wakes the question, which then looks at the table once."""
    read = asyncio.ensure_future(reader.readline())
    try:
        while True:
            told = asyncio.ensure_future(notifier.changed())
            try:
                await asyncio.wait({read, told}, return_when="FIRST_COMPLETED")
            finally:
                if not told.done():
                    told.cancel()
                    await asyncio.gather(told, return_exceptions=True)
            if read.done():
                return read.result()
            notifier.show_private(waiting=False)  # what is placed further on waits for it
            table = await service.status(TABLE, me.key)
            if table is None or table.seq != seq:
                return _MOVED_ON
    finally:
        if not read.done():
            read.cancel()
            await asyncio.gather(read, return_exceptions=True)


async def _wait_told(notifier: ConsoleNotifier) -> None:
    """Wait for the next thing the table says (a bot's move, the next deal, the end)."""
    await notifier.changed()


async def _loop(
    service: TableService,
    me: User,
    console: Console,
    reader: LineReader,
    notifier: ConsoleNotifier,
) -> int:
    prompted_seq = -1
    #: The state whose whole question was printed, and whether what was printed since is
    #: a line or two (a refusal, the hand): then only the question's last line asks again,
    #: its choices are still in sight (one question, one list).
    asked_seq = -1
    brief = False
    while True:
        await service.drain()
        notifier.show_private()  # nothing more is coming: what was told last is printed
        if getattr(console, "output_gone", False):
            return 0
        table = await service.status(TABLE, me.key)
        if table is None or table.status == "closed":
            await service.drain()
            return 0
        cat = service.texts(table)
        words = aliases(cat, table.game)
        choices = list(table.choices)
        my_turn = bool(choices)
        if not my_turn and not (reader.tty and table.phase == "between"):
            await _wait_told(notifier)
            continue
        if table.seq != prompted_seq:
            # The question only: what the seat holds was told (its private screen).
            prompt = (
                _question(cat, choices, table.game, table.labels)
                if my_turn
                else cat.t(_own(cat, table.game, "console.prompt.next"))
            )
            if brief and asked_seq == table.seq:
                prompt = prompt.rsplit("\n", 1)[-1]
            elif my_turn:
                notifier.show_state()  # the table as it stands, before its question
            reader.discard_typeahead()  # keys typed before the question are not its answer
            console.print(Text(prompt, style="bold"), end="")
            prompted_seq = asked_seq = table.seq
            brief = False
        answer = await _ask(service, notifier, reader, me, table.seq)
        if answer is _MOVED_ON:
            console.print()
            continue
        line = answer if isinstance(answer, str) else None
        if line is not None and not reader.tty:
            console.print(Text(echo(line, _ECHO), style="italic"))  # echo what the pipe said
        if line is None:
            console.print()
            console.print(Text(cat.t("console.input_ended"), "dim"))
            return 0
        picked = _chosen(line, choices, cat, words, table.labels) if my_turn else None
        if picked is not None:
            reply = await service.handle(Act(TABLE, me, picked.action, arg=picked.arg))
            if not reply.ok:
                console.print(Text(reply.text))
                prompted_seq, brief = -1, True
            continue
        command = "next" if not line and not my_turn else words.get(line.strip().casefold())
        if command == TABLE_VIEW:  # the table's state, then the question's last line again
            notifier.show_state(asked=True)
            prompted_seq, brief = -1, True
            continue
        first, _, named = line.strip().partition(" ")
        if command is None and named and words.get(first.casefold()) == EXPORT:
            command = EXPORT  # `export FILE`
        if command is None or command not in (*COMMANDS, VIEW, SHEET, HINT, "next"):
            if line:
                console.print(Text(_refusal(cat, line, choices, table.game, words)))
            prompted_seq, brief = -1, True
            continue
        if command == "quit":
            console.print(Text(cat.t("console.saved"), "dim"))
            return 0
        if command == "help":
            console.print(Text(help_text(cat, table.game)))
        elif command == "rules":
            console.print(Text((await service.handle(Rules(TABLE))).text))
        elif command == VIEW:
            reply = await service.handle(PrivateView(TABLE, me))
            if reply.ok:
                notifier.print_own(reply.text, table.labels, asked=True)
            else:
                console.print(Text(reply.text))
        elif command == EXPORT:
            console.print(Text((await export(service, cat, named.strip()))[1]))
        elif command == SHEET:
            console.print(Text((await service.handle(Sheet(TABLE))).text))
        elif command == HINT:
            console.print(Text((await service.handle(AskHint(TABLE, me))).text))
        else:
            reply = await service.handle(NextRound(TABLE, me))
            if reply.ok:
                continue
            console.print(Text(reply.text))
        prompted_seq, brief = -1, command in (VIEW, EXPORT)
