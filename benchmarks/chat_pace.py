"""How fast a game moves under the platforms' flood limits (issue 17): whole games through the
real adapters (python-telegram-bot, discord.py, the service, SQLite) against the local fakes
keeping the platforms' limits, a 429 beyond them. Telegram (`tests/fakes/telegram_api.
FloodLimits`): 20 sends and edits per sliding minute per group, about 1 a second per private
chat (3 per 3 s), 30 a second per bot. Discord (`tests/fakes/discord_api.ChannelLimit`): 5
sends and 5 edits per 5 s per channel (DM channels too), learnt by discord.py from the
headers.

Every player can be messaged privately (started the bot; DMs open) and acts the moment a
private message shows a button of their current choices (a random one of them, seeded):
Telegram's by a callback query, Discord's by a component interaction. The table keeps its
own next-deal delay (10 s, as a new group's table), scaled like the limits. Printed per game
and platform: the whole game's wall time, moves per minute, the delay from a press to the
next decider's private screen (p50/p99; a deal's first screen follows the next-deal timer,
not a press: not counted), how stale the group's table message got (p99, and from each
deal's last move to its result in the group), group calls in the busiest minute, 429s
received, result posts lost, and bytes of state written per move in the first and last
deal; why the private screens slower than half a second waited (the private chat's own
pace behind the person's previous message, or the bot), and why the group's messages more
than 6 s behind the game waited (the group's minute spent, its even step, its room spread
over the minute, or the channel's own queue); and the machine's load average. The last
line is one JSON object (Karnaval on Telegram).

`--scale 0.1` runs every limit ten times faster (a minute of the group's budget lasts 6 s) in
the fake and in the bot alike, so a game bound by the budget ends ten times sooner; times are
printed divided by the scale ("real-time equivalent": an upper bound, since the machine's own
work and its hiccups are not faster at a smaller scale, they count ten times). `--scale 1`
runs Telegram's limits as they are.

    .venv/bin/python benchmarks/chat_pace.py --players 3 6 --scale 1
    .venv/bin/python benchmarks/chat_pace.py --players 3 --platforms discord
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.telegram.platform import TelegramLimits
from bot.service.commands import Configure, Join, Open, Start
from bot.service.ports import TableRow
from bot.service.table import TableKey
from storage.sqlite import SqliteRepository
from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import (
    FLOODED_METHODS,
    FakeMessage,
    FakeTelegram,
    FakeUser,
    FloodLimits,
)

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank")


class MeasuredSqlite(SqliteRepository):
    """SQLite that counts the bytes of table state each save writes."""

    saves: list[int]

    async def save_table(self, row: TableRow, **kwargs: Any) -> Any:  # type: ignore[override]
        """Count the state's bytes, then save as usual."""
        self.saves.append(len(json.dumps(row.state, separators=(",", ":"))))
        return await super().save_table(row, **kwargs)


