"""The Karnaval match: draw, quarters and deals, bids, tricks, jokers, Karnavals, scoring.

Rules: ../shared/KARNAVAL.md (ids K1-K20, conventions KC1-KC12). A `Karnaval` is pure and
deterministic: chance comes from outside (the draw for the first player is handed to the
constructor, every deal's hands and stock to `start_deal`). Every state change returns the
events it caused, each with its audience (`events.py`).

Seats are indexes 0..n-1 into `names`, clockwise; seat s's next player is seat s+1 (mod n).
Player 1 (K2) is seat `first`; `order` lists the seats from player 1.

Two ways to act:
- whole plays, as a match record writes them: `bid(seat, n)` and `play(seat, cards, choice)`;
- one step at a time, for buttons and bots: `deciders()`, `choices(seat)` and
  `act(seat, action, arg)`. A play that needs a further choice (a led joker's "high"/"low", a
  following joker or equal card's "top"/"under", the second card given to a Karnaval, taking a
  Karnaval or not) is split into steps; the half-made play is `pending` until its last step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.games.karnaval.engine.cards import (
    COPIES,
    DECK_SIZE,
    JOKER,
    SUIT_NAMES,
    is_card,
    marked_hand,
    missing,
    over_counts,
    rank_of,
    sorted_hand,
    strength,
    suit_of,
)
from bot.games.karnaval.engine.errors import (
    IllegalBid,
    IllegalChoice,
    IllegalPlay,
    InvalidDeal,
    InvalidDraw,
    MatchOver,
    NotYourTurn,
    RuleError,
    WrongPhase,
    shown,
)
from bot.games.karnaval.engine.events import Event

Phase = Literal["deal", "bid", "play", "over"]
#: What tells one state of a match from the next (`Karnaval._state`).
_State = tuple[int, int, int, tuple[str, ...] | None]

MIN_PLAYERS = 3
MAX_PLAYERS = 6
QUARTERS = 4
#: Cards per hand in quarters 1-4 (K3).
CARDS_PER_QUARTER = (6, 8, 10, 12)
#: Premium and penalty of a quarter (K20).
PREMIUM = 60
PENALTY = -60
#: Choice words of a play (KARNAVAL_RECORD.md "Plays").
CHOICE_WORDS = ("top", "under", "high", "low", "take")


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal step: `action` with an optional short `arg` (`play:QS`, `bid:2`, `place:top`).

    Actions: `bid` (arg: the number), `play` (a single card, led or following), `karnaval`
    (lead a pair, arg "C1 C2"), `declare` ("high"/"low" after leading a joker, K10), `place`
    ("top"/"under" after a following joker or equal card, K9, K11), `give` (one card given to
    a Karnaval, twice), `take` ("yes"/"no": take the Karnaval with the pair just given, K14).
    """

    action: str
    arg: str | None = None

    @property
    def token(self) -> str:
        """`action:arg` (or `action`), under 40 bytes, for button tokens."""
        return self.action if self.arg is None else f"{self.action}:{self.arg}"


@dataclass(frozen=True, slots=True)
class Play:
    """One entry of a trick: the seat, its one or two cards and its choice word (or None)."""

    seat: int
    cards: tuple[str, ...]
    choice: str | None = None


@dataclass(slots=True)
class Deal:
    """One deal: what chance gave (hands, stock) and what the players did."""

    index: int  # 0-based place in the match
    hands: list[list[str]]  # as dealt, by seat
    stock: list[str]  # top first
    held: list[list[str]]  # what each seat holds now
    bids: list[tuple[int, int]] = field(default_factory=list)  # (seat, bid) in bidding order
    plays: list[Play] = field(default_factory=list)  # every play of the deal, in order
    trick: list[Play] = field(default_factory=list)  # the trick on the table
    tricks: list[int] = field(default_factory=list)  # who took each trick (a Karnaval twice)
    leads: int = 0  # seat to lead the trick on the table (or the next one)
    scores: list[int] | None = None  # by seat, once the deal is over

    @property
    def trump_card(self) -> str | None:
        """The turned card: the first non-joker of the stock (K5, KC2, KC5); None if none."""
        for c in self.stock:
            if c != JOKER:
                return c
        return None

    @property
    def trump(self) -> str | None:
        """The trump suit letter, or None for a deal without trump (KC5)."""
        card = self.trump_card
        return None if card is None else card[-1]  # suit_of: never a joker

    @property
    def complete(self) -> bool:
        """All tricks are played."""
        return self.scores is not None

    def taken(self, n: int) -> list[int]:
        """Tricks taken so far, by seat."""
        out = [0] * n
        for s in self.tricks:
            out[s] += 1
        return out


@dataclass(frozen=True, slots=True)
class TrickState:
    """Who holds the trick on the table now and why (K8-K11, K13-K14)."""

    mode: str  # "suit" (a suit card led), "high"/"low" (a joker led), "karnaval"
    winner: int  # seat holding the trick now
    led_suit: str | None = None  # suit led, for "suit"
    best: int | None = None  # index in the trick of the suit card winning on its own
    top_joker: int | None = None  # seat of the last joker on top (or a "high" leader)
    holding: tuple[str, ...] = ()  # the pair holding a Karnaval


# --- pure rule helpers -----------------------------------------------------------------------


def score(bid: int, took: int) -> int:
    """A deal's points for a bid and the tricks taken (K17, K18, K19)."""
    if took == bid:
        return 5 if bid == 0 else 10 * bid  # K17
    if took < bid:
        return took  # K18
    return 10 * bid - 20 * (took - bid)  # K19


def barred_bid(cards: int, earlier: Sequence[int]) -> int | None:
    """The number the last bidder may not bid (K6), or None when nothing is barred."""
    rest = cards - sum(earlier)
    return rest if rest >= 0 else None


def _beats(card: str, best: str, trump: str | None, mode: str) -> bool:
    """Whether a suit card strictly beats the suit card winning a single-card trick (K8, K10)."""
    cs, bs = suit_of(card), suit_of(best)
    if cs == bs:
        return strength(card) > strength(best)
    if trump is not None and cs == trump:
        return True  # a trump beats any non-trump
    if trump is not None and bs == trump:
        return False
    # Different non-trump suits: after a "lowest" joker lead rank alone counts (K10).
    return mode == "low" and strength(card) > strength(best)


