"""The terminal's words per language and per game (issue 11, item 7; issue 19, the terminal,
item 2): what help lists can be typed, and each game's own words, help and refusals."""

from __future__ import annotations

import pytest

from adapters.console.play import COMMANDS, SHEET, VIEW, _question, _refusal, aliases, help_text
from bot.games.registry import all_games
from bot.service.game import Choice
from bot.service.i18n import LANGUAGES, Catalog, catalog, with_game_messages

LOCAL = {
    "nb": {"stå": "stay", "bytt": "swap", "hjelp": "help", "regler": "rules"},
    "ru": {"стою": "stay", "стоп": "stay", "меняю": "swap", "помощь": "help"},
    "pt": {"fico": "stay", "troco": "swap", "ajuda": "help", "sair": "quit"},
    "de": {"bleiben": "stay", "tauschen": "swap", "hilfe": "help", "regeln": "rules"},
}
GAMES = ("gnav", "gnavspiel", "karnaval")


def _cat(language: str) -> Catalog:
    return with_game_messages(catalog(language), [g.view.messages for g in all_games().values()])


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_command_has_words_and_english_always_works(language: str) -> None:
    words = aliases(_cat(language), "gnav")
    assert set(words.values()) >= {*COMMANDS, VIEW, "stay", "swap"}
    for english in ("stay", "swap", "s", "w", "quit", "help", "piece"):
        assert english in words
    for word, command in LOCAL.get(language, {}).items():
        assert words[word] == command


@pytest.mark.parametrize("language", LANGUAGES)
def test_gnav_help_lists_the_words_of_its_language(language: str) -> None:
    cat = _cat(language)
    text = help_text(cat, "gnav")
    words = aliases(cat, "gnav")
    for word, command in LOCAL.get(language, {}).items():
        if command in ("stay", "swap"):
            assert word in text or words[word] == command
    first = {group.split()[0] for group in cat.t("console.words").split(" · ")}
    assert all(word in text for word in first), (first, text)
    assert "next (n)" not in text


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", ("gnavspiel", "karnaval"))
def test_the_other_games_have_their_own_help_and_words(language: str, game: str) -> None:
    cat = _cat(language)
    text = help_text(cat, game)
    gnav = help_text(cat, "gnav")
    assert text != gnav and "(s)" not in text and "(w)" not in text
    words = aliases(cat, game)
    # Gnav's words are not this game's (`stay` at a Gnavspiel table is not a command).
    assert "stay" not in words and "swap" not in words and "piece" not in words
    assert VIEW in words.values()
    refused = _refusal(cat, "stay", [Choice("pass")], game)
    assert refused.endswith(text) and "stay or swap" not in refused


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_question_and_a_number_out_of_the_list_speak_the_tables_language(
    language: str,
) -> None:
    cat = _cat(language)
    bids = [Choice("bid", str(n), ("karnaval.button.bid", {"n": str(n)})) for n in range(7)]
    asked = _question(cat, bids, "karnaval")
    assert "0  1  2  3  4  5  6" in asked and ") " not in asked  # the bids, as typed
    for word in ("Your bid", "Type the number"):
        assert (word in asked) == (language == "en"), (language, asked)
    for typed in ("7", "8", "99"):
        refused = _refusal(cat, typed, bids, "karnaval")
        assert "0-6" in refused and "not a command" not in refused, refused


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bid_off_the_keypad_says_which_numbers_there_are(language: str) -> None:
    # `bid 9` where the bids go 0-6 names the list, not "not a command" and the help.
    cat = _cat(language)
    bids = [Choice("bid", str(n), ("karnaval.button.bid", {"n": str(n)})) for n in range(7)]
    words = aliases(cat, "karnaval")
    typed = [w for w, target in words.items() if target == "bid"]
    for word in typed:
        refused = _refusal(cat, f"{word} 9", bids, "karnaval", words)
        assert "0-6" in refused and help_text(cat, "karnaval") not in refused, refused
    assert help_text(cat, "karnaval") in _refusal(cat, "xyz 9", bids, "karnaval", words)


def test_a_long_line_is_cut_in_the_answer() -> None:
    refused = _refusal(_cat("en"), "x" * 5000, [Choice("pass")], "gnavspiel")
    assert len(refused.splitlines()[0]) < 120 and "…" in refused


@pytest.mark.parametrize("language", LANGUAGES)
def test_karnaval_help_lists_its_sheet_word_in_every_language(language: str) -> None:
    # Issue 19, the terminal, item 4: the whole sheet on `sheet`, a word of each language.
    cat = _cat(language)
    words = aliases(cat, "karnaval")
    own = {w for w, target in words.items() if target == SHEET}
    assert "sheet" in own
    local = [w for w in own if w != "sheet"] if language != "en" else ["sheet"]
    assert local and any(w in help_text(cat, "karnaval") for w in local), (own, language)
    # Only a game that keeps a sheet has the word.
    assert SHEET not in aliases(cat, "gnav").values()
    assert SHEET not in aliases(cat, "gnavspiel").values()
