"""Message catalogs (N25): every language has English's keys, placeholders and Norwegian calls."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, get_args

import pytest

from bot.cli import build_parser
from bot.games.gnav.game import GnavRules, GnavView
from bot.games.registry import all_games
from bot.service.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    PLURAL_FORMS,
    Catalog,
    Template,
    placeholders,
    plural_forms,
    with_game_messages,
)
from bot.service.i18n import catalog as service_catalog
from bot.service.settings import Language

TRANSLATIONS = tuple(lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE)

#: The Norwegian calls (seed 001) that stay verbatim in every language (N25).
CALLS = (
    "Bank, bank, bank",
    "Jeg står",
    "Jeg bytter",
    "Hest forbi!",
    "Hus forbi!",
    "Hugg av!",
    "Kiss, bytt om!",
    "Stå for gjøk!",
)
#: Piece names stay Norwegian too.
PIECES = ("Gjøk", "Dragon", "Katt", "Hest", "Hus", "Potte", "Ugle", "Narr")
#: Templates that may read exactly as in English (symbols, names, numbers).
SAME_AS_ENGLISH = frozenset(
    # "normal" (the bot level) is the word in Norwegian, Portuguese and German too.
    {
        "gnav.seat.lives",
        "gnav.seat.dealer_mark",
        "gnav.seat.knocked",  # "👊 Narr": the piece keeps its Norwegian name in every language
        "gnav.reveal.hand",
        "bot.name",
        "button.start",
        "level.normal",
        # The game's name (a proper noun but in Russian) and "bot" as the bots' names say it.
        "gnav.web.name",
        "web.bot",
    }
)
BUTTON_MAX = 30
#: The service's catalog and Gnav's own (the service's holds no Gnav text): checked alike.
PACKAGES = ("bot.i18n", "bot.games.gnav.i18n")

_QUOTED = re.compile(r"«([^«»]+)»")
_COMMAND = re.compile(r"/gnav\w*")
_SETTING = re.compile(r"\b\w+=\w+")


@cache
def catalog(language: str) -> Catalog:
    """The service's catalog with Gnav's own texts merged in, as a Gnav table reads them."""
    return with_game_messages(service_catalog(language), [GnavView(GnavRules()).messages])


def _raw(language: str) -> dict[str, Template]:
    """A catalog file as written, `_comment` included; duplicate keys are an error."""

    def no_duplicates(pairs: list[tuple[str, Template]]) -> dict[str, Template]:
        keys = [k for k, _ in pairs]
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        assert not dupes, f"{language}.json repeats {dupes}"
        return dict(pairs)

    found: dict[str, Template] = {}
    for package in PACKAGES:
        path = resources.files(package).joinpath(f"{language}.json")
        own = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=no_duplicates)
        if found:
            del own["_comment"]  # each file has one; the first one stands for the language
        assert not set(own) & set(found), f"{package} repeats {sorted(set(own) & set(found))}"
        found.update(own)
    return found


def _messages(language: str) -> dict[str, Template]:
    return {k: v for k, v in _raw(language).items() if not k.startswith("_")}


ENGLISH = _messages(DEFAULT_LANGUAGE)


def _pairs() -> list[tuple[str, str]]:
    return [(lang, key) for lang in TRANSLATIONS for key in sorted(ENGLISH)]


def _forms(template: Template) -> list[str]:
    """A template's texts: itself, or every form of a plural entry."""
    return list(template.values()) if isinstance(template, dict) else [template]


def _text(template: Template) -> str:
    """All of a template's forms, for checks that look for words in it."""
    return "\n".join(_forms(template))


def _dummy(template: Template) -> dict[str, Any]:
    return {name: f"<{name}>" for name in placeholders(template)}


def _emoji(text: str) -> set[str]:
    return {c for c in text if ord(c) >= 0x2190}


def _edges(text: str) -> tuple[str, str]:
    """The leading and trailing whitespace of a template."""
    return text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]


# ------------------------------------------------------------------ keys


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_same_keys_as_english(language: str) -> None:
    english, other = set(_raw(DEFAULT_LANGUAGE)), set(_raw(language))
    assert sorted(english - other) == [], "missing keys"
    assert sorted(other - english) == [], "extra keys"


@pytest.mark.parametrize("language", LANGUAGES)
def test_file_has_a_comment_and_only_text(language: str) -> None:
    raw = _raw(language)
    assert isinstance(raw.get("_comment"), str) and raw["_comment"].strip()
    for key, value in raw.items():
        assert all(isinstance(v, str) and v.strip() for v in _forms(value)), key


