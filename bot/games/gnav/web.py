"""Gnav on the web page: the viewer's own piece, every seat's lives at the seat (N1: a piece
is hidden from the others until the reveal), and every seat's piece for the replay of a
finished match (its steps: bot/games/common/web.py, shared with Gnavspiel), shown from the deal
on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.games.common.web import own_tile
from bot.games.gnav.engine.match import NO_PIECE, Match
from bot.service.i18n import Catalog


def web_public(match: Match, names: Sequence[str], cat: Catalog) -> dict[str, Any]:
    """The page's shapes of a Gnav match every viewer sees: each seat's lives and the dealer
    (`seats`); no piece (N1: hidden from the others until the reveal)."""
    # The round's own dealer: after the reveal the engine has already passed the deal on.
    dealer = match.history[-1].dealer if match.history else match.dealer
    seats = []
    for i in range(len(names)):
        facts = [
            {"sym": "♥", "text": cat.t("gnav.web.lives", lives=match.lives[i])}
            if match.in_match[i]
            else {"sym": "", "text": cat.t("gnav.seat.out")}
        ]
        if i == dealer:
            facts.append({"sym": cat.t("gnav.seat.dealer_mark"), "text": cat.t("gnav.web.dealer")})
        seats.append({"facts": facts})
    return {"seats": seats}


def web_own(
    match: Match, seat: int, names: Sequence[str], label: str, piece: Callable[[int], str]
) -> dict[str, Any]:
    """`seat`'s own piece while the round is played, for `seat` only; `label` titles the
    piece, `piece` names a rank."""
    if match.phase == "play" and 0 <= seat < len(names):
        rank = match.hands[seat]
        if rank != NO_PIECE:
            return {"own": {"title": label, "tiles": [piece_tile(rank, piece)]}}
    return {}


def piece_tile(rank: int, piece: Callable[[int], str]) -> dict[str, Any]:
    """A piece as a tile (its name is its accessible name)."""
    return own_tile(piece(rank))


def gnav_hands(match: Match, piece: Callable[[int], str]) -> list[list[dict[str, Any]]]:
    """Every seat's piece now (the replay's: the record is public)."""
    return [[] if rank == NO_PIECE else [piece_tile(rank, piece)] for rank in match.hands]
