"""Karnaval as a table game (issue 13 point 2), through the service with people and a bot:
the draw (K2, KC1, KC4), bids and plays chosen from the seat's choices, timeouts, the score
sheet after each deal, export and replay, hidden hands kept hidden, statistics."""

from __future__ import annotations

import io
import random
import re

from PIL import Image

from bot.games.karnaval.engine.record import outcome
from bot.games.karnaval.game import card_text
from bot.games.replay import replay_text
from bot.service.commands import (
    Act,
    Configure,
    Export,
    Join,
    Leave,
    Open,
    PrivateView,
    Sheet,
    Start,
    Stats,
    Stop,
    Top,
)
from bot.service.table import User
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness


async def _open(h: Harness) -> None:
    svc = h.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    reply = await svc.handle(Configure(CHANNEL, ALICE, ["game=karnaval", "bots=1"]))
    assert reply.ok, reply.text
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await h.settle()


async def _play(h: Harness, rng: random.Random, *, timeouts: bool = False) -> None:
    svc = h.service
    for _ in range(20000):
        await h.settle()
        table = await h.table()
        if table.status == "closed":
            return
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            h.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = table.seats[deciders[0]]
        if seat.bot:
            continue
        if timeouts and rng.random() < 0.05:
            h.clock.advance(table.settings.turn_timeout + 1)
            continue
        user = User(seat.user, seat.name)
        hand = await svc.handle(PrivateView(CHANNEL, user))
        assert "Your hand" in hand.text
        choice = rng.choice(list(rules.choices(table.match, deciders[0])))
        reply = await svc.handle(Act(CHANNEL, user, choice.action, arg=choice.arg))
        assert reply.ok, (choice, reply.text)
    raise AssertionError("the game did not end")


async def test_a_whole_karnaval_game_with_people_and_a_bot_K2_K3_K20(harness: Harness) -> None:
    await _open(harness)
    table = await harness.table()
    assert table.game == "karnaval"
    k = table.match.k
    assert k.draw and k.first == __import__(
        "bot.games.karnaval.engine", fromlist=["draw_winner"]
    ).draw_winner(k.names, k.draw)
    texts = [s.text for m in harness.notifier.posts(CHANNEL.key) for s in m.history]
    assert any("Draw for the first player" in t for t in texts)
    assert any("is player 1" in t for t in texts)
    await _play(harness, random.Random(2))
    table = await harness.table()
    k = table.match.k
    assert table.closed_reason == "finished" and k.phase == "over"
    final = harness.notifier.last(CHANNEL.key).screen
    assert "Winner" in final.text
    # K20: at the end the sheet is a picture, its alt the whole text sheet with the totals.
    assert final.image is not None and not final.blocks
    assert final.image.alt.splitlines()[-2].lstrip().startswith("Tot")
    # After the other deals the sheet is a preformatted block (its columns kept), whole.
    before = harness.notifier.posts(CHANNEL.key)[-3].history[0]
    assert before.text.startswith("Deal 11 of 12") and before.image is None
    assert len(before.blocks) == 1 and before.blocks[0] in before.text
    # No hidden hand in the group: the private hand texts never appear there.
    for msg in harness.notifier.posts(CHANNEL.key):
        for screen in msg.history:
            assert "Your hand" not in screen.text
    assert any("Your hand" in t for t in harness.notifier.private[ALICE.key])
    exported = await harness.service.handle(Export(CHANNEL))
    assert replay_text(exported.document[1].decode()) == outcome(k)
    stats = await harness.service.handle(Stats(CHANNEL, ALICE))
    assert "Karnaval games" in stats.text and "12 deals" in stats.text
    alice_total = k.totals()[table.seat_of(ALICE.key)]
    assert f"best game total {alice_total}." in stats.text
    assert "Best Karnaval" in (await harness.service.handle(Top(CHANNEL))).text


async def test_karnaval_timeouts_play_a_legal_choice(harness: Harness) -> None:
    await _open(harness)
    await _play(harness, random.Random(4), timeouts=True)
    table = await harness.table()
    assert table.status == "closed"
    exported = await harness.service.handle(Export(CHANNEL))
    assert replay_text(exported.document[1].decode()) == outcome(table.match.k)


