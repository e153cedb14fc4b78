"""The Karnaval score sheet (K20, KC12), as text and as a picture: the seed's worked quarter
(the public vector `seed_example`, replayed through the engine) reads back its outcome; columns
stay aligned whatever the names; the picture opens, has a sensible size, is deterministic and
changes when a score does."""

from __future__ import annotations

import copy
import io
import os
import random
import re
from itertools import pairwise
from typing import Any

import pytest
from PIL import Image

from bot.games.karnaval.engine.game import Karnaval
from bot.games.karnaval.engine.record import replay_record
from bot.games.karnaval.sheet import (
    clean_name,
    emoji_file,
    fit,
    font_files,
    header_cells,
    header_size,
    missing_glyphs,
    picture_name,
    sheet_png,
    sheet_text,
    text_length,
    text_width,
)
from tests.games.karnaval.test_strategy import _play
from tests.games.karnaval.vectors import VECTORS, load_json, outcome_path

SEED = VECTORS / "public" / "seed_example.json"
FULL = VECTORS / "public" / "full_game_shared_win.json"


def _numbers(line: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", line.split("|", 1)[1])]


def _line(text: str, label: str) -> str:
    (line,) = [x for x in text.splitlines() if x.split("|")[0].strip() == label]
    return line


def _by_player(outcome: dict[str, Any], values: dict[str, int]) -> list[int]:
    return [values[p] for p in outcome["order"]]


def test_the_seed_quarter_reads_its_outcome() -> None:
    match, _ = replay_record(load_json(SEED))
    outcome = load_json(outcome_path(SEED))
    text = sheet_text(match.sheet())
    quarter = outcome["quarters"][0]
    assert _numbers(_line(text, "Q1")) == _by_player(outcome, quarter["totals"]) == [-68, 105, 34]
    q1 = _line(text, "Q1").split("|")[1:]
    assert q1[0].rstrip().endswith("-68!") and q1[1].rstrip().endswith("105*")
    assert not q1[2].rstrip().endswith(("*", "!"))
    deals = [x for x in text.splitlines() if x.split("|")[0].strip() == "6"]
    assert len(deals) == 3
    for line, deal in zip(deals, outcome["deals"], strict=True):
        bids, scores = _by_player(outcome, deal["bids"]), _by_player(outcome, deal["scores"])
        assert _numbers(line) == [x for pair in zip(bids, scores, strict=True) for x in pair]
    assert text.splitlines()[0].split("|")[1:] == ["P1     ", "P2     ", "P3"]
    assert "premium" in text.splitlines()[-1] and "penalty" in text.splitlines()[-1]
    assert _numbers(_line(text, "Total")) == []  # the game is not over
    compact = sheet_text(match.sheet(), compact=True)
    assert "Q2" not in compact and "Q1" in compact and "Total" in compact


def test_a_whole_game_totals_its_outcome() -> None:
    match, _ = replay_record(load_json(FULL))
    outcome = load_json(outcome_path(FULL))
    text = sheet_text(match.sheet())
    assert _numbers(_line(text, "Total")) == _by_player(outcome, outcome["totals"])
    for q in outcome["quarters"]:
        assert _numbers(_line(text, f"Q{q['quarter']}")) == _by_player(outcome, q["totals"])


def _bars(line: str) -> list[int]:
    """Display columns of the "|" separators."""
    out, col = [], 0
    for ch in line:
        if ch == "|":
            out.append(col)
        col += text_width(ch)
    return out


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_columns_align_with_wide_and_emoji_names(n: int) -> None:
    names = [
        "Анна-Мария Петровна",
        "李小龍李小龍李小龍",
        "José 😀🎉",
        "Zoë\u200d👨‍👩‍👧",
        "Bob",
        "Ω",
    ][:n]
    k = _play(40 + n, n, _first_choice, max_deals=2 * n)
    sheet = k.sheet()
    sheet["players"] = names
    text = sheet_text(sheet)
    lines = text.splitlines()[:-1]
    bars = _bars(lines[0])
    assert len(bars) == n
    for line in lines:
        if "|" in line or "+" in line:
            assert _bars(line.replace("+", "|")) == bars, line
    assert max(text_width(x) for x in lines) <= 64
    assert "😀" not in text and "\u200d" not in text


def _first_choice(k: Karnaval, seat: int, rng: random.Random):
    return k.choices(seat)[0]


def test_names_are_cleaned_and_cut_by_display_width() -> None:
    assert clean_name("Zoë 😀\u200d x") == "Zoë x"
    assert fit("李小龍", 5) == "李小 "
    assert text_width(fit("abc", 6)) == 6


def test_the_picture_opens_and_changes_with_a_score() -> None:
    match, _ = replay_record(load_json(SEED))
    sheet = match.sheet()
    png = sheet_png(sheet)
    assert png == sheet_png(sheet)  # deterministic
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.format == "PNG"
    w, h = img.size
    assert 300 <= w <= 1200 and 300 <= h <= 1200
    changed = copy.deepcopy(sheet)
    changed["rows"][0]["points"][0] = 11
    other = Image.open(io.BytesIO(sheet_png(changed)))
    assert other.size == img.size
    assert other.tobytes() != img.tobytes()
    premium = copy.deepcopy(sheet)
    q1 = next(r for r in premium["rows"] if r["kind"] == "quarter")
    q1["premiums"][2] = 60
    q1["totals"][2] = 94
    assert sheet_png(premium) != png


@pytest.mark.parametrize("n", [3, 6])
def test_the_picture_of_a_finished_game(n: int) -> None:
    k = _play(70 + n, n, _first_choice)
    assert k.phase == "over"
    img = Image.open(io.BytesIO(sheet_png(k.sheet())))
    w, h = img.size
    assert 300 <= w <= 1200 and 300 <= h <= 1400
    lines = sheet_text(k.sheet(), max_chars=None).splitlines()
    assert len(lines) == 4 * n + 13  # header 3, quarters 4 * (n + 2), total, legend


def test_a_long_block_sheds_rules_then_old_deals_to_fit_discord() -> None:
    k = _play(82, 6, _first_choice)
    sheet = k.sheet()
    sheet["players"] = ["Alexandra", "Bartholomew", "Cid", "Dorothea", "Eve", "Friedrich"]
    full = sheet_text(sheet, max_chars=None)
    short = sheet_text(sheet)
    assert len(full) > 2000 >= 1800 >= len(short)
    for label in ("Q1", "Q2", "Q3", "Q4", "Total"):
        assert _line(short, label) == _line(full, label)
    assert short.splitlines()[0] == full.splitlines()[0]
    assert [x for x in short.splitlines() if x.startswith("   12|")] == [
        x for x in full.splitlines() if x.startswith("   12|")
    ]


# --------------------------------------------------------------------- names in the picture
#: Names the built-in Pillow font drew as "Vasya", "??" (both Chinese names alike), nothing (the
#: emoji) and "Olga Petrovna-Dlin" (cut).
NAMES = ["Вася", "李雷", "韩梅梅", "🎉🎈", "Ольга Петровна-Длинная", "Zoë 😀"]
_RULE_INK = (52, 58, 64)
_HEAD_FILL = (222, 226, 230)


def _header_crops(png: bytes, n: int) -> list[bytes]:
    """The name cells of the header, cut from the picture between its heavy vertical rules."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    rules = [x for x in range(img.width) if img.getpixel((x, 3)) == _RULE_INK]
    bottom = next(y for y in range(3, img.height) if img.getpixel((rules[1] - 3, y)) == _RULE_INK)
    edges = rules[-(n + 1) :]
    assert len(edges) == n + 1
    # Above the "bid pts" line (20 px at scale 1), which is the same under every name.
    return [img.crop((a + 1, 1, b, bottom - 20)).tobytes() for a, b in pairwise(edges)]


@pytest.mark.parametrize("n", [3, 6])
def test_k20_the_picture_draws_russian_cjk_and_emoji_names_apart(n: int) -> None:
    """Issue 19: names are drawn as written (the bundled DejaVu Sans for Cyrillic, the
    system's Noto Sans CJK for Chinese, its color emoji font for emoji; a name no font has
    shown by its seat number), a long name on two lines rather than cut, and no two header
    cells alike; no "?" stands for a letter."""
    k = _play(70 + n, n, _first_choice)
    sheet = k.sheet()
    sheet["players"] = NAMES[:n]
    cells = sheet_header_cells(sheet)
    assert len(set(cells)) == n
    for i, (name, cell) in enumerate(zip(NAMES, cells, strict=False)):
        assert "?" not in "".join(cell)
        drawn = picture_name(name) or f"({i + 1})"
        assert "".join(cell).replace(" ", "") == drawn.replace(" ", "")
    assert cells[0] == ("Вася",)
    assert missing_glyphs("Вася Ольга Петровна-Длинная Zoë Αλέξανδρος") == ""
    if os.environ.get("CI") == "true" or len(font_files()) > 1:  # .ci/run installs the CJK font
        assert missing_glyphs("李雷韩梅") == "", font_files()
    crops = _header_crops(sheet_png(sheet), n)
    assert len(set(crops)) == n  # every header cell differs from every other
    blank = Image.new("RGB", (1, 1), _HEAD_FILL).tobytes()
    for crop in crops:
        assert crop.replace(blank, b"") != b""  # something is drawn in each


def _colored(crop: bytes) -> int:
    """How many pixels of an RGB crop are in color (not a grey of the sheet's inks)."""
    pixels = zip(crop[0::3], crop[1::3], crop[2::3], strict=True)
    return sum(1 for r, g, b in pixels if max(r, g, b) - min(r, g, b) > 60)


def test_k20_emoji_names_are_drawn_in_color_by_the_systems_emoji_font() -> None:
    """Issue 19: 🎉 is drawn, in color, by the system's Noto Color Emoji (scaled from its one
    bitmap size), never as a box; .ci/run installs fonts-noto-color-emoji."""
    if emoji_file() is None:
        assert os.environ.get("CI") != "true", "CI installs fonts-noto-color-emoji"
        pytest.skip("no color emoji font (Debian: fonts-noto-color-emoji) on this system")
    assert missing_glyphs("🎉🎈😀") == ""
    k = _play(73, 3, _first_choice)
    sheet = k.sheet()
    sheet["players"] = ["🎉", "🎈", "Bob"]
    crops = _header_crops(sheet_png(sheet), 3)
    assert len(set(crops)) == 3
    assert _colored(crops[0]) > 20 and _colored(crops[1]) > 20 and _colored(crops[2]) == 0


def test_k20_a_name_no_font_can_draw_is_left_out_never_boxed_and_kept_apart() -> None:
    """Issue 19: characters no font has are not drawn as boxes; names that lose them stay
    apart (their seat numbers)."""
    ethiopic = "ሰላም"  # in no font the sheet uses (Debian's Noto Sans Ethiopic is not one)
    assert missing_glyphs(ethiopic) == ethiopic
    cells = header_cells([ethiopic, ethiopic[:2], "Bob" + ethiopic, "Bob"], 144, 16)
    assert cells == [("(1)",), ("(2)",), ("Bob (3)",), ("Bob (4)",)]
    assert picture_name("Bob" + ethiopic) == "Bob"


def test_k20_names_alike_once_cleaned_or_cut_get_their_seat_number() -> None:
    long = "Александра Константиновна Великолепная-"
    cells = header_cells(["Anna\u200b", "Anna", long + "Первая", long + "Вторая"], 144, 16)
    assert cells[0] == ("Anna (1)",) and cells[1] == ("Anna (2)",)
    assert len(set(cells)) == 4 and all(len(c) <= 2 for c in cells)
    assert all(text_length(line, header_size(16)) <= 144 for c in cells[2:] for line in c)


def sheet_header_cells(sheet: dict[str, Any]) -> list[tuple[str, ...]]:
    """The header cells as `sheet_png` draws them at scale 1 (160 px less its padding)."""
    return header_cells(sheet["players"], 160 - 16, 16)
