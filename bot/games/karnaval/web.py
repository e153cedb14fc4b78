"""Karnaval on the web page: the viewer's hand as cards, the cards played to the table in
front of who played them, the trump, each seat's bid and tricks at the seat, and the score sheet
as a real table (K20); cards carry their names in the table's language ("Queen of hearts,
trump"). The replay shows every hand from each deal's start, its lines the table's log.

The shapes are the page's generic ones (docs/web.md): `own`, `middle`, `facts`, `seats`,
`tricks`/`taker`, `sheet`, `hands` (replays). Only the asking seat's own hand is ever put in
(a spectator gets none).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from bot.games.karnaval.engine import Karnaval
from bot.games.karnaval.engine.cards import JOKER, rank_of, sorted_hand, suit_of
from bot.games.karnaval.sheet import row_label
from bot.service.i18n import Catalog

_RED = frozenset({"H", "D"})


def _tone(card: str) -> str:
    if card == JOKER:
        return "wild"
    return "red" if suit_of(card) in _RED else "black"


def card_label(card: str, cat: Catalog, trump: str | None = None) -> str:
    """A card's accessible name in the table's language ("Queen of hearts, trump"), worked
    out once per catalog, card and trump suit (a page view names a dozen cards)."""
    labels = _LABELS.get(cat)
    if labels is None:
        labels = _LABELS[cat] = {}
    key = (card, trump is not None and suit_of(card) == trump)
    name = labels.get(key)
    if name is None:
        name = labels[key] = _card_label(card, cat, key[1])
    return name


#: Each catalog's card names (`card_label`), by card and whether it is a trump.
_LABELS: weakref.WeakKeyDictionary[Catalog, dict[tuple[str, bool], str]] = (
    weakref.WeakKeyDictionary()
)


def _card_label(card: str, cat: Catalog, trump: bool) -> str:
    if card == JOKER:
        return cat.t("karnaval.card.joker")
    rank = cat.t(f"karnaval.card.rank.{rank_of(card)}")
    name = cat.t(f"karnaval.card.suit.{suit_of(card)}", rank=rank)
    return cat.t("karnaval.card.trump", card=name) if trump else name


def web_public(
    k: Karnaval,
    names: Sequence[str],
    cat: Catalog,
    text: Any,
    sheet: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The page's shapes of a Karnaval match every viewer sees alike. `text` is the game's
    card-to-text function (`card_text`); `sheet` the score sheet when already drawn (see
    `sheet_of`). Each seat's bid and tricks taken are at the seat (`seats`), each card on the
    table names who played it (`seat`), and `taker` is who took the last trick (the page
    moves a finished trick to them). No hand is in it: `web_own` gives a seat its own."""
    out: dict[str, Any] = {}
    d = k.current
    if d is not None:
        words = _words_of(cat)
        trump = d.trump_card
        facts = words.get(trump)
        if facts is None:
            if trump:
                suit = cat.t(f"karnaval.suit.{suit_of(trump)}")
                facts = [cat.t("karnaval.status.trump", card=text(trump), suit=suit)]
            else:
                facts = [cat.t("karnaval.status.no_trump")]
            words[trump] = facts
        out["facts"] = facts
        bids = dict(d.bids)
        taken = d.taken(k.n)
        out["seats"] = [_seat_facts(cat, words, bids.get(s, "–"), taken[s]) for s in range(k.n)]
        trump_suit = None if trump is None else suit_of(trump)
        out["middle"] = {
            "title": "",
            "tiles": [
                {
                    "id": c,
                    "text": text(c),
                    "tone": _tone(c),
                    "by": names[p.seat],
                    "seat": p.seat,
                    "label": f"{names[p.seat]}: {card_label(c, cat, trump_suit)}",
                }
                for p in d.trick
                for c in p.cards
            ],
        }
        out["tricks"] = len(d.tricks)
        out["taker"] = d.tricks[-1] if d.tricks else None
    out["sheet"] = sheet if sheet is not None else _sheet(k, names, page_sheet_words(cat))
    return out


