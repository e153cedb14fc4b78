"""The terminal table plays every registered game from a pipe: a numbered list of the seat's
choices (typing the number plays it), built from the game's choices alone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from adapters.console.play import _chosen, _question
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
    many = [Choice("bid", str(n), ("karnaval.button.bid", {"n": n})) for n in range(4)]
    asked = _question(cat, many)
    assert "1) Bid 0" in asked and "4) Bid 3" in asked
    assert _chosen("2", many) == many[1] and _chosen("5", many) is None
    assert _chosen("swap", plain) == plain[1] and _chosen("bid", many) is None
    assert _chosen("bid 2", many) == many[2] and _chosen("Bid 3", many, cat) == many[3]


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
    told = [line for line in lines[led:] if line.startswith("🔒")][:2]
    assert told[0] != told[1] and "You give" in told[1] and "You give" not in told[0], told
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
    assert "1) Bid 0" in text and "Final totals" in text
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
    typed = f"rules\nhelp\nstay\n0\n8\nbid 2\n{long}\nquit\n"
    lines = _typed(tmp_path, typed, "--game", "karnaval", "--players", "3", "--language", "pt")
    text = "\n".join(lines)
    for english in ("Your turn", "Type a number", "is not a command", "stay (s)", "swap (w)"):
        assert english not in text, english
    assert "/gnav_join" not in text  # the terminal has no such command
    assert "escolhe 1-7" in text  # 0 and 8 are off the list of seven bids
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
