"""The tests-only high-card game (tests/games/highcard.py) on the real Telegram adapter, the fake
Bot API and SQLite: one player chooses from the keyboard of their private chat, another who
never started the bot chooses by inline mode (`@bot` in the group). No line of service,
storage or adapter code was written for this game."""

from __future__ import annotations

import random
from pathlib import Path

from bot.games.registry import all_games
from bot.service.service import TableService
from storage.sqlite import SqliteRepository
from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import FakeTelegram
from tests.games.highcard import high_card


class HighCardBench(Bench):
    """The bench with high card as the default game (Gnav hosted too)."""

    def __init__(self, tg: FakeTelegram, repo: SqliteRepository) -> None:
        super().__init__(tg, repo=repo)
        self.service = TableService(
            self.repo,
            self.platform.notifier,
            rng=random.Random(11),
            bot_delay=0.0,
            games={"highcard": high_card(), **all_games()},
        )


async def test_a_person_who_never_started_the_bot_chooses_by_inline_mode(
    tmp_path: Path,
) -> None:
    async with FakeTelegram(inline_mode=True, inline_feedback=True) as tg:
        repo = await SqliteRepository.open(tmp_path / "store.sqlite3")
        bench = await HighCardBench(tg, repo).start()
        try:
            alice = tg.add_user("Alice")
            bob = tg.add_user("Bob")  # never starts the bot: no private chat
            group = tg.add_group("Card night", members=[alice, bob])
            tg.user_starts_bot(alice)
            await bench.idle()
            bench.say(alice, group, "/gnav")
            await bench.wait_table(group, button="Join")
            bench.say(bob, group, "/gnav_join")
            await bench.wait_table(group, "Bob")
            bench.say(alice, group, "/gnav_start")
            await bench.wait_table(group, "High card, round 1", button="My cards")
            table = await bench.table(group)
            hands = {s.name: list(table.match.hands[i]) for i, s in enumerate(table.seats)}

            # Alice: her private chat has her cards as buttons; she presses one there.
            dm = await bench.dm(alice, "Your cards:")
            labels = sorted(b["text"] for b in dm.buttons())
            assert labels == sorted(f"Play {c}" for c in hands["Alice"])
            query = tg.user_presses_button(alice, dm, f"Play {hands['Alice'][0]}")
            done = await bench.answered(query)
            assert done.text == "Done." and not done.show_alert  # a short toast
            await bench.wait_table(group, "Alice: 0 won · has played")

            # Bob: "My cards" is a popup that tells him how to choose here.
            answer = await bench.press(bob, group, "My cards")
            assert answer.show_alert and f"@{tg.bot_username}" in (answer.text or "")
            # He types @bot in the group: his own choices only, never cached for others.
            query_id = tg.user_types_inline(bob, group)
            assert query_id is not None
            results = await tg.wait_for_inline_answer(query_id)
            assert sorted(r["title"] for r in results) == sorted(f"Play {c}" for c in hands["Bob"])
            state = tg.inline_query(query_id)
            assert state.is_personal and state.cache_time == 0
            pick = next(r for r in results if r["title"] == f"Play {hands['Bob'][-1]}")
            sent = tg.user_picks_inline(bob, group, query_id, pick["id"])
            # What the pick posts in the group names no card.
            assert not any(str(c) in (sent.text or "") for c in hands["Bob"])

            await bench.wait_table(group, "High card, round 1")
            await bench.eventually(
                lambda: _round_revealed(bench, group), what="the reveal of round 1"
            )
            table = await bench.table(group)
            played = table.match.rounds[0]["played"]
            assert played == {"0": hands["Alice"][0], "1": hands["Bob"][-1]}
            # The reveal is told; before it, no bot message named a card of the round.
            await bench.idle()
            texts = [m.text or "" for m in tg.messages_in(group, from_bot=True)]
            reveal = next(i for i, t in enumerate(texts) if "wins the round" in t)
            for text in texts[:reveal]:
                assert f"Alice {hands['Alice'][0]}" not in text
                assert f"Bob {hands['Bob'][-1]}" not in text
        finally:
            await bench.stop()
            await repo.close()


async def _round_revealed(bench: Bench, group: object) -> bool:
    table = await bench.table(group)  # type: ignore[arg-type]
    return table.match.phase != "play"