@pytest.mark.parametrize("language", LANGUAGES)
def test_plural_entries_give_the_languages_forms(language: str) -> None:
    """A plural entry gives every CLDR category the language uses (Russian: one, few, many),
    and "other"; no category the language never selects."""
    needed = plural_forms(language) - {"many"} if language == "pt" else plural_forms(language)
    plurals = {k: v for k, v in _messages(language).items() if isinstance(v, dict)}
    assert plurals
    for key, forms in plurals.items():
        assert isinstance(ENGLISH[key], dict), f"{key} is plural only in {language}"
        assert set(forms) <= set(PLURAL_FORMS), key
        assert needed <= set(forms), f"{key}: no {sorted(needed - set(forms))}"


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_templates_are_translated(language: str) -> None:
    messages = _messages(language)
    same = {k for k, v in messages.items() if v == ENGLISH.get(k)}
    assert same <= SAME_AS_ENGLISH, f"left in English: {sorted(same - SAME_AS_ENGLISH)}"


# ------------------------------------------------------------------ templates


@pytest.mark.parametrize(("language", "key"), _pairs())
def test_same_placeholders(language: str, key: str) -> None:
    template = _messages(language)[key]
    assert placeholders(template) == placeholders(ENGLISH[key])
    for form in _forms(template):
        assert placeholders(form) | {"count"} >= placeholders(ENGLISH[key]) - {"count"}


@pytest.mark.parametrize(("language", "key"), _pairs())
def test_template_formats(language: str, key: str) -> None:
    template = _messages(language)[key]
    params = _dummy(ENGLISH[key])
    params.pop("count", None)
    cat = catalog(language)
    for n in (1, 2, 5, 21):
        count = {"count": n} if isinstance(template, dict) else {}
        text = cat.t(key, **count, **params)
        if not isinstance(template, dict):
            assert text == template.format(**params)
        for value in params.values():
            assert value in text
        assert "{" not in text and "}" not in text


@pytest.mark.parametrize(("language", "key"), _pairs())
def test_norwegian_calls_kept(language: str, key: str) -> None:
    english, template = _text(ENGLISH[key]), _text(_messages(language)[key])
    for call in CALLS:
        if call in english:
            assert call in template, f"{key}: {call!r} not kept"
    for quoted in _QUOTED.findall(english):
        assert quoted in template, f"{key}: «{quoted}» not kept verbatim"
    for piece in PIECES:
        if re.search(rf"\b{piece}\b", english):
            assert re.search(rf"\b{piece}\b", template), f"{key}: piece {piece} renamed"


@pytest.mark.parametrize(("language", "key"), _pairs())
def test_commands_settings_and_emoji_kept(language: str, key: str) -> None:
    english = ENGLISH[key]
    if isinstance(english, dict):  # a plural entry's forms are checked against "other"
        english = english["other"]
    for template in _forms(_messages(language)[key]):
        assert sorted(_COMMAND.findall(template)) == sorted(_COMMAND.findall(english))
        assert sorted(_SETTING.findall(template)) == sorted(_SETTING.findall(english))
        assert _emoji(template) == _emoji(english)
        assert template.count("\n") == english.count("\n")
        # Leading/trailing spaces are layout (" (host)" is appended to a name).
        assert _edges(template) == _edges(english)


# ------------------------------------------------------------------ buttons


@pytest.mark.parametrize("language", LANGUAGES)
def test_button_labels_are_short(language: str) -> None:
    buttons = {k: v for k, v in _messages(language).items() if k.startswith("button.")}
    assert buttons
    long = {k: v for k, v in buttons.items() if len(v) > BUTTON_MAX}
    assert not long, f"labels over {BUTTON_MAX} characters: {long}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_stay_and_swap_buttons_end_with_the_call(language: str) -> None:
    cat = catalog(language)
    assert cat.t("gnav.button.stay").endswith(" · Jeg står")
    assert cat.t("gnav.button.swap").endswith(" · Jeg bytter")


# ------------------------------------------------------------------ lookup


def test_unknown_language_falls_back_to_english() -> None:
    cat = catalog("xx")
    assert cat.language == DEFAULT_LANGUAGE
    assert cat.t("gnav.ev.win", p="Ada") == ENGLISH["gnav.ev.win"].format(p="Ada")


