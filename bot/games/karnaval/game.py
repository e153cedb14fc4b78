"""Karnaval for the table service (../shared/KARNAVAL.md): its rules (`KarnavalRules`) and its
view (`KarnavalView`). A trick-taking game with bids, played 3 to 6, four quarters of as many
deals as players.

Hands are private: the table message shows the deal, bids, tricks and the trick on the table,
and the "My hand" button (or a direct message) shows a seat its hand and its legal choices.
The first player is drawn with the service's `rng` (K2, KC1, KC4) and the draw is announced.
A seat that leaves stays seated and plays by the timeout rule (a simple legal choice), so every
record replays.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Any

from bot.games.karnaval import search, strategy, web
from bot.games.karnaval.engine import EVERYONE, Event, Karnaval, RuleError
from bot.games.karnaval.engine.cards import (
    DECK_ORDER,
    JOKER,
    SUITS,
    full_deck,
    marked_hand,
    rank_of,
    suit_of,
)
from bot.games.karnaval.engine.game import Deal, Play, barred_bid, draw_next
from bot.games.karnaval.engine.record import export_record
from bot.games.karnaval.settings import KarnavalSettings
from bot.games.karnaval.sheet import sheet_png, sheet_text
from bot.service.game import (
    Choice,
    GameRuleError,
    GameRules,
    GameView,
    Hint,
    LogLine,
    Outcome,
)
from bot.service.i18n import Catalog
from bot.service.parts import PARTS, join_parts
from bot.service.ports import Picture

SUIT_MARKS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


#: The ranks a language may letter its own way (`karnaval.rank.Q` is "D", Dame, in German).
LETTERED = ("A", "K", "Q", "J")
#: A lettered rank in a card as `card_text` writes it: at a word's start, before its suit.
_LETTER = re.compile(r"(?<![^\s,(])([AKQJ])(?=[♠♥♦♣])")


def _card_text(card: str) -> str:
    return "🃏" if card == JOKER else rank_of(card) + SUIT_MARKS[suit_of(card)]


#: Every card of the deck as `card_text` writes it without a catalog, made once.
_CARD_TEXTS: dict[str, str] = {c: _card_text(c) for c in DECK_ORDER}


def card_text(card: str, cat: Catalog | None = None) -> str:
    """A card for people: `Q♠`, `10♥`, `🃏` for a joker; with `cat`, its rank lettered as
    the table's language says it (German `D♠`, `B♥`)."""
    texts = _CARD_TEXTS if cat is None else _card_texts(cat)
    found = texts.get(card)
    if found is not None:
        return found
    text = _card_text(card)  # not a card of the deck (refused as ever, or written as such)
    return text if cat is None else lettered(text, cat)


def cards_text(cards: Sequence[str], cat: Catalog | None = None) -> str:
    """Cards for people, space-separated (see `card_text`)."""
    texts = _CARD_TEXTS if cat is None else _card_texts(cat)
    if all(c in texts for c in cards):
        return " ".join([texts[c] for c in cards])
    return " ".join(card_text(c, cat) for c in cards)


def _card_texts(cat: Catalog) -> dict[str, str]:
    """Every card of the deck as `card_text` writes it in `cat`, made once per catalog
    (`Catalog.kept`): a table message and a hand name dozens of cards."""
    texts: dict[str, str] | None = cat.kept.get("karnaval.cards")
    if texts is None:
        texts = cat.kept["karnaval.cards"] = {
            c: lettered(text, cat) for c, text in _CARD_TEXTS.items()
        }
    return texts


#: Lines of the table message's state kept per catalog (`_said`) before they are forgotten.
SAID_KEPT = 4096


def _said(cat: Catalog) -> dict[tuple[Any, ...], Any]:
    """The table message's state lines already said in `cat` (`render_status`), each by
    everything it says (so any table's, in any state, may use it): the deal's head and
    most seat lines and the last trick stay as they were from one step to the next. Kept
    per catalog (`Catalog.kept`), bounded: forgotten past `SAID_KEPT`."""
    said: dict[tuple[Any, ...], Any] | None = cat.kept.get("karnaval.said")
    if said is None or len(said) > SAID_KEPT:
        said = cat.kept["karnaval.said"] = {}
    return said


