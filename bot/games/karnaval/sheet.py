"""The Karnaval score sheet (K20, KC12) as the seed draws it: as monospace text and as a picture.

Both read `Karnaval.sheet()`'s data (`{"players": [...], "rows": [...]}`: deal rows labelled
with the cards dealt, a quarter row after each quarter, a total row; values not known yet are
None), never the match itself.

- `sheet_text(sheet)`: a block for a Telegram or Discord code block. A column pair `bid points`
  per player under their name (cut to the column, counting wide characters as two cells and
  dropping emoji and zero-width ones), a row per deal, the quarter rows with the quarter's total
  marked `*` for the premium (+60) and `!` for the penalty (-60), and the game totals; a legend
  line explains the marks. `compact=True` leaves out the quarters not begun yet; a block over
  `max_chars` (1800 by default, for Discord's 2000) sheds rules, then old deal rows.
- `sheet_png(sheet)`: the same grid drawn with Pillow in the bundled DejaVu Sans (Latin, Greek,
  Cyrillic), the system's fonts for the scripts it lacks where present (CJK...) and its color
  emoji font for emoji (Noto Color Emoji), names as written (a character no font has is left
  out, never drawn as a box; long names on two lines, never two headers alike, a name with
  nothing left to draw shown by its seat number) in a shaded header, bid and points
  cells, quarter rows shaded with the quarter's sum and its premium (green) or penalty (red)
  beside the total, the totals with the winners highlighted. The output is deterministic: the
  same sheet gives the same bytes (with the same fonts on the system).

`words` translate the few words drawn (English by default).
"""

from __future__ import annotations

import io
import os
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Words of the sheet, overridable per language: `quarter` labels a quarter's row (`{n}` its
#: number), `total` the totals' row.
WORDS: dict[str, str] = {
    "premium": "premium +60",
    "penalty": "penalty -60",
    "bid": "bid",
    "points": "pts",
    "quarter": "Q{n}",
    "total": "Total",
}
PREMIUM_MARK = "*"
PENALTY_MARK = "!"

# --- text ------------------------------------------------------------------------------------

#: Characters dropped from names in a monospace block: their width differs between fonts.
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me", "So", "Sk"})


def char_width(ch: str) -> int:
    """Cells a character takes in a monospace block: 2 for wide (W, F), else 1."""
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def clean_name(name: str) -> str:
    """A name with the characters of uncertain width removed (emoji, marks, zero-width, controls),
    after composing accents onto their letters (NFC), spaces collapsed."""
    text = unicodedata.normalize("NFC", name)
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in _DROP_CATEGORIES)
    return " ".join(kept.split())


def text_width(text: str) -> int:
    """Cells `text` takes in a monospace block."""
    return sum(char_width(ch) for ch in text)


def fit(text: str, width: int) -> str:
    """`text` cut to at most `width` cells and padded with spaces to exactly `width`."""
    out, used = [], 0
    for ch in text:
        w = char_width(ch)
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(out) + " " * (width - used)


def row_label(row: Mapping[str, Any], words: Mapping[str, str] | None = None) -> str:
    """A row's label as drawn: a deal's number of cards, a quarter's word with its number
    (the sheet's `Q1`...), the totals' word (`words`: `WORDS` by default)."""
    w = {**WORDS, **(words or {})}
    if row["kind"] == "quarter":
        return w["quarter"].format(n=str(row["label"]).lstrip("Q"))
    if row["kind"] == "total":
        return w["total"]
    return str(row["label"])


def _num(value: int | None) -> str:
    return "" if value is None else str(value)


def _mark(premium: int | None, penalty: int | None) -> str:
    if premium:
        return PREMIUM_MARK
    if penalty:
        return PENALTY_MARK
    return " "


def _rows(sheet: Mapping[str, Any], compact: bool) -> list[dict[str, Any]]:
    """The rows to show: all, or (compact) those of quarters begun, and the total."""
    rows = list(sheet["rows"])
    if not compact:
        return rows
    out: list[dict[str, Any]] = []
    quarter: list[dict[str, Any]] = []
    for row in rows:
        if row["kind"] == "deal":
            quarter.append(row)
            continue
        if row["kind"] == "quarter":
            if any(b is not None for r in quarter for b in r["bids"]):
                out += [*quarter, row]
            quarter = []
            continue
        out.append(row)
    return out


