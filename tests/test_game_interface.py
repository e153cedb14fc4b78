"""The game interface stays small (issue 18, point 2): the members a game must write, of its
rules and of its view, are these and no more; everything else has a default."""

from __future__ import annotations

from bot.games.registry import all_games
from bot.service.game import GameRules, GameView
from tests.games.highcard import high_card


def test_a_game_writes_a_dozen_rules_and_three_members_of_its_view() -> None:
    assert GameRules.__abstractmethods__ == {
        "new_match",
        "dump",
        "load",
        "start_round",
        "deciders",
        "choices",
        "act",
        "timeout_choice",
        "bot_choice",
        "forfeit",
        "winners",
        "record",
    }
    # What a game must declare; `gives_hints` (issue 33) has a default, like `bot_thinking`.
    declared = {a for a in GameRules.__annotations__ if not hasattr(GameRules, a)}
    assert declared == {"name", "players", "settings_model"}
    assert set(GameRules.__annotations__) - declared == {"gives_hints"}
    assert GameRules.gives_hints is False
    assert GameView.__abstractmethods__ == {"round_number", "render_status", "private_text"}


def test_every_game_registers_rules_and_a_view_of_them_under_one_name() -> None:
    for name, game in {**all_games(), "highcard": high_card()}.items():
        assert game.name == game.rules.name == game.view.name == name
        assert game.view.rules is game.rules
        assert len(game.rules.players) >= 1 and game.rules.players[0] >= 2