def lettered(text: str, cat: Catalog) -> str:
    """`text` (cards as `card_text` writes them, maybe among names) with each lettered
    rank as the table's language says it (`karnaval.rank.<letter>`)."""
    letters = _letters(cat)
    if not letters:
        return text
    return _LETTER.sub(lambda m: letters.get(m.group(1), m.group(1)), text)


def _letters(cat: Catalog) -> dict[str, str]:
    """The ranks `cat`'s language letters otherwise than the cards' own letters, worked out
    once per catalog (`Catalog.kept`): a table message and a hand letter dozens of cards."""
    found: dict[str, str] | None = cat.kept.get("karnaval.letters")
    if found is None:
        found = {}
        for r in LETTERED:
            key = f"karnaval.rank.{r}"
            if cat.has(key) and cat.t(key) != r:
                found[r] = cat.t(key)
        cat.kept["karnaval.letters"] = found
    return found


@dataclass(slots=True)
class KarnavalMatch:
    """The engine's match and the seats leaving it."""

    k: Karnaval
    leaving: set[int] = field(default_factory=set)
    announced_draw: bool = False
    #: The web page's last score sheet (not stored: drawn again when needed).
    sheet_memo: list[Any] = field(default_factory=list)
    #: Each seat's hand as the web page last showed it (not stored: a hand changes only when
    #: its seat plays).
    own_memo: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)
    #: The JSON form of the finished deals (they never change again): each made once for
    #: `dump`'s finished parts, not at every move.
    finished: list[dict[str, Any]] = field(default_factory=list)
    #: Who decides now and their labelled choices, computed once per state of the match
    #: (`_memo`) however often one command asks (screens, deadlines, bots, the page): a
    #: per-process memo, never stored.
    memo: _Memo | None = field(default=None, compare=False, repr=False)


@dataclass(slots=True)
class _Memo:
    """The deciders of one state of a match (`_memo`), and the choices asked for so far."""

    state: tuple[int, int, int, tuple[str, ...] | None]
    deciders: tuple[int, ...]
    choices: dict[int, tuple[Choice, ...]] = field(default_factory=dict)


def _memo(t: KarnavalMatch) -> _Memo:
    """The match's memo of its current state: made anew (its deciders computed) once a step
    has changed the state. What tells one state from the next: every step deals, bids, plays
    a card (or two) or picks the first half of a step of two (`pending`), and the engine's
    state between them is what those steps made it."""
    k = t.k
    deals = k.deals
    if deals:
        d = deals[-1]
        state = (len(deals), len(d.bids), len(d.plays), k.pending)
    else:
        state = (0, 0, 0, k.pending)
    memo = t.memo
    if memo is None or memo.state != state:
        memo = t.memo = _Memo(state, tuple(k.deciders()))
    return memo


def _draw(n: int, rng: random.Random) -> list[dict[int, str]]:
    """The draw for the first player (K2): every round from the whole deck (KC4), only the
    seats tied for lowest (KC1: rank only, a joker lowest) draw again."""
    rounds: list[dict[int, str]] = []
    drawing = list(range(n))
    while drawing:
        deck = full_deck()
        rng.shuffle(deck)
        rounds.append({s: deck[i] for i, s in enumerate(drawing)})
        drawing = draw_next(n, rounds)
    return rounds