@dataclass
class Run:
    """What one game measured."""

    players: int
    scale: float
    delay: int = 10
    platform: str = "telegram"
    wall: float = 0.0
    moves: int = 0
    private: list[float] = field(default_factory=list)
    #: Per counted press: (delay, the decider's private chat, the screen's message id).
    private_at: list[tuple[float, int, int]] = field(default_factory=list)
    #: Why the slow screens (above a second's half) waited: cause -> count.
    slow_causes: dict[str, int] = field(default_factory=dict)
    #: Slow screens that were their person's fourth private message within about 3 s.
    fourth_in_3s: int = 0
    #: Why the group's messages that went out more than two even steps (6 s) behind the game
    #: waited: cause -> count.
    stale_causes: dict[str, int] = field(default_factory=dict)
    #: Of the group's calls in the window that those waiting for it found: edits of a live
    #: table message (with buttons), edits freezing one (without), posts.
    window_mix: list[int] = field(default_factory=lambda: [0, 0, 0])
    deal_end: list[float] = field(default_factory=list)
    #: For each deal whose end reached the group more than 6 s (real time) after its last
    #: move: the group's calls in the sliding window at that move, by kind (edits of a live
    #: table message, freezes, posts), and what went out between the move and the result.
    deal_end_late: list[dict[str, Any]] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    busiest: int = 0
    refused: int = 0
    private_sent: int = 0
    #: Private screens shown in the pressed message by the press's own interaction (Discord).
    private_by_press: int = 0
    refused_group: int = 0
    refused_private: int = 0
    lost: int = 0
    deals: int = 0
    bytes_first: float = 0.0
    bytes_last: float = 0.0
    #: The machine's load average (1, 5, 15 min) as the game ended: other work slows the
    #: bot's own steps (they are not scaled).
    load: tuple[float, ...] = ()

    def figures(self) -> dict[str, Any]:
        """The figures, times as real-time equivalents (divided by the scale)."""
        s = self.scale
        return {
            "game": "karnaval",
            "platform": self.platform,
            "players": self.players,
            "scale": s,
            "deals": self.deals,
            "wall_s_measured": round(self.wall, 1),
            "wall_min": round(self.wall / s / 60, 2),
            "moves": self.moves,
            "private_messages": self.private_sent,
            "private_by_press_response": self.private_by_press,
            "moves_per_min": round(self.moves / (self.wall / s / 60), 1) if self.wall else 0,
            "press_to_private_p50_s": round(_pct(self.private, 50) / s, 3),
            "press_to_private_p99_s": round(_pct(self.private, 99) / s, 3),
            "group_stale_p50_s": round(_pct(self.lags, 50) / s, 2),
            "group_stale_p90_s": round(_pct(self.lags, 90) / s, 2),
            "group_stale_p99_s": round(_pct(self.lags, 99) / s, 2),
            "group_stale_max_s": round(max(self.lags, default=0.0) / s, 2),
            "group_messages": len(self.lags),
            "group_stale_causes": self.stale_causes,
            "group_window_when_spent": dict(
                zip(
                    ("edits", "freezes", "posts"),
                    (
                        round(n / max(1, self.stale_causes.get("window", 0)), 1)
                        for n in self.window_mix
                    ),
                    strict=True,
                )
            ),
            "deal_end_shown_max_s": round(max(self.deal_end, default=0.0) / s, 2),
            "deal_end_shown_p50_s": round(_pct(self.deal_end, 50) / s, 2),
            "deal_end_shown_each_s": [round(t / s, 1) for t in self.deal_end],
            "deal_end_late": self.deal_end_late,
            "group_calls_busiest_minute": self.busiest,
            "next_deal_delay_s": round(self.delay / s, 1),
            "refused_429": self.refused,
            "refused_429_group": self.refused_group,
            "refused_429_private": self.refused_private,
            "posts_lost": self.lost,
            "slow_private_causes": self.slow_causes,
            "slow_private_fourth_in_3s": self.fourth_in_3s,
            "private_screens_1s_or_more": sum(1 for d in self.private if d / s >= 1.0),
            "private_screens_counted": len(self.private),
            "state_bytes_per_move_first_deal": round(self.bytes_first),
            "state_bytes_per_move_last_deal": round(self.bytes_last),
            "load_average": [round(x, 2) for x in self.load],
        }


def _pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _newest_dm(tg: FakeTelegram, user: FakeUser) -> FakeMessage | None:
    for msg in reversed(tg.messages_in(tg.private_chat(user), from_bot=True)):
        if any("callback_data" in b for b in msg.buttons()):
            return msg
    return None


