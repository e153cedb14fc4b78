"""Table service: lobby, settings, turns, tokens, timers, private pieces, announcements, stats."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from bot.games.gnav.engine.pieces import DISPLAY_NAMES, FIRST_MATADOR, NARR
from bot.games.gnav.engine.record import replay_record
from bot.service import tokens
from bot.service.commands import (
    Act,
    Configure,
    Export,
    Join,
    Kick,
    Leave,
    Open,
    Press,
    PrivateView,
    Start,
    Stats,
    Stop,
    Top,
)
from bot.service.table import TableKey, User
from tests.service.conftest import ADMIN, ALICE, BOB, CARL, CHANNEL, Harness, own


async def start_table(h: Harness, *users: User, words: list[str] | None = None) -> None:
    """Open a table with the first user as host, seat the rest, apply settings, start."""
    svc = h.service
    assert (await svc.handle(Open(CHANNEL, users[0]))).ok
    for u in users[1:]:
        assert (await svc.handle(Join(CHANNEL, u))).ok
    if words:
        reply = await svc.handle(Configure(CHANNEL, users[0], words))
        assert reply.ok, reply.text
    reply = await svc.handle(Start(CHANNEL, users[0]))
    assert reply.ok, reply.text
    await h.settle()


async def play_to_end(h: Harness, choose=None, limit: int = 2000) -> None:
    """Let people act (stay by default) and bots play until the table closes."""
    for _ in range(limit):
        await h.settle()
        table = await h.table()
        if table.status == "closed":
            return
        if table.match.phase == "play":
            user = await h.current()
            action = choose(table) if choose else "stay"
            if "swap" not in table.match.legal_actions(table.match.turn) or action not in (
                table.match.legal_actions(table.match.turn)
            ):
                action = table.match.legal_actions(table.match.turn)[0]
            reply = await h.service.handle(Act(CHANNEL, user, action))
            assert reply.ok, reply.text
        else:
            h.clock.advance(table.settings.next_round_delay + 1)
    raise AssertionError("the match did not end")


# ------------------------------------------------------------------------------------ lobby
async def test_lobby_open_join_leave_start(harness: Harness) -> None:
    svc = harness.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    again = await svc.handle(Join(CHANNEL, ALICE))
    assert not again.ok and "already" in again.text
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    assert (await svc.handle(Join(CHANNEL, CARL))).ok
    assert (await svc.handle(Leave(CHANNEL, CARL))).ok
    refused = await svc.handle(Start(CHANNEL, BOB))
    assert not refused.ok and "host" in refused.text
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await harness.settle()
    table = await harness.table()
    assert table.status == "playing"
    assert table.names == ["Alice", "Bob"]
    late = await svc.handle(Join(CHANNEL, CARL))
    assert not late.ok and "started" in late.text


async def test_start_needs_two_players_and_bots_fill_seats(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    alone = await svc.handle(Start(CHANNEL, ALICE))
    assert not alone.ok and "2" in alone.text
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["bots=3"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    table = await harness.table()
    assert [s.bot for s in table.seats] == [False, True, True, True]


async def test_lobby_caps_at_twenty_seats(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    for i in range(2, 21):
        assert (await svc.handle(Join(CHANNEL, User(f"test:{100 + i}", f"P{i}")))).ok
    full = await svc.handle(Join(CHANNEL, User("test:999", "Late")))
    assert not full.ok and "20" in full.text


async def test_host_passes_on_and_empty_lobby_closes(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    await svc.handle(Join(CHANNEL, BOB))
    await svc.handle(Leave(CHANNEL, ALICE))
    assert (await harness.table()).host == BOB.key
    await svc.handle(Leave(CHANNEL, BOB))
    table = await harness.table()
    assert table.status == "closed" and table.closed_reason == "empty"


async def test_lobby_expires_after_ten_idle_minutes(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    harness.clock.advance(9 * 60)
    await svc.handle(Join(CHANNEL, BOB))  # activity re-arms the expiry
    harness.clock.advance(9 * 60)
    await harness.settle()
    assert (await harness.table()).status == "lobby"
    harness.clock.advance(61)
    await harness.settle()
    table = await harness.table()
    assert table.status == "closed" and table.closed_reason == "expired"
    assert "10 minutes" in harness.notifier.last(CHANNEL.key).screen.text


async def test_kick_and_stop_need_host_or_admin(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    await svc.handle(Join(CHANNEL, BOB))
    await svc.handle(Join(CHANNEL, CARL))
    refused = await svc.handle(Kick(CHANNEL, BOB, "Carl"))
    assert not refused.ok
    assert (await svc.handle(Kick(CHANNEL, ADMIN, "carl"))).ok
    assert (await harness.table()).names == ["Alice", "Bob"]
    unknown = await svc.handle(Kick(CHANNEL, ALICE, "Zed"))
    assert not unknown.ok and "Zed" in unknown.text
    assert not (await svc.handle(Stop(CHANNEL, BOB))).ok
    assert (await svc.handle(Stop(CHANNEL, ALICE))).ok
    assert (await harness.table()).status == "closed"


# ------------------------------------------------------------------------------------ settings
async def test_settings_validated_with_clear_errors_and_kept_per_channel(
    harness: Harness,
) -> None:
    svc = harness.service
    # With no table open, settings are a channel admin's (see test_security.py).
    bad = await svc.handle(Configure(CHANNEL, ADMIN, ["lives=11"]))
    assert not bad.ok and "between 1 and 10" in bad.text
    bad = await svc.handle(Configure(CHANNEL, ADMIN, ["timeout=5"]))
    assert not bad.ok and "10" in bad.text and "600" in bad.text
    bad = await svc.handle(Configure(CHANNEL, ADMIN, ["rules=classic"]))
    assert not bad.ok and "norsk" in bad.text and "gnavspiel" in bad.text
    bad = await svc.handle(Configure(CHANNEL, ADMIN, ["colour=red"]))
    assert not bad.ok and "colour" in bad.text
    bad = await svc.handle(Configure(CHANNEL, ADMIN, ["lives=three"]))
    assert not bad.ok and "whole number" in bad.text
    ok = await svc.handle(Configure(CHANNEL, ADMIN, ["lives=5", "timeout", "90", "lang=nb"]))
    assert ok.ok
    await svc.handle(Open(CHANNEL, ALICE))
    table = await harness.table()
    assert (own(table.settings).lives, table.settings.turn_timeout) == (5, 90)
    assert table.settings.language == "nb"
    other = TableKey("test", "chat2")
    await svc.handle(Open(other, ALICE))
    assert own((await harness.table(other)).settings).lives == 3


async def test_only_language_changes_during_a_match(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB)
    svc = harness.service
    refused = await svc.handle(Configure(CHANNEL, ALICE, ["lives=4"]))
    assert not refused.ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["language=pt"]))).ok
    assert (await harness.table()).settings.language == "pt"


# ------------------------------------------------------------------------------------ turns
async def test_only_the_player_to_act_may_act_N8(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB)
    table = await harness.table()
    to_act = await harness.current()
    other = ALICE if to_act.key == BOB.key else BOB
    refused = await harness.service.handle(Act(CHANNEL, other, "stay"))
    assert not refused.ok and to_act.name in refused.text
    stranger = await harness.service.handle(Act(CHANNEL, CARL, "stay"))
    assert not stranger.ok and "not seated" in stranger.text
    assert (await harness.table()).seq == table.seq


async def test_stale_or_repeated_press_is_refused_never_applied_twice(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["lives=5"])
    user = await harness.current()
    stay = harness.notifier.buttons(CHANNEL.key)["Stay · Jeg står"]
    first = await harness.service.handle(Press(CHANNEL, user, stay))
    assert first.ok
    table = await harness.table()
    actions = len(table.match.history[-1].actions)
    second = await harness.service.handle(Press(CHANNEL, user, stay))
    assert not second.ok and "out of date" in second.text
    table = await harness.table()
    assert len(table.match.history[-1].actions) == actions
    junk = await harness.service.handle(Press(CHANNEL, user, "nonsense"))
    assert not junk.ok


async def test_tokens_fit_telegram_and_discord_limits() -> None:
    token = tokens.encode("zzzzzz", 10**9, "start")
    assert len(token.encode()) <= 64
    decoded = tokens.decode(token)
    assert decoded is not None and decoded.seq == 10**9 and decoded.action == "start"
    assert tokens.decode("g:abc:1:Fly") is None  # actions are lower-case
    assert tokens.decode("g:abc:1:fly:") is None  # an empty argument is malformed


async def test_timeout_counts_as_stay_and_three_in_a_row_forfeit(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, CARL, words=["lives=10", "timeout=30"])
    svc = harness.service
    sleeper = await harness.current()
    timeouts = 0
    for _ in range(200):
        table = await harness.table()
        if table.status == "closed" or not table.match.in_match[table.seat_of(sleeper.key)]:
            break
        if table.match.phase != "play":
            harness.clock.advance(table.settings.next_round_delay + 1)
            await harness.settle()
            continue
        user = await harness.current()
        if user.key == sleeper.key:
            harness.clock.advance(29)
            await harness.settle()
            assert (await harness.table()).match.turn == table.match.turn  # not yet
            harness.clock.advance(2)
            await harness.settle()
            timeouts += 1
        else:
            assert (await svc.handle(Act(CHANNEL, user, "stay"))).ok
            await harness.settle()
    table = await harness.table()
    seat = table.seat_of(sleeper.key)
    assert timeouts == 3
    assert not table.match.in_match[seat]
    texts = "\n".join(s.text for m in harness.notifier.posts(CHANNEL.key) for s in m.history)
    assert f"{sleeper.name} ran out of time" in texts
    assert "3 turns in a row" in texts


async def test_leaving_during_a_match_forfeits_at_the_reveal(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, CARL, words=["lives=5"])
    svc = harness.service
    assert (await svc.handle(Leave(CHANNEL, CARL))).ok
    await play_to_end(harness)
    table = await harness.table()
    assert not table.match.in_match[table.seat_of(CARL.key)]
    record = harness.service.game_of(table).record(table.match)
    _, outcome = replay_record(json.loads(json.dumps(record)))
    assert outcome["winners"] == [table.names[s] for s in table.match.winners]


# ------------------------------------------------------------------------------------ private
async def test_private_piece_at_the_deal_and_my_piece_always_works(harness: Harness) -> None:
    harness.notifier.closed.add(BOB.key)
    await start_table(harness, ALICE, BOB)
    assert any("dealt" in t for t in harness.notifier.private[ALICE.key])
    assert BOB.key not in harness.notifier.private
    assert await harness.service.reachable(BOB.key) is False
    piece = await harness.service.handle(PrivateView(CHANNEL, BOB))
    assert piece.ok and piece.alert and len(piece.text) <= 200
    table = await harness.table()
    held = DISPLAY_NAMES[table.match.hands[table.seat_of(BOB.key)]]
    assert held in piece.text
    not_seated = await harness.service.handle(PrivateView(CHANNEL, CARL))
    assert not not_seated.ok


async def test_unreachable_player_is_never_retried(harness: Harness) -> None:
    harness.notifier.closed.add(BOB.key)
    await start_table(harness, ALICE, BOB, words=["lives=4"])
    await play_to_end(harness, choose=lambda t: "swap")
    assert harness.notifier.tell_attempts[BOB.key] == 1
    assert harness.notifier.tell_attempts[ALICE.key] > 1


async def test_swaps_tell_both_players_their_new_piece(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, CARL, words=["lives=5"])
    for _ in range(50):
        table = await harness.table()
        if table.match.phase == "play":
            before = {u: len(harness.notifier.private.get(u, [])) for u in (ALICE.key, CARL.key)}
            user = await harness.current()
            seat = table.seat_of(user.key)
            order = table.match.order
            partner = order[order.index(seat) + 1] if seat != order[-1] else None
            if partner is not None and table.match.hands[partner] < FIRST_MATADOR:
                assert (await harness.service.handle(Act(CHANNEL, user, "swap"))).ok
                await harness.settle()
                partner_user = table.seats[partner].user
                assert len(harness.notifier.private[user.key]) > before.get(user.key, 0) or (
                    user.key == BOB.key
                )
                if partner_user in before:
                    assert len(harness.notifier.private[partner_user]) > before[partner_user]
                return
            assert (await harness.service.handle(Act(CHANNEL, user, "stay"))).ok
        else:
            harness.clock.advance(20)
        await harness.settle()
    pytest.fail("no ordinary swap happened")


# ------------------------------------------------------------------------------------ the chat
async def test_at_most_two_new_public_messages_per_round(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["bots=4", "lives=2"])
    await play_to_end(harness, choose=lambda t: "swap")
    table = await harness.table()
    rounds = len(table.match.history)
    posts = len(harness.notifier.posts(CHANNEL.key))
    assert posts <= 1 + 2 * rounds  # the lobby message, then two a round


ORDINARY_WORDS = re.compile(
    r"\b("
    + "|".join(
        re.escape(DISPLAY_NAMES[r])
        for r in range(NARR + 1, FIRST_MATADOR)
        if DISPLAY_NAMES[r] != "0"
    )
    + r")\b"
)


async def test_public_messages_never_name_a_hidden_piece_before_the_reveal(
    harness: Harness,
) -> None:
    await start_table(harness, ALICE, BOB, CARL, words=["bots=3", "lives=2"])
    await play_to_end(harness, choose=lambda t: "swap")
    for msg in harness.notifier.posts(CHANNEL.key):
        for screen in msg.history:
            text = screen.text
            if "Reveal" in text:
                continue
            assert not ORDINARY_WORDS.search(text), text


async def test_stats_top_and_export_replays(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["bots=1", "lives=2"])
    await play_to_end(harness)
    svc = harness.service
    stats = await svc.handle(Stats(CHANNEL, ALICE))
    assert "matches 1 ·" in stats.text
    top = await svc.handle(Top(CHANNEL))
    assert "Alice" in top.text and "Bob" in top.text
    export = await svc.handle(Export(CHANNEL))
    assert export.document is not None
    record = json.loads(export.document[1])
    _, outcome = replay_record(record)
    table = await harness.table()
    assert outcome["rounds"][-1]["lives"] == dict(zip(table.names, table.match.lives, strict=True))


async def test_tables_in_different_channels_play_in_parallel(harness: Harness) -> None:
    svc = harness.service
    keys = [TableKey("test", f"chat{i}", "topic" if i % 2 else None) for i in range(4)]
    players = [User(f"test:{50 + i}", f"P{i}") for i in range(4)]
    for key, user in zip(keys, players, strict=True):
        await svc.handle(Open(key, user))
        await svc.handle(Configure(key, user, ["bots=3", "lives=2", "delay=0"]))
        assert (await svc.handle(Start(key, user))).ok

    async def drive(key: TableKey, user: User) -> None:
        for _ in range(500):
            await harness.settle()
            table = await harness.table(key)
            if table.status == "closed":
                return
            if table.match.phase == "play" and table.seats[table.match.turn].user == user.key:
                legal = table.match.legal_actions(table.match.turn)
                assert (await svc.handle(Act(key, user, legal[-1]))).ok
            elif table.match.phase != "play":
                harness.clock.advance(1)
        raise AssertionError(f"{key.key} did not finish")

    await asyncio.gather(*(drive(k, u) for k, u in zip(keys, players, strict=True)))
    for key in keys:
        table = await harness.table(key)
        assert table.status == "closed"
        _, outcome = replay_record(svc.game_of(table).record(table.match))
        assert outcome["rounds"][-1]["eliminated"] or outcome["winners"] is None


async def test_a_migrated_chat_keeps_its_table_and_lives(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["lives=4"])
    svc = harness.service
    user = await harness.current()
    assert (await svc.handle(Act(CHANNEL, user, "stay"))).ok
    before = await harness.table()
    lives = list(before.match.lives)
    moved = await svc.migrate_chat("test", "chat1", "-100chat1")
    assert moved == 1
    new_key = TableKey("test", "-100chat1")
    after = await harness.table(new_key)
    assert after.status == "playing" and after.match.lives == lives
    assert (await harness.table()).status == "closed"
    user = await harness.current(new_key)
    assert (await svc.handle(Act(new_key, user, "stay"))).ok


async def test_players_are_remembered_with_their_language(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, User("test:7", "Kari", language="nb")))
    await svc.handle(Join(CHANNEL, BOB))
    stored = await harness.repo.load_player("test:7")
    assert stored == {"name": "Kari", "language": "nb"}
    assert (await harness.repo.load_player(BOB.key))["name"] == "Bob"


async def test_a_deleted_table_message_is_posted_again(harness: Harness) -> None:
    svc = harness.service
    await svc.handle(Open(CHANNEL, ALICE))
    await harness.settle()
    first = harness.notifier.last(CHANNEL.key)
    del harness.notifier.messages[first.ref]  # someone deleted the table message
    await svc.handle(Join(CHANNEL, BOB))
    await harness.settle()
    again = harness.notifier.last(CHANNEL.key)
    assert again.ref != first.ref and "Bob" in again.screen.text


async def test_export_during_a_round_never_shows_the_hidden_deal(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["lives=5"])
    export = await harness.service.handle(Export(CHANNEL))
    record = json.loads(export.document[1])
    assert record["rounds"] == []  # the first round is under way: nothing is public yet
    await play_to_end(harness)
    record = json.loads((await harness.service.handle(Export(CHANNEL))).document[1])
    table = await harness.table()
    assert len(record["rounds"]) == len(table.match.history)
