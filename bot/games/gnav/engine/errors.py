"""Typed errors of the rules engine: each names the rule (RULES.md id) it enforces."""

from __future__ import annotations


class RuleError(Exception):
    """An action the rules forbid; `rule` is the RULES.md id, e.g. "N9"."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return self.message


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