def _seat_facts(cat: Catalog, words: dict[Any, Any], bid: int | str, taken: int) -> dict[str, Any]:
    """A seat's bid and tricks taken in words (`seats`), made once per catalog."""
    facts = words.get((bid, taken))
    if facts is None:
        facts = words[(bid, taken)] = {
            "facts": [
                {"sym": "↑", "text": cat.t("karnaval.web.bid", bid=bid)},
                {"sym": "✓", "text": cat.t("karnaval.web.taken", taken=taken)},
            ]
        }
    return facts


def _words_of(cat: Catalog) -> dict[Any, Any]:
    """What `web_public` has said in `cat`'s language, by what it said it of: the trump card
    (facts) and a seat's bid and tricks taken (shared by every page: never changed)."""
    words = _WORDS.get(cat)
    if words is None:
        words = _WORDS[cat] = {}
    return words


_WORDS: weakref.WeakKeyDictionary[Catalog, dict[Any, Any]] = weakref.WeakKeyDictionary()


def web_own(
    k: Karnaval, seat: int, cat: Catalog, text: Any, memo: dict[int, Any] | None = None
) -> dict[str, Any]:
    """`seat`'s own hand as the page shows it to that seat alone (`own`), while its deal is
    under way; `memo` keeps each seat's last one (a hand changes only when its seat plays)."""
    d = k.current
    if d is None or not 0 <= seat < k.n or d.complete:
        return {}
    key = (d, tuple(d.held[seat]), cat)  # the deal (its trump) and the hand now
    if memo is not None:
        kept = memo.get(seat)
        if kept is not None and kept[0] == key:
            return kept[1]
    trump_suit = d.trump
    own = {
        "own": {
            "title": "",
            "tiles": [
                _tile(c, text, cat, trump_suit) for c in sorted_hand(d.held[seat], trump_suit)
            ],
        }
    }
    if memo is not None:
        memo[seat] = (key, own)
    return own


def sheet_words(cat: Catalog) -> dict[str, str]:
    """The words drawn on the sheet (sheet.py's `WORDS`), in the table's language; the
    quarter's as its template (`{n}` is filled per row)."""
    words = {w: cat.t(f"karnaval.sheet.{w}") for w in ("premium", "penalty", "bid", "points")}
    words["total"] = cat.t("karnaval.sheet.total")
    words["quarter"] = cat.template("karnaval.sheet.quarter")
    return words


def page_sheet_words(cat: Catalog) -> dict[str, str]:
    """The sheet's words on the page, which has room for a quarter's whole word ("Quarter
    1", not the chat grid's "Q1": Norwegian's "K1" would read as a rule's number); worked
    out once per catalog (do not change the dict returned)."""
    words = _PAGE_SHEET_WORDS.get(cat)
    if words is None:
        words = {**sheet_words(cat), "quarter": cat.template("karnaval.web.quarter")}
        _PAGE_SHEET_WORDS[cat] = words
    return words


#: Each catalog's `page_sheet_words`.
_PAGE_SHEET_WORDS: weakref.WeakKeyDictionary[Catalog, dict[str, str]] = weakref.WeakKeyDictionary()