def sheet_text(
    sheet: Mapping[str, Any],
    *,
    max_width: int = 64,
    max_chars: int | None = 1800,
    compact: bool = False,
    words: Mapping[str, str] | None = None,
    legend: bool = True,
) -> str:
    """The score sheet as a monospace block (no code fences), at most `max_width` cells wide when
    the numbers allow (names are cut to fit; numbers never). Over `max_chars` (Discord allows
    2000 in a message), it leaves out, until it fits: the rules between quarters, the `bid pts`
    line, then the deal rows of finished deals quarter by quarter (their quarter rows stay).
    `legend`: the closing line saying what a quarter row's marks mean (a part of the sheet
    without quarter rows needs none)."""
    w = {**WORDS, **(words or {})}
    players = [clean_name(p) or "?" for p in sheet["players"]]
    rows = _rows(sheet, compact)
    n = len(players)
    label_w = max(2, *(text_width(row_label(r, w)) for r in rows))
    bid_w = max(2, *(len(_num(b)) for r in rows if r["kind"] == "deal" for b in r["bids"]))
    pts_w = 3
    for r in rows:
        values = r.get("points") or r.get("totals") or []
        pts_w = max(pts_w, *(len(_num(v)) for v in values)) if values else pts_w
    need = bid_w + 1 + pts_w + 1  # bid, space, points, mark
    room = (max_width - label_w) // n - 1  # each column is "|" + its cells
    col_w = max(need, min(room, max(text_width(p) for p in players)))
    rule = "-" * label_w + ("+" + "-" * col_w) * n

    def line(label: str, cells: Sequence[str]) -> str:
        return (fit(label, label_w) + "".join("|" + c for c in cells)).rstrip()

    # Each line with its kind, so that a block over `max_chars` can shed the least needed.
    out: list[tuple[str, str]] = [("head", line("", [fit(p, col_w) for p in players]))]
    sub = f"{w['bid']:>{bid_w}} {w['points']:>{pts_w}} "
    out.append(("sub", line("", [fit(" " * (col_w - need) + sub, col_w)] * n)))
    out.append(("head", rule))
    pad = " " * (col_w - need)
    quarter = 1
    for r in rows:
        label = row_label(r, w)
        if r["kind"] == "deal":
            cells = [
                pad + f"{_num(b):>{bid_w}} {_num(p):>{pts_w}} "
                for b, p in zip(r["bids"], r["points"], strict=True)
            ]
            done = all(p is not None for p in r["points"])
            out.append((f"deal{quarter}" if done else "deal", line(label.rjust(label_w), cells)))
        elif r["kind"] == "quarter":
            cells = [
                pad + " " * (bid_w + 1) + f"{_num(t):>{pts_w}}" + _mark(pr, pe)
                for t, pr, pe in zip(r["totals"], r["premiums"], r["penalties"], strict=True)
            ]
            out.append(("quarter", line(label, cells)))
            out.append(("rule", rule))
            quarter += 1
        else:
            cells = [pad + " " * (bid_w + 1) + f"{_num(t):>{pts_w}} " for t in r["totals"]]
            out.append(("total", line(label, cells)))
    if legend:  # what the marks of a quarter's row mean
        out.append(("legend", f"{PREMIUM_MARK} {w['premium']}  {PENALTY_MARK} {w['penalty']}"))
    if max_chars is not None:
        shed = ["rule", "sub", *(f"deal{q}" for q in range(1, 5))]
        for kind in shed:
            if len("\n".join(t for _, t in out)) <= max_chars:
                break
            out = [(k, t) for k, t in out if k != kind]
    return "\n".join(t for _, t in out)


# --- picture ---------------------------------------------------------------------------------

_INK = (33, 37, 41)
_GRID = (173, 181, 189)
_RULE = (52, 58, 64)
_HEAD = (222, 226, 230)
_QUARTER = (241, 243, 245)
_TOTAL = (233, 236, 239)
_WIN = (255, 236, 153)
_PREMIUM = (25, 135, 84)
_PENALTY = (200, 35, 51)
_FAINT = (108, 117, 125)
_PAPER = (255, 255, 255)

