"""The games this bot hosts, by name: what the composition root hands the table service.

The service imports no game; `bot/cli.py` (the composition root) registers these. The first one
is the game a new table plays unless the channel chose another. `GAME_NAMES` lists them without
importing any game (what `gnav-bot replay` names when a record's game is unknown);
`all_games` builds each game (its rules and its view, bot/service/game.py) and checks that the
two lists agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `gnav-bot replay` reads GAME_NAMES without the service (nor pydantic)
    from bot.service.game import Game

#: Every hosted game's name, the default first (each is its rules' `name`).
GAME_NAMES: tuple[str, ...] = ("gnav", "gnavspiel", "karnaval")


def all_games() -> dict[str, Game]:
    """Every game, by name, the default first."""
    from bot.games.gnav.game import GnavRules, GnavView
    from bot.games.gnavspiel.game import GnavspielRules, GnavspielView
    from bot.games.karnaval.game import KarnavalRules, KarnavalView
    from bot.service.game import Game

    games = [
        Game(GnavRules(), GnavView),
        Game(GnavspielRules(), GnavspielView),
        Game(KarnavalRules(), KarnavalView),
    ]
    names = tuple(g.name for g in games)
    if names != GAME_NAMES:  # one list of games: a game added here is named above too
        raise RuntimeError(f"bot/games/registry.py: GAME_NAMES {GAME_NAMES} != the rules {names}")
    return {g.name: g for g in games}