def test_missing_key_falls_back_to_english() -> None:
    partial = Catalog("nb", {"gnav.ev.pay": "💸 {p} betaler et liv"}, catalog(DEFAULT_LANGUAGE))
    assert partial.t("gnav.ev.pay", p="Ada") == "💸 Ada betaler et liv"
    assert partial.t("gnav.ev.win", p="Ada") == ENGLISH["gnav.ev.win"].format(p="Ada")
    assert partial.has("gnav.ev.win")
    with pytest.raises(KeyError):
        partial.t("no.such.key")


def test_every_language_loads_its_own_file() -> None:
    for language in LANGUAGES:
        cat = catalog(language)
        assert cat.language == language
        own = _messages(language)
        # Games' own catalogs (registered by a service) add their keys, never replace these.
        assert {k: v for k, v in cat.messages.items() if k in own} == own


@pytest.mark.parametrize("language", LANGUAGES)
def test_sample_messages(language: str) -> None:
    cat = catalog(language)
    assert "Ada" in cat.t("gnav.ev.win", p="Ada")
    knock = cat.t("gnav.ev.knock", p="Ada")
    assert "Ada" in knock and "Bank, bank, bank!" in knock
    hugg = cat.t("gnav.ev.hugg_av", p="Ada", q="Bo")
    assert "Ada" in hugg and "Bo" in hugg and "«Hugg av!»" in hugg and "Dragon" in hugg
    kiss = cat.t("gnav.ev.bag_kiss", p="Ada")
    assert kiss.count("Ada") == 2 and "«Kiss, bytt om!»" in kiss
    gjok = cat.t("gnav.ev.gjok", q="Bo", p="Ada")  # says who asked (issue 11, item 9)
    assert "«Stå for gjøk!»" in gjok and "Ada" in gjok and "Bo" in gjok
    assert "«Jeg bytter»" in cat.t("gnav.ev.swap", p="Ada", q="Bo")
    title = cat.t("gnav.lobby.title", count=3, profile="norsk", lives=3)
    assert "norsk" in title and "3" in title
    assert cat.t("gnav.seat.lives", lives=2) == "♥2"
    assert cat.t("gnav.reveal.hand", name="Ada", piece="Gjøk") == "Ada: Gjøk"
    assert "Ada 2, Bo 0" in cat.t("gnav.reveal.lives", lives="Ada 2, Bo 0")
    hold = cat.t("gnav.piece.hold", round=7, piece="XII")
    assert "7" in hold and "XII" in hold
    assert "lives=5" in cat.t("settings.error.no_value", name="lives")
    help_text = cat.t("help.text", c="/gnav_")
    assert "/gnav_settings" in help_text and "language=nb" in help_text
    discord_help = cat.bind(c="/gnav ").t("help.text")
    assert "/gnav settings" in discord_help and "/gnav new" in discord_help
    assert cat.t("lobby.host_mark").startswith(" ")
    rules = cat.t("gnav.rules.norsk", lives=cat.t("gnav.rules.lives", count=1))
    for call in CALLS:
        assert call in rules
    # Extra parameters are ignored (the service passes `table=` to the header).
    assert "3" in cat.t("private.header", round=3, table="t1")


#: What docs/glossary.md rules out, per language: a second word for a term, the other form
#: of address, a game's name as the language does not say it. Checked in every catalog
#: (the service's and every game's) and in the adapters' own words.
GLOSSARY_NOT: dict[str, tuple[str, ...]] = {
    "en": (),
    "nb": (r"(?<![\w/=.])Karnaval", r"\butdeling"),
    "ru": (
        r"(?i)(?<!\w)(?:ты|тебя|тебе|тобой|тво(?:й|я|ё|и|ю|его|ей|их))(?!\w)",
        r"(?i)(?<!\w)(?:нажми|набери|выбери|попробуй|добавь|позови|меняйся|оставь)(?!\w)",
        r"(?i)заказ",
        r"(?<![\w/=.])Karnaval",
        r"Гнав",
    ),
    "pt": (r"(?i)\bvocês?\b",),
    "de": (r"\bSie\b", r"\bIhr(?:e|en|em|er)?\b"),
}


