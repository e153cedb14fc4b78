"""Gnavspiel for the table service (RULES.md section 3): its rules (`GnavspielRules`) and its
view (`GnavspielView`). A rules choice of the Gnav table (`rules=gnavspiel`), registered as its
own game so that its settings, statistics and records stay its own.

The offered player answers from the table message: its Accept / Refuse buttons show nothing
hidden (a refusal reveals nothing, G4), and the service lets only the deciding seat press them.

A seat that leaves (or times out three times) stays seated as a ghost: it passes, refuses,
stops and declines a loan (so it goes out when broke), which keeps every record replayable.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bot.games.gnavspiel import search
from bot.games.gnavspiel.engine import DECK, EVERYONE, Event, Match, RuleError, card_name
from bot.games.gnavspiel.engine.record import export_record
from bot.games.gnavspiel.settings import GnavspielSettings
from bot.games.gnavspiel.strategy import choose
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
from bot.service.parts import PARTS, join_parts, split_parts

#: How often an `easy` bot seat takes a choice other than the strategy's.
EASY_SLIP = 0.25

_ROLES = {
    "pass": "secondary",
    "offer": "primary",
    "accept": "success",
    "refuse": "danger",
    "stand": "primary",
    "stop": "secondary",
    "draw": "primary",
    "borrow": "primary",
    "decline": "danger",
}


@dataclass(slots=True)
class GnavspielMatch:
    """The engine's match and the seats leaving it (they act by the timeout rule)."""

    m: Match
    leaving: set[int] = field(default_factory=set)


