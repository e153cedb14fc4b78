"""The games this bot hosts, by name: what the composition root hands the table service.

The service imports no game; `bot/cli.py` (the composition root) registers these. The first one
is the game a new table plays unless the channel chose another.
"""

from __future__ import annotations

from bot.service.game import GameRules


def all_games() -> dict[str, GameRules]:
    """Every game, by name, the default first."""
    from bot.games.gnav.game import GnavRules
    from bot.games.gnavspiel.game import GnavspielRules
    from bot.games.karnaval.game import KarnavalRules

    games: list[GameRules] = [GnavRules(), GnavspielRules(), KarnavalRules()]
    return {g.name: g for g in games}
