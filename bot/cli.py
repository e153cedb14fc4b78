"""The `gnav-bot` command line: `replay`, `play` (a table in the terminal) and `run` (the bots).

This is the composition root: the only module that picks concrete storage and adapters. Each
sub-command imports what it needs when it runs, so `replay` starts without any platform library.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapters.console.play import PlayConsole, PlayOptions
    from bot.service.game import Game


def _replay(args: argparse.Namespace) -> int:
    from bot.games.replay import ReplayError, read_text, replay_text

    try:
        text = read_text(args.file)
        result = replay_text(text, "standard input" if args.file == "-" else args.file)
    except ReplayError as exc:
        print(exc.line, file=sys.stderr)
        return 2
    if args.html:
        sys.stdout.write(_replay_html(text, args.language))
        return 0
    # One write of the whole text: json.dump would write it piece by piece (slow on MB records).
    out = json.dumps(result, ensure_ascii=False, indent=None if args.compact else 1)
    sys.stdout.write(out + "\n")
    return 0


def _replay_html(text: str, language: str) -> str:
    """A valid record as one self-contained replay page (the web table's, offline)."""
    from adapters.web.replay import replay_html
    from bot.games.registry import all_games
    from bot.games.replay import game_of
    from bot.service.i18n import catalog, with_game_messages
    from bot.service.pages import replay_frames

    record = json.loads(text)
    games = all_games()
    game = game_of(record)  # a known game: the record was replayed before
    view = games[game].view
    cat = with_game_messages(catalog(language), [g.view.messages for g in games.values()])
    frames = replay_frames(view, record, cat) or {"title": game, "steps": []}
    return replay_html(frames, inline=True)


def _login_name(args: argparse.Namespace) -> str:
    """The login name, capitalized; else "Player" in the table's language (`--language`)."""
    import getpass

    from bot.service.names import default_name

    try:
        name = getpass.getuser()
    except (OSError, KeyError):
        name = ""
    return name.capitalize() if name and name != "root" else default_name(args.language)


def default_db_path(name: str = "gnav.sqlite3") -> str:
    """Where the embedded SQLite store lives: $GNAV_DB, else the user's data directory."""
    env = os.environ.get("GNAV_DB")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(base, "gnav-bot", name)


def terminal_db_path() -> str:
    """The terminal's own store (`gnav-bot play`): $GNAV_DB when set (for both), else a file
    of its own beside the bot's, so the bot never restores (and announces) a terminal's match
    in a chat, nor the terminal the bot's."""
    return default_db_path("terminal.sqlite3")


def _play(args: argparse.Namespace) -> int:
    from adapters.console.lock import StoreBusy, hold_store
    from adapters.console.play import PlayConsole, PlayOptions
    from bot.games.registry import all_games

    # What was given on the command line (argparse defaults are None): a saved match
    # ignores those options, and says so.
    given = tuple(k for k in _PLAY_DEFAULTS if getattr(args, k) is not None)
    for k, default in _PLAY_DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, default(args) if callable(default) else default)
    games = all_games()
    if args.game not in games:  # the registry is the list (not read for other commands)
        known = ", ".join(games)
        print(f"gnav-bot play: --game must be one of {known}, not {args.game}", file=sys.stderr)
        return 2
    contradiction = _contradiction(args, given)
    if contradiction:
        print(f"gnav-bot play: {contradiction}", file=sys.stderr)
        return 2
    game = "gnavspiel" if args.profile == "gnavspiel" else args.game
    seats = games[game].rules.players
    if args.players not in seats:
        low, high = seats[0], seats[-1]
        print(f"gnav-bot play: --players must be between {low} and {high}", file=sys.stderr)
        return 2
    if not 1 <= args.lives <= 10:
        print("gnav-bot play: --lives must be between 1 and 10", file=sys.stderr)
        return 2
    # Piped output is not cut into 80-column lines: whatever reads it wraps it.
    console = PlayConsole(highlight=False, soft_wrap=not sys.stdout.isatty())
    options = PlayOptions(
        players=args.players,
        language=args.language,
        level=args.level,
        hints=args.hints,
        name=args.name,
        new=args.new,
        given=tuple((k, str(getattr(args, k))) for k in given),
        words_of=_option_words(args),
        settings=_play_settings(game, args),
    )
    # One terminal per saved match: a second one refuses, in one line, while this one runs.
    try:
        held = hold_store(args.db)
    except StoreBusy:
        print(
            f"gnav-bot play: the match in {args.db} is open in another terminal (or bot): "
            "quit that one first, or give another --db",
            file=sys.stderr,
        )
        return 2
    try:
        return _play_held(args, console, options, games)
    finally:
        if held is not None:
            held.close()


