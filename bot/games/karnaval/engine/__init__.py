"""The pure Karnaval rules engine (../shared/KARNAVAL.md) and its records.

Standard library only; no I/O, time, logging or global `random`: chance (the draw, the deals)
is handed in. `Karnaval` is the match; `record` reads and writes KARNAVAL_RECORD.md records.
"""

from bot.games.karnaval.engine.errors import (
    IllegalBid,
    IllegalChoice,
    IllegalPlay,
    InvalidDeal,
    InvalidDraw,
    MatchOver,
    NotYourTurn,
    RuleError,
    WrongPhase,
)
from bot.games.karnaval.engine.events import EVERYONE, Event
from bot.games.karnaval.engine.game import (
    Choice,
    Karnaval,
    Play,
    draw_next,
    draw_winner,
    score,
)

__all__ = [
    "EVERYONE",
    "Choice",
    "Event",
    "IllegalBid",
    "IllegalChoice",
    "IllegalPlay",
    "InvalidDeal",
    "InvalidDraw",
    "Karnaval",
    "MatchOver",
    "NotYourTurn",
    "Play",
    "RuleError",
    "WrongPhase",
    "draw_next",
    "draw_winner",
    "score",
]