class KarnavalRules(GameRules):
    """Karnaval's rules for the table service."""

    name = "karnaval"
    players = range(3, 7)
    settings_model = KarnavalSettings
    gives_hints = True

    def new_match(self, names: Sequence[str], settings: Any, rng: random.Random) -> KarnavalMatch:
        """A game; the first player is drawn with `rng` (K2, KC1, KC4)."""
        return KarnavalMatch(Karnaval(list(names), _draw(len(names), rng)))

    def dump(self, t: KarnavalMatch) -> dict[str, Any]:
        """The engine's JSON form with only the newest deal in it (the deals before it, which
        never change again, are the finished parts: stored once each) and the seats leaving."""
        done = max(0, len(t.k.deals) - 1)  # every deal but the newest (it may still change)
        t.finished.extend(t.k.deal_to_dict(i) for i in range(len(t.finished), done))
        return {
            "match": t.k.to_dict(deals_from=done),
            PARTS: list(t.finished),
            "leaving": sorted(t.leaving),
            "drawn": t.announced_draw,
        }

    def load(self, data: dict[str, Any]) -> KarnavalMatch:
        """Rebuild from `dump`."""
        return KarnavalMatch(
            Karnaval.from_dict(join_parts(data["match"], "deals", data.get(PARTS))),
            {int(s) for s in data["leaving"]},
            bool(data.get("drawn", True)),
        )

    def deciders(self, t: KarnavalMatch) -> list[int]:
        """The seat to bid or play (none while dealing, or once all four quarters are played:
        K3, K20); computed once per state of the match."""
        return list(_memo(t).deciders)

    def choices(self, t: KarnavalMatch, seat: int) -> list[Choice]:
        """The seat's legal steps, labelled from the catalog; cards in the hand's order, a
        row of buttons for each suit (jokers, trumps, then the others: issue 30); computed
        once per state of the match."""
        memo = _memo(t)
        found = memo.choices.get(seat)
        if found is None:
            d = t.k.current
            trump = d.trump if d is not None else None
            found = tuple(self._choice(c.action, c.arg, trump) for c in t.k.choices(seat))
            memo.choices[seat] = found
        return list(found)

    @staticmethod
    @lru_cache(maxsize=4096)
    def _choice(action: str, arg: str | None, trump: str | None = None) -> Choice:
        """A step labelled for its button, made once per step and trump suit (a few hundred
        in all): every table and state shares it (a `Choice` is frozen, its label read only)."""
        if action == "bid":
            return Choice("bid", arg, ("karnaval.button.bid", {"n": arg}), "primary", 0)
        if action in ("play", "give"):
            card = arg or ""
            label: LogLine = ("karnaval.button.card", {"card": card_text(card)})
            return Choice(action, card, label, "secondary", _suit_row(card, trump))
        if action == "karnaval":
            pair = (arg or "").split()
            return Choice(
                "karnaval",
                "+".join(pair),
                ("karnaval.button.karnaval", {"cards": cards_text(pair)}),
                "primary",
                PAIR_ROW,
            )
        return Choice(action, arg, (f"karnaval.button.{action}_{arg}", {}), "primary", 0)

    def act(self, t: KarnavalMatch, seat: int, action: str, arg: str | None = None) -> Outcome:
        """Apply one step; the engine's rule errors carry their catalog keys."""
        engine_arg = arg.replace("+", " ") if action == "karnaval" and arg else arg
        try:
            events = t.k.act(seat, action, engine_arg)
        except RuleError as exc:
            raise GameRuleError(exc.rule, exc.key, dict(exc.params), str(exc)) from exc
        return self._collect(t, events, Outcome())

    def start_round(self, t: KarnavalMatch, rng: random.Random) -> Outcome:
        """Shuffle the 76 cards with `rng` and deal (K3, K5); the first deal announces the
        draw for the first player."""
        out = Outcome()
        if not t.announced_draw:
            t.announced_draw = True
            self._collect(t, t.k.draw_events(), out)
        deck = full_deck()
        rng.shuffle(deck)
        hands, stock = t.k.deal_from(deck)
        return self._collect(t, t.k.start_deal(hands, stock), out)

    def timeout_choice(self, t: KarnavalMatch, seat: int) -> Choice:
        """A choice that timed out is made by the bot strategy for that player (issue 13),
        from its own hand and the public cards only."""
        c = strategy.choose(t.k, seat)
        return self._choice(c.action, c.arg)

    def bot_choice(self, t: KarnavalMatch, seat: int, rng: random.Random) -> Choice:
        """The bot strategy (bot/games/karnaval/strategy.py): its own hand and the public
        cards only."""
        c = strategy.choose(t.k, seat, rng)
        return self._choice(c.action, c.arg)

    def bot_thinking(
        self, t: KarnavalMatch, seat: int, rng: random.Random, level: str, seconds: float | None
    ) -> Choice | Callable[[], Choice]:
        """A bot seat's choice at a table's level (issue 22): `normal` at once; `easy` and
        `strong` (bot/games/karnaval/search.py) as a job to run away from the service's loop,
        within `seconds` (None: the worlds counted only). The job holds a snapshot of what
        the seat may know, never the live match."""
        if level not in ("easy", "strong"):
            return self.bot_choice(t, seat, rng)
        thought = search.think(t.k, seat, rng, level, search.Budget(seconds=seconds))
        if thought.quick():  # nothing to sample (one card to play, say): decided at once
            return _thought_choice(thought)
        return partial(_thought_choice, thought)

    def hint(self, t: KarnavalMatch, seat: int, rng: random.Random) -> Hint | None:
        """Issue 33: the move `strong` would make for `seat` (bot/games/karnaval/search.py, the
        strong seat's own worlds, sampled from `SeatView`: the seat's hand and the public table
        only), named as the seat's buttons name it, with the share of those worlds in which
        the seat then takes exactly its bid."""
        view = strategy.SeatView.from_match(t.k, seat)
        found = search.hint_view(view, search.Quarter.from_match(t.k, seat), rng.getrandbits(63))
        if found is None:
            return None
        d = t.k.current
        choice = self._choice(found.step.action, found.step.arg, d.trump if d else None)
        then, cards = found.then(view), found.to_give(view)
        if then is not None:  # the card (or cards) and the word it needs next (K9-K14)
            first = found.move[1]
            choice = replace(
                choice,
                label=(
                    f"karnaval.hint.{then}",
                    {"card": card_text(first), "cards": cards_text(cards)},
                ),
            )
        elif len(cards) == 2:  # two cards given to a Karnaval, one after the other (KC9)
            choice = replace(choice, label=("karnaval.hint.give", {"cards": cards_text(cards)}))
        return Hint(choice, found.exact, found.worlds)

    def forfeit(self, t: KarnavalMatch, seat: int) -> Outcome:
        """The seat cannot leave (the score sheet keeps its column): the bot strategy plays it
        from now on (its timeout choice), until the player takes it back (`rejoin`)."""
        t.leaving.add(seat)
        return Outcome(log=[("karnaval.ev.leaves", {"p": t.k.names[seat]})])

    def rejoin(self, t: KarnavalMatch, seat: int) -> Outcome | None:
        """The player takes back a seat the bot played since it forfeited (None when the
        seat is not the bot's, or the game is over)."""
        if seat not in t.leaving or t.k.phase == "over":
            return None
        t.leaving.discard(seat)
        return Outcome(log=[("karnaval.ev.back", {"p": t.k.names[seat]})])

    def winners(self, t: KarnavalMatch) -> list[int]:
        """The highest totals (KC12: a tie shares the win)."""
        return list(t.k.winners or [])

    def record(self, t: KarnavalMatch, public: bool = False) -> dict[str, Any]:
        """The record (KARNAVAL_RECORD.md); `public`: without the deal under way (its hands
        are hidden)."""
        record = export_record(t.k)
        d = t.k.current
        if public and d is not None and not d.complete:
            record["deals"] = record["deals"][:-1]
        return record

    def _collect(self, t: KarnavalMatch, events: list[Event], out: Outcome) -> Outcome:
        k = t.k
        names = k.names
        for e in events:
            if e.audience != EVERYONE:
                if e.kind == "hand":
                    # As the private screen shows a hand: by suit, trumps first and marked.
                    d = k.current
                    hand = marked_hand(e.cards, d.trump if d is not None else None)
                    line: LogLine = (hand_key(hand), {"cards": hand_text(hand)})
                    out.private.append((e.audience, line))
                continue
            out.log.extend(_event_lines(e, names))
            if e.kind == "deal_scored":
                out.round_over = True
        if out.round_over:
            out.round_stats = _round_stats(k)
        return out


