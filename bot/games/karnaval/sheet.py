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
- `sheet_png(sheet)`: the same grid drawn with Pillow in its own scalable font (no system font):
  names in a shaded header, bid and points cells, quarter rows shaded with the quarter's sum and
  its premium (green) or penalty (red) beside the total, the totals with the winners
  highlighted. The output is deterministic: the same sheet gives the same bytes.

`words` translate the few words drawn (English by default).
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

#: Words of the sheet, overridable per language.
WORDS: dict[str, str] = {
    "premium": "premium +60",
    "penalty": "penalty -60",
    "bid": "bid",
    "points": "pts",
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
) -> str:
    """The score sheet as a monospace block (no code fences), at most `max_width` cells wide when
    the numbers allow (names are cut to fit; numbers never). Over `max_chars` (Discord allows
    2000 in a message), it leaves out, until it fits: the rules between quarters, the `bid pts`
    line, then the deal rows of finished deals quarter by quarter (their quarter rows stay)."""
    w = {**WORDS, **(words or {})}
    players = [clean_name(p) or "?" for p in sheet["players"]]
    rows = _rows(sheet, compact)
    n = len(players)
    label_w = max(2, *(text_width(str(r["label"])) for r in rows))
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
        label = str(r["label"])
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

#: Russian letters for fonts without them (the default Pillow font is Latin only).
_TRANSLIT = {
    "а": "a",
    "б": "b",
    "в": "v",
    "г": "g",
    "д": "d",
    "е": "e",
    "ё": "e",
    "ж": "zh",
    "з": "z",
    "и": "i",
    "й": "y",
    "к": "k",
    "л": "l",
    "м": "m",
    "н": "n",
    "о": "o",
    "п": "p",
    "р": "r",
    "с": "s",
    "т": "t",
    "у": "u",
    "ф": "f",
    "х": "kh",
    "ц": "ts",
    "ч": "ch",
    "ш": "sh",
    "щ": "shch",
    "ъ": "",
    "ы": "y",
    "ь": "",
    "э": "e",
    "ю": "yu",
    "я": "ya",
}


@lru_cache(maxsize=8)
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


@lru_cache(maxsize=4096)
def _has_glyph(size: int, ch: str) -> bool:
    font = _font(size)
    if not hasattr(font, "getmask"):
        return ch.isascii()
    missing = bytes(font.getmask("\uffff"))
    return ch == " " or bytes(font.getmask(ch)) != missing


def drawable(text: str, size: int) -> str:
    """`text` with what the font cannot draw replaced: accents dropped, Russian transliterated,
    emoji and other symbols removed, anything else as "?"."""
    out = []
    for ch in clean_name(text):
        if _has_glyph(size, ch):
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        if base and all(_has_glyph(size, c) for c in base):
            out.append(base)
        elif ch.lower() in _TRANSLIT:
            t = _TRANSLIT[ch.lower()]
            out.append(t.capitalize() if ch.isupper() else t)
        else:
            out.append("?")
    return "".join(out)


def sheet_png(
    sheet: Mapping[str, Any],
    *,
    scale: float = 1.0,
    compact: bool = False,
    words: Mapping[str, str] | None = None,
) -> bytes:
    """The score sheet as a PNG picture (bytes)."""
    from PIL import Image, ImageDraw

    w = {**WORDS, **(words or {})}
    fs = max(8, round(16 * scale))
    small_fs = max(7, round(12 * scale))
    font, small = _font(fs), _font(small_fs)
    rows = _rows(sheet, compact)
    players = [drawable(p, fs) or "?" for p in sheet["players"]]
    n = len(players)

    def tw(text: str, f: Any = font) -> int:
        left, _, right, _ = f.getbbox(text) if text else (0, 0, 0, 0)
        return int(right - left)

    pad = round(8 * scale)
    row_h = round(26 * scale)
    head_h = round(30 * scale)
    sub_h = round(20 * scale)
    label_w = max(tw(str(r["label"])) for r in rows) + 2 * pad
    bid_w = max(tw("12"), tw(w["bid"], small)) + 2 * pad
    pts_w = max(tw("-1000"), tw(w["points"], small)) + 2 * pad
    name_room = round(160 * scale)
    names = []
    for p in players:
        cut = p
        while tw(cut) > name_room - 2 * pad and len(cut) > 1:
            cut = cut[:-1]
        names.append(cut)
    pair_w = max(bid_w + pts_w, max(tw(x) for x in names) + 2 * pad, round(110 * scale))
    pts_w = pair_w - bid_w
    legend_h = round(28 * scale)
    width = label_w + n * pair_w + 1
    height = head_h + sub_h + len(rows) * row_h + legend_h + 1
    img = Image.new("RGB", (width, height), _PAPER)
    draw = ImageDraw.Draw(img)

    def text(x: float, y: float, s: str, fill: tuple[int, int, int], f: Any = font, anchor="mm"):
        draw.text((x, y), s, fill=fill, font=f, anchor=anchor)

    def col_x(i: int) -> int:
        return label_w + i * pair_w

    # Header: names, then "bid pts" under each.
    draw.rectangle((0, 0, width - 1, head_h + sub_h), fill=_HEAD)
    for i, name in enumerate(names):
        text(col_x(i) + pair_w / 2, head_h / 2, name, _INK)
        text(col_x(i) + bid_w / 2, head_h + sub_h / 2, w["bid"], _FAINT, small)
        text(col_x(i) + bid_w + pts_w / 2, head_h + sub_h / 2, w["points"], _FAINT, small)
    totals_row = next((r for r in rows if r["kind"] == "total"), None)
    best = None
    if totals_row and all(t is not None for t in totals_row["totals"]):
        best = max(totals_row["totals"])

    y = head_h + sub_h
    for r in rows:
        kind = r["kind"]
        top, bottom = y, y + row_h
        if kind == "quarter":
            draw.rectangle((0, top, width - 1, bottom), fill=_QUARTER)
        elif kind == "total":
            draw.rectangle((0, top, width - 1, bottom), fill=_TOTAL)
        mid = (top + bottom) / 2
        text(pad, mid, drawable(str(r["label"]), fs), _INK, anchor="lm")
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
                    text(x0 + pad / 2, mid, note, color, small, anchor="lm")
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
    text(pad, ly, w["premium"], _PREMIUM, small, anchor="lm")
    text(pad + tw(w["premium"], small) + 3 * pad, ly, w["penalty"], _PENALTY, small, anchor="lm")
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _bold(draw: Any, xy: tuple[float, float], s: str, fill: Any, font: Any) -> None:
    """Right-aligned text, drawn twice a pixel apart to read as bold."""
    x, y = xy
    draw.text((x - 1, y), s, fill=fill, font=font, anchor="rm")
    draw.text((x, y), s, fill=fill, font=font, anchor="rm")
