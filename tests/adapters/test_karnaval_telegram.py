"""Karnaval on the real Telegram adapter, the fake Bot API and SQLite (issue 13): `/karnaval`
opens a table of it; a whole game with three people and two bot seats, one person who never
started the bot choosing by inline mode, another from the keyboard of their private chat, a
third by the service's tokens; the draw, the score sheet after each deal, hidden hands kept
hidden, and the export replayed to the same outcome."""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from pathlib import Path

from adapters.telegram import texts
from bot.games.karnaval.engine.record import outcome
from bot.games.karnaval.game import card_text
from bot.games.replay import replay_text
from bot.service.table import TableKey, User
from storage.sqlite import SqliteRepository
from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import FakeMessage, FakeTelegram, FakeUser


async def test_karnaval_opens_a_karnaval_table_and_is_in_the_menu(tmp_path: Path) -> None:
    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        try:
            alice = tg.add_user("Alice")
            group = tg.add_group("Carnival", members=[alice])
            bench.say(alice, group, "/karnaval")
            await bench.wait_table(group, button="Join")
            table = await bench.table(group)
            assert table.game == "karnaval" and table.status == "lobby"
            # The channel's own setting is untouched: its next /gnav table plays its own game.
            stored = await bench.service.repo.load_settings(table.key.key) or {}
            assert stored.get("game", "") == ""
        finally:
            await bench.stop()
    assert "karnaval" in texts.GROUP_COMMANDS
    for lang in texts.LANGUAGES:
        assert texts.text(lang, "cmd.karnaval")


def _dm_with(tg: FakeTelegram, user: FakeUser, tokens: set[str]) -> FakeMessage | None:
    for msg in reversed(tg.messages_in(tg.private_chat(user), from_bot=True)):
        if any(b.get("callback_data") in tokens for b in msg.buttons()):
            return msg
    return None


async def test_a_whole_karnaval_game_on_telegram(tmp_path: Path) -> None:
    started = time.monotonic()
    async with FakeTelegram(inline_mode=True, inline_feedback=True) as tg:
        repo = await SqliteRepository.open(tmp_path / "store.sqlite3")
        bench = await Bench(tg, repo=repo, rng=random.Random(5)).start()
        rng = random.Random(1)
        try:
            alice = tg.add_user("Alice")  # chooses from her private chat's keyboard
            bob = tg.add_user("Bob")  # never starts the bot: chooses by inline mode
            carol = tg.add_user("Carol")  # chooses by the service's tokens
            group = tg.add_group("Carnival", members=[alice, bob, carol])
            tg.user_starts_bot(alice)
            tg.user_starts_bot(carol)
            await bench.idle()
            bench.say(alice, group, "/karnaval")
            await bench.wait_table(group, button="Join")
            bench.say(bob, group, "/gnav_join")
            await bench.wait_table(group, "Bob")
            bench.say(carol, group, "/gnav_join")
            await bench.wait_table(group, "Carol")
            bench.say(alice, group, "/gnav_settings bots=2 delay=0")
            await bench.idle()
            bench.say(alice, group, "/gnav_start")
            await bench.wait_table(group, button="My hand")
            tk = TableKey("telegram", str(group.id))
            table = await bench.table(group)
            assert table.game == "karnaval" and len(table.seats) == 5
            users = {s.name: User(s.user, s.name) for s in table.seats if not s.bot}
            by_seat = {i: s.name for i, s in enumerate(table.seats)}
            # The draw for the first player is announced in the group.
            await bench.idle()
            said = " ".join(m.text or "" for m in tg.messages_in(group, from_bot=True))
            assert "Draw for the first player" in said and "is player 1" in said

            inline_picks = dm_presses = token_presses = 0
            actions: set[str] = set()
            for _ in range(5000):
                table = await bench.table(group)
                if table.status == "closed":
                    break
                rules = bench.service.game_of(table)
                deciders = rules.deciders(table.match) if rules.in_round(table.match) else []
                people = [d for d in deciders if not table.seats[d].bot]
                if not people:  # bots, or between deals (no delay at this table)
                    await _tick()
                    continue
                _no_hand_shown(tg, group, table)
                seat = people[0]
                name = by_seat[seat]
                user = users[name]
                found = await bench.service.choices_of(user)
                if not found:
                    await _tick()
                    continue
                tokens = {c.token for c in found}
                pick = rng.choice(found)
                actions.add(pick.token.split(":")[3])
                if name == "Alice":
                    await bench.service.outbox.drain()
                    msg = await tg.wait_for(
                        lambda t=tokens: _dm_with(tg, alice, t), what="Alice's private keyboard"
                    )
                    label = next(
                        b["text"] for b in msg.buttons() if b.get("callback_data") == pick.token
                    )
                    answer = await bench.answered(tg.user_presses_button(alice, msg, label))
                    assert not answer.show_alert, answer.text
                    dm_presses += 1
                    await bench.eventually(
                        lambda t=tokens: _moved_on(bench, users["Alice"], t), what="Alice's press"
                    )
                elif name == "Bob":
                    query_id = tg.user_types_inline(bob, group)
                    assert query_id is not None
                    results = await tg.wait_for_inline_answer(query_id)
                    chosen = next(r for r in results if r["title"] == pick.label)
                    sent = tg.user_picks_inline(bob, group, query_id, chosen["id"])
                    assert "♠" not in (sent.text or "") and "♥" not in (sent.text or "")
                    inline_picks += 1
                    await bench.eventually(
                        lambda t=tokens: _moved_on(bench, users["Bob"], t), what="Bob's pick"
                    )
                else:
                    reply = await bench.service.press(tk, user, pick.token)
                    assert reply.ok, reply.text
                    token_presses += 1
            else:
                raise AssertionError("the game did not end")

            await bench.idle()
            table = await bench.table(group)
            k = table.match.k
            assert table.closed_reason == "finished" and k.phase == "over"
            assert inline_picks and dm_presses and token_presses
            # Bids, cards and follow-ups all came up.
            assert {"bid", "play", "declare"} <= actions, actions
            # The score sheet after each deal: every deal's sheet was shown in the group.
            said = [str(c.params.get("text", "")) for c in tg.calls() if _in(c, group)]
            assert k.deal_total == 20  # four quarters of five deals
            for deal in range(1, k.deal_total + 1):
                assert any(f"Deal {deal} of" in t and "score sheet" in t for t in said), deal
            group_texts = [m.text or "" for m in tg.messages_in(group, from_bot=True)]
            assert "Winner" in group_texts[-1] and "Tot" in group_texts[-1], group_texts[-1]
            # No hand was ever shown in the group.
            for text in said:
                assert "Your hand" not in text
            # Export and replay.
            exported = await bench.service.export(tk)
            assert replay_text(exported.document[1].decode()) == outcome(k)
        finally:
            await bench.stop()
            await repo.close()
    assert time.monotonic() - started < 240


