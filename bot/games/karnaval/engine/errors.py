"""Typed rule errors of the Karnaval engine.

Each error names the rule it enforces (`rule`: a KARNAVAL.md id such as "K6", or "record" for
shape faults only a record can have), a message-catalog `key` ("karnaval.error.barred_bid"),
the `params` a translation fills in, and an English `message` worded as the error lines of
KARNAVAL_RECORD.md (without the location, which the record module adds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# A name as an error message repeats it (docs/KARNAVAL_RECORD.md, "Errors"): at most
# `MAX_SHOWN` (80) characters, cut as every game's record errors cut it.
from bot.games.common.engine.safejson import MAX_SHOWN, cut

__all__ = [
    "MAX_SHOWN",
    "IllegalBid",
    "IllegalChoice",
    "IllegalPlay",
    "InvalidDeal",
    "InvalidDraw",
    "MatchOver",
    "NotYourTurn",
    "RuleError",
    "WrongPhase",
    "cut",
    "shown",
]


def shown(text: str) -> str:
    """A value (not a card, not a choice word) as an error message repeats it: in double quotes,
    a backslash or quote in it escaped, then cut as `cut` cuts (the opening quote counts)."""
    return cut('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')


class RuleError(Exception):
    """An action the rules forbid."""

    def __init__(self, rule: str, key: str, params: Mapping[str, Any] | None, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.key = key
        self.params: dict[str, Any] = dict(params or {})
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotYourTurn(RuleError):
    """Someone other than the player to act tried to act (K6, K7, K12)."""


class WrongPhase(RuleError):
    """An action the match is not waiting for (a bid during the play, a deal mid-deal...)."""


class MatchOver(RuleError):
    """The match has been played out (K20)."""


class InvalidDraw(RuleError):
    """A draw for the first player the rules cannot produce (K2, KC1, KC4)."""


class InvalidDeal(RuleError):
    """Hands and stock that are not a deal of the 76-card deck (K1, K3, K5)."""


class IllegalBid(RuleError):
    """A bid out of range or barred (K6)."""


class IllegalPlay(RuleError):
    """A card, Karnaval or choice the rules do not allow now (K7-K16)."""


class IllegalChoice(RuleError):
    """A step of `act` that is not among `choices(seat)`."""