async def play(players: int, scale: float, seed: int, delay: int | None = None) -> Run:
    """One whole Karnaval game of `players` people, instant, on Telegram's limits."""
    run = Run(players, scale, round(10 * scale) if delay is None else delay)
    flood = FloodLimits(scale=scale)
    limits = TelegramLimits(scale=scale, poll_timeout=1, drain_timeout=30.0 * scale + 5)
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram(flood=flood) as tg:
            repo = await MeasuredSqlite.open(Path(tmp) / "store.sqlite3")
            repo.saves = []
            bench = await Bench(tg, repo=repo, rng=random.Random(seed), limits=limits).start()
            rng = random.Random(seed + 1)
            try:
                await _game(bench, tg, repo, players, rng, run)
            finally:
                await bench.stop()
                await repo.close()
    return run


async def _game(
    bench: Bench, tg: FakeTelegram, repo: MeasuredSqlite, players: int, rng: random.Random,
    run: Run,
) -> None:  # fmt: skip
    loop = asyncio.get_running_loop()
    people = [tg.add_user(n) for n in NAMES[:players]]
    group = tg.add_group("Carnival", members=people)
    for p in people:
        tg.user_starts_bot(p)
    await bench.idle()
    bench.say(people[0], group, "/karnaval")
    await bench.wait_table(group, button="Join", timeout=120)
    for p in people[1:]:
        bench.say(p, group, "/gnav_join")
        await bench.wait_table(group, p.first_name, timeout=120)
    # The table's own next-deal delay (10 s), scaled like the limits: a new group's game.
    bench.say(people[0], group, f"/gnav_settings bots=0 delay={run.delay}")
    await bench.idle()
    calls_before = len(tg.calls())
    _watch_stale(bench, tg, group.id, run)
    start = loop.time()
    bench.say(people[0], group, "/gnav_start")
    tk = TableKey("telegram", str(group.id))
    pressed: set[tuple[int, int, frozenset[str]]] = set()
    last_press = start
    first_of_deal = True
    finished = 0
    ends: dict[int, float] = {}
    saves_at_deal: dict[int, int] = {}
    while True:
        changed = tg._changed
        table = await bench.service.table_state(tk)
        k = getattr(table.match, "k", None) if table is not None else None
        if k is not None:
            done = sum(1 for d in k.deals if d.complete)
            if done > finished:
                for n in range(finished + 1, done + 1):
                    ends[n] = last_press
                    saves_at_deal[n] = len(repo.saves)
                finished = done
                first_of_deal = True
        if table is not None and table.status == "closed":
            break
        acted = False
        for user in people:
            msg = _newest_dm(tg, user)
            if msg is None:
                continue
            tokens = frozenset(
                str(b["callback_data"]) for b in msg.buttons() if "callback_data" in b
            )
            key = (user.id, msg.message_id, tokens)
            if key in pressed:
                continue
            pressed.add(key)
            choices = await bench.service.choices_of(_user(user))
            mine = [c.token for c in choices if c.token in tokens]
            if not mine:
                continue
            now = loop.time()
            if first_of_deal:  # a deal's first screen follows its timer, not a press
                first_of_deal = False
            else:
                run.private.append(now - last_press)
                run.private_at.append((now - last_press, user.id, msg.message_id))
            tg.user_presses(user, tg.private_chat(user), msg.message_id, rng.choice(mine))
            last_press = loop.time()
            run.moves += 1
            acted = True
        if not acted:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), 1.0)
    run.wall = loop.time() - start
    run.load = os.getloadavg()
    await bench.idle()
    run.deals = finished
    calls = tg.calls()[calls_before:]
    group_calls = [
        c
        for c in calls
        if c.method.lower() in FLOODED_METHODS and c.params.get("chat_id") == group.id
    ]
    run.refused = sum(1 for c in calls if c.status == 429)
    run.private_sent = sum(
        1
        for c in calls
        if c.ok and c.method.lower() in FLOODED_METHODS and int(c.params.get("chat_id") or 0) > 0
    )
    run.refused_group = sum(n for chat, n in tg.flood_refusals.items() if chat < 0)
    run.refused_private = sum(n for chat, n in tg.flood_refusals.items() if chat > 0)
    window = 60 * run.scale
    times = [c.time for c in group_calls if c.ok]
    j = 0
    for i, t in enumerate(times):
        while times[j] <= t - window:
            j += 1
        run.busiest = max(run.busiest, i - j + 1)
    # Each deal's result in the group: the first accepted call showing "Deal N of".
    for n, t_end in ends.items():
        shown = next(
            (
                c.finished or c.time
                for c in group_calls
                if c.ok and c.time >= t_end
                and f"Deal {n} of" in str(c.params.get("text") or c.params.get("caption") or "")
            ),
            None,
        )  # fmt: skip
        if shown is None:
            run.lost += 1
        else:
            run.deal_end.append(shown - t_end)
            if (shown - t_end) / run.scale > 6:
                run.deal_end_late.append(_late_end(group_calls, t_end, shown, run))
    # How far behind the game the group's messages were when sent (merged states included
    # where the outbox tracks them; the code before it kept only each sent message's lag).
    outbox = bench.service.outbox
    run.lags = list(getattr(outbox, "stale", outbox.lags))
    run.slow_causes = _slow_causes(run, calls)
    # Bytes of state per save during the first deal and the last.
    saves = repo.saves
    first = saves[: saves_at_deal.get(1, len(saves))]
    last_from = saves_at_deal.get(finished - 1, 0)
    last = saves[last_from : saves_at_deal.get(finished, len(saves))]
    run.bytes_first = statistics.fmean(first) if first else 0.0
    run.bytes_last = statistics.fmean(last) if last else 0.0


