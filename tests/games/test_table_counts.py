"""Counts on the table message agree with their number in every language (issue 30: "1 pts"):
each count the game views show with a word is a plural entry of the catalogs, giving every
CLDR plural category the language has (Babel), and 1, 2 and 5 are each written in the form of
their own category ("1 point", "2 points"; "1 очко", "2 очка", "5 очков")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.games.registry import all_games
from bot.service.i18n import LANGUAGES, Catalog, catalog, plural_forms, with_game_messages

ROOT = Path(__file__).resolve().parent.parent.parent
#: The counts the table message shows with a word after them: a deal's points at each seat
#: (Karnaval), each seat's chips (Gnavspiel).
TABLE_COUNTS = ("karnaval.status.points", "gnavspiel.status.seat")
#: A message the game views fill with `count=` (what picks a plural form).
_COUNTED = re.compile(r"""cat\.t\(\s*["']([\w.]+)["'][^()]*\bcount=""")


def _catalog(language: str) -> Catalog:
    games = all_games()
    return with_game_messages(catalog(language), [g.view.messages for g in games.values()])


def _used_forms(language: str) -> set[str]:
    """The plural categories a table's counts fall in (-100..100; Portuguese's "many" is for
    millions only)."""
    cat = catalog(language)
    return {cat.plural_form(n) for n in range(-100, 101)} & plural_forms(language)


def _counted_keys() -> set[str]:
    """Every key the game views fill with a count, by their source."""
    found = set(TABLE_COUNTS)
    for path in sorted((ROOT / "bot/games").glob("*/game.py")):
        found |= set(_COUNTED.findall(path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_count_is_a_plural_entry_with_the_languages_forms(language: str) -> None:
    messages = _catalog(language).messages
    for key in sorted(_counted_keys()):
        entry = messages[key]
        assert isinstance(entry, dict), f"{language} {key}: one form for every number"
        assert _used_forms(language) <= set(entry), (language, key, sorted(entry))


@pytest.mark.parametrize("language", LANGUAGES)
def test_1_2_and_5_read_in_the_form_of_their_plural_category(language: str) -> None:
    cat = _catalog(language)
    for key in TABLE_COUNTS:
        entry = cat.messages[key]
        assert isinstance(entry, dict), f"{language} {key}: '1 pts' reads wrong"
        for n in (1, 2, 5, 21, -1):
            form = cat.plural_form(n)
            text = cat.t(key, count=n, mark="", name="Ann")
            assert text == entry.get(form, entry["other"]).format(count=n, mark="", name="Ann")
            assert str(n) in text, (language, key, n, text)
    # English says its unit in the singular for 1 only; European Portuguese, as the
    # Portuguese catalogs are written, 0 in the plural (Brazil's rule would say "0 ponto").
    if language == "pt":
        assert cat.t("karnaval.status.points", count=0) == "0 pontos"
    if language == "en":
        assert cat.t("karnaval.status.points", count=1) == "1 point"
        assert cat.t("karnaval.status.points", count=2) == "2 points"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sheets_column_words_are_shown_whole(language: str) -> None:
    """The score sheet's `bid pts` under each player is not cut to "заявка о" or "bud poen":
    the words fit the narrowest column (short names), as the sheet's title spells them out."""
    from bot.games.karnaval.engine.record import replay_record
    from bot.games.karnaval.sheet import sheet_text
    from bot.games.karnaval.web import sheet_words
    from tests.games.karnaval.vectors import VECTORS, load_json

    match, _ = replay_record(load_json(VECTORS / "public" / "seed_example.json"))
    sheet = match.sheet()
    sheet["players"] = ["A", "B", "C"][: len(sheet["players"])]
    words = sheet_words(_catalog(language))
    sub = sheet_text(sheet, words=words).splitlines()[1]
    for cell in sub.split("|")[1:]:
        assert cell.split() == [words["bid"], words["points"]], (language, sub)
