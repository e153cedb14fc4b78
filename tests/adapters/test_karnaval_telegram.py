"""Karnaval on the real Telegram adapter, the fake Bot API and SQLite (issue 13): `/karnaval`
opens a table of it; a whole game with three people and two bot seats, one person who never
started the bot choosing by inline mode, another from the keyboard of their private chat, a
third by the service's tokens; the draw, the score sheet after each deal, hidden hands kept
hidden, and the export replayed to the same outcome."""

from __future__ import annotations

import io
import random
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

from PIL import Image

from adapters.telegram import texts
from bot.games.karnaval.engine.record import outcome
from bot.games.karnaval.game import card_text
from bot.games.karnaval.sheet import sheet_png
from bot.games.registry import all_games
from bot.games.replay import replay_text
from bot.service.commands import Export, NextRound, Press
from bot.service.ports import Button, Picture, Screen
from bot.service.table import TableKey, User
from storage.sqlite import SqliteRepository
from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import FakeChat, FakeMessage, FakeTelegram, FakeUser


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
    # The game commands come from the registry: every hosted game but the bot's own name.
    games = all_games()
    assert texts.game_commands(games) == (("gnavspiel", "gnavspiel"), ("karnaval", "karnaval"))
    for lang in texts.LANGUAGES:
        assert "Karnaval" in texts.command_text(lang, "karnaval", games)


def _dm_with(tg: FakeTelegram, user: FakeUser, tokens: set[str]) -> FakeMessage | None:
    for msg in reversed(tg.messages_in(tg.private_chat(user), from_bot=True)):
        if any(b.get("callback_data") in tokens for b in msg.buttons()):
            return msg
    return None


async def test_a_whole_karnaval_game_on_telegram(tmp_path: Path) -> None:
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
            while True:  # each turn waits for its event; the game's end ends the loop
                table = await bench.table(group)
                if table.status == "closed":
                    break
                rules = bench.service.game_of(table)
                deciders = rules.deciders(table.match)
                people = [d for d in deciders if not table.seats[d].bot]
                if not people:  # bots, or between deals (no delay at this table)
                    await bench.eventually(
                        lambda s=table.seq: _moved(bench, group, s), timeout=120, what="the bots"
                    )
                    continue
                _no_hand_shown(tg, group, table)
                seat = people[0]
                name = by_seat[seat]
                user = users[name]
                found = await bench.service.choices_of(user)
                if not found:
                    await bench.eventually(
                        lambda s=table.seq: _moved(bench, group, s), timeout=120, what="a turn"
                    )
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
                    reply = await bench.service.handle(Press(tk, user, pick.token))
                    assert reply.ok, reply.text
                    token_presses += 1

            await bench.idle()
            table = await bench.table(group)
            k = table.match.k
            assert table.closed_reason == "finished" and k.phase == "over"
            assert inline_picks and dm_presses and token_presses
            # Bids, cards and follow-ups all came up.
            assert {"bid", "play", "declare"} <= actions, actions
            # The score sheet after each deal: every deal's sheet was shown in the group.
            said = [
                str(c.params.get("text") or c.params.get("caption") or "")
                for c in tg.calls()
                if _in(c, group)
            ]
            assert k.deal_total == 20  # four quarters of five deals
            for deal in range(1, k.deal_total + 1):
                assert any(f"Deal {deal} of" in t and "score sheet" in t for t in said), deal
            last = tg.messages_in(group, from_bot=True)[-1]
            assert last.photo and "Winner" in (last.caption or ""), last
            # K20: the sheet's picture at the end of each quarter, the fourth's the final one.
            photos = [c for c in tg.calls("sendPhoto") if _in(c, group) and c.ok]
            assert [c.files["photo"][0] for c in photos] == [
                "karnaval-sheet-q1.png",
                "karnaval-sheet-q2.png",
                "karnaval-sheet-q3.png",
                "karnaval-sheet.png",
            ]
            assert [str(c.params["caption"]).split(":")[0] for c in photos] == [
                f"Deal {d} of 20" for d in (5, 10, 15, 20)
            ]
            # No hand was ever shown in the group.
            for text in said:
                assert "Your hand" not in text
            # Export and replay.
            exported = await bench.service.handle(Export(tk))
            assert replay_text(exported.document[1].decode()) == outcome(k)
        finally:
            await bench.stop()
            await repo.close()


async def _moved_on(bench: Bench, user: User, old: set[str]) -> bool:
    now = {c.token for c in await bench.service.choices_of(user)}
    return not (now & old)