async def test_export_during_a_deal_never_shows_its_hands(harness: Harness) -> None:
    await _open(harness)
    exported = await harness.service.handle(Export(CHANNEL))
    assert '"deals": []' in exported.document[1].decode()


async def test_the_score_sheet_picture_ends_each_quarter_on_its_result_message_K3_K20(
    harness: Harness,
) -> None:
    """The sheet as a PNG after the last deal of each quarter (the fourth's is the end of the
    game), carried by that deal's result message: no message of its own, so a deal still
    adds two messages to the channel (its table message and its result)."""
    await _open(harness)
    await _play(harness, random.Random(3))
    table = await harness.table()
    k = table.match.k
    assert k.phase == "over" and k.deal_total == 12  # three players: 4 quarters of 3 deals
    posts = harness.notifier.posts(CHANNEL.key)
    first = [m.history[0] for m in posts]  # each message as posted
    results = [s for s in first if re.match(r"Deal \d+ of 12: ", s.text)]
    assert len(results) == 12  # one result message per deal
    pictured = [s for s in first if s.image is not None]
    assert [s.text.split(":")[0] for s in pictured] == [f"Deal {d} of 12" for d in (3, 6, 9, 12)]
    names = [s.image.filename for s in pictured if s.image]
    assert names == [*(f"karnaval-sheet-q{q}.png" for q in (1, 2, 3)), "karnaval-sheet.png"]
    # Two new messages per deal: the lobby, then per deal its table message and its result.
    assert len(posts) == 1 + 2 * 12
    for q, screen in enumerate(pictured, 1):
        picture = screen.image
        assert picture is not None
        with Image.open(io.BytesIO(picture.data)) as img:
            assert img.format == "PNG"
            width, height = img.size
            img.load()  # the whole image decodes
        assert 300 <= width <= 2000 and 400 <= height <= 2000, (width, height)
        # What the picture shows, as text: the quarter just ended is summed up.
        assert f"Q{q}|" in picture.alt.replace(" ", "")
        assert not screen.blocks  # the picture is the sheet: no text grid beside it
        assert "Your hand" not in screen.text
    assert "Total|" in pictured[-1].image.alt.replace(" ", "")  # type: ignore[union-attr]
    assert "Winner" in pictured[-1].text


def test_cards_for_people() -> None:
    assert (card_text("QS"), card_text("10H"), card_text("JK")) == ("Q♠", "10♥", "🃏")


async def test_open_names_the_game_of_the_new_table(harness: Harness) -> None:
    svc = harness.service
    refused = await svc.handle(Open(CHANNEL, ALICE, game="chess"))
    assert not refused.ok and "chess" in refused.text and "karnaval" in refused.text
    assert (await svc.handle(Open(CHANNEL, ALICE, game="karnaval"))).ok
    table = await harness.table()
    assert table.game == "karnaval" and table.status == "lobby"
    assert "game" not in (await svc.repo.load_settings(CHANNEL.key) or {})  # the channel's own