def _equals(card: str, best: str, trump: str | None, mode: str) -> bool:
    """KC8 "equal": the identical card; after a joker led "low", same rank, both non-trumps."""
    if card == best:
        return True
    return (
        mode == "low"
        and rank_of(card) == rank_of(best)
        and suit_of(card) != trump
        and suit_of(best) != trump
    )


def pair_beats(new: Sequence[str], held: Sequence[str], trump: str | None) -> bool:
    """Whether two identical cards (or two jokers) take a Karnaval held by `held` (K14, KC3).

    `held` is the pair holding it: two identical cards, two jokers, or a joker with a card
    (K16: a Karnaval of that card).
    """
    a, b = new
    if a != b:
        return False  # only two identical cards or two jokers take (KC3)
    if a == JOKER:
        return True  # two jokers beat any pair; of two joker pairs, the later (KC3)
    if held[0] == JOKER and held[1] == JOKER:
        return False
    value = held[1] if held[0] == JOKER else held[0]
    if suit_of(a) == suit_of(value):
        return strength(a) > strength(value)
    return trump is not None and suit_of(a) == trump  # a trump pair beats a non-trump one


def trick_state(trick: Sequence[Play], trump: str | None) -> TrickState:
    """Evaluate the (possibly unfinished, non-empty) trick on the table."""
    lead = trick[0]
    if len(lead.cards) == 2:  # K13, K14, KC3: the last take holds it
        holder = lead.seat
        holding: tuple[str, ...] = lead.cards
        for p in trick[1:]:
            if p.choice == "take":
                holder, holding = p.seat, p.cards
        return TrickState("karnaval", holder, holding=holding)
    led = lead.cards[0]
    best: int | None
    if led == JOKER:  # K10: "high" makes the leader's joker on top
        mode = lead.choice or "high"
        top = lead.seat if mode == "high" else None
        best, led_suit = None, None
    else:
        mode, top, best, led_suit = "suit", None, 0, suit_of(led)
    for i in range(1, len(trick)):
        p = trick[i]
        card = p.cards[0]
        if card == JOKER:
            if p.choice == "top":
                top = p.seat  # K9: the last joker on top takes it
            continue
        if mode == "high":
            continue
        if best is None:
            best = i
            continue
        b = trick[best].cards[0]
        if _beats(card, b, trump, mode) or (p.choice == "top" and _equals(card, b, trump, mode)):
            best = i  # K8, K11
    if top is not None:
        winner = top
    elif best is not None:
        winner = trick[best].seat
    else:
        winner = lead.seat  # KC7
    return TrickState(mode, winner, led_suit, best, top)


def needs_place(card: str, trick: Sequence[Play], trump: str | None) -> bool:
    """Whether a following card must be put "top" or "under" (K9 jokers; K11, KC8 equal cards)."""
    if card == JOKER:
        return True
    st = trick_state(trick, trump)
    if st.mode not in ("suit", "low") or st.top_joker is not None or st.best is None:
        return False
    return _equals(card, trick[st.best].cards[0], trump, st.mode)


def _pairs(hand: Sequence[str]) -> set[str]:
    """Suit cards held twice: the Karnavals of a hand (K13; jokers excluded, KC10)."""
    return {c for c, k in Counter(hand).items() if k >= 2 and c != JOKER}


def _k7(cards: Sequence[str], led: str, trump: str | None) -> list[str]:
    """The cards K7 allows from `cards`: the suit led, else trumps, else any."""
    same = [c for c in cards if suit_of(c) == led]
    if same:
        return same
    if trump is not None:
        trumps = [c for c in cards if suit_of(c) == trump]
        if trumps:
            return trumps
    return list(cards)


def legal_follow_cards(hand: Sequence[str], led: str, trump: str | None) -> set[str]:
    """Single cards a follower may play to a suit card led (K7, K9, K15, KC10).

    The jokers, plus what K7 allows for: the whole hand; the hand without its Karnavals of the
    suit led; the hand without its Karnavals of the suit led and of trumps.
    """
    pairs = _pairs(hand)
    no_led = [c for c in hand if not (c in pairs and suit_of(c) == led)]
    no_both = [c for c in no_led if not (c in pairs and suit_of(c) == trump)]
    legal = set(_k7(hand, led, trump)) | set(_k7(no_led, led, trump))
    legal |= set(_k7(no_both, led, trump))
    if JOKER in hand:
        legal.add(JOKER)
    return legal


def draw_winner(names: Sequence[str], rounds: Iterable[Mapping[int, str]]) -> int:
    """The seat of player 1 from the rounds of the draw (K2, KC1, KC4), or InvalidDraw.

    Each round maps the drawing seats to their cards: round 1 every seat, each later round
    exactly the seats tied for lowest in the round before. Errors carry `params["round"]`
    (1-based, or None for the draw as a whole), checked in KARNAVAL_RECORD.md's order.

    One pass, constant work per round: a round is checked against its own few cards (never the
    whole deck), and a round object already met while the same seats drew (a parsed record
    shares equal rounds: safejson) is known to tie them again without a look. The objects met
    are forgotten whenever fewer seats draw, at most five times.
    """
    drawing = list(range(len(names)))
    decided: int | None = None
    r = 0
    #: Round objects that tied all of `drawing` again (the round list keeps them alive).
    tied_again: set[int] = set()
    for r, rnd in enumerate(rounds, 1):
        if decided is not None:
            raise InvalidDraw(
                "K2", "karnaval.error.draw_decided_early", {"round": r, "decided": decided},
                f"the draw was decided in round {decided}",
            )  # fmt: skip
        if id(rnd) in tied_again:
            continue  # the same cards for the same seats: tied again, as before
        _check_round(names, r, rnd, drawing)
        low = min(strength(rnd[s]) for s in drawing)  # KC1: rank only, a joker lowest
        tied = [s for s in drawing if strength(rnd[s]) == low]
        if len(tied) == 1:
            decided = r
        if tied == drawing:
            tied_again.add(id(rnd))
        else:
            tied_again.clear()
        drawing = tied
    if r == 0:
        raise InvalidDraw(
            "K2", "karnaval.error.draw_malformed", {"round": None},
            "a list of rounds, each an object of player: card",
        )  # fmt: skip
    if decided is None:
        named = [names[s] for s in drawing]
        who = ", ".join(named[:-1]) + " and " + named[-1]
        raise InvalidDraw(
            "K2", "karnaval.error.draw_undecided",
            {"round": None, "players": named, "last": r},
            f"{who} tie for lowest in round {r} and must draw again",
        )  # fmt: skip
    return drawing[0]


