"""The Gnavspiel match: chips, pot, deals, offers, the dealer's draw, reveal, loans (RULES.md 3).

A `Match` is pure and deterministic. Chance enters only through `start_deal`, which is handed
the card of every player and the order of the stock (the service shuffles with an injected
`random.Random`; a match record fixes them). Every call returns the events it caused, each with
its audience (everyone, or one seat).

Seats are indexes 0..n-1 in clockwise order; a seat's left neighbour is the next seat clockwise
that is still in the match. One decision is open at a time: `deciders()` names the seat that
holds it (the offered player while the offerer waits; the broke players one by one, C19), and
`choices(seat)` lists what that seat may do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.games.gnavspiel.engine.cards import (
    CARD_NAMES,
    DECK,
    JOKER,
    STAND_CARDS,
    taboo_cards,
)
from bot.games.gnavspiel.engine.errors import (
    IllegalChoice,
    InvalidDeal,
    InvalidSettings,
    MatchOver,
    NotYourTurn,
    RoundOver,
    VariantNotInPlay,
)
from bot.games.gnavspiel.engine.events import EVERYONE, Event, event_from_list, event_to_list

MIN_PLAYERS, MAX_PLAYERS = 2, 6  # G1
MIN_CHIPS = 2  # C14
DEFAULT_CHIPS = 5  # C14
#: Table-setting limits offered to players (the rules themselves only bound chips below).
CHIPS_RANGE = range(2, 21)
DEALS_RANGE = range(0, 101)  # 0: until one player is left (C20)
VARIANTS = ("stand", "jack_taboo")  # G10, C24
#: Every verb a seat may choose (MATCH_RECORD.md "Actions").
ACTIONS = ("pass", "offer", "accept", "refuse", "stand", "stop", "draw", "borrow", "decline")

#: No card in that seat's hand (out of the match, or no deal under way).
NO_CARD = -1
NOBODY = -1

Phase = Literal["deal", "play", "loan", "over"]
#: Where a deal under way stands: a seat's turn, an open offer, an offerer refused by a
#: non-dealer (G4), or the dealer refused by the first player (C11).
Step = Literal["turn", "answer", "refused", "dealer_refused"]
RoundEnd = Literal["reveal", "stand"]
WonBy = Literal["deals", "one_left", "all_out"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal choice: `action` is a record verb; `arg` is the offered seat's index (as a
    decimal string) for `offer`, else None."""

    action: str
    arg: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """Table settings: starting chips (C14), agreed deals (0 = until one is left, C20), and the
    G10 variants in play (C24)."""

    chips: int = DEFAULT_CHIPS
    deals: int = 0
    variants: frozenset[str] = frozenset()

    def check_table_limits(self) -> None:
        """The limits a table offers its players: chips 2..20, deals 0..100 (InvalidSettings)."""
        if self.chips not in CHIPS_RANGE:
            raise InvalidSettings(
                "C14",
                "gnavspiel.error.chips_range",
                {"chips": self.chips},
                f"chips must be 2 to 20, not {self.chips} (G2, C14)",
            )
        if self.deals not in DEALS_RANGE:
            raise InvalidSettings(
                "C20",
                "gnavspiel.error.deals_range",
                {"deals": self.deals},
                f"deals must be 0 (until one is left) to 100, not {self.deals} (C20)",
            )


@dataclass(frozen=True, slots=True)
class Result:
    """The end of a match (G9, C13, C21-C23): the winner, how, and every seat's balance."""

    winner: int
    by: WonBy
    pot: int
    collects: tuple[tuple[int, int], ...]  # (seat, debt) of every other seat with a debt
    takes: int
    balance: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "winner": self.winner,
            "by": self.by,
            "pot": self.pot,
            "collects": [list(p) for p in self.collects],
            "takes": self.takes,
            "balance": list(self.balance),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        """The result `to_dict` wrote."""
        return cls(
            int(data["winner"]),
            data["by"],
            int(data["pot"]),
            tuple((int(s), int(d)) for s, d in data["collects"]),
            int(data["takes"]),
            tuple(int(b) for b in data["balance"]),
        )