async def _moved(bench: Bench, group: FakeChat, seq: int) -> bool:
    """The table moved on from version `seq` (a bot's move, the next deal, the end)."""
    table = await bench.table(group)
    return table.seq != seq or table.status == "closed"


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
                if not rules.deciders(table.match):
                    break
                seat = rules.deciders(table.match)[0]
                if table.seats[seat].bot:
                    await bench.eventually(
                        lambda s=table.seq: _moved(bench, group, s), timeout=120, what="a bot"
                    )
                    continue
                user = User(table.seats[seat].user, table.seats[seat].name)
                found = await bench.service.choices_of(user)
                if found:
                    assert (await bench.service.handle(Press(tk, user, rng.choice(found).token))).ok
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


def _png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "PNG"
        img.load()
        return img.size


async def test_the_sheet_picture_ends_a_quarter_on_its_result_message_K20() -> None:
    """A three-seat game on the fake Telegram to the end of its first quarter: the last deal's
    result message is the score sheet's photo (sendPhoto, the text as its caption, the Next
    round button under it), no message of its own, so each deal still adds two messages to
    the group; the next deal freezes it by editing its caption."""
    async with FakeTelegram() as tg:
        bench = await Bench(tg, rng=random.Random(4)).start()
        rng = random.Random(6)
        try:
            ann = tg.add_user("Ann")
            group = tg.add_group("Carnival", members=[ann])
            bench.say(ann, group, "/karnaval")
            await bench.wait_table(group, button="Join")
            said = bench.say(ann, group, "/gnav_settings bots=2 delay=300")
            await bench.reply_to(group, said)  # the reply is not one of the deal's messages
            await bench.idle()
            begin = len(tg.calls())
            bench.say(ann, group, "/gnav_start")
            await bench.wait_table(group, button="My hand")
            tk = TableKey("telegram", str(group.id))
            per_deal: list[list[str]] = []
            for _ in range(3000):
                await bench.service.outbox.drain()
                table = await bench.table(group)
                rules = bench.service.game_of(table)
                seat_of_ann = next(i for i, s in enumerate(table.seats) if not s.bot)
                user = User(table.seats[seat_of_ann].user, table.seats[seat_of_ann].name)
                if not rules.deciders(table.match):
                    await bench.idle()
                    calls = [c for c in tg.calls()[begin:] if _in(c, group)]
                    per_deal.append([c.method for c in calls if c.method.startswith("send")])
                    if len(table.match.k.deals) == 3:
                        break
                    begin = len(tg.calls())
                    assert (await bench.service.handle(NextRound(tk, user))).ok
                    continue
                if table.seats[rules.deciders(table.match)[0]].bot:
                    await bench.eventually(
                        lambda s=table.seq: _moved(bench, group, s), timeout=120, what="a bot"
                    )
                    continue
                found = await bench.service.choices_of(user)
                if found:
                    assert (await bench.service.handle(Press(tk, user, rng.choice(found).token))).ok
            else:
                raise AssertionError("the quarter did not end")
            print(f"\nnew group messages per deal of the first quarter: {per_deal}")
            # Two new messages a deal (its table message, its result), the quarter's last too.
            assert per_deal[1] == ["sendMessage", "sendMessage"], per_deal
            assert per_deal[2] == ["sendMessage", "sendPhoto"], per_deal
            assert len(per_deal[0]) <= 2 and "sendPhoto" not in per_deal[0], per_deal
            (photo_call,) = [c for c in tg.calls("sendPhoto") if _in(c, group)]
            name, data = photo_call.files["photo"]
            assert name == "karnaval-sheet-q1.png"
            width, height = _png_size(data)
            assert 300 <= width <= 1200 and 300 <= height <= 1500
            result = photo_call.response["result"]  # type: ignore[index]
            assert result["photo"][-1]["width"] == width
            assert result["caption"].startswith("Deal 3 of 12: score sheet")
            assert "Total" not in result["caption"]  # the grid is the picture, not the caption
            buttons = [b["text"] for row in result["reply_markup"]["inline_keyboard"] for b in row]
            assert any("Next" in b for b in buttons)
            # The next deal freezes the photo: its caption edited, its keyboard removed.
            assert (await bench.service.handle(NextRound(tk, user))).ok
            await bench.idle()
            photo = tg.message(group, result["message_id"])
            assert photo.photo and photo.reply_markup is None
            assert photo.caption and photo.caption.startswith("Deal 3 of 12")
            assert any(
                c.method == "editMessageCaption" and c.ok
                for c in tg.calls()
                if c.params.get("message_id") == result["message_id"]
            )
            assert not any(
                c.method == "editMessageText" and c.params.get("message_id") == result["message_id"]
                for c in tg.calls()
            )
        finally:
            await bench.stop()