async def play_discord(players: int, scale: float, seed: int, delay: int | None = None) -> Run:
    """One whole Karnaval game of `players` people, instant, on Discord's channel buckets
    (5 sends and 5 edits per 5 s per channel; discord.py keeps them from the headers). People
    press the buttons of their DMs (interactions through the real adapter)."""
    from tests.adapters.test_discord_play import fake_world, running_bot
    from tests.fakes.discord_api import ChannelLimit

    run = Run(players, scale, round(10 * scale) if delay is None else delay, "discord")
    with tempfile.TemporaryDirectory() as tmp:
        async with fake_world(channel_limit=ChannelLimit(5, 5.0 * scale)) as world:
            repo = await MeasuredSqlite.open(Path(tmp) / "store.sqlite3")
            repo.saves = []
            try:
                async with running_bot(world, repo, rng=random.Random(seed)) as bot:
                    await _game_discord(world, bot, repo, players, random.Random(seed + 1), run)
            finally:
                await repo.close()
    return run


async def _game_discord(
    world: Any, bot: Any, repo: MeasuredSqlite, players: int, rng: random.Random, run: Run
) -> None:
    from bot.service.table import User

    fake = world.fake
    loop = asyncio.get_running_loop()
    people = [fake.add_user(n.lower(), guilds=[world.guild]) for n in NAMES[:players]]
    users = {p.id: User(f"discord:{p.id}", p.username) for p in people}
    tk = TableKey("discord", str(world.channel.id))
    service = bot.service
    assert (await service.handle(Open(tk, users[people[0].id], game="karnaval"))).ok
    for p in people[1:]:
        assert (await service.handle(Join(tk, users[p.id]))).ok
    opening = ["bots=0", f"delay={run.delay}"]
    assert (await service.handle(Configure(tk, users[people[0].id], opening))).ok
    await bot.settle()
    calls_before = len(fake.calls)
    start = loop.time()
    assert (await service.handle(Start(tk, users[people[0].id]))).ok
    pressed: set[tuple[int, str, frozenset[str]]] = set()
    last_press, first_of_deal, finished = start, True, 0
    ends: dict[int, float] = {}
    saves_at_deal: dict[int, int] = {}
    presses: set[asyncio.Task[Any]] = set()
    while True:
        table = await service.table_state(tk)
        k = getattr(table.match, "k", None) if table is not None else None
        if k is not None:
            done = sum(1 for d in k.deals if d.complete)
            for n in range(finished + 1, done + 1):
                ends[n] = last_press
                saves_at_deal[n] = len(repo.saves)
                first_of_deal = True
            finished = max(finished, done)
        if table is not None and table.status == "closed":
            break
        acted = False
        for person in people:
            dm = fake.dm_channel(person)
            msg = next((m for m in reversed(fake.messages_in(dm)) if m.get("components")), None)
            if msg is None:
                continue
            tokens = frozenset(
                c["custom_id"] for row in msg["components"] for c in row["components"]
                if c.get("custom_id")
            )  # fmt: skip
            key = (person.id, str(msg["id"]), tokens)
            if key in pressed:
                continue
            pressed.add(key)
            mine = [
                c.token for c in await service.choices_of(users[person.id]) if c.token in tokens
            ]
            if not mine:
                continue
            if first_of_deal:
                first_of_deal = False
            else:
                run.private.append(loop.time() - last_press)
            task = asyncio.create_task(fake.press(person, dm, int(msg["id"]), rng.choice(mine)))
            presses.add(task)
            task.add_done_callback(presses.discard)
            last_press = loop.time()
            run.moves += 1
            acted = True
        if not acted:
            with contextlib.suppress(TimeoutError):
                await fake.wait_for(lambda: False, timeout=0.05)
    run.wall = loop.time() - start
    run.load = os.getloadavg()
    await asyncio.gather(*presses, return_exceptions=True)
    await bot.settle()
    run.deals = finished
    calls = fake.calls[calls_before:]
    here = re.compile(rf"/channels/{world.channel.id}/messages(/\d+)?")
    channel_calls = [c for c in calls if c.method in ("POST", "PATCH") and here.fullmatch(c.path)]
    run.refused = sum(1 for c in calls if c.status == 429)
    run.refused_group = sum(1 for c in channel_calls if c.status == 429)
    run.refused_private = run.refused - run.refused_group
    dms = {f"/channels/{fake.dm_channel(p).id}/messages" for p in people}
    run.private_sent = sum(
        1 for c in calls if c.method == "POST" and c.status == 200 and c.path in dms
    )
    # A press's response updating the pressed hand (type 7), or its webhook's edit of it.
    run.private_by_press = sum(
        1
        for c in calls
        if c.status in (200, 204)
        and (
            (c.path.endswith("/callback") and (c.json or {}).get("type") == 7)
            or (c.method == "PATCH" and c.path.endswith("/messages/@original"))
        )
    )
    times = [c.at for c in channel_calls if c.status == 200]
    window, j = 60 * run.scale, 0
    for i, t in enumerate(times):
        while times[j] <= t - window:
            j += 1
        run.busiest = max(run.busiest, i - j + 1)
    for n, t_end in ends.items():
        shown = next(
            (
                c.at
                for c in channel_calls
                if c.status == 200 and c.at >= t_end
                and f"Deal {n} of" in str((c.json or {}).get("content") or "")
            ),
            None,
        )  # fmt: skip
        if shown is None:
            run.lost += 1
        else:
            run.deal_end.append(shown - t_end)
    run.lags = list(getattr(service.outbox, "stale", service.outbox.lags))
    saves = repo.saves
    first = saves[: saves_at_deal.get(1, len(saves))]
    last = saves[saves_at_deal.get(finished - 1, 0) : saves_at_deal.get(finished, len(saves))]
    run.bytes_first = statistics.fmean(first) if first else 0.0
    run.bytes_last = statistics.fmean(last) if last else 0.0