def _check_round(names: Sequence[str], r: int, rnd: Mapping[int, str], drawing: list[int]) -> None:
    """Round `r` of the draw is drawn by exactly `drawing`, in cards, within the deck's copies
    (KC4, K1); InvalidDraw otherwise."""
    if sorted(rnd) != drawing or not all(isinstance(v, str) for v in rnd.values()):
        who = ", ".join(names[s] for s in drawing)
        raise InvalidDraw(
            "KC4", "karnaval.error.draw_players", {"round": r, "players": who},
            f"must be drawn by exactly {who}",
        )  # fmt: skip
    for s in drawing:
        if not is_card(rnd[s]):
            raise InvalidDraw(
                "K1", "karnaval.error.draw_not_a_card", {"round": r, "card": rnd[s]},
                f"{shown(rnd[s])} is not a card",
            )  # fmt: skip
    cards = [rnd[s] for s in drawing]
    if len(set(cards)) < len(cards):  # only a card drawn twice can be drawn too often
        over = over_counts(cards)
        if over:
            card, k = over[0]
            raise InvalidDraw(
                "KC4", "karnaval.error.draw_copies", {"round": r, "card": card, "count": k},
                f"{card} drawn {k} times (the deck has {COPIES[card]})",
            )  # fmt: skip


def draw_next(n: int, rounds: Sequence[Mapping[int, str]]) -> list[int]:
    """The seats that draw the next round (KC4): everyone first, then the seats tied for lowest
    in the last round; [] once a round has a single lowest card (its seat is player 1)."""
    drawing = list(range(n))
    for rnd in rounds:
        low = min(strength(rnd[s]) for s in drawing)
        drawing = [s for s in drawing if strength(rnd[s]) == low]
        if len(drawing) == 1:
            return []
    return drawing


def _copy_rounds(rounds: Sequence[Mapping[int, str]]) -> list[dict[int, str]]:
    """The draw's rounds as the match keeps them: a round repeated as one object (a parsed
    record shares equal rounds) stays one copy, so a long tied draw costs a pointer a round."""
    # By the id of a round of `rounds` (alive meanwhile), the distinct rounds found in C.
    made = {key: dict(rnd) for key, rnd in dict(zip(map(id, rounds), rounds, strict=True)).items()}
    return list(map(made.__getitem__, map(id, rounds)))


def _both(cards: Sequence[str]) -> str:
    return " ".join(cards)


# --- the match -------------------------------------------------------------------------------


