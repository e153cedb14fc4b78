"""Small builders for Karnaval rule tests: a table dealt from given hands, plays by name."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bot.games.karnaval.engine.cards import DECK_ORDER, full_deck
from bot.games.karnaval.engine.game import Karnaval


def stock_for(hands: Sequence[Sequence[str]], top: Sequence[str] = ()) -> list[str]:
    """The stock left by these hands: `top` first, then the rest of the deck in deck order."""
    rest = Counter(full_deck())
    for h in hands:
        rest.subtract(h)
    rest.subtract(top)
    assert all(v >= 0 for v in rest.values()), rest
    return [*top, *(c for c in DECK_ORDER for _ in range(rest[c]))]


def table(
    hands: Sequence[Sequence[str]],
    top: Sequence[str] = ("6C",),
    bids: Sequence[int] | None = None,
) -> Karnaval:
    """A match of len(hands) players P1.. (seat i = player i+1) in its first deal, dealt these
    hands with `top` on the stock (the trump card first non-joker), bids made if given
    (in bidding order from P1)."""
    k = Karnaval([f"P{i + 1}" for i in range(len(hands))])
    k.start_deal([list(h) for h in hands], stock_for(hands, top))
    for i, b in enumerate(bids or []):
        k.bid(i % k.n, b)
    return k


def play_all(k: Karnaval, plays: Sequence[tuple[int, str | tuple[str, str], str | None]]) -> None:
    """Play (seat, card or (card, card), choice) entries in order."""
    for seat, cards, choice in plays:
        k.play(seat, (cards,) if isinstance(cards, str) else cards, choice)