#: The font shipped with the package (Latin, Greek, Cyrillic and many symbols; its licence is
#: fonts/LICENSE-DejaVu).
BUNDLED_FONT = Path(__file__).with_name("fonts") / "DejaVuSans.ttf"
#: Fonts of the system used, in this order, for characters the bundled font lacks, found by file
#: name under `FONT_DIRS` (Debian: fonts-noto-cjk, fonts-wqy-microhei, fonts-droid-fallback,
#: fonts-noto-extra, fonts-symbola). Emoji come from `EMOJI_FONTS`.
SYSTEM_FONTS = (
    "NotoSansCJK-Regular.ttc",
    "NotoSansCJKsc-Regular.otf",
    "NotoSansCJKjp-Regular.otf",
    "NotoSansCJKkr-Regular.otf",
    "wqy-microhei.ttc",
    "wqy-zenhei.ttc",
    "DroidSansFallbackFull.ttf",
    "NotoSansArabic-Regular.ttf",
    "NotoSansHebrew-Regular.ttf",
    "NotoSansDevanagari-Regular.ttf",
    "NotoSansThai-Regular.ttf",
    "NotoSansSymbols2-Regular.ttf",
    "Symbola.ttf",
)
#: The system's color emoji font (Debian: fonts-noto-color-emoji), found like `SYSTEM_FONTS`:
#: bitmaps of one size (`EMOJI_SIZE`), drawn in color and scaled to the text.
EMOJI_FONTS = ("NotoColorEmoji.ttf",)
EMOJI_SIZE = 109
#: The height of an emoji beside text of size 1 (its bitmaps are 128 pixels high at 109).
_EMOJI_HEIGHT = 1.15
#: The `font_for` of a character drawn with the emoji font.
EMOJI = -1
#: Code points from here on (emoji, pictographs) are drawn in color where the emoji font has
#: them, before a text font's black-and-white glyph.
_EMOJI_FIRST = 0x1F000
#: Where the system's fonts are looked for.
FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "~/.local/share/fonts",
    "~/.fonts",
    "/Library/Fonts",
    "/System/Library/Fonts",
)
#: Characters dropped from a name in the picture: controls, format and zero-width characters,
#: private use, unassigned; variation selectors and skin-tone modifiers (they only change the
#: look of the emoji before them).
_PICTURE_DROP = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_MODIFIERS = frozenset(range(0xFE00, 0xFE10)) | frozenset(range(0x1F3FB, 0x1F400))


@lru_cache(maxsize=1)
def _system_fonts() -> dict[str, str]:
    """The first file found of each name of `SYSTEM_FONTS` and `EMOJI_FONTS`."""
    found: dict[str, str] = {}
    wanted = {*SYSTEM_FONTS, *EMOJI_FONTS}
    for top in FONT_DIRS:
        for folder, _, files in sorted(os.walk(os.path.expanduser(top))):
            for name in sorted(wanted.intersection(files)):
                found.setdefault(name, os.path.join(folder, name))
    return found


@lru_cache(maxsize=1)
def font_files() -> tuple[str, ...]:
    """The font files drawn with, in order: the bundled one, then the system's `SYSTEM_FONTS`
    that are present (the first file found of each name)."""
    found = _system_fonts()
    return (str(BUNDLED_FONT), *(found[n] for n in SYSTEM_FONTS if n in found))


@lru_cache(maxsize=1)
def emoji_file() -> str | None:
    """The system's color emoji font (`EMOJI_FONTS`), None where it has none."""
    found = _system_fonts()
    return next((found[n] for n in EMOJI_FONTS if n in found), None)


@lru_cache(maxsize=1)
def _emoji_font() -> Any:
    from PIL import ImageFont

    path = emoji_file()
    assert path is not None  # asked only where `_has_emoji` found the font
    return ImageFont.truetype(path, EMOJI_SIZE)


@lru_cache(maxsize=4096)
def _has_emoji(ch: str) -> bool:
    """Whether the color emoji font has a glyph for `ch` (it draws nothing for one it lacks)."""
    if emoji_file() is None:
        return False
    left, top, right, bottom = _emoji_font().getbbox(ch)
    return bottom > top and right > left


@lru_cache(maxsize=64)
def _font(size: int, index: int = 0) -> Any:
    """Font `index` of `font_files()` at `size` pixels."""
    from PIL import ImageFont

    return ImageFont.truetype(font_files()[index], size)


