"""The terminal table plays every registered game from a pipe: a numbered list of the seat's
choices (typing the number plays it), built from the game's choices alone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.console.play import _chosen, _question, _refusal, aliases, help_text
from bot.games.gnav.game import GnavRules, GnavView
from bot.games.karnaval.game import KarnavalRules, KarnavalView
from bot.service.game import Choice
from bot.service.i18n import catalog, with_game_messages

ROOT = Path(__file__).resolve().parent.parent.parent


def _play(tmp_path: Path, *args: str, lines: int) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["GNAV_DB"] = str(tmp_path / "play.db")
    return subprocess.run(
        [sys.executable, "-m", "bot", "play", "--seed", "3", "--name", "Me", *args],
        input="1\n" * lines,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )


def test_gnavspiel_from_a_pipe_ends_with_who_takes_the_pot_G9_C23(tmp_path: Path) -> None:
    done = _play(tmp_path, "--profile", "gnavspiel", "--players", "2", lines=600)
    assert done.returncode == 0, done.stderr
    assert "Type a number" in done.stdout or "pass or offer" in done.stdout
    assert "takes the pot" in done.stdout and "Balances:" in done.stdout


def test_players_are_checked_against_the_game(tmp_path: Path) -> None:
    done = _play(tmp_path, "--game", "karnaval", "--players", "2", lines=1)
    assert done.returncode == 2 and "between 3 and 6" in done.stderr


def test_few_plain_choices_are_asked_by_their_words_others_numbered() -> None:
    cat = with_game_messages(
        catalog("en"), [KarnavalView(KarnavalRules()).messages, GnavView(GnavRules()).messages]
    )
    plain = [
        Choice("stay", label=("gnav.button.stay", {})),
        Choice("swap", label=("gnav.button.swap", {})),
    ]
    assert _question(cat, plain, "gnav").endswith("stay or swap? ")
    assert "1) Stay" in _question(cat, plain, "karnaval")  # no words of that game: numbered
    cards = [KarnavalRules._choice("play", c) for c in ("7H", "KC")]
    asked = _question(cat, cards, "karnaval")
    assert "1) 7♥" in asked and "2) K♣" in asked, asked
    assert _chosen("2", cards) == cards[1] and _chosen("3", cards) is None
    assert _chosen("swap", plain) == plain[1]


def test_a_bid_is_typed_as_its_value_and_listed_as_the_bids() -> None:
    """Issue 30, point 4: `2` bids 2 (not the second of a list `1) Bid 0  2) Bid 1`), the
    question lists the bids themselves, and a bid out of range says which bids there are."""
    cat = with_game_messages(catalog("en"), [KarnavalView(KarnavalRules()).messages])
    words = aliases(cat, "karnaval")
    bids = [KarnavalRules._choice("bid", str(n)) for n in range(7)]  # the game's own
    asked = _question(cat, bids, "karnaval")
    assert "0  1  2  3  4  5  6" in asked and ")" not in asked, asked
    assert _chosen("2", bids, cat, words) == bids[2]
    assert _chosen("0", bids, cat, words) == bids[0]
    assert _chosen("bid 2", bids, cat, words) == bids[2]
    assert _chosen("Bid 3", bids, cat, words) == bids[3]
    assert _chosen("7", bids, cat, words) is None and _chosen("bid", bids, cat, words) is None
    for line in ("bid 9", "9"):
        refused = _refusal(cat, line, bids, "karnaval", words)
        assert refused == f'"{line}" is not on the list: choose 0-6.', refused
    # The last bidder may not make the bids add up to the cards (the keypad lacks one).
    barred = [b for b in bids if b.arg != "3"]
    assert "0  1  2  4  5  6" in _question(cat, barred, "karnaval")
    assert _chosen("3", barred, cat, words) is None and _chosen("4", barred) == barred[3]
    assert "choose 0-2, 4-6." in _refusal(cat, "3", barred, "karnaval", words)
    # The help says so, in every language.
    for language in ("en", "nb", "ru", "pt", "de"):
        said = with_game_messages(catalog(language), [KarnavalView(KarnavalRules()).messages])
        assert "(2 " in help_text(said, "karnaval"), language


def test_bids_typed_by_value_through_a_pipe(tmp_path: Path) -> None:
    """The whole terminal: typing `2` at the first bid bids 2; `bid 9` is refused with the
    range of the bids."""
    lines = _typed(tmp_path, "bid 9\n2\nquit\n", "--game", "karnaval", "--players", "3")
    text = "\n".join(lines)
    assert '"bid 9" is not on the list: choose 0-' in text, text
    assert "Me bids 2." in lines, text
    # Asked again after the refusal by its last line only: the bids were listed once.
    assert sum(line.startswith("Your bid: ") for line in lines) == 1, text
    assert text.count("Type the number you bid: ") == 2, text


def _lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _typed(tmp_path: Path, typed: str, *args: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["GNAV_DB"] = str(tmp_path / "play.db")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "play",
            "--seed",
            "3",
            "--name",
            "Me",
            "--bot-delay",
            "0",
            *args,
        ],
        input=typed,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )
    return _lines(done)


def test_gnav_what_the_bag_gave_is_told_before_the_reveal_N14(tmp_path: Path) -> None:
    # Seed 3, three seats: the person deals round 1 and swaps with the bag.
    lines = _typed(tmp_path, "swap\n" * 6 + "quit\n", "--players", "3")
    bag = next(i for i, line in enumerate(lines) if "From the bag you now hold" in line)
    reveal = lines.index("👀 Reveal of round 1")
    # Right after the swap with the bag, before the round log's "Reveal!" (N17).
    assert "swaps with the bag" in lines[bag - 1], lines[bag - 3 : reveal + 2]
    assert lines[bag + 1] == "👀 Reveal!" and bag < reveal, lines[bag - 3 : reveal + 2]


def test_gnavspiel_the_dealers_draw_before_the_reveal_and_words_of_a_deal_G5_C23(
    tmp_path: Path,
) -> None:
    # Seed 3, three seats: the person deals deal 1 and draws (choice 3), then always the first.
    lines = _typed(
        tmp_path, "3\n" + "1\n" * 80 + "quit\n", "--profile", "gnavspiel", "--players", "3"
    )
    text = "\n".join(lines)
    reveal = lines.index("Deal 1: reveal")
    drew = lines.index("Me draws from the stock.")
    told = next(i for i, line in enumerate(lines) if "You drew" in line)
    # Right after the draw, before the round log's own reveal line (G5, G7).
    shown = next(i for i in range(drew, reveal) if lines[i].startswith("Reveal: "))
    assert told == drew + 1 and told < shown < reveal, lines[drew - 1 : reveal]
    # A loan is asked after the reveal that made the person pay, never before it.
    for i, line in enumerate(lines):
        if "1) Borrow 1 chip" in line:
            since = lines[max(j for j in range(i) if "Your turn" in lines[j]) : i]
            assert any(x.startswith("Me has") and "pays 1 chip" in x for x in since), since
    assert "1 chips" not in text and "· 1 chip" in text
    assert "Next round" not in text and "Next deal in 1 s" in text
    assert "the next round" not in text
    # C23: what the winner takes adds up (the pot and the debts collected).
    assert "chips in all" not in text
    for m in re.finditer(
        r"takes (\d+) in all: the pot \((\d+)\) and the debts collected \((\d+)\)", text
    ):
        assert int(m.group(1)) == int(m.group(2)) + int(m.group(3))


def test_gnavspiel_prints_each_deals_reveal_and_payments_once_G7_G8(tmp_path: Path) -> None:
    # Seed 3, four seats, always the second choice: the person pays in deals 1-4, is asked
    # for a loan in deal 4, declines and goes out. The round's log tells the reveal, the
    # payments and who went out as they happen (before the loan is asked); the reveal
    # message that follows adds the chips and pot, never those lines again.
    lines = _typed(tmp_path, "2\n" * 80, "--profile", "gnavspiel")
    titles = [i for i, line in enumerate(lines) if re.fullmatch(r"Deal \d+: reveal", line)]
    assert len(titles) >= 4, lines
    told = re.compile(r"^(Reveal: |Cards: |.* pays 1 chip\.$|.* is out\.$)")
    for n, title in enumerate(titles, 1):
        start = titles[n - 2] + 1 if n > 1 else 0
        story = [x for x in lines[start:title] if told.match(x)]
        end = next((i for i in range(title, len(lines)) if not lines[i]), len(lines))
        message = [x for x in lines[title:end] if told.match(x)]
        assert story and story[0].startswith("Reveal: "), lines[start:end]
        assert not message, lines[title:end]  # printed twice before: "Cards: ..." and pays
        assert lines[title + 1].startswith("Chips: "), lines[title:end]
    assert "Me declines the loan." in lines and lines.count("Me is out.") == 1, lines


def test_karnaval_in_the_terminal_K14_K20_KC9(tmp_path: Path) -> None:
    # Seed 3, three seats, always the first choice: a bot leads a Karnaval in deal 3.
    lines = _typed(tmp_path, "1\n" * 400 + "quit\n", "--game", "karnaval", "--players", "3")
    text = "\n".join(lines)
    # The trick line says what the number is (tricks taken), a Karnaval's trick counts two.
    assert "takes the trick (" not in text and "takes the trick and has taken 1." in text
    assert "takes the Karnaval, which counts as two tricks" in text
    # The first card given to a Karnaval is acknowledged: the two questions differ.
    led = next(i for i, line in enumerate(lines) if "leads a Karnaval" in line)
    asked = [line for line in lines[led:] if line.startswith("Your turn: ")][:2]
    told = next(line for line in lines[led:] if line.startswith("🔒"))
    assert asked[0] != asked[1] and "You give J♠; now the second card" in told, (asked, told)
    # After a deal inside a quarter: its line and the totals so far, not the whole sheet.
    first = lines.index("Deal 1 of 12: score sheet (bid|points)")
    after = lines[first : lines.index("", first)]
    assert any(line.startswith("So far|") for line in after), after
    assert not any(line.startswith(("Q1", "Q2", "Total")) for line in after), after
    # At a quarter's end the whole sheet, under its title, before what comes next.
    third = lines.index("Deal 3 of 12: score sheet (bid|points)")
    assert "|Me" in lines[third + 1].replace(" ", "")
    ends = next(i for i in range(third, len(lines)) if lines[i].startswith("Next deal in"))
    assert any(line.startswith("Q1") for line in lines[third:ends])
    # The game's end: the winner after the whole sheet, then the closing line.
    total = max(i for i, line in enumerate(lines) if line.startswith("Total|"))
    assert lines[total + 2].startswith("🏆 Winner"), lines[total:]
    assert "Next round" not in text
    assert "Your bid: 0  1  2" in text and "Final totals" in text
    # K20: the sheet's picture at the end (the terminal shows no picture) is printed as its
    # text: the only sheet with the game's totals filled in.
    assert any(x.startswith("Total|") and any(c.isdigit() for c in x) for x in lines)
    assert ".png" not in text


def test_karnaval_sheet_prints_the_whole_sheet_on_request_K20(tmp_path: Path) -> None:
    # Issue 19, the terminal, item 4: after two deals inside a quarter (each shows its line
    # and the totals so far), `sheet` prints every row: the quarters and the total too.
    lines = _typed(tmp_path, "1\n" * 30 + "sheet\nquit\n", "--game", "karnaval", "--players", "3")
    asked = max(i for i, line in enumerate(lines) if line.endswith("sheet"))
    title = lines[asked + 1]
    assert title.startswith("Score sheet (bid|points) after ") and "of 12 deals" in title
    shown = lines[asked + 2 : asked + 30]
    for row in ("Q1", "Q2", "Q3", "Q4", "Total"):
        assert any(line.startswith(row) for line in shown), (row, shown)


def test_karnaval_in_portuguese_says_its_own_words_and_cuts_a_long_line(tmp_path: Path) -> None:
    long = "x" * 5000
    typed = f"rules\nhelp\nstay\n8\nbid 2\n{long}\nquit\n"
    lines = _typed(tmp_path, typed, "--game", "karnaval", "--players", "3", "--language", "pt")
    text = "\n".join(lines)
    for english in ("Your turn", "Type a number", "is not a command", "stay (s)", "swap (w)"):
        assert english not in text, english
    assert "/gnav_join" not in text  # the terminal has no such command
    assert "escolhe 0-" in text  # 8 is off the list of the bids (0 up to the cards)
    assert "Me licita 2." in text  # `bid 2` is the bid of 2
    assert "«stay» não é um comando." in text  # Gnav's word is not Karnaval's
    assert long not in text and max(len(line) for line in lines) < 1000


def test_a_private_line_is_printed_after_the_entry_it_tells_of_G5_G7() -> None:
    # The private lane delivered before the table's edit: "You drew" waits for the draw's
    # entry, and comes before the reveal's.
    import asyncio
    import io

    from rich.console import Console

    from adapters.console.notifier import ConsoleNotifier
    from bot.service.ports import Screen

    draw, reveal = ("Me draws from the stock.", "Reveal: Me J, Bo Q")

    async def story() -> list[str]:
        out = io.StringIO()
        notifier = ConsoleNotifier(Console(file=out, width=200), "me")
        ref = await notifier.post("t", Screen("Deal 1\nBo passes.", log=("Bo passes.",)))
        assert ref is not None
        await notifier.tell("me", Screen("Deal 1\nYou drew J", log=("Bo passes.", draw)))
        notifier.show_private(waiting=False)  # the game loop woke: the draw is still to come
        await notifier.edit("t", ref, Screen("x", log=("Bo passes.", draw, reveal)))
        notifier.show_private()
        return out.getvalue().splitlines()

    lines = asyncio.run(story())
    assert lines[-3:] == [draw, "🔒 Deal 1 · You drew J", reveal], lines


def test_a_reveal_repeats_the_told_lines_only_after_the_log_that_told_them_G7() -> None:
    # Resumed between deals, the terminal has printed no log: the reveal shows its cards.
    import asyncio
    import io

    from rich.console import Console

    from adapters.console.notifier import ConsoleNotifier
    from bot.service.ports import Screen

    reveal = Screen("Deal 1: reveal\nCards: Me J\nChips: Me 4", told=("Cards: Me J",))

    async def shown(story: bool) -> list[str]:
        out = io.StringIO()
        notifier = ConsoleNotifier(Console(file=out, width=200), "me")
        if story:
            await notifier.post("t", Screen("Deal 1\nReveal: Me J", log=("Reveal: Me J",)))
        await notifier.post("t", reveal)
        return out.getvalue().splitlines()

    assert asyncio.run(shown(False))[-3:] == ["Deal 1: reveal", "Cards: Me J", "Chips: Me 4"]
    assert asyncio.run(shown(True))[-4:] == ["Reveal: Me J", "", "Deal 1: reveal", "Chips: Me 4"]


async def _whole_karnaval(language: str, typed: str) -> str:
    """A whole 4-player Karnaval game in the terminal, its input from a pipe (written before
    the game, the pipe then closed), the pause between deals none; the transcript."""
    import io
    import random

    from rich.console import Console

    from adapters.console.notifier import ConsoleNotifier
    from adapters.console.play import PlayOptions, play
    from adapters.console.stdin import LineReader
    from bot.games.registry import all_games
    from bot.service.service import TableService
    from storage.memory import MemoryRepository

    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False, soft_wrap=True)
    repo = MemoryRepository()  # what is printed is the question here, not the store
    notifier = ConsoleNotifier(console, "console:you")
    service = TableService(repo, notifier, rng=random.Random(7), bot_delay=0.0, games=all_games())
    options = PlayOptions(
        players=4, name="Ann", language=language, settings=("game=karnaval",), new=True
    )
    read, write = os.pipe()
    os.write(write, typed.encode())
    os.close(write)
    try:
        with open(read, encoding="utf-8") as stdin:
            assert await play(service, options, console, LineReader(stdin), notifier=notifier) == 0
    finally:
        await repo.close()
    return out.getvalue()


async def test_a_whole_karnaval_game_asks_each_question_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 30, point 2: one question is one list of its choices (never the chat's "You
    may: ..." line above the terminal's numbered list too), and the hand is printed at most
    once per question (not the deal's hand and then the question's), in a whole game."""
    import adapters.console.play as console_play

    monkeypatch.setattr(console_play, "PAUSE_IN_PIPE", 0)
    view = KarnavalView(KarnavalRules())
    for language in ("en", "ru"):
        cat = with_game_messages(catalog(language), [view.messages])
        text = await _whole_karnaval(language, "1\n" * 400)
        lines = text.splitlines()
        asks = tuple(
            cat.t(key, choices="", values="").split("\n")[1].strip()
            for key in ("console.prompt.choices", "karnaval.console.prompt.values")
            if cat.has(key)  # the bids' own question (the list of numbers before)
        )
        # The chat's line above its buttons, where the game still writes one.
        may = (
            cat.t("karnaval.piece.choices", choices="").strip() or None
            if cat.has("karnaval.piece.choices")
            else None
        )
        hands = tuple(
            cat.t(key, cards="").strip()
            for key in ("karnaval.piece.hand", "karnaval.piece.hand_plain", "karnaval.private.hand")
            if cat.has(key)
        )
        questions = 0
        held = 0
        winner = cat.t("karnaval.end.winners", names="").strip()
        assert winner in text, text[-2000:]  # the game was played to its end
        for line in lines:
            if line.startswith("🔒"):
                assert may is None or may not in line, line
                held += sum(line.count(h) for h in hands)
            if line.startswith(asks):
                questions += 1
                assert held <= 1, (language, questions, line)
                held = 0
        assert questions > 150, questions  # every bid and every card of the 16 deals


def test_what_a_player_was_dealt_comes_before_the_deals_lines_naming_it_N5() -> None:
    """Issue 30, point 5: a private line told before a new round's message (the service
    stages what each player was dealt first) is printed before the round's first entry,
    which may name it (the public Narr call), not after the whole message."""
    import asyncio
    import io

    from rich.console import Console

    from adapters.console.notifier import ConsoleNotifier
    from bot.service.ports import Screen

    bank = "👊 Me: «Bank, bank, bank!» (was dealt a Narr)"

    async def story() -> list[str]:
        out = io.StringIO()
        notifier = ConsoleNotifier(Console(file=out, width=200), "me")
        await notifier.tell("me", Screen("🎲 Gnav · round 1\nYou were dealt Narr."))
        deal = Screen(f"🎲 Gnav · round 1\nMe · ♥3\n—\n{bank}\n▶ Bo's turn.", log=(bank,))
        await notifier.post("t", deal)
        return out.getvalue().splitlines()

    lines = asyncio.run(story())
    told = lines.index("🔒 🎲 Gnav · round 1 · You were dealt Narr.")
    assert told == lines.index(bank) - 1 and lines[told - 1] == "—", lines
