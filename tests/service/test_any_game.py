"""The service hosts any game: the tests-only high-card game (tests/games/highcard.py), in which
every seat chooses at once from a private hand, played through the service with no line of
service code written for it. Per-seat versions keep each private keyboard valid while other
seats act, and a press still never applies twice."""

from __future__ import annotations

import random

from bot.games.registry import all_games
from bot.service.commands import Configure, Join, Leave, NextRound, Open, Press, Start, Stop, Top
from bot.service.ports import Screen
from bot.service.service import TableService
from bot.service.table import Table, TableKey, User
from storage.memory import MemoryRepository
from tests.games.highcard import high_card
from tests.service.conftest import ALICE, BOB, CARL, CHANNEL, Harness

PRIVATE = TableKey("test", "dm-of-someone")


class HighCardHarness(Harness):
    """A harness whose service hosts high card first (the default game), then Gnav."""

    def make_service(self, seed: int = 7) -> TableService:
        return TableService(
            self.repo,
            self.notifier,
            clock=self.clock,
            rng=random.Random(seed),
            bot_delay=0.0,
            games={"highcard": high_card(), **all_games()},
        )


def keyboard(screen: Screen) -> dict[str, str]:
    """Label -> token of a screen's buttons."""
    return {b.label: b.token for row in screen.buttons for b in row}


async def _started(h: HighCardHarness, *people: User) -> None:
    await h.service.handle(Open(CHANNEL, people[0]))
    for person in people[1:]:
        await h.service.handle(Join(CHANNEL, person))
    reply = await h.service.handle(Start(CHANNEL, people[0]))
    assert reply.ok, reply.text
    await h.settle()


async def test_every_seat_gets_a_private_keyboard_and_the_table_shows_no_card() -> None:
    h = HighCardHarness(repo=MemoryRepository())
    await _started(h, ALICE, BOB, CARL)
    table = await h.table()
    assert table.game == "highcard"
    for person in (ALICE, BOB, CARL):
        screen = h.notifier.private_screens[person.key][-1]
        seat = table.seat_of(person.key)
        cards = table.match.hands[seat]
        assert sorted(keyboard(screen)) == sorted(f"Play {c}" for c in cards)
    public = h.notifier.last(CHANNEL.key).screen
    assert "My cards" in keyboard(public)  # the view button; the choices are private
    assert not any(label.startswith("Play") for label in keyboard(public))
    for seat in range(3):
        for card in table.match.hands[seat]:
            assert f"Play {card}" not in public.text


async def test_a_private_keyboard_stays_valid_while_others_act_and_never_applies_twice() -> None:
    h = HighCardHarness(repo=MemoryRepository())
    await _started(h, ALICE, BOB, CARL)
    alice_keys = keyboard(h.notifier.private_screens[ALICE.key][-1])
    bob_keys = keyboard(h.notifier.private_screens[BOB.key][-1])
    first = sorted(alice_keys)[0]
    assert (await h.service.handle(Press(CHANNEL, ALICE, alice_keys[first]))).ok
    await h.settle()
    # Bob's keyboard was made before Alice played: still his current one.
    bob_choice = sorted(bob_keys)[-1]
    assert (await h.service.handle(Press(CHANNEL, BOB, bob_keys[bob_choice]))).ok
    # Alice presses again (the same button, or another card of the old keyboard): refused.
    again = await h.service.handle(Press(CHANNEL, ALICE, alice_keys[first]))
    other = await h.service.handle(Press(CHANNEL, ALICE, alice_keys[sorted(alice_keys)[1]]))
    assert not again.ok and not other.ok
    table = await h.table()
    assert table.match.played == {
        table.seat_of(ALICE.key): int(first.split()[1]),
        table.seat_of(BOB.key): int(bob_choice.split()[1]),
    }
    # Carl may not press Bob's buttons: they are not his.
    wrong = await h.service.handle(Press(CHANNEL, CARL, bob_keys[sorted(bob_keys)[0]]))
    assert not wrong.ok


async def test_a_button_pressed_in_a_private_chat_acts_on_the_table() -> None:
    h = HighCardHarness(repo=MemoryRepository())
    await _started(h, ALICE, BOB)
    keys = keyboard(h.notifier.private_screens[ALICE.key][-1])
    reply = await h.service.handle(Press(PRIVATE, ALICE, keys[sorted(keys)[0]]))
    assert reply.ok, reply.text
    table = await h.table()
    assert table.seat_of(ALICE.key) in table.match.played


async def test_admin_rights_do_not_follow_a_button_into_another_chat() -> None:
    h = HighCardHarness(repo=MemoryRepository())
    await _started(h, ALICE, BOB)
    # Only in the lobby is "start" offered; a finished lobby button from elsewhere is stale.
    await h.service.handle(Stop(CHANNEL, ALICE))
    await h.service.handle(Open(CHANNEL, ALICE))
    await h.service.handle(Join(CHANNEL, BOB))
    await h.settle()
    start = keyboard(h.notifier.last(CHANNEL.key).screen)["Start"]
    stranger = User("test:77", "Stranger", admin=True)  # an admin of some other chat
    refused = await h.service.handle(Press(PRIVATE, stranger, start))
    assert not refused.ok
    assert (await h.table()).status == "lobby"