def _play_held(
    args: argparse.Namespace,
    console: PlayConsole,
    options: PlayOptions,
    games: dict[str, Game],
) -> int:
    """`gnav-bot play` once its store is held: the match, to its end or the player's quit."""
    import asyncio
    import random

    from adapters.console.notifier import ConsoleNotifier
    from adapters.console.play import TABLE, export, play
    from bot.service.ports import StoreError
    from bot.service.service import TableService
    from storage.sqlite import SqliteRepository

    interactive = sys.stdin.isatty()
    bot_delay = args.bot_delay if args.bot_delay is not None else (0.6 if interactive else 0.0)

    async def main() -> int:
        try:
            repo = await SqliteRepository.open(args.db)
        except StoreError as exc:
            print(f"gnav-bot play: {exc}", file=sys.stderr)
            return 2
        except Exception as exc:
            cause = " ".join(str(exc).split()) or type(exc).__name__
            print(
                f"gnav-bot play: cannot open the SQLite store {args.db}: {cause}", file=sys.stderr
            )
            return 2
        try:
            notifier = ConsoleNotifier(console, "console:you")
            service = TableService(
                repo,
                notifier,
                rng=random.Random(args.seed),
                bot_delay=bot_delay,
                games=games,
            )
            if args.export is not None:  # the record only: no table is opened or continued
                saved = await service.status(TABLE)
                cat = service.texts(saved) if saved is not None else options.cat()
                written, line = await export(service, cat, args.export)
                print(line, file=sys.stdout if written else sys.stderr)
                return 0 if written else 2
            web = None
            if args.web:
                from adapters.web.stack import start_web

                try:
                    web = served = await start_web(service, port=args.port or 0)
                except OSError as exc:  # the port is taken, or not ours to bind
                    cause = exc.strerror or " ".join(str(exc).split())
                    print(f"gnav-bot play: --port {args.port}: {cause}", file=sys.stderr)
                    return 2

                async def show_link(table_id: str) -> None:
                    link = served.links.seat_link(table_id, "console:you")
                    console.print(f"The table on the web (yours only): {link}")

                options.on_table = show_link
            try:
                return await play(service, options, console, notifier=notifier)
            finally:
                if web is not None:
                    await web.stop()
        finally:
            await repo.close()

    # Ctrl-C cancels `main` wherever it is (asyncio.run's SIGINT handling); nothing waits
    # for a thread blocked in a read, and every action was stored when it was made.
    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        saved = options.cat().t("console.saved")
        console.print("\n" + saved)
        if console.output_gone:  # `| tee` ended with the same Ctrl-C
            print("\n" + saved, file=sys.stderr)
        return 130


#: `gnav-bot play` options whose default is filled in after parsing, so that what was given
#: on the command line is known.
_PLAY_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "lives": 3,
    "profile": "norsk",
    "game": "gnav",
    "language": "en",
    "level": "normal",
    "hints": "off",
    "name": _login_name,
}


def _play_settings(game: str, args: argparse.Namespace) -> tuple[str, ...]:
    """The settings words of a new terminal table of `game` (the games' own words). The game
    comes first, so they mean the same whatever game the terminal's table played before."""
    if game == "gnav":
        return ("game=gnav", f"rules={args.profile}", f"lives={args.lives}")
    return (f"game={game}",)


def _option_words(args: argparse.Namespace) -> dict[str, str]:
    """The settings word each `gnav-bot play` option of a game's stands for (a saved match
    compares it with its own settings)."""
    profile = "game=gnavspiel" if args.profile == "gnavspiel" else f"rules={args.profile}"
    return {
        "game": f"game={args.game}",
        "profile": profile,
        "lives": f"lives={args.lives}",
        "language": f"language={args.language}",
        "level": f"level={args.level}",
        "hints": f"hints={args.hints}",
    }


def _contradiction(args: argparse.Namespace, given: tuple[str, ...]) -> str | None:
    """One line when the options given ask for two different things (`--game karnaval
    --profile gnavspiel`, a Gnav profile or `--lives` with another game); None when not."""
    game = args.game if "game" in given else None
    if "profile" in given:
        # `--profile gnavspiel` is Gnavspiel; the other profiles are Gnav's rules.
        profile_game = "gnavspiel" if args.profile == "gnavspiel" else "gnav"
        if game is not None and game != profile_game:
            return (
                f"--profile {args.profile} is a profile of {profile_game}, not of {game}: "
                f"give one of --game {game} and --profile {args.profile}"
            )
        game = profile_game
    if "lives" in given and game not in (None, "gnav"):
        return f"--lives is a setting of gnav, not of {game}"
    return None


