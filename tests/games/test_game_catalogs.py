"""Every game's own catalog (bot/games/<game>/i18n): the same keys and placeholders in every
language, and the engine's rule-error keys all present (`gnavspiel.error.*`, `karnaval.error.*`);
no text of any catalog shows a rule id, even where the service passes one (`rule=`)."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from bot.service.i18n import LANGUAGES, catalog, placeholders, with_game_messages
from tests.service.test_screen_lint import RULE_ID

ROOT = Path(__file__).resolve().parent.parent.parent
GAMES = ("gnavspiel", "karnaval")


def _messages(game: str, language: str) -> dict[str, str]:
    path = resources.files(f"bot.games.{game}.i18n").joinpath(f"{language}.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_same_keys_and_placeholders_as_english(game: str, language: str) -> None:
    english = _messages(game, "en")
    mine = _messages(game, language)
    assert set(mine) == set(english)
    for key, text in english.items():
        assert placeholders(mine[key]) == placeholders(text), (language, key)


def test_every_catalog_directory_has_exactly_the_tables_languages() -> None:
    """A language a table may choose has a file in every catalog (issue 19: German), and no
    file is left for a language nobody can choose."""
    folders = [ROOT / "bot/i18n", *sorted((ROOT / "bot/games").glob("*/i18n"))]
    assert len(folders) >= 1 + len(GAMES)
    for folder in folders:
        assert {p.stem for p in folder.glob("*.json")} == set(LANGUAGES), folder


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_error_key_of_the_engine_is_in_the_catalog(game: str) -> None:
    source = "".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "bot/games" / game / "engine").glob("*.py")
    )
    keys = set(re.findall(rf'"({game}\.error\.[a-z_]+)"', source))
    keys |= {f"{game}.error.not_{p}" for p in ("bid", "play")} if game == "karnaval" else set()
    assert keys and keys <= set(_messages(game, "en"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_of_any_catalog_shows_a_rule_id(language: str) -> None:
    """Issue 30: rule ids stay in code, tests and docs. Every template of the service's and
    every game's catalog, filled in as the service fills it (a refusal gets `rule="T3"`), and
    with its `_comment` left out, shows none ("(K11)", "Ikke lov (T3): …")."""
    from bot.games.registry import all_games

    cat = with_game_messages(catalog(language), [g.view.messages for g in all_games().values()])
    shown = []
    for key, template in cat.messages.items():
        if key.startswith("_"):
            continue
        forms = template.values() if isinstance(template, dict) else [template]
        for form in forms:
            params = {name: "x" for name in placeholders(form)} | {"rule": "T3", "count": 2}
            text = form.format(**params)
            if RULE_ID.search(text):
                shown.append(f"{key}: {text}")
    assert shown == []