@lru_cache(maxsize=64)
def _notdef(size: int, index: int) -> bytes:
    """What font `index` draws for a character it lacks (a private-use code point)."""
    return bytes(_font(size, index).getmask("\U0010fffd"))


@lru_cache(maxsize=8192)
def font_for(ch: str, size: int = 16) -> int | None:
    """The font that draws `ch`: the first of `font_files()` that has a glyph for it (its
    index), `EMOJI` for the color emoji font (first for emoji and pictographs), or None."""
    if ch.isspace():
        return 0
    if ord(ch) >= _EMOJI_FIRST and _has_emoji(ch):
        return EMOJI
    for index in range(len(font_files())):
        if bytes(_font(size, index).getmask(ch)) != _notdef(size, index):
            return index
    return EMOJI if _has_emoji(ch) else None


def picture_name(name: str) -> str:
    """A name as the picture draws it: composed (NFC), without the characters in `_PICTURE_DROP`
    nor emoji modifiers nor those no font can draw (never a box), spaces collapsed; letters,
    CJK and emoji are kept as written."""
    text = unicodedata.normalize("NFC", name)
    kept = "".join(
        ch
        for ch in text
        if unicodedata.category(ch) not in _PICTURE_DROP
        and ord(ch) not in _MODIFIERS
        and font_for(ch) is not None
    )
    return " ".join(kept.split())


def missing_glyphs(text: str, size: int = 16) -> str:
    """The characters of `text` that no font (`font_files()`, the emoji font) can draw: a name
    is drawn without them."""
    return "".join(dict.fromkeys(ch for ch in text if font_for(ch, size) is None))


def _runs(text: str, size: int) -> list[tuple[int | None, str]]:
    """`text` cut into runs drawn with one font each (None: characters left out)."""
    runs: list[tuple[int | None, str]] = []
    for ch in text:
        index = font_for(ch, size)
        if runs and runs[-1][0] == index:
            runs[-1] = (index, runs[-1][1] + ch)
        else:
            runs.append((index, ch))
    return runs


@lru_cache(maxsize=256)
def _emoji(run: str, size: int) -> Any:
    """`run` drawn in color by the emoji font and scaled to text of `size`: an RGBA image."""
    from PIL import Image, ImageDraw

    font = _emoji_font()
    width = max(1, round(font.getlength(run)))
    big = Image.new("RGBA", (width, 128), (0, 0, 0, 0))
    ImageDraw.Draw(big).text((0, 0), run, font=font, embedded_color=True)
    height = max(1, round(size * _EMOJI_HEIGHT))
    return big.resize((max(1, round(width * height / 128)), height), Image.Resampling.LANCZOS)


def text_length(text: str, size: int) -> float:
    """The width in pixels of `text` drawn at `size`, each run in its own font."""
    total = 0.0
    for index, run in _runs(text, size):
        if index == EMOJI:
            total += _emoji(run, size).width
        elif index is not None:
            total += _font(size, index).getlength(run)
    return total


def draw_text(
    draw: Any,
    xy: tuple[float, float],
    text: str,
    fill: Any,
    size: int,
    anchor: str = "mm",
    *,
    image: Any,
) -> None:
    """Draw `text` on `image` (`draw` is its ImageDraw) with its vertical middle at y, its left
    (l), middle (m) or right (r) at x (`anchor` as Pillow's, the first letter), each run in the
    first font that has its glyphs, emoji in color; a character no font has is left out."""
    x, y = xy
    if anchor[0] != "l":
        width = text_length(text, size)
        x -= width if anchor[0] == "r" else width / 2
    for index, run in _runs(text, size):
        if index == EMOJI:
            drawn = _emoji(run, size)
            image.paste(drawn, (round(x), round(y - drawn.height / 2)), drawn)
            x += drawn.width
        elif index is not None:
            font = _font(size, index)
            draw.text((x, y), run, fill=fill, font=font, anchor="lm")
            x += font.getlength(run)


def _cut_to(text: str, room: float, size: int, tail: str = "") -> str:
    """`text` + `tail` within `room` pixels: `text` cut and ended with "…" when it must be."""
    if text_length(text + tail, size) <= room:
        return text + tail
    while text and text_length(text + "…" + tail, size) > room:
        text = text[:-1]
    return text.rstrip() + "…" + tail


