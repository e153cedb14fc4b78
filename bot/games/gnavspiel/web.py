"""Gnavspiel on the web page: the viewer's own card (G4: hidden from the others until the
reveal), the pot, every seat's chips and debt at the seat; the replay shows every seat's card
(bot/games/common/web.py folds the rounds)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.games.common.web import own_tile
from bot.games.gnavspiel.engine import Match, card_name
from bot.service.i18n import Catalog


def web_public(m: Match, names: Sequence[str], cat: Catalog) -> dict[str, Any]:
    """The page's shapes of a Gnavspiel match every viewer sees: the deal, dealer and pot
    (`facts`), every seat's chips and debt (`seats`); no card (G4)."""
    dealer = names[m.log.dealer if m.log is not None else m.dealer]
    seats = []
    for i in range(len(names)):
        facts = [{"sym": "●", "text": cat.t("gnavspiel.web.chips", chips=m.chips[i])}]
        if m.debts[i]:
            facts.append({"sym": "−", "text": cat.t("gnavspiel.web.debt", debt=m.debts[i])})
        seats.append({"facts": facts})
    return {
        "facts": [cat.t("gnavspiel.status.title", deal=m.deal_no, dealer=dealer, pot=m.pot)],
        "seats": seats,
    }


def web_own(
    m: Match, seat: int, names: Sequence[str], label: str, text: Callable[[str], str]
) -> dict[str, Any]:
    """`seat`'s own card while it holds one (G4: for `seat` only); `label` titles it, `text`
    names a card in the table's language."""
    if m.phase in ("play", "loan") and 0 <= seat < len(names):
        card = m.hands[seat]
        if card >= 0:
            return {"own": {"title": label, "tiles": [card_tile(card, text)]}}
    return {}


def card_tile(card: int, text: Callable[[str], str]) -> dict[str, Any]:
    """A card as a tile, named in the table's language."""
    return own_tile(text(card_name(card)))


def hands(m: Match, text: Callable[[str], str]) -> list[list[dict[str, Any]]]:
    """Every seat's card now (the replay's: the record is public)."""
    return [[card_tile(c, text)] if c >= 0 else [] for c in m.hands]