async def _moved_on(bench: Bench, user: User, old: set[str]) -> bool:
    now = {c.token for c in await bench.service.choices_of(user)}
    return not (now & old)


async def _tick() -> None:
    import asyncio

    await asyncio.sleep(0.002)


def _in(call: object, group: object) -> bool:
    return str(call.params.get("chat_id")) == str(group.id)  # type: ignore[attr-defined]


def _no_hand_shown(tg: FakeTelegram, group: object, table: object) -> None:
    """The group's newest bot messages name no held card that was never shown in public
    (played, turned as trump or drawn): a card of a hand is not named before it is played.
    (The deck holds two of most cards, so a held card's twin may have been shown.)"""
    k = table.match.k  # type: ignore[attr-defined]
    public: Counter[str] = Counter()
    for deal in k.deals:
        public.update(card_text(c) for play in deal.plays for c in play.cards)
        if deal.trump_card:
            public[card_text(deal.trump_card)] += 1
    for rnd in k.draw or []:
        public.update(card_text(c) for c in rnd.values())
    held = {card_text(c) for hand in k.current.held for c in hand}
    for msg in tg.messages_in(group, from_bot=True)[-3:]:  # type: ignore[arg-type]
        named = {w for w in re.split(r"[\s,·:()|.]+", msg.text or "") if w in held}
        assert not {c for c in named if not public[c]}, msg.text


async def test_what_a_six_player_deal_costs_in_group_messages_and_edits(tmp_path: Path) -> None:
    """3 people and 3 bots, the first deal (six cards each): the group's posts and edits from
    /gnav_start to the deal's score sheet (people choose by their tokens, bots at once)."""
    async with FakeTelegram() as tg:
        bench = await Bench(tg, rng=random.Random(2)).start()
        rng = random.Random(3)
        try:
            people = [tg.add_user(n) for n in ("Alice", "Bob", "Carol")]
            group = tg.add_group("Carnival", members=people)
            bench.say(people[0], group, "/karnaval")
            await bench.wait_table(group, button="Join")
            for p in people[1:]:
                bench.say(p, group, "/gnav_join")
                await bench.wait_table(group, p.first_name)
            bench.say(people[0], group, "/gnav_settings bots=3 delay=300")
            await bench.idle()
            begin = len(tg.calls())
            bench.say(people[0], group, "/gnav_start")
            await bench.wait_table(group, button="My hand")
            tk = TableKey("telegram", str(group.id))
            steps = 0
            for _ in range(500):
                await bench.service.outbox.drain()
                table = await bench.table(group)
                rules = bench.service.game_of(table)
                if not rules.in_round(table.match):
                    break
                seat = rules.deciders(table.match)[0]
                if table.seats[seat].bot:
                    await _tick()
                    continue
                user = User(table.seats[seat].user, table.seats[seat].name)
                found = await bench.service.choices_of(user)
                if found:
                    assert (await bench.service.press(tk, user, rng.choice(found).token)).ok
            await bench.idle()
            table = await bench.table(group)
            assert len(table.seats) == 6 and table.match.k.deals[0].complete
            steps = len(table.match.k.deals[0].bids) + len(table.match.k.deals[0].plays)
            calls = [c for c in tg.calls()[begin:] if _in(c, group)]
            posts = [c for c in calls if c.method == "sendMessage"]
            edits = [c for c in calls if c.method == "editMessageText"]
            print(
                f"\nsix-player Karnaval deal: {steps} steps, {len(posts)} posts, {len(edits)} edits"
            )
            assert len(posts) <= 4 and len(edits) <= steps + 2
        finally:
            await bench.stop()