def _wrap(text: str, room: float, size: int, tail: str = "") -> tuple[str, ...]:
    """`text` + `tail` in one line, or two (broken at a space or a hyphen where one fits, the
    second cut with "…" if it must be), within `room` pixels."""
    if text_length(text + tail, size) <= room:
        return (text + tail,)
    breaks = [i + 1 for i, ch in enumerate(text) if ch in " -"]
    first = next(
        (text[:b] for b in reversed(breaks) if text_length(text[:b].rstrip(), size) <= room),
        None,
    )
    if first is None:  # no break fits: as many characters as fit
        first = text
        while len(first) > 1 and text_length(first, size) > room:
            first = first[:-1]
    rest = text[len(first) :].strip()
    first = first.strip()
    if not rest:
        return (_cut_to(first, room, size, tail),)
    return (first, _cut_to(rest, room, size, tail))


def header_cells(players: Sequence[str], room: float, size: int) -> list[tuple[str, ...]]:
    """Each player's name as the header draws it within `room` pixels at `size` (or the smaller
    size `header_size` gives): one line, or two when it is long, never two players alike. Names
    that would look the same (cut alike, or alike once cleaned) get their seat number added."""
    small = header_size(size)
    # A name with nothing the fonts can draw is shown by its seat number.
    names = [picture_name(p) or f"({i + 1})" for i, p in enumerate(players)]
    cells = [_wrap(n, room, small) if text_length(n, size) > room else (n,) for n in names]
    for _ in range(2):  # a second pass when a suffix made two cells alike again
        seen: dict[tuple[str, ...], list[int]] = {}
        for i, cell in enumerate(cells):
            seen.setdefault(cell, []).append(i)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            break
        for group in clashes:
            for i in group:
                tail = f" ({i + 1})"
                cells[i] = (
                    _wrap(names[i], room, small, tail)
                    if text_length(names[i] + tail, size) > room
                    else (names[i] + tail,)
                )
    return cells


def header_size(size: int) -> int:
    """The size of a name that does not fit on one line at `size`."""
    return max(7, round(size * 0.8))


