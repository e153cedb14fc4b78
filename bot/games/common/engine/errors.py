"""The rule error every Gnav and Gnavspiel engine error derives from."""

from __future__ import annotations


class RuleError(Exception):
    """An action the rules forbid; `rule` is the RULES.md id, e.g. "N9"."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return self.message
