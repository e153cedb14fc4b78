"""The Discord adapter's own texts and language choices: every catalog language, German
included (issue 19), with the same keys and placeholders as English."""

from __future__ import annotations

from string import Formatter

import discord

from adapters.discord import texts
from adapters.discord.commands import _LANGUAGE_CHOICES
from bot.service.i18n import LANGUAGES


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name}


def test_every_catalog_language_has_every_text() -> None:
    english = texts._TEXTS["en"]
    assert set(texts._TEXTS) == set(LANGUAGES)
    for language in LANGUAGES:
        assert set(texts._TEXTS[language]) == set(english), language
        for key, template in texts._TEXTS[language].items():
            assert _fields(template) == _fields(english[key]), (language, key)


def test_discord_locales_map_to_catalog_languages() -> None:
    assert texts.language_of(discord.Locale.german) == "de"
    assert texts.catalog_language(discord.Locale.german) == "de"
    assert "versuch es noch einmal" in texts.text("failed", discord.Locale.german)
    assert texts.language_of(discord.Locale.french) == "en"
    assert texts.catalog_language(discord.Locale.french) is None


def test_the_language_command_offers_every_language() -> None:
    offered = {c.value: c.name for c in _LANGUAGE_CHOICES}
    assert list(offered) == list(LANGUAGES)
    assert offered["de"] == "Deutsch"