def _watch_stale(bench: Bench, tg: FakeTelegram, chat: int, run: Run) -> None:
    """Note why each group message that went out more than two even steps (6 s, real time)
    behind the game waited, from the fake's record of the group's calls as it is sent:
    "window" when its call went as one of a minute before left the group's sliding window
    (the minute's budget was spent; with how many of the calls in that window were edits of
    a live table message, freezes and posts), "spacing" when it went one even step (3 s)
    after the call before it, "spread" more than a step after it (the window's room spread
    over the minute), else "queue" (behind the channel's own messages, or the bot)."""
    policy = bench.service.outbox.policy
    lanes = bench.platform.lanes
    sent = policy.sent
    window = lanes.limits.group_window * (1 + lanes.limits.margin)
    step = window / lanes.limits.group
    tol = 0.1 * run.scale

    def noted(tm: Any, m: Any) -> None:
        oldest = m.created_at if tm.stale_since is None else min(tm.stale_since, m.created_at)
        if (policy.clock.now() - oldest) / run.scale > 6:
            calls = [
                c
                for c in tg.calls()
                if c.ok and c.method.lower() in FLOODED_METHODS and c.params.get("chat_id") == chat
            ]
            cause = "queue"
            if len(calls) >= 2:
                cur, before = calls[-1], calls[:-1]
                if any(abs((c.finished or c.time) + window - cur.time) < tol for c in before):
                    inside = [c for c in before if (c.finished or c.time) > cur.time - window]
                    edits = [c for c in inside if c.method.lower().startswith("edit")]
                    live = sum(1 for c in edits if _buttons(c))
                    cause = "window"
                    run.window_mix[0] += live
                    run.window_mix[1] += len(edits) - live
                    run.window_mix[2] += len(inside) - len(edits)
                elif abs(cur.time - before[-1].time - step) < tol:
                    cause = "spacing"
                elif cur.time - before[-1].time > step:
                    cause = "spread"
            run.stale_causes[cause] = run.stale_causes.get(cause, 0) + 1
        sent(tm, m)

    policy.sent = noted  # type: ignore[method-assign]


