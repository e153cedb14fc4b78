"""The terminal's words per language (issue 11, item 7): what help lists can be typed."""

from __future__ import annotations

import pytest

from adapters.console.play import COMMANDS, aliases
from bot.service.i18n import LANGUAGES, catalog

LOCAL = {
    "nb": {"stå": "stay", "bytt": "swap", "hjelp": "help", "regler": "rules"},
    "ru": {"стою": "stay", "стоп": "stay", "меняю": "swap", "помощь": "help"},
    "pt": {"fico": "stay", "troco": "swap", "ajuda": "help", "sair": "quit"},
    "de": {"bleiben": "stay", "tausche": "swap", "stein": "piece", "hilfe": "help", "ende": "quit"},
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_command_has_words_and_english_always_works(language: str) -> None:
    words = aliases(catalog(language))
    assert set(words.values()) >= set(COMMANDS)
    for english in ("stay", "swap", "s", "w", "quit", "help"):
        assert english in words
    for word, command in LOCAL.get(language, {}).items():
        assert words[word] == command


@pytest.mark.parametrize("language", LANGUAGES)
def test_help_lists_the_words_of_its_language(language: str) -> None:
    cat = catalog(language)
    help_text = cat.t("console.help")
    words = aliases(cat)
    for word, command in LOCAL.get(language, {}).items():
        if command in ("stay", "swap"):
            assert word in help_text or words[word] == command
    first = {group.split()[0] for group in cat.t("console.words").split(" · ")}
    assert all(word in help_text for word in first), (first, help_text)
    assert "next (n)" not in help_text
