"""What Gnav says at the table (issue 11): who asked, results once and after the reveal,
refusals in the table's language, lives and labels."""

from __future__ import annotations

import pytest

from bot.games.gnav.engine.match import Match
from bot.games.gnav.engine.pieces import DRAGON, FULL_SET, GJOK, HEST, NARR
from bot.games.gnav.game import GnavRules, GnavView
from bot.games.gnav.settings import GnavSettings
from bot.service.game import GameRuleError
from bot.service.i18n import LANGUAGES, Catalog, with_game_messages
from bot.service.i18n import catalog as service_catalog

RULES = GnavRules()
VIEW = GnavView(RULES)
NAMES = ["Ada", "Bo", "Cy"]


def catalog(language: str) -> Catalog:
    """The catalog of a Gnav table: the service's with Gnav's own texts."""
    return with_game_messages(service_catalog(language), [VIEW.messages])


def _dealt(hands: dict[int, int], profile: str = "norsk", lives: int = 3) -> Match:
    """A match of Ada, Bo and Cy (Cy deals, Ada acts first) with the given pieces."""
    match = Match(NAMES, profile=profile, lives=lives, dealer=2)
    bag = list(FULL_SET)
    for rank in hands.values():
        bag.remove(rank)
    match.start_round(hands, bag)
    return match


def _lines(outcome, language: str = "en") -> list[str]:
    cat = catalog(language)
    return [VIEW.render_line(line, cat) for line in outcome.log]


def test_a_gjok_names_who_asked() -> None:
    match = _dealt({0: 5, 1: GJOK, 2: 7})
    lines = _lines(RULES.act(match, 0, "swap"))
    assert lines[0] == "🙋 Ada asks Bo: «Jeg bytter»"
    gjok = next(line for line in lines if "Stå for gjøk" in line)
    assert "Ada" in gjok and "Bo" in gjok


def test_a_hest_passes_on_the_request_of_the_asker_who_said_jeg_bytter() -> None:
    match = _dealt({0: 5, 1: HEST, 2: 7})
    lines = _lines(RULES.act(match, 0, "swap"))
    assert lines[0] == "🙋 Ada asks Bo: «Jeg bytter»"
    assert any("Hest forbi!" in line and "Ada" in line for line in lines)
    assert any(line.startswith("🔁 Ada swaps with Cy") for line in lines)


def test_a_plain_swap_is_one_line() -> None:
    match = _dealt({0: 5, 1: 6, 2: 7})
    assert _lines(RULES.act(match, 0, "swap")) == ["🔁 Ada swaps with Bo: «Jeg bytter»"]


def test_results_are_not_logged_before_the_reveal_tells_them() -> None:
    match = _dealt({0: 5, 1: 6, 2: 7}, lives=1)
    RULES.act(match, 0, "stay")
    RULES.act(match, 1, "stay")
    outcome = RULES.act(match, 2, "stay")
    assert outcome.round_over
    keys = [key for key, _ in outcome.log]
    assert keys[-1] == "gnav.ev.reveal"
    assert not {"gnav.ev.pay", "gnav.ev.out", "gnav.ev.win"} & set(keys)
    reveal = VIEW.render_reveal(match, NAMES, catalog("en"))
    assert "❌ Ada is out" in reveal and "💸 Ada pays: lowest piece (II)" in reveal
    assert sum("Ada" in line and "pays" in line for line in reveal) == 1


def test_an_eliminated_player_never_shows_negative_lives() -> None:
    match = _dealt({0: 5, 1: DRAGON, 2: 7}, lives=1)
    RULES.act(match, 0, "swap")  # Hugg av: Ada 0
    RULES.act(match, 1, "stay")
    RULES.act(match, 2, "stay")  # the reveal: Ada pays again, -1
    status = VIEW.render_status(match, NAMES, catalog("en"))
    assert all("-1" not in line for line in status), status
    assert "Ada · out" in status
    reveal = VIEW.render_reveal(match, NAMES, catalog("en"))
    assert all("-1" not in line for line in reveal), reveal


def test_the_acting_dealers_label_follows_the_name() -> None:
    match = Match(["Ada", "Bo", "Cy", "Di"], lives=3, dealer=3)
    bag = list(FULL_SET)
    for rank in (NARR, NARR, 5, 6):
        bag.remove(rank)
    match.start_round({0: 5, 1: 6, 2: NARR, 3: NARR}, bag)  # both Narr: Cy and Di sit out
    status = VIEW.render_status(match, ["Ada", "Bo", "Cy", "Di"], catalog("en"))
    assert any(line.startswith("Bo (deals for the bag)") for line in status), status


@pytest.mark.parametrize("language", LANGUAGES)
def test_t3_refusal_in_the_tables_language_without_its_rule_id(language: str) -> None:
    """The refusal names the rule in code (`exc.rule`), never in the text (issue 30)."""
    match = _dealt({0: NARR, 1: 6, 2: 7}, profile="tradisjonell")
    with pytest.raises(GameRuleError) as refused:
        RULES.act(match, 0, "stay")
    exc = refused.value
    assert exc.rule == "T3" and exc.key == "gnav.rule.T3.narr_must_swap"
    text = catalog(language).t(exc.key, rule=exc.rule, **exc.params)
    assert "T3" not in text
    assert "may not stay" not in text or language == "en"
    assert "Narr" in text


def test_rules_follow_the_tables_lives_and_say_what_the_dealer_may_do() -> None:
    en = VIEW.rules_text(catalog("en"), GnavSettings(rules="norsk", lives=1))
    assert "1 life." in en and "3 lives" not in en
    assert "«Hus forbi!»" in en and "may swap with the bag" in en
    ru = VIEW.rules_text(catalog("ru"), GnavSettings(rules="norsk", lives=5))
    assert "5 жизней" in ru