async def test_three_timeouts_give_the_seat_to_the_bot_until_join_takes_it_back(
    harness: Harness,
) -> None:
    """Issue 13 point 5: a timed-out choice is the bot strategy's, announced as such; three in a
    row and the bot plays the seat (a Karnaval seat keeps its score column); /gnav_join takes it
    back."""
    h, svc = harness, harness.service
    await _open(h)
    table = await h.table()
    alice = table.seat_of(ALICE.key)
    timeouts = 0
    for _ in range(2000):
        await h.settle()
        table = await h.table()
        rules = svc.game_of(table)
        if not table.seats[alice].in_match:  # left: the service keeps it (Seat.left)
            break
        deciders = rules.deciders(table.match)
        if not deciders:
            h.clock.advance(table.settings.next_round_delay + 1)
        elif deciders[0] == alice:
            h.clock.advance(table.settings.turn_timeout + 1)
            timeouts += 1
        elif not table.seats[deciders[0]].bot:
            choice = rules.choices(table.match, deciders[0])[0]
            assert (await svc.handle(Act(CHANNEL, BOB, choice.action, arg=choice.arg))).ok
    assert timeouts == 3
    log = [svc.texts(table).t(k, **p) for k, p in table.log]
    assert sum("ran out of time: the bot chose for them" in line for line in log) == 3
    assert any("Alice is played by the bot from now on" in line for line in log)
    # The bot plays Alice's seat: the game goes on without waiting for her.
    table = await h.table()
    k = table.match.k
    deals = len(k.deals)
    for _ in range(2000):
        await h.settle()
        table = await h.table()
        rules = svc.game_of(table)
        if len(table.match.k.deals) > deals + 1:
            break
        deciders = rules.deciders(table.match)
        assert alice not in deciders
        if not deciders:
            h.clock.advance(table.settings.next_round_delay + 1)
        elif not table.seats[deciders[0]].bot:
            choice = rules.choices(table.match, deciders[0])[0]
            assert (await svc.handle(Act(CHANNEL, BOB, choice.action, arg=choice.arg))).ok
    table = await h.table()
    assert len(table.match.k.names) == 3  # her column stays on the sheet
    # She takes her seat back.
    back = await svc.handle(Join(CHANNEL, ALICE))
    assert back.ok and "yours again" in back.text, back.text
    table = await h.table()
    assert table.seats[alice].in_match and not table.seats[alice].left
    assert table.seats[alice].timeouts == 0
    assert not (await svc.handle(Join(CHANNEL, BOB))).ok  # Bob never left
    # And she chooses again when her turn comes.
    for _ in range(500):
        await h.settle()
        table = await h.table()
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            h.clock.advance(table.settings.next_round_delay + 1)
            continue
        user = ALICE if deciders[0] == alice else BOB
        choice = rules.choices(table.match, deciders[0])[0]
        assert (await svc.handle(Act(CHANNEL, user, choice.action, arg=choice.arg))).ok
        if user is ALICE:
            break
    else:
        raise AssertionError("Alice never chose again")


async def test_whose_turn_is_said_in_karnaval_words(harness: Harness) -> None:
    """The service's turn line speaks of Gnav's stay or swap; a Karnaval table has its own."""
    await _open(harness)
    text = harness.notifier.last(CHANNEL.key).screen.text
    assert "'s turn (60 s)." in text and "stay or swap" not in text


async def test_the_bots_finishing_a_game_post_the_final_sheet_picture_K20(
    harness: Harness,
) -> None:
    """The last person leaves in the first deal: the bots play the game out at once, and the
    one result message carries the final score sheet's picture (the game's end, K20)."""
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["game=karnaval", "bots=2"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await harness.settle()
    before = len(harness.notifier.order)
    assert (await svc.handle(Leave(CHANNEL, ALICE))).ok
    await harness.settle()
    table = await harness.table()
    assert table.status == "closed" and table.match.k.phase == "over"
    new_posts = [e for e in harness.notifier.order[before:] if e[0] == "post"]
    pictured = [
        harness.notifier.messages[ref].screen
        for _, _, ref in new_posts
        if harness.notifier.messages[ref].screen.image is not None
    ]
    assert len(pictured) == 1
    (result,) = pictured
    assert result.image is not None and result.image.filename == "karnaval-sheet.png"
    with Image.open(io.BytesIO(result.image.data)) as img:
        assert img.format == "PNG"
    assert "Total" in result.image.alt and "bots played on" in result.text
    # Karnaval counts deals, not rounds, in what the bots played on.
    assert re.search(r"(deals? later|more deals?)", result.text), result.text


async def test_sheet_gives_the_whole_sheet_where_the_game_keeps_one_K20(harness: Harness) -> None:
    svc = harness.service
    # A Gnav table keeps no sheet: one line says so.
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    refused = await svc.handle(Sheet(CHANNEL))
    assert not refused.ok and "no score sheet" in refused.text
    assert (await svc.handle(Stop(CHANNEL, ALICE))).ok
    await _open(harness)
    shown = await svc.handle(Sheet(CHANNEL))
    lines = shown.text.splitlines()
    assert shown.ok and shown.public and lines[0].endswith("after 0 of 12 deals")
    assert "Alice" in lines[1] and [x[:2] for x in lines if x[:1] == "Q"] == [
        "Q1",
        "Q2",
        "Q3",
        "Q4",
    ]
    assert lines[-2].startswith("Total")
