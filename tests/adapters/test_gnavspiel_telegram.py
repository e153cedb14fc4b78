"""Issue 12 on Telegram: a whole Gnavspiel match in a group, on the real python-telegram-bot
Application against the fake Bot API.

Alice (a group admin, who started the bot) switches the chat to Gnavspiel, opens the table, Bob
(who never started the bot) joins, two bots fill the seats. The deck is stacked, so the test
knows every card:

- deal 1, Alice deals: Bob 9, Bot 1 10, Bot 2 J, Alice the Joker (she knocks, G6); stock Q, K.
  Everyone passes; Alice offers Bob an exchange, Bob refuses from the table message (G4: the
  refusal shows nothing), Alice draws: Q and K are taboo, shown, and she takes her Joker back
  (G5). Reveal: the Joker and the lowest other card (Bob's 9) pay (G7); both are broke and
  borrow (G8, C19), Bob from the table message again.
- deal 2 (the last, `deals=2`), Bob deals: Bot 1 10, Bot 2 J, Alice K, Bob 2. All pass; Bob's 2
  pays; Alice showed the highest card and takes the pot and Bob's debt (G9, C21, C23).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from bot.games.gnavspiel.engine.cards import CARD_NAMES
from bot.games.gnavspiel.engine.record import outcome
from tests.adapters.test_telegram_bench import Bench, StackedRandom, settings_for
from tests.fakes.telegram_api import FakeChat, FakeTelegram

JOKER, Q, K = 0, 12, 13
DEAL_1 = [9, 10, 11, JOKER, Q, K]  # Bob, Bot 1, Bot 2, Alice (from Alice's left), stock top
DEAL_2 = [10, 11, K, 2]  # Bot 1, Bot 2, Alice, Bob (from Bob's left)
#: A card's name as a word ("A" only as a capital standing alone; "10" not inside "100").
CARD = re.compile(r"(?<![\w])(" + "|".join(sorted(CARD_NAMES, key=len, reverse=True)) + r")(?!\w)")
#: Public lines that show a card by the rules: a taboo draw (G5), the reveal (G7), the end.
SHOWN = ("taboo", "Reveal", "Cards:")


def _group_calls(tg: FakeTelegram, chat: FakeChat) -> list[tuple[str, str]]:
    """(method, text) of every accepted post or edit of the group, in order."""
    return [
        (c.method, c.params.get("text", ""))
        for c in tg.bot_calls()
        if c.ok
        and c.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup")
        and c.params.get("chat_id") == chat.id
    ]


def _hidden_named(text: str) -> list[str]:
    """Card names in a public text outside the lines that show one by the rules (counts of
    chips, deal numbers and the pot are numbers, not cards: only game lines are looked at)."""
    found = []
    for line in text.split("\n"):
        if any(s in line for s in SHOWN) or "chip" in line or "pot" in line or "Deal" in line:
            continue
        if "knocks" in line:  # G6: the knock names the holder, and the Joker is public
            continue
        found += CARD.findall(re.sub(r"Bot \d", "", line))
    return found


async def test_a_whole_gnavspiel_match_in_a_group_G2_G9_C23(tmp_path: Path) -> None:
    async with FakeTelegram() as tg:
        rng = StackedRandom(5, dealer=0, deals=[DEAL_1, DEAL_2])
        bench = Bench(tg, rng=rng, settings=settings_for(tg))
        await bench.start()
        try:
            alice = tg.add_user("Alice")
            bob = tg.add_user("Bob")  # never starts the bot: no private chat
            group = tg.add_group("Card night", members=[alice, bob], admins=[alice])
            tg.user_starts_bot(alice)
            await bench.idle()

            # The admin chooses the game before any table is open; the table inherits it.
            asked = bench.say(alice, group, "/gnav_settings rules=gnavspiel bots=2 chips=2 deals=2")
            reply = await bench.reply_to(group, asked)
            assert "chips 2" in reply.text and "deals 2" in reply.text, reply.text
            asked = bench.say(bob, group, "/gnav_settings rules=gnav")  # not an admin
            assert "admin" in (await bench.reply_to(group, asked)).text
            bench.say(alice, group, "/gnav")
            await bench.wait_table(group, "Gnavspiel table", button="Join")
            lobby = await bench.wait_table(group, "Gnavspiel table", button="Join")
            assert "2 to 6 players" in lobby.text  # the game's own table sizes
            bench.say(bob, group, "/gnav_join")
            await bench.wait_table(group, "Bob")
            bench.say(alice, group, "/gnav_start")

            # Deal 1: the ante and the Joker's knock; Bob (first) passes from the table message.
            msg = await bench.wait_table(group, "Gnavspiel · deal 1 · dealer Alice", button="Pass")
            assert "Everyone puts 1 chip into the pot." in msg.text
            assert "✊ Alice knocks: Alice holds the Joker." in msg.text
            assert "pot 4" in msg.text and "Alice · 1 chip · dealer" in msg.text
            dm = await bench.dm(alice, "Your card: Joker")  # Alice's card comes privately
            assert dm is not None
            # Bob's card: a popup from the "My card" button, for him alone.
            popup = await bench.press(bob, group, "My card")
            assert popup.show_alert and "your card is 9" in (popup.text or "")
            # Only the deciding seat may press the public choices.
            wrong = await bench.press(alice, group, "Pass", when="▶ Bob")
            assert wrong.show_alert or "turn" in (wrong.text or "").lower(), wrong
            assert (await bench.press(bob, group, "Pass", when="▶ Bob")).text is not None

            # The bots pass; the dealer offers Bob an exchange; Bob answers in the chat.
            await bench.press(alice, group, "Offer to Bob", when="Bot 2 passes.")
            msg = await bench.wait_table(group, "Alice offers Bob an exchange", button="Refuse")
            assert "Bob answers" in msg.text
            assert {"Accept", "Refuse"} <= {b["text"] for b in msg.buttons()}
            wrong = await bench.press(alice, group, "Accept", when="Bob answers")
            assert wrong.show_alert
            await bench.press(bob, group, "Refuse", when="Bob answers")
            msg = await bench.wait_table(group, "Bob refuses.", button="Draw")
            assert not _hidden_named(msg.text)  # G4: a refusal reveals nothing
            await bench.press(alice, group, "Draw", when="Bob refuses.")

            # G5: both taboo cards are shown, she takes the Joker back; G7: reveal and payments.
            loan = await bench.wait_table(group, "Alice draws Q: taboo", button="Borrow 1 chip")
            assert "Alice draws K: taboo" in loan.text
            assert "Alice takes the own card back." in loan.text
            texts = "\n".join(t for _, t in _group_calls(tg, group))
            assert "Reveal: Alice Joker, Bob 9, Bot 1 10, Bot 2 J" in texts
            assert "Alice has the Joker and pays 1 chip." in texts
            assert "Bob has the lowest card and pays 1 chip." in texts
            await bench.press(alice, group, "Borrow 1 chip", when="▶ Alice")
            await bench.press(bob, group, "Borrow 1 chip", when="▶ Bob")
            # The deal's reveal message: every card, the payments, chips, debts and the pot.
            reveal = await bench.wait_table(group, "Deal 1: reveal", button="Next deal")
            assert "Cards: Alice Joker, Bob 9, Bot 1 10, Bot 2 J" in reveal.text
            assert "Chips: Alice 1 (−1), Bob 1 (−1), Bot 1 1, Bot 2 1 · pot 4" in reveal.text
            texts = "\n".join(t for _, t in _group_calls(tg, group))
            assert "Alice borrows 1 chip from the pot." in texts
            assert "Bob borrows 1 chip from the pot." in texts
            assert "Gnav · round" not in (await bench.dm(alice, "take your own card back")).text

            # Deal 2 (Bob presses "Next deal"): Alice and Bob pass; the end.
            await bench.press(bob, group, "Next deal", when="Deal 1: reveal")
            msg = await bench.wait_table(group, "deal 2 · dealer Bob", button="Pass")
            assert "Alice · 1 chip · debt 1" in msg.text and "Bob · 1 chip · debt 1" in msg.text
            assert "pot 4" in msg.text
            await bench.press(alice, group, "Pass", when="▶ Alice")
            await bench.press(bob, group, "Pass", when="▶ Bob")
            await bench.eventually(
                lambda: _closed(bench, group), timeout=10, what="the end of the match"
            )
            await bench.idle()
            texts = "\n".join(t for _, t in _group_calls(tg, group))
            assert "Reveal: Alice K, Bob 2, Bot 1 10, Bot 2 J" in texts
            assert "Bob has the lowest card and pays 1 chip." in texts
            assert "Alice showed the highest card of the last deal and takes the pot (5)." in texts
            assert "Alice collects Bob's debt of 1." in texts
            # C23: what she takes is the pot and the debt (her own chip is not part of it).
            assert "Alice takes 6 in all: the pot (5) and the debts collected (1)." in texts
            assert "Balances: Alice 7, Bob -1, Bot 1 1, Bot 2 1" in texts  # C23: adds up to 8
            table = await bench.table(group)
            m = table.match.m
            assert table.closed_reason == "finished" and m.result is not None
            assert m.result.winner == 0 and sum(m.result.balance) == 2 * 4

            # No table message named a hidden card before its reveal (lobby, settings and
            # result texts have numbers, not cards).
            for _, text in _group_calls(tg, group):
                if "· dealer " in text:
                    assert _hidden_named(text) == [], text
                assert "Your card" not in text
                assert "stay or swap" not in text  # Gnav's words are not Gnavspiel's

            # /gnav_help says what a Gnavspiel choice that timed out counts as.
            asked = bench.say(bob, group, "/gnav_help")
            helped = (await bench.reply_to(group, asked)).text
            assert "a turn counts as a pass, an offer as refused" in helped
            assert "borrowing 1 chip (it keeps the player in)" in helped

            # The record replays through `gnav-bot replay` to the same outcome.
            asked = bench.say(alice, group, "/gnav_export")
            record = await bench.reply_to(group, asked)
            assert record.content is not None
            path = tmp_path / "match.json"
            path.write_bytes(record.content)
            done = subprocess.run(
                [sys.executable, "-m", "bot.cli", "replay", str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            assert json.loads(done.stdout) == json.loads(json.dumps(outcome(m)))

            # What the match cost in group messages (the figure the report quotes).
            calls = _group_calls(tg, group)
            first = next(i for i, (_, t) in enumerate(calls) if "Gnavspiel · deal 1" in t)
            last = next(i for i, (_, t) in enumerate(calls) if t.startswith("Deal 1: reveal"))
            deal_1 = Counter(method for method, _ in calls[first : last + 1])
            print(f"\ngroup calls of deal 1 (8 choices, 6 by people): {dict(deal_1)}")
            print(f"group calls of the whole match: {dict(Counter(m for m, _ in calls))}")
            # One post for the deal and one for its reveal; an edit per step at most.
            assert deal_1["sendMessage"] == 2 and deal_1["editMessageText"] <= 8
            # Every press was answered; every call was one Telegram accepts (or a 403 DM).
            assert all(tg.callback_answer(q).answered for q in tg._callbacks)
            refused = {(c.method, c.error_code) for c in tg.bot_calls() if not c.ok}
            assert refused <= {("sendMessage", 403)}
        finally:
            await bench.stop()


async def _closed(bench: Bench, group: FakeChat) -> bool:
    return (await bench.table(group)).status == "closed"