@dataclass(slots=True)
class RoundLog:
    """Inputs and outcome of one deal: what a match record and its outcome hold."""

    dealer: int
    deal: list[int]  # card per seat, NO_CARD for seats out of the match
    stock: tuple[int, ...]  # top first
    actions: list[tuple[int, str]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # public events, in order
    end: RoundEnd | None = None  # set when the round is over (after the loans)
    hands: dict[int, int] = field(default_factory=dict)  # every hand at the reveal
    chips: list[int] = field(default_factory=list)  # after the round
    debts: list[int] = field(default_factory=list)
    pot: int = 0
    eliminated: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "dealer": self.dealer,
            "deal": list(self.deal),
            "stock": list(self.stock),
            "actions": [[s, a] for s, a in self.actions],
            "events": [event_to_list(e) for e in self.events],
            "end": self.end,
            "hands": [[s, c] for s, c in self.hands.items()],
            "chips": list(self.chips),
            "debts": list(self.debts),
            "pot": self.pot,
            "eliminated": list(self.eliminated),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundLog:
        """The log `to_dict` wrote."""
        return cls(
            dealer=int(data["dealer"]),
            deal=[int(c) for c in data["deal"]],
            stock=tuple(int(c) for c in data["stock"]),
            actions=[(int(s), str(a)) for s, a in data["actions"]],
            events=[event_from_list(e) for e in data["events"]],
            end=data["end"],
            hands={int(s): int(c) for s, c in data["hands"]},
            chips=[int(c) for c in data["chips"]],
            debts=[int(d) for d in data["debts"]],
            pot=int(data["pot"]),
            eliminated=[int(s) for s in data["eliminated"]],
        )


def _quoted_list(words: Sequence[str]) -> str:
    quoted = [f'"{w}"' for w in words]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


class Match:
    """A whole Gnavspiel match between named seats.

    Typical use: `match.start_deal(*match.deal_from(shuffled_cards))`, then, while
    `match.deciders()` names a seat, `match.act(seat, choice.action)` with one of
    `match.choices(seat)`; when `match.phase` is "deal" again the next deal is due, and at
    "over" `match.result` holds the winner and balances.
    """

    def __init__(
        self,
        seats: Sequence[str],
        *,
        chips: int = DEFAULT_CHIPS,
        deals: int = 0,
        variants: Iterable[str] = (),
        dealer: int = 0,
    ) -> None:
        names = [str(s) for s in seats]
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise InvalidSettings(
                "G1",
                "gnavspiel.error.player_count",
                {"count": len(names)},
                f"gnavspiel needs 2 to 6 players, not {len(names)} (G1)",
            )
        if len(set(names)) != len(names):
            raise InvalidSettings(
                "G1", "gnavspiel.error.seat_names", {}, "every seat needs a different name"
            )
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < MIN_CHIPS:
            raise InvalidSettings(
                "C14",
                "gnavspiel.error.chips",
                {"chips": chips},
                "chips: every player starts with the same whole number of chips, at least 2"
                " (G2, C14)",
            )
        if isinstance(deals, bool) or not isinstance(deals, int) or deals < 0:
            raise InvalidSettings(
                "C20",
                "gnavspiel.error.deals",
                {"deals": deals},
                "deals: a whole number of deals, or 0 until one player is left (C20)",
            )
        chosen = list(variants)
        for v in chosen:
            if v not in VARIANTS or chosen.count(v) > 1:
                raise InvalidSettings(
                    "C24",
                    "gnavspiel.error.variant",
                    {"variant": v},
                    f'variants: "{v}" is not a gnavspiel variant or is listed twice (G10, C24)',
                )
        if not 0 <= dealer < len(names):
            raise InvalidSettings(
                "G3", "gnavspiel.error.dealer", {"dealer": dealer}, "the dealer is not seated"
            )
        self.seats: list[str] = names
        self.n = n = len(names)
        self.settings = Settings(chips, deals, frozenset(chosen))
        self._taboo = taboo_cards("jack_taboo" in self.settings.variants)
        # G2: everyone's chips; the ante goes in when the first deal starts.
        self.chips: list[int] = [chips] * n
        self.debts: list[int] = [0] * n
        self.pot = 0
        self.in_match: list[bool] = [True] * n
        self.dealer = dealer
        self.first_dealer = dealer
        self.deal_no = 0  # deals started
        self.phase: Phase = "deal"
        self.result: Result | None = None
        self.history: list[RoundLog] = []
        self._clear_round()

    # ----------------------------------------------------------------- round state
    def _clear_round(self) -> None:
        self.step: Step = "turn"
        self.hands: list[int] = [NO_CARD] * self.n
        self.stock: list[int] = []
        self.order: list[int] = []  # turn order: from the dealer's left, the dealer last (G4)
        self.pos = 0
        self.offerer = NOBODY
        self.target = NOBODY  # the offered seat (step "answer") or the refuser ("refused")
        self.loan_queue: list[int] = []  # broke seats still to be asked, seat order (C19)
        self.going_out: list[int] = []  # seats leaving after this deal (G8, C12, C19)
        self.end: RoundEnd | None = None  # how the play ended, until the round is over

    @property
    def log(self) -> RoundLog | None:
        """The log of the deal under way (or just finished), None before the first deal."""
        return self.history[-1] if self.history else None

    @property
    def players_left(self) -> list[int]:
        """Seats still in the match (G8)."""
        return [s for s in range(self.n) if self.in_match[s]]

    @property
    def acting_dealer(self) -> int | None:
        """The dealer of the deal under way (it acts last, G5)."""
        return self.order[-1] if self.order and self.phase == "play" else None

    def next_in(self, seat: int) -> int:
        """The next seat clockwise after `seat` that is still in the match (G4, C9)."""
        for k in range(1, self.n + 1):
            s = (seat + k) % self.n
            if self.in_match[s]:
                return s
        return seat

    def deal_seats(self) -> list[int]:
        """Seats that get a card in the next deal, in dealing order from the dealer's left (G3)."""
        return [
            (self.dealer + k) % self.n
            for k in range(1, self.n + 1)
            if self.in_match[(self.dealer + k) % self.n]
        ]

    def deal_from(self, cards: Sequence[int]) -> tuple[list[int], list[int]]:
        """Deal shuffled cards (all 14, top first): one to each player still in from the
        dealer's left; the rest is the stock, top first (G3). Returns (card per seat, stock)."""
        deal = [NO_CARD] * self.n
        seats = self.deal_seats()
        for i, s in enumerate(seats):
            deal[s] = cards[i]
        return deal, list(cards[len(seats) :])

    # ----------------------------------------------------------------- decisions
    def deciders(self) -> list[int]:
        """The seats that hold a decision now (at most one: decisions are made in order)."""
        seat = self._decider()
        return [] if seat is None else [seat]

    def _decider(self) -> int | None:
        if self.phase == "play":
            if self.step == "answer":
                return self.target
            if self.step == "refused":
                return self.offerer
            return self.order[self.pos]
        if self.phase == "loan":
            return self.loan_queue[0]
        return None

    def choices(self, seat: int) -> list[Choice]:
        """The legal choices of `seat` now ([] when it holds no decision)."""
        if seat != self._decider():
            return []
        if self.phase == "loan":  # G8, C19
            return [Choice("borrow"), Choice("decline")]
        step = self.step
        if step == "turn":
            dealer = self.order[-1]
            offer = Choice("offer", str(self.next_in(seat)))
            if seat == dealer:  # G5, C16: pass, offer the first player, or draw
                return [Choice("pass"), offer, Choice("draw")]
            return [Choice("pass"), offer]  # G4
        if step == "answer":
            result = [Choice("accept"), Choice("refuse")]
            # G10, C24: "stand before the Queen/King" answers an offer.
            if "stand" in self.settings.variants and self.hands[seat] in STAND_CARDS:
                result.append(Choice("stand"))
            return result
        if step == "refused":  # G4: offer on beyond the refuser, or stop
            return [Choice("offer", str(self.next_in(self.target))), Choice("stop")]
        return [Choice("draw"), Choice("stop")]  # dealer_refused, C11

    def timeout_choice(self, seat: int) -> Choice | None:
        """What a timed-out decision counts as: a turn passes (an offerer refused stops), an
        offer is refused, a loan question borrows. None when `seat` holds no decision."""
        if seat != self._decider():
            return None
        if self.phase == "loan":
            return Choice("borrow")
        return Choice(
            {"turn": "pass", "answer": "refuse", "refused": "stop", "dealer_refused": "stop"}[
                self.step
            ]
        )

    # ----------------------------------------------------------------- the deal
    def start_deal(
        self, deal: Mapping[int, int] | Sequence[int], stock: Sequence[int]
    ) -> list[Event]:
        """Start the next deal with the given cards: `deal` maps each seat still in to its card
        (or lists a card per seat, NO_CARD for seats out), `stock` is every other card, top
        first (G3). Returns the deal's events: the ante before the first deal (G2), the Joker's
        knock (G6) and each seat's private card."""
        if self.phase == "over":
            raise self._match_over()
        if self.phase != "deal":
            raise RoundOver(
                "G3",
                "gnavspiel.error.deal_under_way",
                {},
                "a deal is under way: it must be played out first",
            )
        cards = self._check_deal(deal, stock)
        self._clear_round()
        self.hands = cards
        self.stock = list(stock)
        self.deal_no += 1
        n = self.n
        log = RoundLog(self.dealer, list(cards), tuple(stock))
        self.history.append(log)
        events: list[Event] = []
        if self.deal_no == 1:  # G2: everyone puts 1 chip into the pot before the first deal
            for s in range(n):
                self.chips[s] -= 1
                self.pot += 1
            events.append(Event("ante"))
        for s in range(n):
            if cards[s] == JOKER:  # G6: the player dealt the Joker knocks
                events.append(Event("knock", (s,)))
        for s in range(n):
            if cards[s] != NO_CARD:
                events.append(Event("card", (s,), cards[s], s, "deal"))
        self.order = [s for s in self.deal_seats()]  # G4: from the dealer's left, dealer last
        self.pos = 0
        self.phase = "play"
        self._log(events)
        return events

    def _check_deal(
        self, deal: Mapping[int, int] | Sequence[int], stock: Sequence[int]
    ) -> list[int]:
        n = self.n
        cards = [NO_CARD] * n
        if isinstance(deal, Mapping):
            for s, c in deal.items():
                if not (isinstance(s, int) and 0 <= s < n):
                    raise self._bad_deal_seats()
                cards[s] = c
        else:
            if len(deal) != n:
                raise self._bad_deal_seats()
            cards = list(deal)
        if any((c != NO_CARD) != self.in_match[s] for s, c in enumerate(cards)):
            raise self._bad_deal_seats()
        dealt = [c for c in cards if c != NO_CARD]
        everything = [*dealt, *stock]
        for c in everything:
            if isinstance(c, bool) or not isinstance(c, int) or c not in DECK:
                raise InvalidDeal(
                    "G1",
                    "gnavspiel.error.not_a_card",
                    {"card": repr(c)},
                    f"card {c!r} is not a gnavspiel card",
                )
        seen: set[int] = set()
        for c in everything:
            if c in seen:
                raise InvalidDeal(
                    "G1",
                    "gnavspiel.error.card_twice",
                    {"card": CARD_NAMES[c]},
                    f'card "{CARD_NAMES[c]}" appears twice (the deck has one of each, G1)',
                )
            seen.add(c)
        for c in DECK:
            if c not in seen:
                raise InvalidDeal(
                    "G3",
                    "gnavspiel.error.card_missing",
                    {"card": CARD_NAMES[c]},
                    f'card "{CARD_NAMES[c]}" is missing (the stock holds every card not dealt)',
                )
        return cards

    def _bad_deal_seats(self) -> InvalidDeal:
        names = ", ".join(self.seats[s] for s in self.players_left)
        return InvalidDeal(
            "G3",
            "gnavspiel.error.deal_seats",
            {"players": names},
            f"the deal must give one card to each player still in: {names}",
        )

    # ----------------------------------------------------------------- acting
    def act(self, seat: int, action: str, arg: str | None = None) -> list[Event]:
        """`seat` makes one of its `choices`; returns the events it caused (RuleError if not
        allowed: MatchOver, RoundOver, IllegalChoice, NotYourTurn, VariantNotInPlay)."""
        if self.phase == "over":
            raise self._match_over()
        if self.phase == "deal":
            raise RoundOver("G3", "gnavspiel.error.round_over", {}, "the round is already over")
        if action not in ACTIONS:
            raise IllegalChoice(
                "G4",
                "gnavspiel.error.unknown_action",
                {"action": action},
                f'"{action}" is not a gnavspiel action (known: {", ".join(ACTIONS)})',
            )
        decider = self._decider()
        assert decider is not None
        if seat != decider:
            raise self._not_your_turn(decider, seat)
        choices = self.choices(seat)
        choice = next((c for c in choices if c.action == action), None)
        if choice is None:
            raise self._illegal(seat, action, [c.action for c in choices])
        if arg is not None and choice.arg is None:
            raise IllegalChoice(
                "G4",
                "gnavspiel.error.no_argument",
                {"action": action, "arg": arg},
                f'"{action}" takes no argument',
            )
        if arg is not None and arg != choice.arg:
            raise IllegalChoice(
                "C5",
                "gnavspiel.error.offer_target",
                {"player": self.seats[seat], "target": arg},
                f"{self.seats[seat]} may offer only to {self._name(choice.arg)} now (G4, C5, C16)",
            )
        log = self.history[-1]
        log.actions.append((seat, action))
        events: list[Event] = []
        if self.phase == "loan":
            self._loan_answer(seat, action, events)
        elif action == "pass":
            events.append(Event("pass", (seat,)))
            self._turn_done(events)
        elif action == "offer":
            target = int(choice.arg or 0)
            events.append(Event("offer", (seat, target)))
            self.offerer, self.target, self.step = seat, target, "answer"
        elif action == "accept":
            self._accept(seat, events)
        elif action == "refuse":
            self._refuse(seat, events)
        elif action == "stand":
            # G10, C24: the call shows the caller's card; straight to the reveal.
            events.append(Event("stand", (seat,), self.hands[seat]))
            self._reveal(events, "stand")
        elif action == "stop":
            events.append(Event("stop", (seat,)))
            self._turn_done(events)
        elif action == "draw":
            self._draw(seat, events)
        self._log(events)
        return events

    def _log(self, events: list[Event]) -> None:
        log = self.history[-1]
        log.events.extend(e for e in events if e.audience == EVERYONE)

    def _accept(self, seat: int, events: list[Event]) -> None:
        # G4: the two cards are exchanged unseen; the offerer's turn ends.
        x = self.offerer
        hands = self.hands
        hands[x], hands[seat] = hands[seat], hands[x]
        events.append(Event("accept", (seat,)))
        events.append(Event("card", (x,), hands[x], x, "accept"))
        events.append(Event("card", (seat,), hands[seat], seat, "accept"))
        self._turn_done(events)

    def _refuse(self, seat: int, events: list[Event]) -> None:
        # G4: a refusal reveals nothing.
        events.append(Event("refuse", (seat,)))
        dealer = self.order[-1]
        if self.offerer == dealer:  # C10, C11: the dealer may still draw, or stop
            self.step = "dealer_refused"
            self.target = seat
        elif seat == dealer:  # C5: offers never pass the dealer; the offerer keeps its card
            self._turn_done(events)
        else:
            self.step = "refused"
            self.target = seat

    def _draw(self, seat: int, events: list[Event]) -> None:
        # G5, C17: own card under the stock, take the top; a taboo card is shown, goes under,
        # and the next is taken; a second taboo card: shown, under, and the own card comes back.
        own = self.hands[seat]
        stock = self.stock
        events.append(Event("draw", (seat,)))
        stock.append(own)
        card = stock.pop(0)
        detail = "draw"
        if card in self._taboo:
            events.append(Event("taboo", (seat,), card))
            stock.append(card)
            card = stock.pop(0)
            if card in self._taboo:
                events.append(Event("taboo", (seat,), card))
                stock.append(card)
                stock.remove(own)
                card = own
                detail = "take_back"
                events.append(Event("take_back", (seat,)))
        self.hands[seat] = card
        events.append(Event("card", (seat,), card, seat, detail))
        self._turn_done(events)

    def _turn_done(self, events: list[Event]) -> None:
        self.step = "turn"
        self.offerer = self.target = NOBODY
        self.pos += 1
        if self.pos >= len(self.order):  # the dealer acted last (G5)
            self._reveal(events, "reveal")

    # ----------------------------------------------------------------- reveal and loans
    def _reveal(self, events: list[Event], end: RoundEnd) -> None:
        log = self.history[-1]
        dealt = [s for s in range(self.n) if self.hands[s] != NO_CARD]
        log.hands = {s: self.hands[s] for s in dealt}
        events.append(Event("reveal", data=tuple((s, self.hands[s]) for s in dealt)))
        self.end = end
        self.step = "turn"
        self.offerer = self.target = NOBODY
        for s, why in self._payers(dealt):
            self.chips[s] -= 1
            self.pot += 1
            events.append(Event("pay", (s,), detail=why))
        if self.settings.deals and self.deal_no >= self.settings.deals:
            # C20: the agreed last deal: nobody borrows or goes out; the highest card wins (C21).
            self._finish_round(events, winner_by="deals")
            return
        # C19: broke players who borrowed twice (or face an empty pot, C12) are out; the others
        # are asked in seat order.
        broke = [s for s in range(self.n) if self.in_match[s] and self.chips[s] <= 0]
        self.going_out = [s for s in broke if self.debts[s] >= 2 or self.pot <= 0]
        self.loan_queue = [s for s in broke if s not in self.going_out]
        self._next_loan(events)

    def _payers(self, dealt: list[int]) -> list[tuple[int, str]]:
        """Who pays at the reveal, in seat order (G7)."""
        hands = self.hands
        joker = next((s for s in dealt if hands[s] == JOKER), None)
        if joker is None:
            return [(min(dealt, key=lambda s: hands[s]), "lowest")]
        others = [s for s in dealt if s != joker]
        lowest = min(others, key=lambda s: hands[s])
        return sorted([(joker, "joker"), (lowest, "lowest")])

    def _still_in(self) -> int:
        return sum(1 for s in range(self.n) if self.in_match[s] and s not in self.going_out)

    def _next_loan(self, events: list[Event]) -> None:
        queue = self.loan_queue
        while queue:
            if self._still_in() < 2:  # C19: the match is decided; nobody more is asked
                queue.clear()
                break
            if self.pot <= 0:  # C12: nothing to borrow
                self.going_out.append(queue.pop(0))
                continue
            self.phase = "loan"
            return
        self._finish_round(events)

    def _loan_answer(self, seat: int, action: str, events: list[Event]) -> None:
        self.loan_queue.pop(0)
        if action == "borrow":  # G8: 1 chip from the pot, as a debt
            self.chips[seat] += 1
            self.pot -= 1
            self.debts[seat] += 1
            events.append(Event("borrow", (seat,)))
        else:
            events.append(Event("decline", (seat,)))
            self.going_out.append(seat)
        self._next_loan(events)

    def _finish_round(self, events: list[Event], winner_by: WonBy | None = None) -> None:
        log = self.history[-1]
        out = sorted(self.going_out)
        for s in out:
            self.in_match[s] = False
            self.chips[s] = 0
            events.append(Event("out", (s,)))
        log.eliminated = out
        log.end = self.end
        log.chips = list(self.chips)
        log.debts = list(self.debts)
        log.pot = self.pot
        left = self.players_left
        winner: int | None = None
        if winner_by == "deals":
            winner = self._highest(log)
        elif len(left) == 1:  # C13
            winner_by, winner = "one_left", left[0]
        elif not left:  # C22: the last players went out together: the highest card wins
            winner_by, winner = "all_out", self._highest(log)
        self.going_out = []
        self.loan_queue = []
        if winner is not None and winner_by is not None:
            events.append(Event("win", (winner,)))
            self._settle(winner, winner_by)
            self.phase = "over"
            return
        # C9: the deal passes to the next player on the dealer's left who is still in.
        self.dealer = self.next_in(self.dealer)
        self.phase = "deal"
        self.hands = [NO_CARD] * self.n
        self.stock = []
        self.order = []
        self.pos = 0

    @staticmethod
    def _highest(log: RoundLog) -> int:
        """The holder of the highest card in a hand at the reveal (C21; G1 makes it unique)."""
        return max(log.hands, key=lambda s: log.hands[s])

    def _settle(self, winner: int, by: WonBy) -> None:
        # C23: the winner takes the pot and every other player's debt; its own is cancelled.
        collects = tuple((s, d) for s, d in enumerate(self.debts) if s != winner and d > 0)
        takes = self.pot + sum(d for _, d in collects)
        balance = tuple(
            self.chips[s] + takes if s == winner else self.chips[s] - self.debts[s]
            for s in range(self.n)
        )
        self.result = Result(winner, by, self.pot, collects, takes, balance)

    # ----------------------------------------------------------------- error wording
    def _name(self, seat: object) -> str:
        try:
            return self.seats[int(seat)]  # type: ignore[call-overload]
        except (TypeError, ValueError, IndexError):
            return str(seat)

    def _match_over(self) -> MatchOver:
        return MatchOver("G9", "gnavspiel.error.match_over", {}, "the match is already over")

    def _not_your_turn(self, decider: int, seat: int) -> NotYourTurn:
        who, other = self.seats[decider], self._name(seat)
        params = {"player": who, "other": other}
        if self.phase == "loan":
            return NotYourTurn(
                "C19",
                "gnavspiel.error.not_your_loan",
                params,
                f'it is {who}\'s turn to choose "borrow" or "decline", not {other}\'s',
            )
        if self.step == "answer":
            offerer = self.seats[self.offerer]
            return NotYourTurn(
                "G4",
                "gnavspiel.error.not_your_answer",
                {**params, "offerer": offerer},
                f"it is {who}'s turn to answer {offerer}'s offer, not {other}'s",
            )
        rule = "G5" if decider == self.order[-1] else "G4"
        return NotYourTurn(
            rule, "gnavspiel.error.not_your_turn", params, f"it is {who}'s turn, not {other}'s"
        )

    def _illegal(self, seat: int, action: str, allowed: list[str]) -> IllegalChoice:
        who = self.seats[seat]
        params: dict[str, Any] = {"player": who, "action": action, "allowed": allowed}
        may = _quoted_list(allowed)
        if action == "stand" and "stand" not in self.settings.variants:
            return VariantNotInPlay(
                "G10",
                "gnavspiel.error.variant_not_in_play",
                params,
                '"stand" is a table variant that is not in play here (G10)',
            )
        if self.phase == "loan":
            return IllegalChoice(
                "C19",
                "gnavspiel.error.loan_choice",
                params,
                f'{who} is to choose {may}, not "{action}" (G8, C19)',
            )
        step = self.step
        if step == "answer":
            offerer = self.seats[self.offerer]
            if action == "stand":
                return IllegalChoice(
                    "C24",
                    "gnavspiel.error.stand_needs_queen_or_king",
                    params,
                    f'{who} holds no Q or K: it may not "stand" (G10, C24)',
                )
            return IllegalChoice(
                "G4",
                "gnavspiel.error.answer_choice",
                {**params, "offerer": offerer},
                f'{who} is to answer {offerer}\'s offer: it may {may}, not "{action}" (G4)',
            )
        if step == "dealer_refused":
            refuser = self.seats[self.target]
            return IllegalChoice(
                "C11",
                "gnavspiel.error.dealer_refused_choice",
                {**params, "refuser": refuser},
                f'{who} was refused by {refuser}: it may {may}, not "{action}" (C11, C16)',
            )
        if step == "refused":
            refuser = self.seats[self.target]
            rule = "C5" if action == "pass" else "G4"
            return IllegalChoice(
                "G4",
                "gnavspiel.error.refused_choice",
                {**params, "refuser": refuser},
                f'{who} was refused by {refuser}: it may {may}, not "{action}" ({rule})',
            )
        if action == "draw":
            return IllegalChoice(
                "G5",
                "gnavspiel.error.only_dealer_draws",
                params,
                "only the dealer draws from the stock (G5)",
            )
        if action in ("borrow", "decline"):
            return IllegalChoice(
                "C19",
                "gnavspiel.error.no_loan_asked",
                params,
                f'no loan is asked now: {who} may {may}, not "{action}" (G8, C19)',
            )
        if action in ("accept", "refuse", "stand"):
            return IllegalChoice(
                "G4",
                "gnavspiel.error.no_offer_open",
                params,
                f'no offer is open to {who}: it may {may}, not "{action}" (G4)',
            )
        return IllegalChoice(
            "G4",
            "gnavspiel.error.turn_choice",
            params,
            f'it is {who}\'s turn: it may {may}, not "{action}" (G4, G5)',
        )

    # ----------------------------------------------------------------- persistence
    def to_dict(self) -> dict[str, Any]:
        """Everything needed to restore the match exactly (JSON-safe)."""
        return {
            "game": "gnavspiel",
            "seats": list(self.seats),
            "chips_start": self.settings.chips,
            "deals": self.settings.deals,
            "variants": sorted(self.settings.variants),
            "chips": list(self.chips),
            "debts": list(self.debts),
            "pot": self.pot,
            "in_match": list(self.in_match),
            "dealer": self.dealer,
            "first_dealer": self.first_dealer,
            "deal_no": self.deal_no,
            "phase": self.phase,
            "step": self.step,
            "hands": list(self.hands),
            "stock": list(self.stock),
            "order": list(self.order),
            "pos": self.pos,
            "offerer": self.offerer,
            "target": self.target,
            "loan_queue": list(self.loan_queue),
            "going_out": list(self.going_out),
            "end": self.end,
            "result": None if self.result is None else self.result.to_dict(),
            "history": [log.to_dict() for log in self.history],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        """The match `to_dict` saved."""
        m = cls(
            data["seats"],
            chips=int(data["chips_start"]),
            deals=int(data["deals"]),
            variants=data["variants"],
            dealer=int(data["first_dealer"]),
        )
        m.chips = [int(c) for c in data["chips"]]
        m.debts = [int(d) for d in data["debts"]]
        m.pot = int(data["pot"])
        m.in_match = [bool(b) for b in data["in_match"]]
        m.dealer = int(data["dealer"])
        m.deal_no = int(data["deal_no"])
        m.phase = data["phase"]
        m.step = data["step"]
        m.hands = [int(c) for c in data["hands"]]
        m.stock = [int(c) for c in data["stock"]]
        m.order = [int(s) for s in data["order"]]
        m.pos = int(data["pos"])
        m.offerer = int(data["offerer"])
        m.target = int(data["target"])
        m.loan_queue = [int(s) for s in data["loan_queue"]]
        m.going_out = [int(s) for s in data["going_out"]]
        m.end = data["end"]
        m.result = None if data["result"] is None else Result.from_dict(data["result"])
        m.history = [RoundLog.from_dict(h) for h in data["history"]]
        return m

    # ----------------------------------------------------------------- accounting
    def cards_accounted(self) -> bool:
        """During a deal, hands and stock hold each of the 14 cards exactly once (G1, G3)."""
        if self.phase not in ("play", "loan"):
            return True
        held = sorted([c for c in self.hands if c != NO_CARD] + self.stock)
        return held == list(DECK)

    def chips_accounted(self) -> bool:
        """Chips in hands plus the pot equal what the table started with (G2, G8)."""
        return sum(self.chips) + self.pot == self.settings.chips * self.n
