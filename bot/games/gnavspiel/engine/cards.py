"""The 14 Gnavspiel cards (G1): one of each, lowest to highest, as small ints 0..13."""

from __future__ import annotations

#: Card names in the record format, lowest first; a card is its index here (G1).
CARD_NAMES: tuple[str, ...] = (
    "Joker",
    "A",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "J",
    "Q",
    "K",
)
#: Record spelling -> card (exact strings only, no aliases: MATCH_RECORD.md).
CARD_BY_NAME: dict[str, int] = {name: card for card, name in enumerate(CARD_NAMES)}

JOKER = 0
JACK = 11
QUEEN = 12
KING = 13
#: Every card of the deck, lowest first (G1).
DECK: tuple[int, ...] = tuple(range(len(CARD_NAMES)))
#: Cards that allow the "stand" call (G10, C24: a J never does).
STAND_CARDS = frozenset({QUEEN, KING})


def taboo_cards(jack_taboo: bool) -> frozenset[int]:
    """The cards a dealer's draw may not keep (G5; with the `jack_taboo` variant also J, C24)."""
    return frozenset({JACK, QUEEN, KING}) if jack_taboo else frozenset({QUEEN, KING})


def card_name(card: int) -> str:
    """The record spelling of a card, e.g. `Joker`, `10`, `K`."""
    return CARD_NAMES[card]