def _run(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from pydantic import ValidationError

    from bot.config import BotSettings

    # A configuration error exits with EX_CONFIG (78), which supervisors are told not to
    # restart (deploy/); the other statuses are bot/runner.py's.
    if args.env_file is not None and not os.path.exists(args.env_file):
        print(f"gnav-bot run: --env-file {args.env_file}: no such file", file=sys.stderr)
        return os.EX_CONFIG
    try:
        settings = BotSettings(_env_file=args.env_file or ".env")  # type: ignore[call-arg]
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(x) for x in err["loc"]).upper() or "settings"
            message = err["msg"].removeprefix("Value error, ")  # pydantic's, not ours
            print(f"gnav-bot run: {where}: {message}", file=sys.stderr)
        return os.EX_CONFIG
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # httpx logs every request URL, and Telegram's URLs contain the token: keep it quiet.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from bot.runner import run
    from bot.service.ports import StoreError

    try:
        return asyncio.run(run(settings, default_db_path()))
    except StoreError as exc:  # one line naming the store and the cause, no traceback
        print(f"gnav-bot run: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gnav-bot")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    from bot.service.i18n import LANGUAGES

    parser = argparse.ArgumentParser(
        prog="gnav-bot",
        description="Gnav, the Scandinavian swapping game, for chat groups and the terminal.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    replay = sub.add_parser(
        "replay",
        help="replay a match record (MATCH_RECORD.md) and print its outcome as JSON",
        description=(
            "Replay a match record through the rules engine and print the outcome JSON. A "
            "record comes from a chat's export command or from the terminal's `export` word "
            "(gnav-bot play)."
        ),
    )
    replay.add_argument("file", metavar="FILE", help="the match record (JSON); - reads stdin")
    replay.add_argument("--compact", action="store_true", help="print the JSON on one line")
    replay.add_argument(
        "--html",
        action="store_true",
        help="write the match as one self-contained web page, step by step (works offline)",
    )
    replay.add_argument("--language", choices=LANGUAGES, default="en", help="its words")
    replay.set_defaults(func=_replay)

    play = sub.add_parser(
        "play",
        help="play a match in the terminal against bot seats (no token, no server)",
        description=(
            "Play Gnav in the terminal against bot seats, through the same service as the chat "
            "bots, in a SQLite store of its own. Quit and run again to continue the match; "
            "`export` writes its record for gnav-bot replay."
        ),
    )
    play.add_argument("--players", type=int, help="seats in all, 2-20 (default 4)")
    play.add_argument("--lives", type=int, help="lives each, 1-10 (default 3)")
    play.add_argument(
        "--profile",
        choices=["norsk", "tradisjonell", "gnavspiel"],
        help="rule profile (default norsk; gnavspiel plays Gnavspiel)",
    )
    play.add_argument("--game", help="the game: one the registry hosts (default gnav)")
    play.add_argument("--language", choices=LANGUAGES, help="announcements (default en)")
    play.add_argument(
        "--level",
        # bot/service/settings.py's LEVELS, written out: `replay` starts without pydantic.
        choices=["easy", "normal", "strong"],
        help="how the bot seats play (default normal; easy slips now and then, strong thinks "
        "ahead by sampling where the game has it)",
    )
    play.add_argument(
        "--hints",
        choices=["off", "on"],
        help="on: the word `hint` tells what the strong level would choose (default off)",
    )
    play.add_argument("--name", help="your name at the table (default: your login name)")
    play.add_argument(
        "--db",
        default=terminal_db_path(),
        help="the SQLite file of the terminal's match ($GNAV_DB; default "
        "~/.local/share/gnav-bot/terminal.sqlite3, not the bot's); one terminal at a time",
    )
    play.add_argument("--new", action="store_true", help="abandon a saved match, start afresh")
    play.add_argument(
        "--export",
        metavar="FILE",
        help="write the record of the saved match (or of the last finished one) to FILE for "
        "gnav-bot replay, and exit",
    )
    play.add_argument("--seed", type=int, default=None, help="seed the shuffles (repeatable)")
    play.add_argument(
        "--bot-delay", type=float, default=None, help="seconds a bot waits before acting"
    )
    play.add_argument(
        "--web",
        action="store_true",
        help="also serve the table as a web page on 127.0.0.1 and print your link",
    )
    play.add_argument("--port", type=int, default=None, help="the web page's port (default: free)")
    play.set_defaults(func=_play)

    run = sub.add_parser(
        "run",
        help="run the chat bot(s) configured by environment variables or .env",
        description=(
            "Run the Telegram and/or Discord bot: TELEGRAM_TOKEN, DISCORD_TOKEN, GNAV_DB and the "
            "other settings come from the environment or an .env file (see deploy/env.example)."
        ),
    )
    run.add_argument(
        "--env-file", help="the .env file to read (default: .env here, when there is one)"
    )
    run.set_defaults(func=_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gnav-bot` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
