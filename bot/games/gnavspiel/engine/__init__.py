"""The Gnavspiel rules engine (RULES.md section 3): pure, standard library only.

`Match` holds a whole match; chance comes from outside through `Match.start_deal`. Records
(MATCH_RECORD.md, profile `gnavspiel`) are read, replayed and written by `record`.
"""

from bot.games.gnavspiel.engine.cards import CARD_BY_NAME, CARD_NAMES, DECK, card_name
from bot.games.gnavspiel.engine.errors import (
    IllegalChoice,
    InvalidDeal,
    InvalidSettings,
    MatchOver,
    NotYourTurn,
    RoundOver,
    RuleError,
    VariantNotInPlay,
)
from bot.games.gnavspiel.engine.events import EVERYONE, Event, event_text
from bot.games.gnavspiel.engine.match import Choice, Match, Result, RoundLog, Settings

__all__ = [
    "CARD_BY_NAME",
    "CARD_NAMES",
    "DECK",
    "EVERYONE",
    "Choice",
    "Event",
    "IllegalChoice",
    "InvalidDeal",
    "InvalidSettings",
    "Match",
    "MatchOver",
    "NotYourTurn",
    "Result",
    "RoundLog",
    "RoundOver",
    "RuleError",
    "Settings",
    "VariantNotInPlay",
    "card_name",
    "event_text",
]
