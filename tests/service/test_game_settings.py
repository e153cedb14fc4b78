"""Per-game settings (issue 9 point 6): generic table settings plus the game's own model."""

from __future__ import annotations

from bot.service.commands import Configure, Open
from bot.service.settings import TableSettings, load_settings
from tests.service.conftest import ADMIN, ALICE, CHANNEL, Harness, own


async def test_stored_settings_of_old_keep_working(harness: Harness) -> None:
    await harness.repo.save_settings(
        CHANNEL.key, {"profile": "tradisjonell", "lives": 5, "turn_timeout": 90}
    )
    await harness.service.handle(Open(CHANNEL, ALICE))
    table = await harness.table()
    assert (own(table.settings).rules, own(table.settings).lives) == ("tradisjonell", 5)
    assert table.settings.turn_timeout == 90 and table.game == "gnav"


async def test_settings_show_the_game_keys(harness: Harness) -> None:
    shown = await harness.service.handle(Configure(CHANNEL, ALICE, []))
    assert "rules norsk" in shown.text and "lives 3" in shown.text


async def test_rules_gnavspiel_switches_game_and_takes_its_keys_C14_C20_C24(
    harness: Harness,
) -> None:
    svc = harness.service
    ok = await svc.handle(
        Configure(
            CHANNEL, ADMIN, ["rules=gnavspiel", "chips=7", "deals=3", "variants=stand,jack_taboo"]
        )
    )
    assert ok.ok, ok.text
    assert "chips 7" in ok.text and "jack_taboo,stand" in ok.text
    await svc.handle(Open(CHANNEL, ALICE))
    table = await harness.table()
    assert table.game == "gnavspiel"
    mine = own(table.settings, "gnavspiel")
    assert (mine.chips, mine.deals, set(mine.variants)) == (7, 3, {"stand", "jack_taboo"})
    bad = await svc.handle(Configure(CHANNEL, ALICE, ["chips=21"]))
    assert not bad.ok and "chips" in bad.text and "20" in bad.text
    bad = await svc.handle(Configure(CHANNEL, ALICE, ["variants=stand,joker"]))
    assert not bad.ok and "joker" in bad.text and "jack_taboo" in bad.text
    bad = await svc.handle(Configure(CHANNEL, ALICE, ["lives=3"]))  # a Gnav word: not here
    assert not bad.ok and "lives" in bad.text and "chips" in bad.text
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["variants=none"]))).ok
    assert own((await harness.table()).settings, "gnavspiel").variants == frozenset()
    # Back to Gnav: its own settings were kept.
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["rules=tradisjonell"]))).ok
    table = await harness.table()
    assert table.game == "gnav" and own(table.settings).rules == "tradisjonell"


async def test_game_karnaval_is_chosen_by_setting(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["game=karnaval"]))).ok
    assert (await harness.table()).game == "karnaval"
    bad = await svc.handle(Configure(CHANNEL, ALICE, ["game=chess"]))
    assert not bad.ok and "chess" in bad.text and "karnaval" in bad.text
    shown = await svc.handle(Configure(CHANNEL, ALICE, []))
    assert "karnaval" in shown.text


async def test_the_stored_settings_are_their_dump(harness: Harness) -> None:
    # A table's state keeps `stored()` (a copy of the fields, cheaper than pydantic's dump at
    # every save): it must be what `model_dump()` gives, in its order, for settings as
    # people make them (typed, with every game's own) and as the store reads them back.
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    changes = [
        ["bots=3", "lives=5", "delay=0", "language=nb", "level=easy"],
        ["rules=gnavspiel", "chips=7", "variants=stand,jack_taboo"],
        ["game=karnaval"],
    ]
    for words in changes:
        assert (await svc.handle(Configure(CHANNEL, ALICE, words))).ok
        settings = (await harness.table()).settings
        assert settings.stored() == settings.model_dump()
        assert list(settings.stored()) == list(settings.model_dump())
        again = load_settings(settings.stored(), "gnav")
        assert again.stored() == again.model_dump() == settings.model_dump()
    assert TableSettings().stored() == TableSettings().model_dump()