def _late_end(calls: list[Any], t_end: float, shown: float, run: Run) -> dict[str, Any]:
    """Why a deal's end reached the group late: the group's calls in the sliding window at
    its last move, by kind, and the calls between the move and the result (times in real
    seconds after the move)."""
    window = 60 * 1.02 * run.scale

    def kind(c: Any) -> str:
        if c.method.lower().startswith("edit"):
            return "edit" if _buttons(c) else "freeze"
        return "post"

    inside = [c for c in calls if c.ok and t_end - window < (c.finished or c.time) <= t_end]
    counts = {k: sum(1 for c in inside if kind(c) == k) for k in ("edit", "freeze", "post")}
    between = [
        f"{kind(c)}@{(c.time - t_end) / run.scale:.1f}"
        for c in calls
        if c.ok and t_end < c.time <= shown
    ]
    ages = [round((t_end - (c.finished or c.time)) / run.scale, 1) for c in inside]
    return {
        "late_s": round((shown - t_end) / run.scale, 1),
        "window_at_last_move": counts,
        "window_ages_s": ages,
        "sent_until_shown": between,
    }


def _buttons(call: Any) -> bool:
    """Whether a call leaves its message with buttons (a live table message)."""
    return bool((call.params.get("reply_markup") or {}).get("inline_keyboard"))


