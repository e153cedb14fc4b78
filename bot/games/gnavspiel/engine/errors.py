"""Typed rule errors of the Gnavspiel engine.

Each error names the RULES.md rule it enforces (`rule`, e.g. "G5"), a message-catalog key
(`key`, e.g. "gnavspiel.error.not_your_turn") with its `params`, and an English `message`.
They subclass the shared `RuleError` (bot/games/common/engine), as Gnav's errors do, so code
that catches rule errors catches these too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.games.common.engine.errors import RuleError as _BaseRuleError


class RuleError(_BaseRuleError):
    """An action or setting the rules forbid."""

    def __init__(self, rule: str, key: str, params: Mapping[str, Any], message: str) -> None:
        super().__init__(rule, message)
        self.key = key
        self.params: dict[str, Any] = dict(params)


class InvalidSettings(RuleError):
    """Seats, chips, deals or variants outside what the rules allow (G1, G2, C14, C20, C24)."""


class InvalidDeal(RuleError):
    """A deal or stock the deck or the seats cannot produce (G1, G3)."""


class NotYourTurn(RuleError):
    """Someone other than the seat to decide tried to act (G4, G5, C19)."""


class IllegalChoice(RuleError):
    """The seat to decide chose something not allowed at this point (G4, G5, C5, C11, C16)."""


class VariantNotInPlay(IllegalChoice):
    """A G10 variant's action at a table that does not play it (C24)."""


class RoundOver(RuleError):
    """No deal is under way: the next one must be dealt first (G3)."""


class MatchOver(RuleError):
    """The match has ended; nothing more can be played (G9)."""