class GnavspielRules(GameRules):
    """Gnavspiel's rules for the table service."""

    name = "gnavspiel"
    players = range(2, 7)
    settings_model = GnavspielSettings
    gives_hints = True

    def new_match(self, names: Sequence[str], settings: Any, rng: random.Random) -> GnavspielMatch:
        """A match with the table's chips, deals and variants; the first dealer drawn."""
        s = settings if isinstance(settings, GnavspielSettings) else GnavspielSettings()
        return GnavspielMatch(
            Match(
                list(names),
                chips=s.chips,
                deals=s.deals,
                variants=sorted(s.variants),
                dealer=rng.randrange(len(names)),
            )
        )

    def dump(self, t: GnavspielMatch) -> dict[str, Any]:
        """The engine's JSON form with only the newest deal's log in its history (the logs
        before it never change again: the finished parts, stored once each) and the seats
        leaving."""
        match, finished = split_parts(t.m.to_dict(), "history")
        return {"match": match, PARTS: finished, "leaving": sorted(t.leaving)}

    def load(self, data: dict[str, Any]) -> GnavspielMatch:
        """Rebuild from `dump`."""
        match = Match.from_dict(join_parts(data["match"], "history", data.get(PARTS)))
        return GnavspielMatch(match, {int(s) for s in data["leaving"]})

    def deciders(self, t: GnavspielMatch) -> list[int]:
        """The one seat holding a decision during a deal or its loan questions: the player to
        act, the offered one, a broke one."""
        return t.m.deciders()

    def choices(self, t: GnavspielMatch, seat: int) -> list[Choice]:
        """The seat's choices, labelled: an offer names the player it goes to."""
        m = t.m
        out = []
        for c in m.choices(seat):
            params: dict[str, Any] = {}
            key = f"gnavspiel.button.{c.action}"
            if c.action == "offer":
                params = {"name": m.seats[int(c.arg or 0)]}
                if m.step == "refused":
                    key = "gnavspiel.button.offer_on"
            out.append(Choice(c.action, c.arg, (key, params), _ROLES[c.action]))  # type: ignore[arg-type]
        # G10, C24: the buttons are public, so Stand is offered to every offered player while
        # the variant is on; offered only to a Q or K holder, it would show everyone what
        # that player holds. The engine refuses it (C24) to one who holds neither.
        answering = any(c.action == "accept" for c in out)
        if (
            answering
            and "stand" in m.settings.variants
            and not any(c.action == "stand" for c in out)
        ):
            out.append(Choice("stand", None, ("gnavspiel.button.stand", {}), _ROLES["stand"]))  # type: ignore[arg-type]
        return out

    def act(self, t: GnavspielMatch, seat: int, action: str, arg: str | None = None) -> Outcome:
        """Apply one choice; the engine's rule errors carry their catalog keys."""
        try:
            events = t.m.act(seat, action, arg)
        except RuleError as exc:
            raise GameRuleError(
                exc.rule, getattr(exc, "key", "error.rule"), getattr(exc, "params", {}), str(exc)
            ) from exc
        return self._collect(t, events, Outcome())

    def start_round(self, t: GnavspielMatch, rng: random.Random) -> Outcome:
        """Shuffle the 14 cards with `rng` and deal (G3)."""
        cards = list(DECK)
        rng.shuffle(cards)
        deal, stock = t.m.deal_from(cards)
        return self._collect(t, t.m.start_deal(deal, stock), Outcome())

    def timeout_choice(self, t: GnavspielMatch, seat: int) -> Choice:
        """A turn passes, an offer is refused, an offerer refused stops, a loan is borrowed;
        a seat leaving the match declines the loan (it goes out)."""
        c = t.m.timeout_choice(seat)
        action = c.action if c is not None else "pass"
        if seat in t.leaving and action == "borrow":
            action = "decline"
        return Choice(action)

    def bot_choice(self, t: GnavspielMatch, seat: int, rng: random.Random) -> Choice:
        """The strategy's choice (public knowledge and its own card)."""
        c = choose(t.m, seat)
        return Choice(c.action, c.arg)

    def bot_thinking(
        self, t: GnavspielMatch, seat: int, rng: random.Random, level: str, seconds: float | None
    ) -> Choice | Callable[[], Choice]:
        """A bot seat's choice at a table's level (issue 22): `normal` and `easy` at once
        (`easy` now and then, `EASY_SLIP`, takes another legal choice: a casual player's
        second-best); `strong` (bot/games/gnavspiel/search.py) as a job holding a snapshot of
        what the seat may know, to run away from the service's loop within `seconds`."""
        legal = t.m.choices(seat)
        if level == "strong" and len(legal) > 1:
            return partial(_thought_choice, search.think(t.m, seat, rng, seconds=seconds))
        pick = self.bot_choice(t, seat, rng)
        if level == "easy" and rng.random() < EASY_SLIP:
            others = [c for c in legal if (c.action, c.arg) != (pick.action, pick.arg)]
            if others:
                c = others[rng.randrange(len(others))]
                return Choice(c.action, c.arg)
        return pick

    def hint(self, t: GnavspielMatch, seat: int, rng: random.Random) -> Hint | None:
        """Issue 33: what `strong` would choose for `seat`, from a snapshot holding only what
        the seat may know (`search.think`, the strong bot's own), and the share of sampled
        worlds in which that choice pays nothing this deal."""
        if not t.m.choices(seat):
            return None
        pick, share, worlds = search.think(t.m, seat, rng).hint()
        for c in self.choices(t, seat):
            if (c.action, c.arg) == (pick.action, pick.arg):
                return Hint(c, share, worlds)
        return Hint(Choice(pick.action, pick.arg), share, worlds)  # pragma: no cover

    def forfeit(self, t: GnavspielMatch, seat: int) -> Outcome:
        """The seat leaves: from now on it acts by the timeout rule and declines a loan."""
        t.leaving.add(seat)
        return Outcome(log=[("gnavspiel.ev.leaves", {"p": t.m.seats[seat]})])

    def winners(self, t: GnavspielMatch) -> list[int]:
        """The winner (G9, C13, C20-C22) once the match is over."""
        return [t.m.result.winner] if t.m.result is not None else []

    def record(self, t: GnavspielMatch, public: bool = False) -> dict[str, Any]:
        """The match record (MATCH_RECORD.md, profile gnavspiel): the finished deals only, so
        the same when `public` (the deal under way is never exported)."""
        return export_record(t.m)

    def _collect(self, t: GnavspielMatch, events: list[Event], out: Outcome) -> Outcome:
        names = t.m.seats
        for e in events:
            if e.audience != EVERYONE:
                if e.kind == "card":
                    key = f"gnavspiel.private.{e.detail}"
                    # Told where it happens: the dealer's draw (G5) before the reveal (G7).
                    out.tell(e.audience, (key, {"card": card_name(e.card)}))
                continue
            if e.kind == "out":  # broke, no loan (G8)
                out.out.append(e.seats[0])
            line = _event_line(e, names)
            if line is not None:
                out.log.append(line)
        m = t.m
        if m.phase == "loan" and any(e.kind == "pay" for e in events):
            # The reveal's payments left someone broke: the chips as they now stand, before
            # the loan question that depends on them (G8, C19; issue 30: cause before effect).
            chips = ", ".join(
                names[s] + f" {m.chips[s]}" + (f" (−{m.debts[s]})" if m.debts[s] else "")
                for s in range(len(names))
            )
            out.log.append(("gnavspiel.ev.chips", {"chips": chips, "pot": m.pot}))
        if m.phase in ("deal", "over") and events and m.history:
            out.round_over = True
            out.round_stats = _round_stats(m)
        return out