def _slow_causes(run: Run, calls: list[Any]) -> dict[str, int]:
    """Why the private screens slower than half a second (real time) waited: "pace: own
    screen/line just before" when the call before it in the same private chat came less
    than 1.2 s before (the chat's pace of about one a second held it; a screen: the same
    person decided just before, a line: their hand or a private line), else "bot" (the
    bot itself was slow to send it). Of the paced ones, those that were the person's fourth
    message within about 3 s (`fourth_in_3s`): Telegram's 3 in 3 s puts the fourth at least
    3 s after the first, so of four such screens in a row one comes a second or more after
    the one before it, whatever the schedule."""
    by_chat: dict[int, list[Any]] = {}
    for c in calls:
        chat = int(c.params.get("chat_id") or 0)
        if c.ok and chat > 0 and c.method.lower() in FLOODED_METHODS:
            by_chat.setdefault(chat, []).append(c)
    causes: dict[str, int] = {}
    for delay, chat, message_id in run.private_at:
        if delay / run.scale <= 0.5:
            continue
        sent = by_chat.get(chat, [])
        i = next(
            (i for i, c in enumerate(sent) if (c.result or {}).get("message_id") == message_id),
            None,
        )
        cause = "bot"
        if i is not None and i > 0:
            before = sent[i - 1]
            if (sent[i].time - before.time) / run.scale < 1.2:
                markup = before.params.get("reply_markup") or {}
                kind = "screen" if markup.get("inline_keyboard") else "line"
                cause = f"pace: own {kind} just before"
                if i >= 3 and (sent[i].time - sent[i - 3].time) / run.scale < 3.2:
                    run.fourth_in_3s += 1
        causes[cause] = causes.get(cause, 0) + 1
    return causes


def _user(user: FakeUser) -> Any:
    from bot.service.table import User

    return User(f"telegram:{user.id}", user.first_name)


def main() -> None:
    """Parse arguments, play the games, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 6])
    parser.add_argument("--scale", type=float, default=0.1, help="limits' time scale (1: real)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--platforms", nargs="+", default=["telegram", "discord"], choices=["telegram", "discord"]
    )
    parser.add_argument(
        "--delay", type=int, default=None, help="next-deal delay, s (default: 10 x scale)"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    out: dict[str, Any] = {}
    games = [(p, n) for p in args.platforms for n in args.players]
    for platform, n in games:
        started = time.monotonic()
        runner = play if platform == "telegram" else play_discord
        run = asyncio.run(runner(n, args.scale, args.seed, args.delay))
        fig = run.figures()
        if platform == "telegram":  # the last line: Karnaval on Telegram
            out[f"karnaval_{n}p_telegram"] = fig
        print(
            f"karnaval {n}p {platform} (scale {args.scale:g}, real-time equivalents): "
            f"game {fig['wall_min']} min ({fig['wall_s_measured']} s measured, "
            f"{time.monotonic() - started:.0f} s with set-up), {fig['moves']} moves, "
            f"{fig['moves_per_min']} moves/min; {fig['private_messages']} private messages "
            f"(+{fig['private_by_press_response']} by a press's own response); press->private p50 "
            f"{fig['press_to_private_p50_s']} s p99 {fig['press_to_private_p99_s']} s; "
            f"group stale p50 {fig['group_stale_p50_s']} s p90 {fig['group_stale_p90_s']} s "
            f"p99 {fig['group_stale_p99_s']} s max {fig['group_stale_max_s']} s of "
            f"{fig['group_messages']} messages, over 6 s by cause {fig['group_stale_causes']} "
            f"(a spent window held {fig['group_window_when_spent']}); "
            f"deal end shown p50 "
            f"{fig['deal_end_shown_p50_s']} s max {fig['deal_end_shown_max_s']} s; busiest "
            f"minute {fig['group_calls_busiest_minute']} group calls; 429s {fig['refused_429']}; "
            f"(group {fig['refused_429_group']}, private {fig['refused_429_private']}); "
            f"posts lost {fig['posts_lost']}; private screens over 0.5 s by cause "
            f"{fig['slow_private_causes']} ({fig['slow_private_fourth_in_3s']} of them the "
            f"person's 4th message within 3 s; {fig['private_screens_1s_or_more']} of "
            f"{fig['private_screens_counted']} screens took 1 s or more); state bytes/move "
            f"first deal "
            f"{fig['state_bytes_per_move_first_deal']} "
            f"last {fig['state_bytes_per_move_last_deal']}; load average "
            f"{fig['load_average']}",
            flush=True,
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
