"""What the Gnav and Gnavspiel record readers share (MATCH_RECORD.md): their error, and how an
error line names where in the record it is."""

from __future__ import annotations


class RecordError(ValueError):
    """An invalid match record; the message is one line naming where and what."""


def where(round_no: int, action_no: int | None = None) -> str:
    """The place an error line names: `round 2`, or `round 2, action 5` (both 1-based)."""
    if action_no is None:
        return f"round {round_no}"
    return f"round {round_no}, action {action_no}"
