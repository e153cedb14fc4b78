"""Issue 8 (security and bad input), in the service: who may change settings, which seat a
kick removes, what names may contain, and what setting errors say."""

from __future__ import annotations

import pytest

from bot.games.registry import all_games
from bot.service.commands import Act, Configure, Join, Kick, Open, Press, Stats
from bot.service.ports import StoreLost
from bot.service.settings import SettingsError, TableSettings, apply_changes, parse_changes
from bot.service.table import User
from storage.memory import MemoryRepository
from tests.service.conftest import ADMIN, ALICE, BOB, CHANNEL, Harness, own
from tests.service.test_service import start_table

GNAV = {"game": "gnav", "models": {n: g.rules.settings_model for n, g in all_games().items()}}


# ------------------------------------------------------------------ 1. settings are the host's
async def test_member_cannot_change_settings_without_a_table(harness: Harness) -> None:
    svc = harness.service
    refused = await svc.handle(Configure(CHANNEL, BOB, ["lives=1", "bots=19", "timeout=10"]))
    assert not refused.ok and not refused.public
    assert "admin" in refused.text
    assert await harness.repo.load_settings(CHANNEL.key) is None
    await svc.handle(Open(CHANNEL, ALICE))
    assert (await harness.table()).settings == TableSettings()


async def test_admin_changes_settings_without_a_table(harness: Harness) -> None:
    reply = await harness.service.handle(Configure(CHANNEL, ADMIN, ["lives=4"]))
    assert reply.ok
    await harness.service.handle(Open(CHANNEL, ALICE))
    assert own((await harness.table()).settings).lives == 4


async def test_member_cannot_change_the_settings_of_an_open_table(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    await svc.handle(Join(CHANNEL, BOB))
    refused = await svc.handle(Configure(CHANNEL, BOB, ["lives=1"]))
    assert not refused.ok and not refused.public
    assert "Alice" in refused.text and "admin" in refused.text  # names who may
    assert own((await harness.table()).settings).lives == 3
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["lives=2"]))).ok
    assert (await svc.handle(Configure(CHANNEL, ADMIN, ["lives=6"]))).ok
    assert own((await harness.table()).settings).lives == 6


async def test_anyone_may_read_the_settings(harness: Harness) -> None:
    shown = await harness.service.handle(Configure(CHANNEL, BOB, []))
    assert shown.ok and "lives 3" in shown.text


# ------------------------------------------------------------------ 7. errors in the user's words
async def test_setting_error_names_the_word_typed_not_the_field(harness: Harness) -> None:
    bad = await harness.service.handle(Configure(CHANNEL, ADMIN, ["timeout=abc"]))
    assert not bad.ok and "timeout" in bad.text and "turn_timeout" not in bad.text
    bad = await harness.service.handle(Configure(CHANNEL, ADMIN, ["delay=x"]))
    assert "delay" in bad.text and "next_round_delay" not in bad.text
    bad = await harness.service.handle(Configure(CHANNEL, ADMIN, ["turn", "600000"]))
    assert "turn " in bad.text and "turn_timeout" not in bad.text


@pytest.mark.parametrize("value", ["1_0", "５", "+5", "5.0", "٥", "0x5", "-1"])
def test_setting_numbers_are_plain_ascii_whole_numbers(value: str) -> None:
    with pytest.raises(SettingsError) as err:
        apply_changes(TableSettings(), parse_changes([f"lives={value}"]), **GNAV)
    assert err.value.code == "settings.error.number"


def test_setting_numbers_accept_digits_and_seconds() -> None:
    new = apply_changes(TableSettings(), parse_changes(["lives=5", "timeout=90s"]), **GNAV)
    assert (own(new).lives, new.turn_timeout) == (5, 90)


async def test_setting_error_echoes_at_most_40_characters(harness: Harness) -> None:
    long = "x" * 500
    for words in ([f"lives={long}"], [f"rules={long}"], [f"{long}=1"], [long]):
        bad = await harness.service.handle(Configure(CHANNEL, ADMIN, words))
        assert not bad.ok
        assert "x" * 41 not in bad.text, words
        assert "x" * 20 in bad.text


async def test_press_after_own_turn_timed_out_says_time_ran_out(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["lives=5", "timeout=30"])
    user = await harness.current()
    stay = harness.notifier.buttons(CHANNEL.key)["Stay · Jeg står"]
    harness.clock.advance(31)
    await harness.settle()
    late = await harness.service.handle(Press(CHANNEL, user, stay))
    assert not late.ok
    assert "time ran out" in late.text and "out of date" not in late.text
    other = BOB if user.key == ALICE.key else ALICE
    stale = await harness.service.handle(Press(CHANNEL, other, stay))
    assert not stale.ok and "time ran out" not in stale.text