async def test_the_view_button_gives_the_hand_with_its_buttons() -> None:
    h = HighCardHarness(repo=MemoryRepository())
    await _started(h, ALICE, BOB)
    view = keyboard(h.notifier.last(CHANNEL.key).screen)["My cards"]
    reply = await h.service.handle(Press(CHANNEL, ALICE, view))
    assert reply.ok and reply.text.startswith("Your cards:")
    labels = [b.label for row in reply.buttons for b in row]
    assert labels and all(label.startswith("Play ") for label in labels)


async def test_people_who_do_not_choose_take_the_timeout_choice_and_bots_play() -> None:
    h = HighCardHarness(repo=MemoryRepository())
    await h.service.handle(Open(CHANNEL, ALICE))
    await h.service.handle(Configure(CHANNEL, ALICE, ["bots=2"]))
    await h.service.handle(Join(CHANNEL, BOB))
    await h.service.handle(Start(CHANNEL, ALICE))
    await h.settle()
    table = await h.table()
    assert len(table.seats) == 4
    # Bots choose by themselves; people wait for their timer.
    assert set(table.match.played) == {i for i, s in enumerate(table.seats) if s.bot}
    people = {table.seat_of(ALICE.key): ALICE, table.seat_of(BOB.key): BOB}
    lowest = {seat: min(table.match.hands[seat]) for seat in people}
    h.clock.advance(table.settings.turn_timeout + 1)
    await h.settle()
    table = await h.table()
    played = table.match.rounds[0]["played"]
    assert played.keys() == {"0", "1", "2", "3"}
    # The game's timeout rule: a person who does not choose plays their lowest card.
    assert {seat: played[str(seat)] for seat in people} == lowest
    for person in people.values():
        assert ("note.timeout", {"p": person.name}) in table.log
    # The round's message, frozen at its end, carries its log in the table's words (its text
    # shows the state and the newest entries only: the log is the `log` command's).
    frozen = "\n".join(h.notifier.posts(CHANNEL.key)[-2].screen.log)
    assert "Alice did not choose in time" in frozen and "Bob did not choose in time" in frozen


async def test_a_whole_match_ends_with_a_winner_and_its_statistics() -> None:
    h = HighCardHarness(repo=MemoryRepository())
    await _started(h, ALICE, BOB)
    for _ in range(20):
        table = await h.table()
        if table.status == "closed":
            break
        if table.match.phase != "play":
            await h.service.handle(NextRound(CHANNEL, ALICE))
            await h.settle()
            continue
        for person in (ALICE, BOB):
            screen = h.notifier.private_screens[person.key][-1]
            keys = keyboard(screen)
            if keys:
                await h.service.handle(Press(CHANNEL, person, keys[sorted(keys)[-1]]))
        await h.settle()
    table = await h.table()
    assert table.status == "closed" and table.match.winners
    winner = table.seats[table.match.winners[0]].user
    for person in (ALICE, BOB):
        found = await h.repo.player_stats(CHANNEL.chat_key, person.key, "highcard")
        assert found is not None and found.counters["matches"] == 1
        assert found.counters.get("wins", 0) == (1 if person.key == winner else 0)
    top = await h.service.handle(Top(CHANNEL))
    assert top.text.splitlines()[1].startswith("1. " + table.seats[table.match.winners[0]].name)


async def test_the_service_keeps_who_left_and_plays_their_timeout_choice_at_once() -> None:
    """The game is told only `forfeit`: the service keeps that the seat left (`Seat.left`),
    plays its timeout choice whenever the game still has it decide, without waiting for its
    timer, and refuses a second leave; when every person has left, the match is played to
    its end at once."""
    h = HighCardHarness(repo=MemoryRepository())
    await _started(h, ALICE, BOB, CARL)
    table = await h.table()
    bob = table.seat_of(BOB.key)
    lowest = min(table.match.hands[bob])
    assert (await h.service.handle(Leave(CHANNEL, BOB))).ok
    await h.settle()
    table = await h.table()
    assert table.seats[bob].left and not table.seats[bob].in_match
    assert table.match.played == {bob: lowest}  # at once: no turn timer ran
    assert not (await h.service.handle(Leave(CHANNEL, BOB))).ok  # already out
    # Kept with the table: a service started again over the same store knows it.
    row = await h.repo.load_table(CHANNEL.key)
    assert row is not None
    stored = Table.from_row(row, h.service.games)
    assert [s.left for s in stored.seats] == [s.user == BOB.key for s in table.seats]
    view = await h.service.status(CHANNEL)
    assert view is not None
    assert [s.in_match for s in view.seats] == [s.user != BOB.key for s in table.seats]
    assert (await h.service.handle(Leave(CHANNEL, ALICE))).ok
    assert (await h.service.handle(Leave(CHANNEL, CARL))).ok
    await h.settle()
    table = await h.table()
    assert table.status == "closed" and table.closed_reason == "finished"
    assert table.match.winners