async def test_a_picture_screen_on_telegram_caption_entities_and_a_long_text() -> None:
    """The notifier's pictures: the text as the caption with entities that keep names as
    typed (a name that reads as a command is a code entity), edited as a caption; a text
    over 1,024 characters follows the photo as the table message edited from then on."""
    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        try:
            group = tg.add_group("Pictures")
            notifier = bench.platform.notifier
            channel = TableKey("telegram", str(group.id)).key
            picture = Picture("sheet.png", sheet_png(_SHEET), "Q1 | 60")
            name = "Ann /stop"
            screen = Screen(f"Winner: {name}", literals=(name,), image=picture)
            ref = await notifier.post(channel, screen)
            assert ref is not None and ref.startswith("photo:")
            msg = tg.last_message(group)
            assert msg is not None and msg.photo and msg.text is None
            assert msg.caption == f"Winner: {name}"
            assert [(e["type"], e["offset"], e["length"]) for e in msg.caption_entities] == [
                ("code", 8, len(name))
            ]  # not a /stop command
            assert await notifier.edit(channel, ref, replace(screen, text=f"Over: {name}"))
            assert msg.caption == f"Over: {name}" and msg.caption_entities[0]["offset"] == 6
            assert await notifier.edit(channel, ref, replace(screen, text=f"Over: {name}"))
            # Too long for a caption: the photo, then the text with its buttons.
            before = len(tg.messages_in(group, from_bot=True))
            long_text = "\n".join(f"line {i} " + "x" * 40 for i in range(40))
            keys = ((Button("Next", "g:abc:1:next"),),)
            ref = await notifier.post(channel, Screen(long_text, keys, image=picture))
            sent = tg.messages_in(group, from_bot=True)[before:]
            assert [bool(m.photo) for m in sent] == [True, False]
            assert sent[0].caption is None and sent[1].text == long_text
            assert ref == str(sent[1].message_id) and sent[1].buttons()
            assert await notifier.edit(channel, ref, Screen(long_text + "\nmore"))
            assert sent[1].text == long_text + "\nmore"
            # A picture Telegram refuses: the text goes, the picture's alt as a `pre` block.
            broken = Picture("sheet.png", b"not a picture", "Q1 | 60")
            ref = await notifier.post(channel, Screen("Deal 3", keys, image=broken))
            last = tg.last_message(group)
            assert last is not None and ref == str(last.message_id) and not last.photo
            assert last.text == "Deal 3\nQ1 | 60" and last.buttons()
            assert [(e["type"], e["offset"]) for e in last.entities] == [("pre", 7)]
        finally:
            await bench.stop()


_SHEET = {
    "players": ["Ann", "Bo", "Cy"],
    "rows": [
        {"kind": "deal", "label": "6", "deal": 1, "bids": [1, 2, 2], "points": [10, 20, 1]},
        {
            "kind": "quarter",
            "label": "Q1",
            "quarter": 1,
            "sums": [10, 20, 1],
            "premiums": [60, 60, 0],
            "penalties": [0, 0, 0],
            "totals": [70, 80, 1],
        },
        {"kind": "total", "label": "Total", "totals": [None, None, None]},
    ],
}


async def test_gnav_sheet_answers_the_whole_sheet_in_monospace_K20() -> None:
    """`/gnav_sheet` (issue 19: the whole sheet on request): the sheet as a `pre` block, its
    columns kept; at a Gnav table a line saying there is none."""
    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        try:
            ann = tg.add_user("Ann")
            group = tg.add_group("Carnival", members=[ann])
            bench.say(ann, group, "/karnaval")
            await bench.wait_table(group, button="Join")
            bench.say(ann, group, "/gnav_settings bots=2 delay=300")
            await bench.idle()
            bench.say(ann, group, "/gnav_start")
            await bench.wait_table(group, button="My hand")
            bench.say(ann, group, "/gnav_sheet")
            await bench.idle()
            answer = next(
                m for m in reversed(tg.messages_in(group, from_bot=True)) if "Score sheet" in m.text
            )
            assert answer.text.startswith("Score sheet (bid|points) after 0 of 12 deals")
            assert "Q4" in answer.text and "Total" in answer.text
            pre = [e for e in answer.entities if e["type"] == "pre"]
            assert pre and pre[0]["offset"] == 0 and pre[0]["length"] >= len(answer.text) - 1
            assert "gnav_sheet" in texts.GROUP_COMMANDS
        finally:
            await bench.stop()
