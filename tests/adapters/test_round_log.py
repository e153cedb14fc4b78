"""The whole log of a round is one command away (issue 30 point 1): `/gnav_log` on Telegram
and `/gnav log` on Discord answer it in the channel, in the table's language, while the table
message shows the state and only the newest events."""

from __future__ import annotations

import random

from adapters.telegram import texts
from storage.memory import MemoryRepository
from tests.adapters.test_discord_play import answered, fake_world, running_bot, slash
from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import FakeTelegram


async def test_gnav_log_on_telegram_answers_the_whole_deal_in_the_tables_language() -> None:
    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        try:
            ann = tg.add_user("Ann")
            group = tg.add_group("Carnival", members=[ann])
            bench.say(ann, group, "/karnaval")
            await bench.wait_table(group, button="Join")
            bench.say(ann, group, "/gnav_settings bots=2 delay=300 language=ru")
            await bench.idle()
            bench.say(ann, group, "/gnav_start")
            await bench.wait_table(group, button="🂠 Мои карты")
            bench.say(ann, group, "/gnav_log")
            await bench.idle()
            answer = next(
                m for m in reversed(tg.messages_in(group, from_bot=True)) if "📜" in m.text
            )
            lines = answer.text.splitlines()
            assert lines[0] == "📜 Журнал сдачи, последнее внизу:"
            # The draw for the first player: the log's first lines, no longer the table's.
            assert lines[1].startswith("Жеребьёвка первого игрока")
            assert len(lines) >= 4
            assert "gnav_log" in texts.GROUP_COMMANDS
            for language in ("en", "nb", "ru", "pt", "de"):
                assert texts.command_text(language, "gnav_log") != texts.command_text(
                    language, "gnav_sheet"
                )
        finally:
            await bench.stop()


async def test_gnav_log_on_discord_answers_the_whole_deal_in_the_channel() -> None:
    async with (
        fake_world() as world,
        running_bot(world, MemoryRepository(), rng=random.Random(3)) as bot,
    ):
        await slash(world, world.alice, "new", {"game": "karnaval"})
        await slash(world, world.bob, "join")
        await slash(world, world.carl, "join")
        await slash(world, world.alice, "start")
        await bot.settle()
        asked = await slash(world, world.bob, "log")
        text = await answered(world, asked)
        assert not asked.ephemeral
        lines = text.splitlines()
        assert lines[0] == "📜 The deal's log, newest last:"
        assert any(line.startswith("Draw for the first player") for line in lines)
        assert any("is player 1" in line for line in lines)