class GnavspielView(GameView):
    """How a Gnavspiel match looks: the offered player's Accept / Refuse on the table message,
    each seat's card privately, the reveal and the end's payments, the web page's chips."""

    public_choices = True
    view_label = "gnavspiel.button.card"
    stat_counters = ("matches", "wins", "deals", "chips_paid", "pots", "loans")
    texts_package = "bot.games.gnavspiel.i18n"

    def round_number(self, t: GnavspielMatch) -> int:
        """Deals dealt so far."""
        return t.m.deal_no

    def render_status(self, t: GnavspielMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """Deal, dealer and pot; every seat's chips and debt, marks for turn and dealer; an
        offer waiting for its answer; the deal's last exchange (the service adds the newest
        events only)."""
        m = t.m
        log = m.log
        dealer = log.dealer if log is not None else m.dealer
        lines = [cat.t("gnavspiel.status.title", deal=m.deal_no, dealer=names[dealer], pot=m.pot)]
        deciders = set(m.deciders())
        for seat, name in enumerate(names):
            marks = "▶ " if seat in deciders else ""
            text = cat.t("gnavspiel.status.seat", count=m.chips[seat], mark=marks, name=name)
            if m.debts[seat]:
                text += " · " + cat.t("gnavspiel.status.debt", debt=m.debts[seat])
            if seat == dealer:
                text += " · " + cat.t("gnavspiel.status.dealer")
            if not m.in_match[seat]:
                text += " · " + cat.t("gnavspiel.status.out")
            elif seat in t.leaving:
                text += " · " + cat.t("gnavspiel.status.leaving")
            lines.append(text)
        if m.phase == "play" and m.step == "answer":
            lines.append(cat.t("gnavspiel.status.offer", p=names[m.offerer], q=names[m.target]))
        exchange = self._last_exchange(t, names)
        if exchange:
            lines.append(" ".join(self.render_line(line, cat) for line in exchange))
        reveal = self._reveal(t, names)
        if reveal is not None:
            # The deal is over (G7): its cards stay in sight while a loan is asked (G9) or the
            # next deal waits, however many events came after them.
            lines.append(self.render_line(reveal, cat))
        return lines

    @staticmethod
    def _reveal(t: GnavspielMatch, names: Sequence[str]) -> LogLine | None:
        """The deal's reveal line once its cards are shown (loans may follow, G9), else None."""
        log = t.m.log
        if log is None:
            return None
        shown = next((e for e in reversed(log.events) if e.kind == "reveal"), None)
        return None if shown is None else _event_line(shown, names)

    @staticmethod
    def _last_exchange(t: GnavspielMatch, names: Sequence[str]) -> list[LogLine]:
        """The deal's last exchange, for one line: an offer and its answer (and the offerer
        stopping after a refusal), or the dealer's turn at the stock (G5: every taboo card it
        drew, shown, and its own card taken back); [] before any (or between deals)."""
        log = t.m.log
        if log is None or log.end is not None:
            return []
        events = log.events
        last = next((i for i in reversed(range(len(events))) if events[i].kind in _EXCHANGES), -1)
        if last < 0:
            return []
        first = last
        if events[last].kind in _STOCK:
            while first > 0 and events[first - 1].kind in _STOCK:
                first -= 1
            shown = ("taboo", "take_back")  # a plain draw shows nothing (its card is private)
            run = [e for e in events[first : last + 1] if e.kind in shown] or [events[last]]
        else:
            while first > 0 and events[first].kind != "offer" and events[first - 1].kind in _OFFER:
                first -= 1
            run = events[first : last + 1]
        return [line for e in run if (line := _event_line(e, names)) is not None]

    def render_reveal(self, t: GnavspielMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """The last deal's reveal: every card, who paid, chips, debts and pot; at the end who
        takes the pot and every balance (C23)."""
        m = t.m
        log = m.log
        if log is None or log.end is None:
            return []
        cards, pays, outs = self._told(t, names, cat)
        lines = [cat.t("gnavspiel.reveal.title", deal=len(m.history)), *cards, *pays]
        chips = ", ".join(
            names[s] + f" {log.chips[s]}" + (f" (−{log.debts[s]})" if log.debts[s] else "")
            for s in range(len(names))
        )
        lines.append(cat.t("gnavspiel.reveal.chips", chips=chips, pot=log.pot))
        return lines + outs + self.result_lines(t, names, cat)

    def told_lines(self, t: GnavspielMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """The reveal's cards, payments and who went out: the deal's log told them as they
        happened (G7, G8), before any loan was asked (`GameView.told_lines`)."""
        m = t.m
        if m.log is None or m.log.end is None:
            return []
        cards, pays, outs = self._told(t, names, cat)
        return [*cards, *pays, *outs]

    def _told(
        self, t: GnavspielMatch, names: Sequence[str], cat: Catalog
    ) -> tuple[list[str], list[str], list[str]]:
        """A finished deal's cards, its payments and who went out, as the reveal shows them."""
        log = t.m.log
        assert log is not None
        hands = _hands_text(cat, [(names[s], card_name(c)) for s, c in log.hands.items()])
        cards = [cat.t("gnavspiel.reveal.hands", hands=hands)]
        pays = [
            cat.t(f"gnavspiel.ev.pay_{e.detail}", p=names[e.seats[0]])
            for e in log.events
            if e.kind == "pay"
        ]
        outs = [cat.t("gnavspiel.ev.out", p=names[s]) for s in log.eliminated]
        return cards, pays, outs

    def result_lines(self, t: GnavspielMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """The end (C23): who takes the pot, the debts collected, every balance."""
        r = t.m.result
        if r is None:
            return []
        winner = names[r.winner]
        lines = [cat.t(f"gnavspiel.end.{r.by}", p=winner, pot=r.pot)]
        for s, debt in r.collects:
            lines.append(cat.t("gnavspiel.end.collects", p=winner, q=names[s], debt=debt))
        if r.collects:
            # C23: what the winner takes is the pot and the debts, not its own chips too.
            debts = sum(debt for _, debt in r.collects)
            lines.append(
                cat.t("gnavspiel.end.in_all", p=winner, takes=r.takes, pot=r.pot, debts=debts)
            )
        balances = ", ".join(f"{names[s]} {b}" for s, b in enumerate(r.balance))
        lines.append(cat.t("gnavspiel.end.balances", balances=balances))
        return lines

    def render_line(self, line: LogLine, cat: Catalog) -> str:
        """One log line, its cards named in the table's language."""
        key, params = line
        if "card" in params:
            params = {**params, "card": card_text(cat, params["card"])}
        if isinstance(params.get("hands"), list):  # a reveal's (name, card) pairs
            params = {**params, "hands": _hands_text(cat, params["hands"])}
        return cat.t(key, **params)

    def private_text(self, t: GnavspielMatch, seat: int, cat: Catalog) -> str:
        """The seat's card (or, broke between deals, the loan it is asked about)."""
        m = t.m
        if m.phase not in ("play", "loan") or m.hands[seat] < 0:
            if m.phase == "loan" and seat in m.deciders():
                return cat.t("gnavspiel.piece.loan", chips=m.chips[seat], debt=m.debts[seat])
            return cat.t("gnavspiel.piece.none")
        card = card_text(cat, card_name(m.hands[seat]))
        # Not the seat's choices: they are the table message's buttons (issue 30: said once).
        return cat.t("gnavspiel.piece.hold", card=card, deal=m.deal_no)

    def web_public(self, t: GnavspielMatch, names: Sequence[str], cat: Catalog) -> dict[str, Any]:
        """The web page's shapes every viewer sees (docs/web.md): the pot, every seat's chips
        and debt (bot/games/gnavspiel/web.py)."""
        from bot.games.gnavspiel import web

        return web.web_public(t.m, names, cat)

    def web_own(
        self, t: GnavspielMatch, seat: int, names: Sequence[str], cat: Catalog
    ) -> dict[str, Any]:
        """`seat`'s own card, for `seat` only (G4)."""
        from bot.games.gnavspiel import web

        return web.web_own(t.m, seat, names, cat.t(self.view_label), partial(card_text, cat))

    def web_replay(self, record: dict[str, Any], cat: Catalog) -> list[dict[str, Any]]:
        """A finished match's record as the replay page's steps (rounds of actions, as Gnav's:
        bot/games/common/web.py), every card shown from the deal on."""
        from bot.games.common.web import replay_steps
        from bot.games.gnavspiel import web
        from bot.games.gnavspiel.engine.record import replay_record

        text = partial(card_text, cat)
        return replay_steps(
            record,
            cat,
            self,
            replay_record,
            GnavspielMatch,
            hands=lambda t: web.hands(t.m, text),
            opening=_opening_lines,
        )

    def rules_text(self, cat: Catalog, settings: Any) -> str:
        """The rules summary, with the table's chips, deals and variants."""
        s = settings if isinstance(settings, GnavspielSettings) else GnavspielSettings()
        text = cat.t("gnavspiel.rules", chips=s.chips)
        if s.deals:
            text += "\n" + cat.t("gnavspiel.rules.deals", deals=s.deals)
        for v in sorted(s.variants):
            text += "\n" + cat.t(f"gnavspiel.rules.{v}")
        return text

    def lobby_title(self, settings: Any, cat: Catalog) -> str:
        """The lobby's first line."""
        s = settings if isinstance(settings, GnavspielSettings) else GnavspielSettings()
        return cat.t(
            "gnavspiel.lobby.title",
            chips=s.chips,
            deals=s.deals or "∞",
            variants=",".join(sorted(s.variants)) or "—",
        )

    def top_key(self, counters: Mapping[str, int]) -> tuple[Any, ...]:
        """Most wins, then most pots taken, then most matches."""
        return (-counters.get("wins", 0), -counters.get("pots", 0), -counters.get("matches", 0))


def card_text(cat: Catalog, card: str) -> str:
    """A card (its record spelling, G1) as the table's language names it: `gnavspiel.card.Q`
    is "Dame" in German; a number is written as it is."""
    key = f"gnavspiel.card.{card}"
    return cat.t(key) if cat.has(key) else card


def _hands_text(cat: Catalog, hands: Sequence[Sequence[str]]) -> str:
    """A reveal's cards: "Ada Dame, Bo 7"."""
    return ", ".join(f"{name} {card_text(cat, card)}" for name, card in hands)


#: The events that end an exchange, or the dealer's turn at the stock (G5): the state shows
#: the deal's last of them (`GnavspielView._last_exchange`).
_EXCHANGES = ("accept", "refuse", "stop", "stand", "draw", "taboo", "take_back")
#: The dealer's turn at the stock (G5): draws, each maybe taboo, maybe its own card back.
_STOCK = ("draw", "taboo", "take_back")
#: An offer, its answer and the offerer stopping after a refusal (G4).
_OFFER = ("offer", "accept", "refuse", "stand", "stop")


def _opening_lines(t: GnavspielMatch) -> list[LogLine]:
    """The deal's public lines so far (for a replay cut at the deal: the ante, a knock, G2),
    as the table logged them."""
    log = t.m.log
    if log is None:
        return []
    return [line for e in log.events if (line := _event_line(e, t.m.seats)) is not None]


def _event_line(e: Event, names: Sequence[str]) -> LogLine | None:
    s = e.seats
    p = names[s[0]] if s else ""
    if e.kind == "offer":
        return ("gnavspiel.ev.offer", {"p": p, "q": names[s[1]]})
    if e.kind in ("taboo", "stand"):
        return (f"gnavspiel.ev.{e.kind}", {"p": p, "card": card_name(e.card)})
    if e.kind == "reveal":
        # (name, card) pairs, named in the table's language when shown (`render_line`).
        return ("gnavspiel.ev.reveal", {"hands": [[names[x], card_name(c)] for x, c in e.data]})
    if e.kind == "pay":
        return (f"gnavspiel.ev.pay_{e.detail}", {"p": p})
    if e.kind in (
        "ante",
        "knock",
        "pass",
        "accept",
        "refuse",
        "stop",
        "draw",
        "take_back",
        "borrow",
        "decline",
        "out",
        "win",
    ):
        return (f"gnavspiel.ev.{e.kind}", {"p": p})
    return None


def _round_stats(m: Match) -> dict[int, dict[str, int]]:
    """Per seat counters of the deal that ended: deals, chips paid, loans, the pot taken."""
    log = m.history[-1]
    stats: dict[int, dict[str, int]] = {
        s: {"deals": 1, "chips_paid": 0, "pots": 0, "loans": 0} for s in log.hands
    }
    for e in log.events:
        if e.kind == "pay":
            stats.setdefault(e.seats[0], {"deals": 1, "chips_paid": 0, "pots": 0, "loans": 0})
            stats[e.seats[0]]["chips_paid"] += 1
        elif e.kind == "borrow":
            stats[e.seats[0]]["loans"] += 1
    if m.result is not None:
        stats.setdefault(m.result.winner, {"deals": 1, "chips_paid": 0, "pots": 0, "loans": 0})
        stats[m.result.winner]["pots"] += 1
    return stats


def _thought_choice(thought: search.Thought) -> Choice:
    """Run a snapshot decision (in any process) and word it as the service's choice."""
    c = thought.run()
    return Choice(c.action, c.arg)