def sheet_png(
    sheet: Mapping[str, Any],
    *,
    scale: float = 1.0,
    compact: bool = False,
    words: Mapping[str, str] | None = None,
) -> bytes:
    """The score sheet as a PNG picture (bytes). Names are drawn as written (`header_cells`):
    the bundled font, then the system's for what it lacks, emoji in color where the system
    has the emoji font; what no font has is left out."""
    from PIL import Image, ImageDraw

    w = {**WORDS, **(words or {})}
    fs = max(8, round(16 * scale))
    small_fs = max(7, round(12 * scale))
    rows = _rows(sheet, compact)
    n = len(sheet["players"])

    def tw(text: str, size: int = fs) -> int:
        return int(text_length(text, size) + 0.999)

    pad = round(8 * scale)
    row_h = round(26 * scale)
    sub_h = round(20 * scale)
    label_w = max(tw(row_label(r, w)) for r in rows) + 2 * pad
    bid_w = max(tw("12"), tw(w["bid"], small_fs)) + 2 * pad
    pts_w = max(tw("-1000"), tw(w["points"], small_fs)) + 2 * pad
    name_room = round(160 * scale) - 2 * pad
    cells = header_cells(sheet["players"], name_room, fs)
    name_fs = [fs if len(c) == 1 and tw(c[0]) <= name_room else header_size(fs) for c in cells]
    two_lines = any(len(c) > 1 for c in cells)
    head_h = round((44 if two_lines else 30) * scale)
    widest = max(tw(line, size) for c, size in zip(cells, name_fs, strict=True) for line in c)
    pair_w = max(bid_w + pts_w, widest + 2 * pad, round(110 * scale))
    pts_w = pair_w - bid_w
    legend_h = round(28 * scale)
    width = label_w + n * pair_w + 1
    height = head_h + sub_h + len(rows) * row_h + legend_h + 1
    img = Image.new("RGB", (width, height), _PAPER)
    draw = ImageDraw.Draw(img)

    def text(
        x: float, y: float, s: str, fill: tuple[int, int, int], size: int = fs, anchor: str = "mm"
    ) -> None:
        draw_text(draw, (x, y), s, fill, size, anchor, image=img)

    def col_x(i: int) -> int:
        return label_w + i * pair_w

    # Header: names (one line or two), then "bid pts" under each.
    draw.rectangle((0, 0, width - 1, head_h + sub_h), fill=_HEAD)
    for i, (cell, size) in enumerate(zip(cells, name_fs, strict=True)):
        line_h = head_h / (len(cell) + 1)
        for k, line in enumerate(cell):
            y_mid = head_h / 2 if len(cell) == 1 else line_h * (k + 1) - line_h / 4 + k * line_h / 2
            text(col_x(i) + pair_w / 2, y_mid, line, _INK, size)
        text(col_x(i) + bid_w / 2, head_h + sub_h / 2, w["bid"], _FAINT, small_fs)
        text(col_x(i) + bid_w + pts_w / 2, head_h + sub_h / 2, w["points"], _FAINT, small_fs)
    totals_row = next((r for r in rows if r["kind"] == "total"), None)
    best = None
    if totals_row and all(t is not None for t in totals_row["totals"]):
        best = max(totals_row["totals"])

    font = _font(fs)
    y = head_h + sub_h
    for r in rows:
        kind = r["kind"]
        top, bottom = y, y + row_h
        if kind == "quarter":
            draw.rectangle((0, top, width - 1, bottom), fill=_QUARTER)
        elif kind == "total":
            draw.rectangle((0, top, width - 1, bottom), fill=_TOTAL)
        mid = (top + bottom) / 2
        text(pad, mid, row_label(r, w), _INK, anchor="lm")
        for i in range(n):
            x0 = col_x(i)
            if kind == "deal":
                bid, pts = r["bids"][i], r["points"][i]
                text(x0 + bid_w / 2, mid, _num(bid), _FAINT)
                if pts is not None:
                    fill = _PENALTY if pts < 0 else _INK
                    text(x0 + pair_w - pad, mid, str(pts), fill, anchor="rm")
            elif kind == "quarter":
                total = r["totals"][i]
                if total is None:
                    continue
                s, pr, pe = r["sums"][i], r["premiums"][i], r["penalties"][i]
                note, color = "", _FAINT
                if pr:
                    note, color = f"{s}; +{pr}", _PREMIUM
                elif pe:
                    note, color = f"{s}; {pe}", _PENALTY
                if note:
                    text(x0 + pad / 2, mid, note, color, small_fs, anchor="lm")
                _bold(draw, (x0 + pair_w - pad, mid), str(total), color if note else _INK, font)
            else:
                total = r["totals"][i]
                if total is None:
                    continue
                if best is not None and total == best:
                    draw.rectangle((x0 + 1, top + 1, x0 + pair_w - 1, bottom - 1), fill=_WIN)
                _bold(draw, (x0 + pair_w - pad, mid), str(total), _INK, font)
        if kind == "deal":  # the thin line between bid and points, in deal rows only
            for i in range(n):
                draw.line((col_x(i) + bid_w, top, col_x(i) + bid_w, bottom), fill=_GRID)
        heavy = kind != "deal"
        draw.line((0, bottom, width - 1, bottom), fill=_RULE if heavy else _GRID, width=1)
        y = bottom
    # Vertical lines: thin between bid and points, heavy between players.
    grid_bottom = y
    draw.line((label_w, 0, label_w, grid_bottom), fill=_RULE)
    for i in range(n):
        x0 = col_x(i)
        draw.line((x0 + bid_w, head_h, x0 + bid_w, head_h + sub_h), fill=_GRID)
        draw.line((x0 + pair_w, 0, x0 + pair_w, grid_bottom), fill=_RULE)
    draw.line((0, head_h + sub_h, width - 1, head_h + sub_h), fill=_RULE)
    draw.rectangle((0, 0, width - 1, grid_bottom), outline=_RULE)
    # Legend.
    ly = grid_bottom + legend_h / 2
    text(pad, ly, w["premium"], _PREMIUM, small_fs, anchor="lm")
    text(pad + tw(w["premium"], small_fs) + 3 * pad, ly, w["penalty"], _PENALTY, small_fs, "lm")
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _bold(draw: Any, xy: tuple[float, float], s: str, fill: Any, font: Any) -> None:
    """Right-aligned text, drawn twice a pixel apart to read as bold."""
    x, y = xy
    draw.text((x - 1, y), s, fill=fill, font=font, anchor="rm")
    draw.text((x, y), s, fill=fill, font=font, anchor="rm")
