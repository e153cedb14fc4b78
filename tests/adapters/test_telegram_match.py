"""End to end on Telegram: three friends play a whole match in a group, and what goes wrong.

The real python-telegram-bot Application runs against the fake Bot API over HTTP. The deck
is stacked so that the rounds surely bring a Dragon ("Hugg av!") and a Katt ("Kiss, bytt
om!") refusal, an ordinary swap, a reveal, a next round and a winner.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import pytest

from bot.engine.pieces import DISPLAY_NAMES, RANK_NAMES, Rank
from tests.adapters.test_telegram_bench import Bench, StackedRandom
from tests.fakes.telegram_api import FakeChat, FakeTelegram, FakeUser

#: Every piece name people could read (display and ASCII spellings).
PIECE = re.compile(
    r"(?<![\w♥])("
    + "|".join(sorted({*DISPLAY_NAMES, *RANK_NAMES}, key=len, reverse=True))
    + r")(?!\w)"
)
#: Lines that may name a piece before the reveal: a matador shown when it refuses (N16), a
#: Narr announced by knocking (N5).
SHOWN = ("shows the", "draws the", "Bank, bank, bank")


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """A running fake Bot API server."""
    async with FakeTelegram() as fake:
        yield fake


def hidden_pieces_named(text: str) -> list[str]:
    """Piece names in a public text, outside the lines that show a piece by the rules.

    Outside round messages (lobby, settings, stats) a lone "0" is a count, not the piece.
    """
    lines = [line for line in text.split("\n") if not any(s in line for s in SHOWN)]
    found = PIECE.findall("\n".join(lines))
    return found if "· dealer " in text else [p for p in found if p != "0"]


def group_texts(tg: FakeTelegram, chat: FakeChat) -> list[str]:
    """Every text the bot sent or edited into a chat, in order (accepted calls only)."""
    out = []
    for call in tg.bot_calls():
        editing = call.method in ("sendMessage", "editMessageText")
        if editing and call.ok and call.params.get("chat_id") == chat.id:
            out.append(call.params["text"])
    return out


def assert_no_leak(tg: FakeTelegram, chat: FakeChat) -> int:
    """No group text names a hidden piece unless it is a reveal; returns the reveals seen."""
    reveals = 0
    for text in group_texts(tg, chat):
        if "Reveal" in text:
            reveals += 1
            continue
        assert hidden_pieces_named(text) == [], text
    return reveals


def payload_of(url: str) -> str:
    """The `start` parameter of a t.me deep link."""
    parts = urlsplit(url)
    assert parts.netloc == "t.me"
    return parse_qs(parts.query)["start"][0]


def people(tg: FakeTelegram) -> tuple[FakeUser, FakeUser, FakeUser, FakeChat]:
    alice = tg.add_user("Alice")
    bob = tg.add_user("Bob")
    carl = tg.add_user("Carl", last_name="Berg")
    group = tg.add_group("Gnav night", members=[alice, bob, carl])
    return alice, bob, carl, group


def stacked() -> StackedRandom:
    # Seats: Alice 0, Bob 1, Carl 2; Carl deals first, so Alice acts first.
    return StackedRandom(
        11,
        dealer=2,
        deals=[
            # Round 1, dealt Alice, Bob, Carl, then the bag's top.
            [Rank.IV, Rank.DRAGON, Rank.IX, Rank.II],
            # Round 2 (Alice is out; Bob deals): dealt Carl, Bob.
            [Rank.I, Rank.KATT],
        ],
    )


# ----------------------------------------------------------------------------- a whole match
async def test_three_friends_play_a_whole_match_in_a_group(tg: FakeTelegram) -> None:
    alice, bob, carl, group = people(tg)
    bench = await Bench(tg, rng=stacked()).start()
    try:
        # Alice opens a table; its message carries Join and the private-chat link.
        bench.say(alice, group, f"/gnav@{tg.bot_username}")
        lobby = await bench.wait_table(group, "Alice", button="Join")
        assert [b["text"] for b in lobby.buttons()][:3] == ["Join", "Leave", "Start"]
        link = lobby.button("Pieces by DM")["url"]
        assert payload_of(link) == f"g{group.id}" and len(payload_of(link)) <= 64

        # Alice follows the link: /start <payload> in the private chat completes it.
        tg.user_starts_bot(alice, payload_of(link))
        linked = await bench.dm(alice, "Linked")
        assert "«Gnav night»" in linked.text

        # Bob joins with the button: never started the bot, so the answer opens the link.
        joined = await bench.press(bob, group, "Join")
        assert joined.url == link and "Bob sat down" in (joined.text or "")
        # Carl joins with the command: the reply offers the link as a button.
        asked = bench.say(carl, group, "/gnav_join")
        offer = await bench.reply_to(group, asked)
        assert "Carl Berg sat down" in offer.text
        tg.user_starts_bot(carl, payload_of(offer.button("Pieces by DM")["url"]))
        await bench.dm(carl, "Linked")
        await bench.wait_table(group, "Carl Berg")

        # Settings: two lives each (the host may; the answer is public).
        asked = bench.say(alice, group, "/gnav_settings lives=2")
        assert "lives 2" in (await bench.reply_to(group, asked)).text

        # Bob may not start Alice's table (not host, not admin): an alert, nothing changes.
        refused = await bench.press(bob, group, "Start")
        assert refused.show_alert and "host" in (refused.text or "")
        assert (await bench.table(group)).status == "lobby"

        # --------------------------------------------------------------- round 1
        await bench.press(alice, group, "Start")
        round1 = await bench.wait_table(group, "round 1", button="Stay")
        assert {"Stay", "Swap", "My piece"} <= {b["text"].split(" ·")[0] for b in round1.buttons()}
        assert lobby.reply_markup is None  # the lobby message was frozen
        # Private pieces: DMs for the linked, a popup for Bob (never started the bot).
        assert "You were dealt IV" in (await bench.dm(alice, "dealt")).text
        assert "You were dealt IX" in (await bench.dm(carl, "dealt")).text
        piece = await bench.press(bob, group, "My piece")
        assert piece.show_alert and "Dragon" in (piece.text or "")
        assert tg.calls("sendMessage", chat_id=bob.id)[0].error_code == 403

        # Bob presses Stay on Alice's turn: a short alert, nothing changes.
        before = (await bench.table(group)).seq
        wrong = await bench.press(bob, group, "Stay", when="Alice's turn")
        assert wrong.show_alert and "Alice's turn" in (wrong.text or "")
        assert (await bench.table(group)).seq == before

        # Alice asks Bob to swap: Bob shows the Dragon, «Hugg av!», Alice loses a life.
        old = bench.table_message(group)
        assert old is not None
        stale_data = old.button("Stay")["callback_data"]
        await bench.press(alice, group, "Swap", when="Alice's turn")
        await bench.wait_table(group, "Hugg av")
        # A press of the button as it was before (a client that had not seen the edit).
        stale = await bench.answered(tg.user_presses(alice, group, old, stale_data, strict=False))
        assert stale.show_alert and "out of date" in (stale.text or "")

        # Bob swaps with Carl: an ordinary exchange, told to Carl privately.
        after = max(m.message_id for m in tg.messages_in(carl))
        await bench.press(bob, group, "Swap", when="Bob's turn")
        assert "now hold Dragon" in (await bench.dm(carl, "swap", after=after)).text
        # Carl deals: he stays, the round ends, everything is revealed.
        await bench.press(carl, group, "Stay", when="Carl Berg's turn")
        reveal = await bench.wait_table(group, "Reveal of round 1", button="Next round")
        for line in ("Alice: IV", "Bob: IX", "Carl Berg: Dragon", "Alice pays"):
            assert line in reveal.text
        assert "Alice is out" in reveal.text

        # --------------------------------------------------------------- round 2
        await bench.press(bob, group, "Next round")
        await bench.wait_table(group, "round 2", button="Swap")
        assert "You were dealt I." in (await bench.dm(carl, "dealt I.")).text
        # Carl asks Bob: the Katt, «Kiss, bytt om!», Carl loses a life.
        await bench.press(carl, group, "Swap", when="Carl Berg's turn")
        await bench.wait_table(group, "Kiss, bytt om")
        await bench.press(bob, group, "Stay", when="Bob's turn")
        final = await bench.tg.wait_for(
            lambda: next(
                (m for m in tg.bot_messages(group) if "Winner: Bob" in (m.text or "")), None
            ),
            what="the winner",
        )
        assert "Carl Berg is out" in final.text
        await bench.idle()
        assert (await bench.table(group)).status == "closed"

        # The record, stats and the top list of the chat.
        asked = bench.say(alice, group, "/gnav_export")
        record = await bench.reply_to(group, asked)
        assert record.document is not None and record.document["file_name"].endswith(".json")
        assert record.content is not None
        data = json.loads(record.content)
        assert len(data["rounds"]) == 2
        asked = bench.say(bob, group, "/gnav_stats")
        assert "1 wins" in (await bench.reply_to(group, asked)).text
        asked = bench.say(carl, group, "/gnav_top")
        assert "1. Bob" in (await bench.reply_to(group, asked)).text

        # No message to the group ever named a hidden piece before its reveal.
        assert assert_no_leak(tg, group) >= 2
        # Every button press was answered, every call was one Telegram accepts (or a 403 DM).
        assert all(tg.callback_answer(q).answered for q in tg._callbacks)
        refused_calls = [c for c in tg.bot_calls() if not c.ok]
        assert {(c.method, c.error_code) for c in refused_calls} <= {("sendMessage", 403)}
    finally:
        await bench.stop()


def test_the_leak_check_sees_pieces() -> None:
    assert hidden_pieces_named("Alice: IV\n▶ Bob · ♥0") == ["IV"]
    assert hidden_pieces_named("⚔️ Bob shows the Dragon: «Hugg av!» Alice loses a life") == []
    assert hidden_pieces_named("Next round in 10 s · round 1 · dealer Carl") == []
    assert hidden_pieces_named("🎲 Gnav · round 2 · dealer Bob\nCarl: 0") == ["0"]
    assert hidden_pieces_named("Turn time 60 s · bot seats at start: 0") == []
    assert hidden_pieces_named("Bob holds the Gjøk") == ["Gjøk"]