def sheet_of(
    k: Karnaval, names: Sequence[str], memo: list[Any], words: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The score sheet, drawn again only when a deal was added or scored since (`memo`
    keeps the last one: the pushes of one commit build a view per viewer); `words` label its
    quarters and totals (sheet.py's `row_label`)."""
    d = k.current
    key = (len(k.deals), d is not None and d.complete, tuple(names))
    if memo and memo[0] == key and memo[1] is words:  # the same words: a catalog's own
        return memo[2]
    sheet = _sheet(k, names, words)
    memo[:] = [key, words, sheet]
    return sheet


def _sheet(
    k: Karnaval, names: Sequence[str], words: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The score sheet: a row per deal (bid / points), each quarter's totals (K20)."""
    sheet = k.sheet()
    rows: list[list[str]] = []
    for row in sheet["rows"]:
        if row["kind"] == "deal":
            if all(b is None for b in row["bids"]):
                continue
            cells = [
                "" if b is None else (f"{b}" if p is None else f"{b} · {p}")
                for b, p in zip(row["bids"], row["points"], strict=True)
            ]
            rows.append([row_label(row, words), *cells])
        elif row["kind"] in ("quarter", "total") and any(t is not None for t in row["totals"]):
            label = row_label(row, words)
            rows.append([label, *("" if t is None else str(t) for t in row["totals"])])
    return {"head": ["", *(names[s] for s in k.order)], "rows": rows}


def replay_steps(
    record: dict[str, Any], cat: Catalog, view: Any, wrap: Any, text: Any
) -> list[dict[str, Any]]:
    """A finished match's record as steps for the replay page: the table after each bid and
    each play, deal by deal (the record folded by the engine up to that step, K20's sheet
    kept). Every hand shows from the deal's start (the match is over and its record is
    public); each step's lines are the table's log of the deal so far, in the table's
    language (the game's own event lines); `deal` numbers each step's deal."""
    from bot.games.karnaval.engine.record import RecordError, new_match_from_record
    from bot.service.game import Outcome

    # `view`: the game's GameView (its renderings and rules); `wrap`: the match as they take
    # it; `text`: a card for people.
    deals = record.get("deals") or []
    steps: list[dict[str, Any]] = []
    try:
        k = new_match_from_record(record)
    except RecordError:
        return steps
    names = k.names
    seat_of = {name: i for i, name in enumerate(names)}
    table = wrap(k)
    collect = view.rules._collect  # the game's own event lines (bot/games/karnaval/game.py)

    def lines(events: list[Any]) -> list[str]:
        return [view.render_line(line, cat) for line in collect(table, events, Outcome()).log]

    story: list[str] = lines(k.draw_events()) if k.draw else []
    try:
        for number, deal in enumerate(deals):
            hands = deal["hands"]
            story += lines(k.start_deal([hands[name] for name in names], deal["stock"]))
            steps.append(_step(k, table, view, names, cat, story, text, number))
            for name, bid in deal.get("bids") or []:
                story += lines(k.bid(seat_of[name], bid))
                steps.append(_step(k, table, view, names, cat, story, text, number))
            for entry in deal.get("plays") or []:
                name, cards = entry[0], entry[1]
                choice = entry[2] if len(entry) > 2 else None
                listed = cards if isinstance(cards, list) else [cards]
                story += lines(k.play(seat_of[name], tuple(listed), choice))
                steps.append(_step(k, table, view, names, cat, story, text, number))
            story = []
    except (RecordError, ValueError, KeyError):  # a record this page cannot fold further
        return steps
    return steps


def _step(
    k: Karnaval,
    table: Any,
    view: Any,
    names: Sequence[str],
    cat: Catalog,
    story: list[str],
    text: Any,
    deal: int,
) -> dict[str, Any]:
    lines = list(view.render_status(table, names, cat))
    d = k.current
    if story:
        lines += ["—", *story]
    shapes = web_public(k, names, cat, text)
    if d is not None:
        # The match is over: every hand is public in its record, shown at its seat.
        trump = d.trump
        shapes["hands"] = [
            [_tile(c, text, cat, trump) for c in sorted_hand(d.held[s], trump)] for s in range(k.n)
        ]
    turn = k.turn
    return {
        "text": "\n".join(lines),
        "shapes": shapes,
        "deal": deal,
        "seats": [{"name": n, "turn": i == turn} for i, n in enumerate(names)],
    }


def _tile(card: str, text: Any, cat: Catalog, trump: str | None) -> dict[str, str]:
    """A card of a hand as a tile, made once per catalog, card and trump suit (shared by
    every page and step that shows it: never changed)."""
    tiles = _TILES.get(cat)
    if tiles is None:
        tiles = _TILES[cat] = {}
    tile = tiles.get((card, trump))
    if tile is None:
        note = "★" if trump is not None and suit_of(card) == trump else ""
        label = card_label(card, cat, trump)
        tile = {"id": card, "text": text(card), "tone": _tone(card), "note": note, "label": label}
        tiles[(card, trump)] = tile
    return tile


#: Each catalog's tiles (`_tile`), by card and trump suit.
_TILES: weakref.WeakKeyDictionary[Catalog, dict[tuple[str, str | None], dict[str, str]]] = (
    weakref.WeakKeyDictionary()
)