class Karnaval:
    """A whole Karnaval match between named seats (3 to 6, K2).

    Typical use: `k = Karnaval(names, draw)`, then for every deal `k.start_deal(*k.deal_from(
    shuffled_deck))`, then `k.act(seat, action, arg)` for the seats in `k.deciders()` until
    `k.phase` is "deal" again or "over" (`k.winners`).
    """

    def __init__(
        self, names: Sequence[str], draw: Sequence[Mapping[int, str]] | None = None
    ) -> None:
        names = list(names)
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS or len(set(names)) != len(names):
            raise RuleError(
                "K2", "karnaval.error.seats", {"count": len(names)},
                "3 to 6 distinct player names",
            )  # fmt: skip
        self.names: list[str] = names
        self.n = len(names)
        self.first = 0 if draw is None else draw_winner(names, draw)
        self.draw: list[dict[int, str]] | None = None if draw is None else _copy_rounds(draw)
        self.deals: list[Deal] = []
        self.pending: tuple[str, ...] | None = None  # the half-made play of the seat to act

    def draw_events(self) -> list[Event]:
        """The public events of the draw for the first player (K2, KC1, KC4): each round's cards,
        then who is player 1 (only `first_player` without a draw)."""
        events = []
        for r, rnd in enumerate(self.draw or [], 1):
            seats = sorted(rnd)
            events.append(Event("drew", cards=tuple(rnd[s] for s in seats), numbers=(r, *seats)))
        return [*events, Event("first_player", self.first)]

    # --- structure ---

    @property
    def order(self) -> list[int]:
        """Seats from player 1, clockwise (K2)."""
        return [(self.first + i) % self.n for i in range(self.n)]

    @property
    def deal_total(self) -> int:
        """Deals in a whole match: four quarters of n deals (K3)."""
        return QUARTERS * self.n

    def deal_info(self, index: int) -> dict[str, int]:
        """Quarter (1-4), number (1-n), cards per hand, leader and dealer seats of deal `index`
        (0-based) (K3, K4)."""
        q, k = divmod(index, self.n)
        return {
            "quarter": q + 1,
            "number": k + 1,
            "cards": CARDS_PER_QUARTER[q],
            "leader": (self.first + k) % self.n,
            "dealer": (self.first + k - 1) % self.n,
        }

    @property
    def current(self) -> Deal | None:
        """The newest deal (finished or not), or None before the first."""
        return self.deals[-1] if self.deals else None

    @property
    def phase(self) -> Phase:
        """The match waits for: `deal` (`start_deal`), `bid`, `play`, or is `over`."""
        deals = self.deals
        if not deals or deals[-1].scores is not None:  # none yet, or the newest complete
            return "over" if len(deals) >= QUARTERS * self.n else "deal"
        return "bid" if len(deals[-1].bids) < self.n else "play"

    @property
    def turn(self) -> int | None:
        """The seat to bid or play now (None while dealing or when over)."""
        deals = self.deals
        if not deals:
            return None
        d = deals[-1]
        if d.scores is not None:  # complete: dealing next, or over
            return None
        n = self.n
        bids = len(d.bids)
        if bids < n:  # K6: from the deal's leader (`deal_info`), clockwise
            return (self.first + d.index % n + bids) % n
        return (d.leads + len(d.trick)) % n

    @property
    def next_dealer(self) -> int | None:
        """The seat dealing the next deal while the phase is "deal" (K4)."""
        if self.phase != "deal":
            return None
        return self.deal_info(len(self.deals))["dealer"]

    # --- chance from outside ---

    def deal_from(self, deck: Sequence[str]) -> tuple[list[list[str]], list[str]]:
        """Split a shuffled 76-card deck into the next deal's hands (by seat) and stock."""
        if self.phase != "deal":
            raise WrongPhase("K3", "karnaval.error.not_dealing", {}, "no deal is due now")
        cards = self.deal_info(len(self.deals))["cards"]
        hands: list[list[str]] = [[] for _ in range(self.n)]
        for i, s in enumerate(self.order):
            hands[s] = list(deck[i * cards : (i + 1) * cards])
        return hands, list(deck[self.n * cards :])

    def check_deal(self, hands: Sequence[Sequence[str]], stock: Sequence[str]) -> None:
        """Raise InvalidDeal unless the hands (by seat) and stock are a deal of the next deal
        (K1, K3), faults in KARNAVAL_RECORD.md's order: not a card, hand size, copies, missing.
        """
        cards = self.deal_info(len(self.deals))["cards"]
        for s in self.order:
            for c in hands[s]:
                if not is_card(c):
                    raise InvalidDeal(
                        "K1", "karnaval.error.hand_not_a_card",
                        {"card": c, "player": self.names[s]},
                        f"{shown(c)} in {self.names[s]}'s hand is not a card",
                    )  # fmt: skip
        for c in stock:
            if not is_card(c):
                raise InvalidDeal(
                    "K1", "karnaval.error.stock_not_a_card", {"card": c},
                    f"{shown(c)} in the stock is not a card",
                )  # fmt: skip
        for s in self.order:
            if len(hands[s]) != cards:
                raise InvalidDeal(
                    "K3", "karnaval.error.hand_size",
                    {"player": self.names[s], "count": len(hands[s]), "cards": cards},
                    f"{self.names[s]} holds {len(hands[s])} cards, not {cards}",
                )  # fmt: skip
        everything = [c for h in hands for c in h] + list(stock)
        over = over_counts(everything)
        if over:
            card, k = over[0]
            raise InvalidDeal(
                "K1", "karnaval.error.copies", {"card": card, "count": k},
                f"{card} appears {k} times (the deck has {COPIES[card]})",
            )  # fmt: skip
        gone = missing(everything)
        if gone:
            raise InvalidDeal(
                "K1", "karnaval.error.missing", {"card": gone[0]},
                f"{gone[0]} is missing (hands and stock must hold all {DECK_SIZE} cards)",
            )  # fmt: skip

    def start_deal(self, hands: Sequence[Sequence[str]], stock: Sequence[str]) -> list[Event]:
        """Deal the next deal: hands by seat, the stock top first (K3, K4, K5)."""
        phase = self.phase
        if phase == "over":
            raise MatchOver("K20", "karnaval.error.match_over", {}, "the match is over")
        if phase != "deal":
            raise WrongPhase("K3", "karnaval.error.deal_unfinished", {}, "a deal is under way")
        if len(hands) != self.n:
            raise InvalidDeal(
                "K3", "karnaval.error.hands_players", {},
                f"hands must be given for exactly {', '.join(self.names[s] for s in self.order)}",
            )  # fmt: skip
        self.check_deal(hands, stock)
        index = len(self.deals)
        info = self.deal_info(index)
        deal = Deal(
            index=index,
            hands=[list(h) for h in hands],
            stock=list(stock),
            held=[list(h) for h in hands],
            leads=info["leader"],
        )
        self.deals.append(deal)
        self.pending = None
        trump_card = deal.trump_card
        events = [
            Event(
                "dealt",
                info["dealer"],
                cards=() if trump_card is None else (trump_card,),
                numbers=(index + 1, info["quarter"], info["number"], info["cards"], info["leader"]),
            )
        ]
        events += [Event("hand", s, s, tuple(deal.held[s])) for s in self.order]
        return events

    # --- bids (K6) ---

    def legal_bids(self) -> list[int]:
        """The bids the seat to bid may make now (K6)."""
        d = self.current
        if d is None or self.phase != "bid":
            return []
        cards = self.deal_info(d.index)["cards"]
        barred = barred_bid(cards, [b for _, b in d.bids]) if len(d.bids) == self.n - 1 else None
        return [b for b in range(cards + 1) if b != barred]

    def bid(self, seat: int, number: int) -> list[Event]:
        """`seat` bids `number` tricks (K6)."""
        self._require_phase("bid")
        d = self.current
        assert d is not None
        turn = self.turn
        assert turn is not None
        if seat != turn:
            raise NotYourTurn(
                "K6", "karnaval.error.bid_out_of_turn",
                {"player": self.names[turn], "given": self.names[seat]},
                f"it is {self.names[turn]}'s turn to bid, not {self.names[seat]}'s",
            )  # fmt: skip
        cards = self.deal_info(d.index)["cards"]
        if not 0 <= number <= cards:
            raise IllegalBid(
                "K6", "karnaval.error.bid_out_of_range",
                {"bid": number, "player": self.names[seat], "cards": cards},
                f"bid {number} by {self.names[seat]} is out of range (0 to {cards})",
            )  # fmt: skip
        if len(d.bids) == self.n - 1 and number == barred_bid(cards, [b for _, b in d.bids]):
            raise IllegalBid(
                "K6", "karnaval.error.barred_bid",
                {"bid": number, "player": self.names[seat], "cards": cards},
                f"bid {number} by {self.names[seat]} is barred (the bids would add up to {cards})",
            )  # fmt: skip
        d.bids.append((seat, number))
        return [Event("bid", seat, numbers=(number,))]

    # --- plays (K7-K16) ---

    def may_lead_pair(self, seat: int, cards: Sequence[str]) -> bool:
        """Whether `seat` may lead these two held cards as a Karnaval (K13, K16, KC11)."""
        d = self.current
        assert d is not None
        a, b = cards
        jokers = d.held[seat].count(JOKER)
        if a == JOKER and b == JOKER:
            return jokers >= 3
        if JOKER in (a, b):
            return d.hands[seat].count(JOKER) == 4
        return a == b

    def play(self, seat: int, cards: Sequence[str], choice: str | None = None) -> list[Event]:
        """`seat` plays one card or two (a Karnaval led or the two cards given to one), with the
        choice word the play needs (KARNAVAL_RECORD.md "Plays"), checked in its order."""
        if choice is not None and choice not in CHOICE_WORDS:
            raise IllegalPlay(
                "record", "karnaval.error.unknown_choice", {"choice": choice},
                f"unknown choice {shown(choice)} (top, under, high, low, take)",
            )  # fmt: skip
        self._require_phase("play")
        d = self.current
        assert d is not None
        turn = self.turn
        assert turn is not None
        name = self.names[seat]
        if seat != turn:
            raise NotYourTurn(
                "K12", "karnaval.error.play_out_of_turn",
                {"player": self.names[turn], "given": name},
                f"it is {self.names[turn]}'s turn, not {name}'s",
            )  # fmt: skip
        cards = (cards,) if isinstance(cards, str) else tuple(cards)
        if len(cards) not in (1, 2):
            raise IllegalPlay(
                "record", "karnaval.error.play_malformed", {},
                "a play is one card or two",
            )  # fmt: skip
        for c in cards:
            if not is_card(c):
                raise IllegalPlay(
                    "K1", "karnaval.error.not_a_card", {"card": c}, f"{shown(c)} is not a card"
                )
        hand = list(d.held[seat])
        for c in cards:
            if c not in hand:
                raise IllegalPlay(
                    "K7", "karnaval.error.not_held", {"player": name, "card": c},
                    f"{name} does not hold {c}",
                )  # fmt: skip
            hand.remove(c)
        trump = d.trump
        if not d.trick:
            self._check_lead(seat, cards, choice)
        elif len(d.trick[0].cards) == 2:
            self._check_give(seat, cards, choice, trump)
        else:
            self._check_follow(seat, cards, choice, trump)
        return self._apply(seat, cards, choice)

    def _check_lead(self, seat: int, cards: tuple[str, ...], choice: str | None) -> None:
        name = self.names[seat]
        if len(cards) == 1:
            card = cards[0]
            if card == JOKER:  # K10
                if choice not in ("high", "low"):
                    tail = "" if choice is None else f', not "{choice}"'
                    raise IllegalPlay(
                        "K10", "karnaval.error.led_joker", {"player": name, "choice": choice},
                        f'{name} must declare the led JK "high" or "low"{tail} (K10)',
                    )  # fmt: skip
            elif choice is not None:
                raise IllegalPlay(
                    "K7", "karnaval.error.no_place", {"cards": card, "choice": choice},
                    f'no choice to make when leading {card} ("{choice}" given)',
                )  # fmt: skip
            return
        a, b = cards
        if not self.may_lead_pair(seat, cards):  # K13, K16, KC11
            if a == JOKER and b == JOKER:
                raise IllegalPlay(
                    "K16", "karnaval.error.two_jokers", {"player": name},
                    f"{name} may not lead two jokers as a Karnaval holding only two (K16)",
                )  # fmt: skip
            if JOKER in cards:
                raise IllegalPlay(
                    "KC11", "karnaval.error.joker_pair", {"cards": _both(cards)},
                    f"{_both(cards)} is a Karnaval only for a player dealt all four jokers (K16)",
                )  # fmt: skip
            raise IllegalPlay(
                "K13", "karnaval.error.not_a_karnaval", {"cards": _both(cards)},
                f"{_both(cards)} is not a Karnaval (two identical cards)",
            )  # fmt: skip
        if choice is not None:
            raise IllegalPlay(
                "K13", "karnaval.error.no_place", {"cards": _both(cards), "choice": choice},
                f'no choice to make when leading the Karnaval {_both(cards)} ("{choice}" given)',
            )  # fmt: skip

    def _check_give(
        self, seat: int, cards: tuple[str, ...], choice: str | None, trump: str | None
    ) -> None:
        d = self.current
        assert d is not None
        name = self.names[seat]
        if len(cards) != 2:
            raise IllegalPlay(
                "K13", "karnaval.error.two_cards", {"player": name},
                f"{name} must give two cards (a Karnaval was led)",
            )  # fmt: skip
        if choice is None:
            return  # KC9: any two cards
        if choice != "take":
            raise IllegalPlay(
                "KC9", "karnaval.error.no_place", {"cards": _both(cards), "choice": choice},
                f'no choice "{choice}" with {_both(cards)} given to a Karnaval (only "take")',
            )  # fmt: skip
        if cards[0] != cards[1]:
            raise IllegalPlay(
                "K14", "karnaval.error.bad_take", {"player": name, "cards": _both(cards)},
                f"{name} cannot take with {_both(cards)} (not a Karnaval)",
            )  # fmt: skip
        holding = trick_state(d.trick, trump).holding
        if not pair_beats(cards, holding, trump):
            raise IllegalPlay(
                "KC3", "karnaval.error.bad_take",
                {"player": name, "cards": _both(cards), "holding": _both(holding)},
                f"{name} cannot take with {_both(cards)} (it does not beat {_both(holding)})",
            )  # fmt: skip

    def _check_follow(
        self, seat: int, cards: tuple[str, ...], choice: str | None, trump: str | None
    ) -> None:
        d = self.current
        assert d is not None
        name = self.names[seat]
        if len(cards) != 1:
            raise IllegalPlay(
                "K7", "karnaval.error.one_card", {"player": name},
                f"{name} must play one card, not two (a single card was led)",
            )  # fmt: skip
        card = cards[0]
        led = d.trick[0].cards[0]
        if led != JOKER and card not in legal_follow_cards(d.held[seat], suit_of(led), trump):
            raise self._not_followed(seat, suit_of(led), trump)
        if card == JOKER:  # K9
            if choice not in ("top", "under"):
                tail = "" if choice is None else f', not "{choice}"'
                raise IllegalPlay(
                    "K9", "karnaval.error.joker_choice", {"player": name, "choice": choice},
                    f'{name} must put JK "top" or "under"{tail} (K9)',
                )  # fmt: skip
        elif needs_place(card, d.trick, trump):  # K11, KC8
            if choice not in ("top", "under"):
                tail = "" if choice is None else f', not "{choice}"'
                raise IllegalPlay(
                    "K11", "karnaval.error.equal_card",
                    {"player": name, "card": card, "choice": choice},
                    f"{card} ties the winning card: "
                    f'{name} must put it "top" or "under"{tail} (K11)',
                )  # fmt: skip
        elif choice is not None:
            raise IllegalPlay(
                "KC8", "karnaval.error.no_place", {"cards": card, "choice": choice},
                f'no choice to make with {card} ("{choice}" given)',
            )  # fmt: skip

    def _not_followed(self, seat: int, led: str, trump: str | None) -> IllegalPlay:
        """The K7/K15 error for a seat that played a card it may not (KARNAVAL_RECORD.md)."""
        name = self.names[seat]
        hand = self.current.held[seat] if self.current else []
        count = Counter(hand)
        of_led = [c for c in count if suit_of(c) == led]
        led_name = SUIT_NAMES[led]
        trump_name = SUIT_NAMES[trump] if trump else ""
        params = {"player": name, "suit": led_name, "trump": trump_name}
        if any(count[c] == 1 for c in of_led):
            return IllegalPlay(
                "K7", "karnaval.error.follow_suit", params, f"{name} must follow {led_name}"
            )
        if of_led:
            return IllegalPlay(
                "K15", "karnaval.error.follow_or_trump", params,
                f"{name} must follow {led_name} or play a trump ({trump_name})",
            )  # fmt: skip
        return IllegalPlay(
            "K7", "karnaval.error.play_trump", params, f"{name} must play a trump ({trump_name})"
        )

    def _apply(self, seat: int, cards: tuple[str, ...], choice: str | None) -> list[Event]:
        d = self.current
        assert d is not None
        self.pending = None
        for c in cards:
            d.held[seat].remove(c)
        p = Play(seat, cards, choice)
        d.plays.append(p)
        d.trick.append(p)
        if len(cards) == 2 and len(d.trick) == 1:
            events = [Event("karnaval_led", seat, cards=cards)]
        elif len(cards) == 2:
            events = [Event("gave", seat, cards=cards, detail=choice or "")]
        else:
            events = [Event("played", seat, cards=cards, detail=choice or "")]
        if len(d.trick) == self.n:
            st = trick_state(d.trick, d.trump)
            count = 2 if st.mode == "karnaval" else 1  # KC9: a Karnaval is two tricks
            d.tricks.extend([st.winner] * count)
            d.leads = st.winner  # K12
            d.trick = []
            events.append(Event("trick", st.winner, numbers=(count, d.taken(self.n)[st.winner])))
            if not any(d.held):
                events += self._finish_deal(d)
        return events

    def _finish_deal(self, d: Deal) -> list[Event]:
        taken = d.taken(self.n)
        bids = dict(d.bids)
        d.scores = [score(bids[s], taken[s]) for s in range(self.n)]  # K17-K19
        events = [Event("deal_scored", numbers=tuple(d.scores))]
        if (d.index + 1) % self.n == 0:
            q = d.index // self.n
            row = self.quarter_rows()[q]
            events.append(Event("quarter_scored", numbers=(q + 1, *row["totals"])))
        if len(self.deals) == self.deal_total:
            totals = self.totals()
            assert totals is not None
            win = self.winners or []
            events.append(
                Event("match_over", numbers=tuple(totals), detail=",".join(map(str, win)))
            )
        return events

    def _require_phase(self, phase: Phase) -> None:
        now = self.phase
        if now == phase:
            return
        if now == "over":
            raise MatchOver("K20", "karnaval.error.match_over", {}, "the match is over")
        raise WrongPhase(
            "K6" if phase == "bid" else "K7", f"karnaval.error.not_{phase}",
            {"phase": now}, f"this is not the time to {phase} (the match waits for: {now})",
        )  # fmt: skip

    # --- step API: deciders, choices, act ---

    def deciders(self) -> list[int]:
        """The seats that must decide now (one at most; none while dealing or when over)."""
        t = self.turn
        return [] if t is None else [t]

    def choices(self, seat: int) -> list[Choice]:
        """Every legal step of `seat` now (empty unless it is their turn).

        Worked out once per state of the match (a table asks for its buttons, a bot for its
        view, `act` to check the step): what tells one state from the next is what every step
        changes (the deals dealt, the bids, the plays, the half-made play: `_state`)."""
        if seat != self.turn:
            return []
        state = self._state()
        memo = self._choices_memo
        if memo is None or memo[0] != state:
            memo = self._choices_memo = (state, tuple(self._choice_list(seat)))
        return list(memo[1])

    #: (`_state()`, the choices of the seat to act in that state), or None: see `choices`.
    _choices_memo: tuple[_State, tuple[Choice, ...]] | None = None

    def _state(self) -> _State:
        """What every step changes: deals dealt, bids and plays of the newest deal, `pending`
        (start_deal, bid, a play, the first half of a step of two)."""
        deals = self.deals
        if not deals:
            return (0, 0, 0, self.pending)
        d = deals[-1]
        return (len(deals), len(d.bids), len(d.plays), self.pending)

    def _choice_list(self, seat: int) -> list[Choice]:
        """`choices` of `seat`, the seat to act, worked out."""
        d = self.current
        assert d is not None
        if self.phase == "bid":
            return [Choice("bid", str(b)) for b in self.legal_bids()]
        hand = d.held[seat]
        trump = d.trump
        pend = self.pending
        if pend is not None:
            kind = pend[0]
            if kind == "declare":
                return [Choice("declare", "high"), Choice("declare", "low")]
            if kind == "place":
                return [Choice("place", "top"), Choice("place", "under")]
            if kind == "give":
                rest = list(hand)
                rest.remove(pend[1])
                return [Choice("give", c) for c in sorted_hand(set(rest), trump)]
            return [Choice("take", "yes"), Choice("take", "no")]
        distinct = sorted_hand(set(hand), trump)
        if not d.trick:  # lead: any card (K7), or a Karnaval (K13, K16)
            out = [Choice("play", c) for c in distinct]
            for pair in self.lead_pairs(seat):
                out.append(Choice("karnaval", _both(pair)))
            return out
        if len(d.trick[0].cards) == 2:  # give two cards (KC9), first one
            return [Choice("give", c) for c in distinct]
        led = d.trick[0].cards[0]
        if led == JOKER:
            return [Choice("play", c) for c in distinct]  # KC6
        legal = legal_follow_cards(hand, suit_of(led), trump)
        return [Choice("play", c) for c in distinct if c in legal]

    def lead_pairs(self, seat: int) -> list[tuple[str, str]]:
        """The Karnavals `seat` may lead now (K13, K16, KC11), in hand display order."""
        d = self.current
        assert d is not None
        hand = d.held[seat]
        trump = d.trump
        out: list[tuple[str, str]] = [(c, c) for c in sorted_hand(_pairs(hand), trump)]
        jokers = hand.count(JOKER)
        if jokers >= 3:
            out.insert(0, (JOKER, JOKER))
        if jokers and d.hands[seat].count(JOKER) == 4:
            out += [(JOKER, c) for c in sorted_hand({c for c in hand if c != JOKER}, trump)]
        return out

    def act(self, seat: int, action: str, arg: str | None = None) -> list[Event]:
        """Take one step (a `Choice` of `choices(seat)`); the events it caused."""
        choice = Choice(action, arg)
        if choice not in self.choices(seat):
            raise self._why_not(seat, choice)
        d = self.current
        assert d is not None
        trump = d.trump
        if action == "bid":
            return self.bid(seat, int(arg or "0"))
        if action == "play":
            assert arg is not None
            if not d.trick and arg == JOKER:
                self.pending = ("declare",)
                return []
            if d.trick and needs_place(arg, d.trick, trump):
                self.pending = ("place", arg)
                return []
            return self.play(seat, (arg,))
        if action == "declare":
            return self.play(seat, (JOKER,), arg)
        if action == "place":
            assert self.pending is not None
            return self.play(seat, (self.pending[1],), arg)
        if action == "karnaval":
            assert arg is not None
            a, b = arg.split()
            return self.play(seat, (a, b))
        if action == "give":
            assert arg is not None
            if self.pending is None:
                self.pending = ("give", arg)
                return []
            first = self.pending[1]
            pair = (first, arg)
            if first == arg and pair_beats(pair, trick_state(d.trick, trump).holding, trump):
                self.pending = ("take", first, arg)
                return []
            return self.play(seat, pair)
        assert self.pending is not None  # take yes / no
        pair = (self.pending[1], self.pending[2])
        return self.play(seat, pair, "take" if arg == "yes" else None)

    def _why_not(self, seat: int, choice: Choice) -> RuleError:
        """The most telling error for a step that is not among the choices."""
        phase = self.phase
        if phase == "over":
            return MatchOver("K20", "karnaval.error.match_over", {}, "the match is over")
        turn = self.turn
        if turn is None:
            return WrongPhase("K3", "karnaval.error.not_dealt", {}, "the next deal is not dealt")
        if seat != turn:
            return NotYourTurn(
                "K12", "karnaval.error.play_out_of_turn",
                {"player": self.names[turn], "given": self.names[seat]},
                f"it is {self.names[turn]}'s turn, not {self.names[seat]}'s",
            )  # fmt: skip
        if choice.action == "bid" and phase == "bid" and choice.arg and choice.arg.isdigit():
            try:  # the specific K6 error
                probe = Karnaval.from_dict(self.to_dict())
                probe.bid(seat, int(choice.arg))
            except RuleError as exc:
                return exc
        if choice.action == "play" and phase == "play" and self.pending is None and choice.arg:
            try:  # the specific K7/K15 error (suit not followed, not held...)
                probe = Karnaval.from_dict(self.to_dict())
                probe.play(seat, (choice.arg,), "top" if choice.arg == JOKER else None)
            except RuleError as exc:
                if exc.key not in ("karnaval.error.equal_card", "karnaval.error.no_place"):
                    return exc
        return IllegalChoice(
            "K7", "karnaval.error.not_a_choice", {"choice": choice.token},
            f"{choice.token} is not a choice of {self.names[seat]} now",
        )  # fmt: skip

    # --- scores (K17-K20, KC12) ---

    def quarter_rows(self) -> list[dict[str, Any]]:
        """One entry per finished quarter: sums, premiums, penalties, totals (lists by seat)."""
        out = []
        n = self.n
        for q in range(len(self.deals) // n):
            deals = self.deals[q * n : (q + 1) * n]
            if not all(d.complete for d in deals):
                break
            sums = [sum(d.scores[s] for d in deals if d.scores) for s in range(n)]
            exact = [
                all(d.taken(n)[s] == dict(d.bids)[s] for d in deals) for s in range(n)
            ]  # K20: every bid of the quarter made exactly
            premiums = [PREMIUM if e else 0 for e in exact]
            penalties = [PENALTY if x < 0 else 0 for x in sums]  # KC12: 0 is not negative
            totals = [sums[s] + premiums[s] + penalties[s] for s in range(n)]
            out.append(
                {
                    "quarter": q + 1,
                    "sums": sums,
                    "premiums": premiums,
                    "penalties": penalties,
                    "totals": totals,
                }
            )
        return out

    def totals(self) -> list[int] | None:
        """Each seat's total of the four quarters once the match is over (KC12), else None."""
        if self.phase != "over":
            return None
        rows = self.quarter_rows()
        return [sum(r["totals"][s] for r in rows) for s in range(self.n)]

    @property
    def winners(self) -> list[int] | None:
        """Seats with the highest total, in player order (KC12: a tie shares the win)."""
        totals = self.totals()
        if totals is None:
            return None
        best = max(totals)
        return [s for s in self.order if totals[s] == best]

    # --- views for the table service ---

    def sheet(self) -> dict[str, Any]:
        """The score sheet (K20): columns in player order, a row per deal of the match labelled
        with the cards dealt, a quarter row after each quarter, a total row. Values not known
        yet are None."""
        order = self.order
        rows: list[dict[str, Any]] = []
        quarters = self.quarter_rows()
        for q in range(QUARTERS):
            for k in range(self.n):
                i = q * self.n + k
                d = self.deals[i] if i < len(self.deals) else None
                bids = dict(d.bids) if d else {}
                rows.append(
                    {
                        "kind": "deal",
                        "label": str(CARDS_PER_QUARTER[q]),
                        "deal": i + 1,
                        "bids": [bids.get(s) for s in order],
                        "points": [d.scores[s] if d and d.scores else None for s in order],
                    }
                )
            qr = quarters[q] if q < len(quarters) else None
            rows.append(
                {
                    "kind": "quarter",
                    "label": f"Q{q + 1}",
                    "quarter": q + 1,
                    "sums": [qr["sums"][s] if qr else None for s in order],
                    "premiums": [qr["premiums"][s] if qr else None for s in order],
                    "penalties": [qr["penalties"][s] if qr else None for s in order],
                    "totals": [qr["totals"][s] if qr else None for s in order],
                }
            )
        totals = self.totals()
        rows.append(
            {
                "kind": "total",
                "label": "Total",
                "totals": [totals[s] if totals else None for s in order],
            }
        )
        return {"players": [self.names[s] for s in order], "rows": rows}

    def view_for(self, seat: int) -> dict[str, Any]:
        """What `seat` may see now, JSON-safe: their hand (sorted, trumps marked), the trump
        card, bids, tricks taken, the trick on the table, whose turn, their choices, the sheet.
        `seat` = -1 gives the public view (no hand)."""
        d = self.current
        phase = self.phase
        view: dict[str, Any] = {
            "phase": phase,
            "players": [self.names[s] for s in self.order],
            "turn": None if self.turn is None else self.names[self.turn],
            "deal": None,
            "hand": [],
            "trick": [],
            "choices": [c.token for c in self.choices(seat)] if seat >= 0 else [],
            "sheet": self.sheet(),
            "winners": None if self.winners is None else [self.names[s] for s in self.winners],
        }
        if d is None:
            return view
        info = self.deal_info(d.index)
        trump = d.trump
        taken = d.taken(self.n)
        view["deal"] = {
            "deal": d.index + 1,
            "quarter": info["quarter"],
            "number": info["number"],
            "cards": info["cards"],
            "dealer": self.names[info["dealer"]],
            "leader": self.names[info["leader"]],
            "trump_card": d.trump_card,
            "trump": trump,
            "bids": {self.names[s]: b for s, b in d.bids},
            "taken": {self.names[s]: taken[s] for s in self.order},
            "held": {self.names[s]: len(d.held[s]) for s in self.order},
            "complete": d.complete,
        }
        if 0 <= seat < self.n:
            view["hand"] = marked_hand(d.held[seat], trump)
            if self.pending is not None and seat == self.turn:
                view["pending"] = list(self.pending)
        if d.trick:
            st = trick_state(d.trick, trump)
            for p in d.trick:
                view["trick"].append(
                    {
                        "player": self.names[p.seat],
                        "cards": list(p.cards),
                        "choice": p.choice,
                        "winning": p.seat == st.winner,
                    }
                )
            view["trick_winner"] = self.names[st.winner]
        return view

    # --- persistence ---

    def to_dict(self, deals_from: int = 0) -> dict[str, Any]:
        """The whole match as JSON-safe data; `from_dict` restores it without loss. With
        `deals_from`, "deals" holds only the deals from that index on (the ones before it
        come from `deal_to_dict`, and go back in front of them for `from_dict`)."""
        return {
            "format": 1,
            "names": list(self.names),
            "draw": None
            if self.draw is None
            else [[[s, c] for s, c in sorted(r.items())] for r in self.draw],
            "first": self.first,
            "deals": [self.deal_to_dict(i) for i in range(deals_from, len(self.deals))],
            "pending": None if self.pending is None else list(self.pending),
        }

    def deal_to_dict(self, index: int) -> dict[str, Any]:
        """Deal `index` (0-based) as `to_dict` writes it."""
        d = self.deals[index]
        return {
            "hands": [list(h) for h in d.hands],
            "stock": list(d.stock),
            "held": [list(h) for h in d.held],
            "bids": [[s, b] for s, b in d.bids],
            "plays": [[p.seat, list(p.cards), p.choice] for p in d.plays],
            "trick": len(d.trick),
            "tricks": list(d.tricks),
            "leads": d.leads,
            "scores": None if d.scores is None else list(d.scores),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Karnaval:
        """Rebuild a match saved by `to_dict`."""
        if data.get("format") != 1:
            raise ValueError(f"unknown Karnaval state format {data.get('format')!r}")
        k = cls.__new__(cls)
        k.names = list(data["names"])
        k.n = len(k.names)
        draw = data["draw"]
        k.draw = None if draw is None else [{int(s): c for s, c in r} for r in draw]
        k.first = int(data["first"])
        k.deals = []
        for i, dd in enumerate(data["deals"]):
            plays = [Play(s, tuple(cards), choice) for s, cards, choice in dd["plays"]]
            in_trick = int(dd["trick"])
            k.deals.append(
                Deal(
                    index=i,
                    hands=[list(h) for h in dd["hands"]],
                    stock=list(dd["stock"]),
                    held=[list(h) for h in dd["held"]],
                    bids=[(s, b) for s, b in dd["bids"]],
                    plays=plays,
                    trick=plays[len(plays) - in_trick :] if in_trick else [],
                    tricks=list(dd["tricks"]),
                    leads=int(dd["leads"]),
                    scores=None if dd["scores"] is None else list(dd["scores"]),
                )
            )
        k.pending = None if data["pending"] is None else tuple(data["pending"])
        return k