def _every_text(language: str) -> dict[str, str]:
    """Every text of `language`: the catalogs of the service and every game, and the
    adapters' own words, by where it is."""
    from adapters.discord import texts as discord_texts
    from adapters.telegram import texts as telegram_texts

    found: dict[str, str] = {}
    for package in ("bot.i18n", *(f"bot.games.{g}.i18n" for g in all_games())):
        path = resources.files(package).joinpath(f"{language}.json")
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            if not key.startswith("_"):
                found[f"{package}:{key}"] = _text(value)
    for adapter in (telegram_texts, discord_texts):
        for key, value in adapter._TEXTS.get(language, {}).items():
            found[f"{adapter.__name__}:{key}"] = value
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalogs_follow_the_glossary(language: str) -> None:
    """One word for each term, one form of address (docs/glossary.md; issue 30)."""
    texts = _every_text(language)
    for pattern in GLOSSARY_NOT[language]:
        bad = {k: v for k, v in texts.items() if re.search(pattern, v)}
        assert not bad, f"{pattern}: {bad}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_headers_name_the_game_as_the_language_does(language: str) -> None:
    """The private screens' headers and the table's titles say the game's name and its word
    for a deal in the table's language ("🃏 Карнавал · сдача 1", not "Karnaval · сдача")."""
    cat = with_game_messages(
        service_catalog(language), [g.view.messages for g in all_games().values()]
    )
    names = {"en": "Karnaval", "nb": "Karneval", "ru": "Карнавал", "pt": "Karnaval"}
    name = names.get(language, "Karnaval")
    header = cat.t("karnaval.private.header", round=1)
    assert name in header and header.split(name, 1)[1].split("1")[0].strip(" ·") != ""
    assert name in cat.t("karnaval.status.title", quarter=1, number=1, n=3, cards=6, dealer="A")
    deal = cat.t("karnaval.private.header", round=1).split("·")[-1].strip().split(" ")[0]
    assert deal in cat.t("karnaval.status.title", quarter=1, number=1, n=3, cards=6, dealer="A")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_person_without_a_name_is_named_in_the_tables_language(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gnav-bot play` as root (or with no login name): "Player" in the table's language, as
    the bots are "Bot 1" / "Бот 1"."""
    import getpass

    from bot.cli import _login_name
    from bot.service.names import default_name

    name = default_name(language)
    assert name == catalog(language).t("player.default")
    assert (name == "Player") == (language == "en")
    monkeypatch.setattr(getpass, "getuser", lambda: "root")
    args = build_parser().parse_args(["play", "--language", language])
    assert _login_name(args) == name


def test_russian_has_three_plural_forms() -> None:
    cat = catalog("ru")
    assert cat.t("gnav.rules.lives", count=1) == "1 жизнь"
    assert cat.t("gnav.rules.lives", count=3) == "3 жизни"
    assert cat.t("gnav.rules.lives", count=5) == "5 жизней"
    assert cat.t("gnav.rules.lives", count=21) == "21 жизнь"
    assert cat.t("gnav.rules.lives", count=22) == "22 жизни"
    assert cat.t("gnav.rules.lives", count=11) == "11 жизней"


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_life_reads_in_the_singular(language: str) -> None:
    cat = catalog(language)
    one, three = cat.t("gnav.rules.lives", count=1), cat.t("gnav.rules.lives", count=3)
    assert one.startswith("1 ") and three.startswith("3 ")
    if language not in ("nb", "de"):  # Norwegian "liv", German "Leben": same in both numbers
        assert one[2:] != three[2:]
    assert "1 lives" not in cat.t("gnav.lobby.title", count=1, profile="norsk", lives=1)


def test_a_platform_has_its_own_wording_where_it_has_one() -> None:
    cat = catalog("nb").for_platform("console")
    assert "(" not in cat.t("turn.now", name="Ada", seconds=600)
    assert "600" in catalog("nb").t("turn.now", name="Ada", seconds=600)
    assert cat.t("gnav.ev.win", p="Ada") == catalog("nb").t(
        "gnav.ev.win", p="Ada"
    )  # none: the common
    assert (
        catalog("en")
        .for_platform("telegram")
        .t("gnav.turn.now", name="A", seconds=9)
        .endswith("(9 s): stay or swap.")
    )


def test_settings_and_the_terminal_offer_every_language() -> None:
    """`language=de` (issue 19) is valid wherever a language is chosen: the table settings and
    `gnav-bot play --language`."""
    assert get_args(Language) == LANGUAGES
    for language in LANGUAGES:
        assert build_parser().parse_args(["play", "--language", language]).language == language
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--language", "xx"])


def test_german_plurals_and_terminal_words() -> None:
    cat = catalog("de")
    assert cat.t("result.unfinished", count=1).startswith("Die Bots haben noch 1 Runde ")
    assert cat.t("result.unfinished", count=2).startswith("Die Bots haben noch 2 Runden ")
    assert cat.t("gnav.rules.lives", count=1) == "1 Leben"
    assert "bleiben" in cat.t("gnav.console.help") and "Jeg står" in cat.t("gnav.button.stay")
