"""Hints for people learning (issue 33): `hints=on` per table (off by default) shows a Hint
button to seated people; a press answers the presser alone (a popup) with what `strong` would
choose; a match played with hints on is marked in the statistics."""

from __future__ import annotations

from bot.service import tokens
from bot.service.commands import AskHint, Configure, Open, Press, PrivateView, Stats
from bot.service.ports import Button
from bot.service.table import User
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness
from tests.service.test_service import play_to_end, start_table


def hint_buttons(rows: tuple[tuple[Button, ...], ...]) -> list[Button]:
    """The Hint buttons among a screen's rows."""
    return [b for row in rows for b in row if b.kind == "hint"]


async def test_hints_are_a_table_setting_off_by_default(harness: Harness) -> None:
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await harness.table()).settings.hints == "off"
    reply = await svc.handle(Configure(CHANNEL, ALICE, ["hints=on"]))
    assert reply.ok, reply.text
    assert "hints on" in reply.text
    assert (await harness.table()).settings.hints == "on"
    bad = await svc.handle(Configure(CHANNEL, ALICE, ["hints=maybe"]))
    assert not bad.ok and "off, on" in bad.text


async def test_no_hint_button_when_hints_are_off(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB)
    assert hint_buttons(harness.notifier.last(CHANNEL.key).screen.buttons) == []
    user = await harness.current()
    reply = await harness.service.handle(AskHint(CHANNEL, user))
    assert not reply.ok and "Hints are off" in reply.text


async def test_a_gnav_hint_answers_the_presser_alone(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["hints=on"])
    (button,) = hint_buttons(harness.notifier.last(CHANNEL.key).screen.buttons)
    assert button.label == "💡 Hint"
    user = await harness.current()
    posts = len(harness.notifier.posts(CHANNEL.key))
    reply = await harness.service.handle(Press(CHANNEL, user, button.token))
    assert reply.ok and reply.alert and not reply.public, reply.text
    assert reply.text.startswith("Strong play: ")
    assert "Stay" in reply.text or "Swap" in reply.text
    assert "% of " in reply.text and "N1" not in reply.text
    # Nothing was posted or changed: the answer is the presser's alone.
    await harness.settle()
    assert len(harness.notifier.posts(CHANNEL.key)) == posts
    # The seat not to act has nothing to choose; a person not seated gets no hint.
    other = ALICE if user.key == BOB.key else BOB
    assert not (await harness.service.handle(Press(CHANNEL, other, button.token))).ok
    stranger = await harness.service.handle(Press(CHANNEL, CARL, button.token))
    assert not stranger.ok and "not seated" in stranger.text


async def test_the_hint_speaks_the_tables_language(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["hints=on", "language=de"])
    (button,) = hint_buttons(harness.notifier.last(CHANNEL.key).screen.buttons)
    assert button.label == "💡 Tipp"
    reply = await harness.service.handle(AskHint(CHANNEL, await harness.current()))
    assert reply.ok and reply.text.startswith("Starker Zug: "), reply.text


async def test_a_gnavspiel_hint_names_one_of_the_seats_choices(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["game=gnavspiel", "hints=on"])
    (button,) = hint_buttons(harness.notifier.last(CHANNEL.key).screen.buttons)
    decoded = tokens.decode(button.token)
    assert decoded is not None and decoded.action == "hint"
    table = await harness.table()
    rules = harness.service.game_of(table)
    (seat,) = rules.deciders(table.match)
    user = User(table.seats[seat].user, table.seats[seat].name)
    reply = await harness.service.handle(Press(CHANNEL, user, button.token))
    assert reply.ok and reply.alert and reply.text.startswith("Strong play: "), reply.text
    labels = [
        harness.service.view_of(table).render_line(c.label, harness.service.texts(table))
        for c in rules.choices(table.match, seat)
    ]
    assert any(f"Strong play: {label} (" in reply.text for label in labels), (labels, reply.text)


async def test_a_match_with_hints_on_is_marked_in_the_statistics(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["hints=on", "lives=1"])
    await play_to_end(harness)
    found = await harness.repo.player_stats(CHANNEL.chat_key, ALICE.key, "gnav")
    assert found is not None and found.counters["hinted"] == 1
    stats = await harness.service.handle(Stats(CHANNEL, ALICE))
    assert "Matches played with hints on: 1" in stats.text


async def test_a_match_without_hints_is_not_marked(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["lives=1"])
    await play_to_end(harness)
    found = await harness.repo.player_stats(CHANNEL.chat_key, ALICE.key, "gnav")
    assert found is not None and "hinted" not in found.counters
    assert "hints" not in (await harness.service.handle(Stats(CHANNEL, ALICE))).text


async def _karnaval_decider(harness: Harness) -> tuple[User, int]:
    """The person whose turn it is at a Karnaval table (the first bid), and their seat."""
    table = await harness.table()
    (seat,) = harness.service.game_of(table).deciders(table.match)
    return User(table.seats[seat].user, table.seats[seat].name), seat


async def test_a_karnaval_hint_sits_by_the_seats_choices_and_answers_alone(
    harness: Harness,
) -> None:
    await start_table(harness, ALICE, BOB, CARL, words=["game=karnaval", "hints=on"])
    user, seat = await _karnaval_decider(harness)
    # Karnaval's choices are private: the Hint is on the seat's own screen, by its choices.
    private = await harness.service.handle(PrivateView(CHANNEL, user))
    (button,) = hint_buttons(private.buttons)
    assert button.label == "💡 Hint"
    posts = len(harness.notifier.posts(CHANNEL.key))
    reply = await harness.service.handle(Press(CHANNEL, user, button.token))
    assert reply.ok and reply.alert and not reply.public, reply.text
    assert reply.text.startswith("Strong play: Bid "), reply.text
    assert "you take exactly your bid in " in reply.text and "% of 32 deals" in reply.text
    assert "K17" not in reply.text and "K6" not in reply.text
    table = await harness.table()
    rules = harness.service.game_of(table)
    labels = [
        harness.service.view_of(table).render_line(c.label, harness.service.texts(table))
        for c in rules.choices(table.match, seat)
    ]
    assert any(f"Strong play: {label} (" in reply.text for label in labels), (labels, reply.text)
    await harness.settle()
    assert len(harness.notifier.posts(CHANNEL.key)) == posts  # nothing public
    # A seated person whose turn it is not has nothing to choose.
    other = next(u for u in (ALICE, BOB, CARL) if u.key != user.key)
    idle = await harness.service.handle(Press(CHANNEL, other, button.token))
    assert not idle.ok and "nothing to choose" in idle.text


async def test_a_karnaval_hint_speaks_russian_with_vy(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, CARL, words=["game=karnaval", "hints=on", "language=ru"])
    user, _seat = await _karnaval_decider(harness)
    reply = await harness.service.handle(AskHint(CHANNEL, user))
    assert reply.ok and reply.text.startswith("Сильный ход: Заявка "), reply.text
    assert "вы берёте ровно столько взяток" in reply.text, reply.text


async def test_a_karnaval_table_gives_no_hint_by_default(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, CARL, words=["game=karnaval"])
    user, _seat = await _karnaval_decider(harness)
    assert hint_buttons((await harness.service.handle(PrivateView(CHANNEL, user))).buttons) == []
    assert hint_buttons(harness.notifier.last(CHANNEL.key).screen.buttons) == []
    reply = await harness.service.handle(AskHint(CHANNEL, user))
    assert not reply.ok and "Hints are off" in reply.text
