"""Cards of the Karnaval deck (K1) in the record spelling of KARNAVAL_RECORD.md.

A card is a short upper-case string: rank then suit (`"QS"`, `"10H"`), or `"JK"` for a joker.
The deck is two 38-card packs: each of the 36 suit cards twice and four jokers, 76 cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

JOKER = "JK"
#: Ranks, highest first (K1).
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")
#: Suits in deck order: spades, hearts, diamonds, clubs.
SUITS = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

#: Every distinct card in deck order (KARNAVAL_RECORD.md: `AS KS ... 6S`, hearts, diamonds,
#: clubs, then `JK`).
DECK_ORDER: tuple[str, ...] = (*(r + s for s in SUITS for r in RANKS), JOKER)
#: Copies of each distinct card in the deck (K1).
COPIES: dict[str, int] = {c: (4 if c == JOKER else 2) for c in DECK_ORDER}
DECK_SIZE = 76
#: Place of a card in deck order (for sorting and "first in deck order" reports).
DECK_INDEX: dict[str, int] = {c: i for i, c in enumerate(DECK_ORDER)}
CARDS = frozenset(DECK_ORDER)

#: Rank strength: 6 is 0 ... A is 8 (the draw's joker is -1, KC1).
_STRENGTH = {r: len(RANKS) - 1 - i for i, r in enumerate(RANKS)}


def full_deck() -> list[str]:
    """The 76 cards (K1) in deck order, each copy listed."""
    return [c for c in DECK_ORDER for _ in range(COPIES[c])]


def is_card(text: object) -> bool:
    """True for a string spelled exactly as a card."""
    return isinstance(text, str) and text in CARDS


def suit_of(card: str) -> str:
    """The suit letter of a suit card ("" for a joker)."""
    return "" if card == JOKER else card[-1]


def rank_of(card: str) -> str:
    """The rank of a suit card ("" for a joker)."""
    return "" if card == JOKER else card[:-1]


def strength(card: str) -> int:
    """Rank strength of a card: 6 → 0 … A → 8; a joker is -1 (lowest in the draw, KC1)."""
    return -1 if card == JOKER else _STRENGTH[card[:-1]]


def over_counts(cards: Iterable[str]) -> list[tuple[str, int]]:
    """Cards present more often than the deck has them, in deck order, with their counts."""
    count = Counter(cards)
    return [(c, count[c]) for c in DECK_ORDER if count[c] > COPIES[c]]


def missing(cards: Iterable[str]) -> list[str]:
    """Distinct cards of the deck with fewer copies than the deck has, in deck order."""
    count = Counter(cards)
    return [c for c in DECK_ORDER if count[c] < COPIES[c]]


def sort_key(card: str, trump: str | None = None) -> tuple[int, int, int]:
    """Sort key for showing a hand: jokers, then trumps, then S H D C; high ranks first."""
    if card == JOKER:
        return (0, 0, 0)
    s = suit_of(card)
    group = 1 if s == trump else 2
    return (group, SUITS.index(s), -strength(card))


#: `sort_key` of every card, by trump suit (None: no trump, KC5): looked up, not computed,
#: when a hand is sorted (every button row and every choice list sorts one).
_SORT_KEYS: dict[str | None, dict[str, tuple[int, int, int]]] = {
    t: {c: sort_key(c, t) for c in DECK_ORDER} for t in (None, *SUITS)
}


def sorted_hand(cards: Iterable[str], trump: str | None = None) -> list[str]:
    """A hand in display order (`sort_key`)."""
    keys = _SORT_KEYS.get(trump)
    if keys is not None:
        cards = list(cards)
        try:
            return sorted(cards, key=keys.__getitem__)
        except KeyError:
            pass  # not a card: `sort_key` says what is wrong with it, as it always did
    return sorted(cards, key=lambda c: sort_key(c, trump))


def marked_hand(cards: Iterable[str], trump: str | None) -> list[dict[str, Any]]:
    """A hand in display order (`sorted_hand`), each card `{"card", "trump"}`: whether it is a
    trump (a joker is none)."""
    return [
        {"card": c, "trump": trump is not None and suit_of(c) == trump}
        for c in sorted_hand(cards, trump)
    ]
