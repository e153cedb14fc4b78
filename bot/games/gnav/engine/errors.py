"""Typed errors of the Gnav rules engine: each names the rule (RULES.md id) it enforces. Their
base, `RuleError`, is the one Gnavspiel's errors derive from too (bot/games/common/engine)."""

from __future__ import annotations

from bot.games.common.engine.errors import RuleError

__all__ = ["BagExhausted", "InvalidDeal", "MatchOver", "NotYourTurn", "RoundOver", "RuleError"]


class NotYourTurn(RuleError):
    """Someone other than the player to act tried to act (N8)."""


class MatchOver(RuleError):
    """The match has a winner; nothing more can be played (N23)."""


class RoundOver(RuleError):
    """The round has ended; a new deal is needed before anyone acts (N18, N24)."""


class InvalidDeal(RuleError):
    """A deal or bag that the set or the seats cannot produce (N1, N4)."""


class BagExhausted(RuleError):
    """A draw past the pieces a record lists for the bag (MATCH_RECORD.md)."""