class KarnavalView(GameView):
    """How a Karnaval match looks: the deal, bids and the trick on the table message, each
    hand and its choices privately, the score sheet as a block and a picture, the web page."""

    view_label = "karnaval.button.hand"
    #: The table message's state has a line per seat (6 at most), the trick on the table and
    #: the last one: two newest log entries keep it within 15 lines (issue 30).
    recent_events = 2
    stat_counters = (
        "matches",
        "wins",
        "deals",
        "exact",
        "premiums",
        "penalties",
        "points",
        "best_total",
    )
    texts_package = "bot.games.karnaval.i18n"

    def round_number(self, t: KarnavalMatch) -> int:
        """Deals dealt."""
        return len(t.k.deals)

    def render_status(self, t: KarnavalMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """The deal's state (issue 30): quarter and deal, dealer, trump card; one line per
        seat (bid, tricks taken, and once the deal is over its points); the cards on the table
        before who played them; the last trick taken, in one line. At most 4 + players lines,
        whatever the deal's length (the service adds only the newest log entries)."""
        k = t.k
        d = k.current
        if d is None:
            return [cat.t("karnaval.status.none")]
        said = _said(cat)
        info = k.deal_info(d.index)
        trump = d.trump_card
        key: tuple[Any, ...] = (
            "head",
            info["quarter"],
            info["number"],
            k.n,
            info["cards"],
            names[info["dealer"]],
            trump,
        )
        head = said.get(key)
        if head is None:
            head = said[key] = (
                cat.t(
                    "karnaval.status.title",
                    quarter=info["quarter"],
                    number=info["number"],
                    n=k.n,
                    cards=info["cards"],
                    dealer=names[info["dealer"]],
                ),
                cat.t(
                    "karnaval.status.trump",
                    card=card_text(trump, cat),
                    suit=cat.t(f"karnaval.suit.{suit_of(trump)}"),
                )
                if trump
                else cat.t("karnaval.status.no_trump"),
            )
        lines = list(head)
        if d.index == 0 and k.phase == "bid" and k.draw:
            # While the first deal is bid, how the first player was drawn (K2): its last
            # round and its result (the whole draw is the log's).
            drawn = _event_lines(k.draw_events()[len(k.draw) - 1], names)
            drawn += [("karnaval.ev.first_player", {"p": names[k.first]})]
            lines.extend(self.render_line(line, cat) for line in drawn)
        bids = dict(d.bids)
        taken = d.taken(k.n)
        turn = k.turn
        scores = d.scores
        leaving = t.leaving
        for s in k.order:
            bid = bids.get(s)
            score = None if scores is None else scores[s]
            key = ("seat", s == turn, names[s], bid, taken[s], score, s in leaving)
            text = said.get(key)
            if text is None:
                text = cat.t(
                    "karnaval.status.seat",
                    mark="▶ " if s == turn else "",
                    name=names[s],
                    bid="–" if bid is None else bid,
                    taken=taken[s],
                )
                if score is not None:  # the deal is over: what it scored (K17-K19)
                    text += " · " + cat.t("karnaval.status.points", count=score)
                if s in leaving:
                    text += " · " + cat.t("karnaval.status.leaving")
                said[key] = text
            lines.append(text)
        if d.trick:
            lines.append(cat.t("karnaval.status.trick", plays=_plays_text(d.trick, names, cat)))
        last = _last_trick(d, k.n)
        if last:
            winner = names[d.tricks[-1]]
            key = ("last", winner, tuple(last), tuple(names))
            text = said.get(key)
            if text is None:
                text = said[key] = cat.t(
                    "karnaval.status.last_trick", p=winner, plays=_plays_text(last, names, cat)
                )
            lines.append(text)
        return lines

    def render_reveal(self, t: KarnavalMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """After a deal: its scores and the score sheet; at the end the totals and winners."""
        k = t.k
        d = k.current
        if d is None or not d.complete:
            return []
        lines = [cat.t("karnaval.reveal.title", deal=d.index + 1, total=k.deal_total)]
        if k.phase == "over":
            win = ", ".join(names[s] for s in k.winners or [])
            lines.append(cat.t("karnaval.end.winners", names=win))
        return lines

    def render_block(self, t: KarnavalMatch, names: Sequence[str], cat: Catalog) -> str | None:
        """The score sheet as the seed draws it (K20), after each deal: a monospace block that
        keeps its columns (bot/games/karnaval/sheet.py). Not after a deal that ends a quarter:
        the sheet is then a picture (`render_picture`), whose alt text is this block."""
        d = t.k.current
        if d is None or not d.complete or _ends_quarter(t.k):
            return None
        return self._deal_block(t, cat)

    @staticmethod
    def _deal_block(t: KarnavalMatch, cat: Catalog) -> str:
        """After a deal inside a quarter: its line of the sheet and every player's total so
        far (K20); the whole sheet comes at the quarter's end."""
        k = t.k
        d = k.current
        assert d is not None
        sheet = k.sheet()
        rows = sheet["rows"]
        line = next(r for r in rows if r["kind"] == "deal" and r["deal"] == d.index + 1)
        so_far = [0] * len(sheet["players"])
        deals: list[dict[str, Any]] = []
        for r in rows:
            if r["kind"] == "deal":
                deals.append(r)
                continue
            if r["kind"] == "quarter":
                finished = r["totals"][0] is not None
                parts = [r["totals"]] if finished else [x["points"] for x in deals]
                for values in parts:
                    for s, v in enumerate(values):
                        so_far[s] += v or 0
                deals = []
        total = {"kind": "total", "label": "", "totals": so_far}
        short = {"players": sheet["players"], "rows": [line, total]}
        words = {**_sheet_words(cat), "total": cat.t("karnaval.sheet.so_far")}
        return sheet_text(short, words=words, max_chars=1500, legend=False)

    @staticmethod
    def _sheet_block(t: KarnavalMatch, cat: Catalog) -> str:
        # Room is left for the lines around it within a message (Discord: 2,000 characters).
        return sheet_text(t.k.sheet(), words=_sheet_words(cat), max_chars=1500)

    def render_sheet(self, t: KarnavalMatch, names: Sequence[str], cat: Catalog) -> str | None:
        """The whole score sheet so far (K20): every deal's line, each quarter's and the
        total, as at a quarter's end; under a title saying how many deals are played."""
        k = t.k
        done = sum(1 for d in k.deals if d.complete)
        title = cat.t("karnaval.sheet.title", done=done, total=k.deal_total)
        return f"{title}\n{self._sheet_block(t, cat)}"

    def render_picture(
        self, t: KarnavalMatch, names: Sequence[str], cat: Catalog
    ) -> Picture | None:
        """The score sheet as a picture (K20) after the last deal of each quarter (the fourth
        quarter's is the end of the game, with the totals and winners), carried by the deal's
        result message: a PNG drawn by `sheet_png`, with the text sheet as its alt. It shows
        bids and points only, never a card. None after the other deals."""
        d = t.k.current
        if d is None or not d.complete or not _ends_quarter(t.k):
            return None
        quarter = t.k.deal_info(d.index)["quarter"]
        name = "karnaval-sheet.png" if t.k.phase == "over" else f"karnaval-sheet-q{quarter}.png"
        sheet = t.k.sheet()
        words = _sheet_words(cat)
        data = _sheet_picture(dump_key(sheet), dump_key(words))
        return Picture(name, data, self._sheet_block(t, cat))

    def render_line(self, line: LogLine, cat: Catalog) -> str:
        """One log line or a choice's label: a suit named and the cards lettered in the
        table's language (German `D♠` for a queen, `B♥` for a jack)."""
        key, params = line
        if "suit" in params:
            params = {**params, "suit": cat.t(f"karnaval.suit.{params['suit']}")}
        if _letters(cat):  # else the cards read as they are written
            for name in ("card", "cards"):
                if isinstance(params.get(name), str):
                    params = {**params, name: lettered(params[name], cat)}
        return cat.t(key, **params)

    def private_text(self, t: KarnavalMatch, seat: int, cat: Catalog) -> str:
        """The seat's hand once, by suit (trumps first, marked), and what a step of two has
        picked so far; never the list of its choices: they are the screen's buttons (a
        terminal numbers them itself), said once (issue 30)."""
        k = t.k
        d = k.current
        if d is None or d.complete:
            return cat.t("karnaval.piece.none")
        # The hand as `Karnaval.view_for` sorts and marks it, without the rest of that view
        # (the seat's choices, the score sheet): the choices are the screen's buttons,
        # computed once per state (`KarnavalRules.choices`).
        hand = marked_hand(d.held[seat], d.trump) if 0 <= seat < k.n else []
        text = cat.t(hand_key(hand), cards=hand_text(hand, cat) or "–")
        pending = k.pending if seat in _memo(t).deciders else None
        if pending is not None:
            # The first pick of a step of two (a card given to a Karnaval, a joker led...)
            # is acknowledged: the next question never looks the same as the first.
            kind, *picked = pending
            first = card_text(picked[0], cat) if picked else ""
            key = f"karnaval.piece.pending_{kind}"
            text += "\n" + cat.t(key, card=first, cards=cards_text(picked, cat))
        barred = _barred_for(k, seat)
        if barred is not None:
            # K6: the keypad lacks one number; say which and why, not leave it a puzzle.
            cards = k.deal_info(d.index)["cards"]
            text += "\n" + cat.t("karnaval.piece.barred", n=barred, cards=cards)
        return text

    def web_public(self, t: KarnavalMatch, names: Sequence[str], cat: Catalog) -> dict[str, Any]:
        """The web page's shapes every viewer sees (docs/web.md): the cards on the table,
        trump, bids and tricks, the score sheet (bot/games/karnaval/web.py)."""
        sheet = web.sheet_of(t.k, names, t.sheet_memo, web.page_sheet_words(cat))
        return web.web_public(t.k, names, cat, partial(card_text, cat=cat), sheet)

    def web_own(
        self, t: KarnavalMatch, seat: int, names: Sequence[str], cat: Catalog
    ) -> dict[str, Any]:
        """`seat`'s own hand, for `seat` only (bot/games/karnaval/web.py)."""
        return web.web_own(t.k, seat, cat, partial(card_text, cat=cat), t.own_memo)

    def web_replay(self, record: dict[str, Any], cat: Catalog) -> list[dict[str, Any]]:
        """A finished match's record as the replay page's steps (bot/games/karnaval/web.py)."""
        return web.replay_steps(record, cat, self, KarnavalMatch, partial(card_text, cat=cat))

    def rules_text(self, cat: Catalog, settings: Any) -> str:
        """The rules summary (KARNAVAL.md)."""
        return f"{cat.t('karnaval.rules')} {cat.t('karnaval.rules.timeouts')}"

    def top_key(self, counters: Mapping[str, int]) -> tuple[Any, ...]:
        """Most wins, then most points."""
        return (-counters.get("wins", 0), -counters.get("points", 0), -counters.get("matches", 0))


#: The first row of card buttons (a row each: jokers, trumps, then the other suits).
CARD_ROW = 1
#: The row of the Karnavals one may lead: after every suit's (the jokers', the trumps' and
#: the four suits').
PAIR_ROW = CARD_ROW + 2 + len(SUIT_MARKS)


def _suit_row(card: str, trump: str | None) -> int:
    """The row of `card`'s button: its group in the hand's order (`sort_key`: jokers, trumps,
    then spades, hearts, diamonds, clubs), so each suit has a row of its own."""
    if card == JOKER:
        return CARD_ROW
    suit = suit_of(card)
    return CARD_ROW + (1 if suit == trump else 2 + SUITS.index(suit))


def hand_key(hand: Sequence[Mapping[str, Any]]) -> str:
    """The hand's line: with the legend of the trump mark (`*`) only when a trump is in it."""
    return "karnaval.piece.hand" if any(c["trump"] for c in hand) else "karnaval.piece.hand_plain"


def hand_text(hand: Sequence[Mapping[str, Any]], cat: Catalog | None = None) -> str:
    """A hand as `Karnaval.view_for` sorts it (`{"card", "trump"}` each): its cards by suit,
    the suits apart (` · `), a trump marked `*`: `6♥* K♥* · A♠ 9♠ · 🃏`."""
    texts = _CARD_TEXTS if cat is None else _card_texts(cat)
    groups: list[list[str]] = []
    last: str | None = None
    for c in hand:
        card = c["card"]
        suit = "joker" if card == JOKER else card[-1]  # `suit_of`
        if suit != last:
            groups.append([])
            last = suit
        text = texts.get(card)
        if text is None:
            text = card_text(card, cat)
        groups[-1].append(text + "*" if c["trump"] else text)
    return " · ".join([" ".join(g) for g in groups])


def _plays_text(plays: Sequence[Play], names: Sequence[str], cat: Catalog) -> str:
    """Plays (`Play`) before who made them: `Alice 9♣ · Bob 🃏 highest · Carol K♥ on top`."""
    out = []
    for p in plays:
        text = f"{names[p.seat]} {cards_text(p.cards, cat)}"
        if p.choice:  # a joker led high or low, an equal card on top or underneath (K10, K11)
            text += " " + cat.t(f"karnaval.status.choice_{p.choice}")
        out.append(text)
    return " · ".join(out)


def _last_trick(d: Deal, n: int) -> list[Play]:
    """The plays of the deal's last completed trick (a Karnaval's too: n plays, pairs), []
    before the first is taken."""
    done = len(d.plays) - len(d.trick)
    return list(d.plays[done - n : done]) if d.tricks and done >= n else []


def _barred_for(k: Karnaval, seat: int) -> int | None:
    """The bid `seat` may not make now (K6): it bids last in this deal and one number would
    make the bids add up to the cards each player holds; None otherwise."""
    d = k.current
    if d is None or k.phase != "bid" or k.turn != seat or len(d.bids) != k.n - 1:
        return None
    return barred_bid(k.deal_info(d.index)["cards"], [b for _, b in d.bids])


def _ends_quarter(k: Karnaval) -> bool:
    """Whether the newest deal is finished and was the last of its quarter (K3, K20)."""
    d = k.current
    return d is not None and d.complete and k.deal_info(d.index)["number"] == k.n


def _sheet_words(cat: Catalog) -> dict[str, str]:
    """The words drawn on the sheet, in the table's language."""
    return web.sheet_words(cat)


def dump_key(value: Any) -> str:
    """A JSON text of `value`, as a cache key."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@lru_cache(maxsize=16)
def _sheet_picture(sheet: str, words: str) -> bytes:
    """`sheet_png` of a sheet (JSON text): drawn once however often the table is shown."""
    return sheet_png(json.loads(sheet), words=json.loads(words))


def _event_lines(e: Event, names: Sequence[str]) -> list[LogLine]:
    kind = e.kind
    p = names[e.seat] if 0 <= e.seat < len(names) else ""
    if kind == "drew":
        seats = e.numbers[1:]
        drawn = ", ".join(f"{names[s]} {card_text(c)}" for s, c in zip(seats, e.cards, strict=True))
        return [("karnaval.ev.drew", {"round": e.numbers[0], "cards": drawn})]
    if kind == "first_player":
        return [("karnaval.ev.first_player", {"p": p})]
    if kind == "dealt":
        deal, quarter, number, cards, leader = e.numbers
        line: LogLine = (
            "karnaval.ev.dealt",
            {"dealer": p, "deal": deal, "quarter": quarter, "number": number, "cards": cards},
        )
        if e.cards:
            trump: LogLine = (
                "karnaval.ev.trump",
                {"card": card_text(e.cards[0]), "suit": suit_of(e.cards[0]), "p": names[leader]},
            )
        else:
            trump = ("karnaval.ev.no_trump", {"p": names[leader]})
        return [line, trump]
    if kind == "bid":
        return [("karnaval.ev.bid", {"p": p, "n": e.numbers[0]})]
    if kind == "played":
        key = f"karnaval.ev.played_{e.detail}" if e.detail else "karnaval.ev.played"
        return [(key, {"p": p, "card": cards_text(e.cards)})]
    if kind == "karnaval_led":
        return [("karnaval.ev.karnaval_led", {"p": p, "cards": cards_text(e.cards)})]
    if kind == "gave":
        key = "karnaval.ev.gave_take" if e.detail == "take" else "karnaval.ev.gave"
        return [(key, {"p": p, "cards": cards_text(e.cards)})]
    if kind == "trick":
        # How many tricks the player has taken now, not a count that reads as one: a
        # Karnaval's trick counts two (KC9).
        key = "karnaval.ev.took_two" if e.numbers[0] == 2 else "karnaval.ev.took"
        return [(key, {"p": p, "taken": e.numbers[1]})]
    if kind == "deal_scored":
        scores = ", ".join(f"{names[s]} {v}" for s, v in enumerate(e.numbers))
        return [("karnaval.ev.deal_scored", {"scores": scores})]
    if kind == "quarter_scored":
        totals = ", ".join(f"{names[s]} {v}" for s, v in enumerate(e.numbers[1:]))
        return [("karnaval.ev.quarter_scored", {"quarter": e.numbers[0], "totals": totals})]
    if kind == "match_over":
        totals = ", ".join(f"{names[s]} {v}" for s, v in enumerate(e.numbers))
        return [("karnaval.ev.match_over", {"totals": totals})]
    return []


def _round_stats(k: Karnaval) -> dict[int, dict[str, int]]:
    """Per seat counters of the deal that ended: deals, exact bids; at a quarter's end its
    premiums and penalties; at the end the game's total points, and the same total as the
    `best_total` the store keeps the highest of."""
    d = k.current
    assert d is not None
    n = k.n
    taken = d.taken(n)
    bids = dict(d.bids)
    stats = {
        s: {
            "deals": 1,
            "exact": int(taken[s] == bids[s]),
            "premiums": 0,
            "penalties": 0,
            "points": 0,
        }
        for s in range(n)
    }
    if (d.index + 1) % n == 0:
        row = k.quarter_rows()[d.index // n]
        for s in range(n):
            stats[s]["premiums"] = int(row["premiums"][s] > 0)
            stats[s]["penalties"] = int(row["penalties"][s] < 0)
    totals = k.totals()
    if totals is not None:
        for s in range(n):
            stats[s]["points"] = totals[s]
            stats[s]["best_total"] = totals[s]
    return stats


def _thought_choice(thought: search.Thought) -> Choice:
    """Run a snapshot decision (in any process) and word it as the service's choice."""
    c = thought.run()
    return KarnavalRules._choice(c.action, c.arg)