# ------------------------------------------------------------------ 2. kick removes exactly one
async def test_kick_removes_exactly_the_named_player(harness: Harness) -> None:
    svc = harness.service
    upper, lower = User("test:11", "Alice"), User("test:12", "alice")
    await svc.handle(Open(CHANNEL, BOB))
    await svc.handle(Join(CHANNEL, upper))
    await svc.handle(Join(CHANNEL, lower))
    assert (await harness.table()).names == ["Bob", "Alice", "alice"]
    assert (await svc.handle(Kick(CHANNEL, BOB, "alice"))).ok
    assert (await harness.table()).names == ["Bob", "Alice"]


async def test_kick_refuses_several_case_insensitive_matches_and_lists_them(
    harness: Harness,
) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, BOB))
    await svc.handle(Join(CHANNEL, User("test:11", "Alice")))
    await svc.handle(Join(CHANNEL, User("test:12", "alice")))
    refused = await svc.handle(Kick(CHANNEL, BOB, "ALICE"))
    assert not refused.ok and "Alice, alice" in refused.text
    assert (await harness.table()).names == ["Bob", "Alice", "alice"]
    assert (await svc.handle(Kick(CHANNEL, BOB, "test:12"))).ok  # a user key (a reply, a mention)
    assert (await harness.table()).names == ["Bob", "Alice"]
    assert (await svc.handle(Kick(CHANNEL, BOB, "ALICE"))).ok  # now only one matches
    assert (await harness.table()).names == ["Bob"]


# ------------------------------------------------------------------ 3. names
async def test_names_lose_zero_width_and_bidi_controls(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, User("test:1", "Eve\u202e")))
    await svc.handle(Join(CHANNEL, User("test:2", "B\u200bo\u2066b\ufeff\u200f")))
    await svc.handle(Join(CHANNEL, User("test:3", "\u200b\u202e")))
    names = (await harness.table()).names
    assert names == ["Eve", "Bob", "?"]
    text = harness.service.render(await harness.table()).text
    assert not any(ch in text for ch in "\u202e\u200b\u2066\ufeff\u200f")


async def test_names_that_look_the_same_get_a_visible_suffix(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, User("test:1", "Tor")))
    await svc.handle(Join(CHANNEL, User("test:2", "T\u200bor")))  # the same once cleaned
    await svc.handle(Join(CHANNEL, User("test:3", "\u0422\u043er")))  # Cyrillic Т and о
    await svc.handle(Join(CHANNEL, User("test:4", "Tor  ")))
    assert (await harness.table()).names == ["Tor", "Tor (2)", "\u0422\u043er (3)", "Tor (4)"]


async def test_long_names_are_cut_at_a_word_with_an_ellipsis(harness: Harness) -> None:
    svc = harness.service
    long = "Bartholomew Aloysius Fitzgerald-Smythe the Third"
    await svc.handle(Open(CHANNEL, User("test:1", long)))
    await svc.handle(Join(CHANNEL, User("test:2", "x" * 200)))
    await svc.handle(Join(CHANNEL, User("test:3", long)))
    names = (await harness.table()).names
    assert names[0] == "Bartholomew Aloysius…"
    assert names[1] == "x" * 31 + "…"
    assert names[2] == "Bartholomew Aloysius… (2)"
    assert all(len(n) <= 32 for n in names)


# ------------------------------------------------------------------ 6. the store goes away
class VanishingRepository(MemoryRepository):
    """A store whose file goes away when `gone` is set."""

    gone = False

    async def save_table(self, row, **kwargs):  # type: ignore[no-untyped-def]
        if self.gone:
            raise StoreLost("the SQLite store /x/gnav.sqlite3 was deleted while the bot ran")
        return await super().save_table(row, **kwargs)


async def test_store_lost_refuses_every_command_and_stops_once() -> None:
    repo = VanishingRepository()
    harness = Harness(repo=repo)
    stops: list[int] = []
    harness.service.on_store_lost = lambda: stops.append(1)
    await start_table(harness, ALICE, BOB, words=["lives=5"])
    user = await harness.current()
    repo.gone = True
    pressed = await harness.service.handle(Act(CHANNEL, user, "stay"))
    assert not pressed.ok and "lost its database" in pressed.text
    for reply in (
        await harness.service.handle(Act(CHANNEL, user, "stay")),
        await harness.service.handle(Join(CHANNEL, ADMIN)),
        await harness.service.handle(Stats(CHANNEL, ALICE)),
        await harness.service.handle(Press(CHANNEL, user, "g:abc:1:stay")),
    ):
        assert not reply.ok and "lost its database" in reply.text
    assert stops == [1]
    assert harness.service.store_lost is not None


async def test_store_lost_at_a_deadline_stops_the_bot() -> None:
    repo = VanishingRepository()
    harness = Harness(repo=repo)
    stops: list[int] = []
    harness.service.on_store_lost = lambda: stops.append(1)
    await start_table(harness, ALICE, BOB, words=["lives=5", "timeout=30"])
    repo.gone = True
    harness.clock.advance(31)
    await harness.service.tick()
    assert stops == [1]
    await harness.service.shutdown()  # stores nothing, raises nothing
