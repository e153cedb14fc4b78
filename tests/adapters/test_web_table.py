"""The web table (issue 21, docs/web.md) over real HTTP and WebSockets, without a browser:
proofs (Telegram initData, signed links) refused when forged, expired, another bot's or for
another table; a spectator has nothing to press; a press on the page goes through the service's
path (and the same press in the chat at once applies once); pushes after every commit; nothing
another player holds reaches a page over a whole Karnaval deal (K4: hands are private)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from adapters.web.auth import (
    check_init_data,
    check_link,
    sign_init_data,
    sign_link,
)
from adapters.web.stack import WebStack, start_web
from bot.games.karnaval.game import card_text
from bot.service.commands import Act, Configure, Export, Join, Open, Press, Start
from bot.service.table import User
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness
from tests.storage.conftest import fresh_pg_schema

TOKEN = "123456:TEST-token-of-the-test-bot"
OTHER_TOKEN = "654321:another-bot"


def init_data(user_id: int, auth_date: float, token: str = TOKEN, start: str = "") -> str:
    """initData as Telegram signs it."""
    fields = {
        "auth_date": str(int(auth_date)),
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps({"id": user_id, "first_name": "Tele", "language_code": "en"}),
    }
    if start:
        fields["start_param"] = start
    return sign_init_data(fields, token)


# ---------------------------------------------------------------- proofs, as functions
def test_init_data_is_checked_as_telegram_documents() -> None:
    now = 1_700_000_000.0
    good = init_data(42, now - 60, start="abc123")
    viewer = check_init_data(good, TOKEN, now)
    assert viewer is not None and viewer.user == "telegram:42" and viewer.table_id == "abc123"
    # One byte changed anywhere: refused.
    at = good.index("first_name") + 2
    forged = good[:at] + ("X" if good[at] != "X" else "Y") + good[at + 1 :]
    assert check_init_data(forged, TOKEN, now) is None
    assert check_init_data(good.replace("42", "43", 1), TOKEN, now) is None
    # Older than a day, another bot's, empty, garbage: refused.
    assert check_init_data(init_data(42, now - 86_401), TOKEN, now) is None
    assert check_init_data(init_data(42, now, token=OTHER_TOKEN), TOKEN, now) is None
    assert check_init_data("", TOKEN, now) is None
    assert check_init_data("hash=00&user=%7B%7D", TOKEN, now) is None


def test_signed_links_name_one_table_one_user_until_they_expire() -> None:
    secret = b"s" * 32
    proof = sign_link(secret, "tab1", "discord:7", 2_000)
    assert check_link(secret, "tab1", proof, 1_999) == "discord:7"
    assert check_link(secret, "tab1", proof, 2_001) is None  # expired
    assert check_link(secret, "tab2", proof, 1_000) is None  # another table
    assert check_link(b"t" * 32, "tab1", proof, 1_000) is None  # another bot's secret
    tampered = proof.replace("discord:7", "discord:8")
    assert check_link(secret, "tab1", tampered, 1_000) is None
    later = proof.replace(f".{2_000:x}.", f".{9_000:x}.")
    assert check_link(secret, "tab1", later, 1_000) is None
    assert check_link(secret, "tab1", "garbage", 1_000) is None


# ---------------------------------------------------------------- a served table
class Served:
    """A harness with the web table served on a free port."""

    def __init__(self, harness: Harness, stack: WebStack, session: aiohttp.ClientSession):
        self.h = harness
        self.stack = stack
        self.session = session

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.stack.port}"

    async def page(self, table_id: str, **proof: str) -> Page:
        ws = await self.session.ws_connect(f"{self.base}/ws")
        await ws.send_str(json.dumps({"hello": {"table": table_id, **proof}}))
        page = Page(ws)
        page.hello = await page.next("hello")
        await page.next("state")
        return page


class Page:
    """One page's socket and everything it received."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.received: list[str] = []
        self.hello: dict[str, Any] = {}
        self.view: dict[str, Any] = {}

    async def next(self, kind: str) -> dict[str, Any]:
        while True:
            text = await asyncio.wait_for(self.ws.receive_str(), 30)
            self.received.append(text)
            msg = json.loads(text)
            if msg["type"] == "state":
                self.view = msg["view"]
            if msg["type"] == kind:
                return msg

    async def until(self, version_above: int) -> dict[str, Any]:
        """Wait for a pushed state newer than `version_above`."""
        while self.view.get("version", -1) <= version_above:
            await self.next("state")
        return self.view

    async def at(self, version: int) -> dict[str, Any]:
        """Wait for the pushed state of `version` (or a newer one)."""
        while self.view.get("version", -1) < version:
            await self.next("state")
        return self.view

    async def press(self, token: str) -> dict[str, Any]:
        await self.ws.send_str(json.dumps({"press": token, "id": 1}))
        return await self.next("reply")


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    h = Harness()
    stack = await start_web(h.service, telegram_token=TOKEN, secret="test secret")
    async with aiohttp.ClientSession() as session:
        yield Served(h, stack, session)
    await stack.stop()


async def _karnaval(s: Served) -> str:
    svc = s.h.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["game=karnaval", "bots=1"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await s.h.settle()
    table = await s.h.table()
    return table.table_id


def _proof(link: str) -> str:
    return parse_qs(urlsplit(link).query)["k"][0]


def _frames(page: str) -> dict[str, Any]:
    """A replay page's frames (its JSON data block)."""
    block = page.split('<script type="application/json" id="replay">', 1)[1]
    frames: dict[str, Any] = json.loads(block.split("</script>", 1)[0])
    return frames


async def test_a_seated_player_sees_their_hand_and_choices_a_spectator_nothing_to_press_K4(
    served: Served,
) -> None:
    table_id = await _karnaval(served)
    links = served.stack.links
    alice = await served.page(table_id, link=_proof(links.seat_link(table_id, ALICE.key) or ""))
    watcher = await served.page(table_id)
    assert alice.hello["you"] and alice.hello["denied"] is None
    assert watcher.hello["you"] is None and watcher.hello["denied"] is None
    table = await served.h.table()
    seat = table.seat_of(ALICE.key)
    hand = table.match.k.view_for(seat)["hand"]
    own = alice.view["shapes"]["own"]["tiles"]
    assert [t["id"] for t in own] == [c["card"] for c in hand]
    assert "own" not in watcher.view["shapes"]
    assert watcher.view["choices"] == [] and watcher.view["actions"] == []
    # The spectator's socket cannot press anything, not even a token copied from elsewhere.
    rules = served.h.service.game_of(table)
    decider = rules.deciders(table.match)[0]
    mover = alice if decider == seat else None
    if mover is not None:
        token = alice.view["choices"][0]["token"]
        refused = await watcher.press(token)
        assert refused["ok"] is False
        assert (await served.h.table()).row_version == table.row_version


async def test_bad_proofs_are_refused_and_change_nothing(served: Served) -> None:
    table_id = await _karnaval(served)
    now = served.h.clock.now()
    good = _proof(served.stack.links.seat_link(table_id, ALICE.key) or "")
    before = (await served.h.table()).row_version
    tampered = good[:-2] + ("AA" if not good.endswith("AA") else "BB")
    for bad in (tampered, good.replace(ALICE.key, BOB.key)):
        async with served.session.get(f"{served.base}/t/{table_id}?k={bad}") as resp:
            assert resp.status == 403
            assert "403" in await resp.text()
        page = await served.page(table_id, link=bad)
        assert page.hello["denied"] == 403 and page.hello["you"] is None
        assert page.view["choices"] == [] and "own" not in page.view["shapes"]
    # A link for another table, an expired one.
    other = sign_link(served.stack.links.secret.secret, "zzzzzz", ALICE.key, int(now) + 99)
    async with served.session.get(f"{served.base}/t/{table_id}?k={other}") as resp:
        assert resp.status == 403
    expired = sign_link(served.stack.links.secret.secret, table_id, ALICE.key, int(now) - 1)
    async with served.session.get(f"{served.base}/t/{table_id}?k={expired}") as resp:
        assert resp.status == 403
    # initData: forged (one byte), expired, another bot's.
    alice_id = 1
    good_init = init_data(alice_id, now, start=table_id)
    at = good_init.index("auth_date") + len("auth_date=") + 2
    forged = good_init[:at] + str((int(good_init[at]) + 1) % 10) + good_init[at + 1 :]
    for init in (
        forged,
        init_data(alice_id, now - 2 * 86_400, start=table_id),
        init_data(alice_id, now, token=OTHER_TOKEN, start=table_id),
    ):
        page = await served.page(table_id, init=init)
        assert page.hello["denied"] == 403 and page.view["choices"] == []
    async with served.session.get(f"{served.base}/t/nosuch") as resp:
        assert resp.status == 404
    assert (await served.h.table()).row_version == before


async def test_a_mini_app_user_is_taken_from_init_data_and_plays(served: Served) -> None:
    """A Telegram player (user key telegram:<id>) opens the Mini App: the table comes from
    `start_param`, the user from initData; their press applies like a chat press."""
    svc = served.h.service
    tele = User("telegram:77", "Tele")
    tg_channel = type(CHANNEL)("telegram", "-100")
    assert (await svc.handle(Open(tg_channel, tele))).ok
    assert (await svc.handle(Configure(tg_channel, tele, ["bots=1"]))).ok
    assert (await svc.handle(Start(tg_channel, tele))).ok
    await served.h.settle()
    table = await served.h.table(tg_channel)
    init = init_data(77, served.h.clock.now(), start=table.table_id)
    ws = await served.session.ws_connect(f"{served.base}/ws")
    await ws.send_str(json.dumps({"hello": {"table": None, "init": init}}))
    page = Page(ws)
    page.hello = await page.next("hello")
    await page.next("state")
    assert page.hello["table"] == table.table_id and page.hello["you"] == "Tele"
    while not page.view["choices"]:
        await served.h.settle()
        await page.next("state")
    version = page.view["version"]
    choice = page.view["choices"][0]
    reply = await page.press(choice["token"])
    assert reply["ok"], reply
    await page.until(version)
    # The same token again: stale, refused (a choice never applies twice).
    again = await page.press(choice["token"])
    assert again["ok"] is False


async def test_a_press_on_the_page_and_in_the_chat_at_once_applies_once(served: Served) -> None:
    table_id = await _karnaval(served)
    svc = served.h.service
    for _ in range(50):
        table = await served.h.table()
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if deciders and not table.seats[deciders[0]].bot:
            break
        await served.h.settle()
    seat = deciders[0]
    user = User(table.seats[seat].user, table.seats[seat].name)
    page = await served.page(
        table_id, link=_proof(served.stack.links.seat_link(table_id, user.key) or "")
    )
    token = page.view["choices"][0]["token"]
    log_before = len(table.log)
    page_press, chat_press = await asyncio.gather(
        page.press(token), svc.handle(Press(CHANNEL, user, token))
    )
    assert [page_press["ok"], chat_press.ok].count(True) == 1, (page_press, chat_press)
    after = await served.h.table()
    assert len([line for line in after.log[log_before:] if line[0].endswith(".play")]) <= 1


def _cards_in(text: str, cards: set[str]) -> set[str]:
    """Which of `cards` a payload names, by id (`"QS"`) or as people read them (`Q♠`)."""
    found = set()
    for c in cards:
        if re.search(rf'"{re.escape(c)}"', text) or card_text(c) in text:
            found.add(c)
    return found


async def test_nothing_another_player_holds_reaches_a_page_over_a_whole_deal_K4(
    served: Served,
) -> None:
    """Every payload Alice's page receives during a whole deal, searched for every card the
    other players held at that moment and that was not public (played, the trump card, the
    draw) nor
    in Alice's own hand (the deck is double: she may hold the twin)."""
    table_id = await _karnaval(served)
    svc = served.h.service
    links = served.stack.links
    alice = await served.page(table_id, link=_proof(links.seat_link(table_id, ALICE.key) or ""))
    bob = await served.page(table_id, link=_proof(links.seat_link(table_id, BOB.key) or ""))
    checked = 0
    secret_seen = 0
    for _ in range(400):
        table = await served.h.table()
        k = table.match.k
        d = k.current
        if d is None or d.complete:
            break
        # Public: the cards played, the trump card, the draw for the first player (K2, KC4).
        public = {c for p in d.plays for c in p.cards} | ({d.trump_card} if d.trump_card else set())
        public |= {c for r in k.draw or [] for c in r.values()}
        for page, me in ((alice, ALICE), (bob, BOB)):
            seat = table.seat_of(me.key)
            mine = set(d.held[seat])
            others = {c for s in range(k.n) if s != seat for c in d.held[s]}
            secret = others - mine - public
            secret_seen += len(secret)
            for text in page.received:
                found = _cards_in(text, secret)
                assert not found, (me.name, found)
                checked += 1
            page.received.clear()
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if deciders and not table.seats[deciders[0]].bot:
            seat = deciders[0]
            page = alice if table.seats[seat].user == ALICE.key else bob
            reply = await page.press(page.view["choices"][0]["token"])
            assert reply["ok"], reply
        else:
            await served.h.settle()
        stored = (await served.h.table()).row_version or 0
        await asyncio.gather(alice.at(stored), bob.at(stored))
    assert checked > 20 and secret_seen > 50


async def test_health_and_static_files_are_served(served: Served) -> None:
    async with served.session.get(f"{served.base}/healthz") as resp:
        assert resp.status == 200 and (await resp.json())["ok"] is True
    total = 0
    for name in ("index.html", "table.css", "table.js"):
        async with served.session.get(f"{served.base}/static/{name}") as resp:
            assert resp.status == 200
            total += len(await resp.read())
    assert total < 100_000  # the first view's weight (issue 21: under 100 KB)
    async with served.session.get(f"{served.base}/static/..%2Fserver.py") as resp:
        assert resp.status == 404


async def test_a_finished_match_replays_on_the_web_and_the_export_links_it(
    served: Served,
) -> None:
    """A whole Gnav match (one life each: short) against a bot, then `/r/<table id>` shows it
    step by step, and `/gnav_export` names that page (issue 21 point 4)."""
    svc = served.h.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["bots=1", "lives=1"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    for _ in range(500):
        await served.h.settle()
        table = await served.h.table()
        if table.status == "closed":
            break
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            served.h.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = table.seats[deciders[0]]
        if not seat.bot:
            choice = rules.choices(table.match, deciders[0])[-1]
            await svc.handle(
                Act(CHANNEL, User(seat.user, seat.name), choice.action, arg=choice.arg)
            )
    table = await served.h.table()
    assert table.status == "closed" and table.closed_reason == "finished"
    async with served.session.get(f"{served.base}/r/{table.table_id}") as resp:
        assert resp.status == 200
        page = await resp.text()
    frames = _frames(page)
    steps = frames["steps"]
    assert len(steps) >= 2 and all(s["choices"] == [] for s in steps)
    assert any("Alice" in s["text"] for s in steps)
    export = await svc.handle(Export(CHANNEL))
    assert export.ok and f"/r/{table.table_id}" in export.text
    async with served.session.get(f"{served.base}/r/nosuch") as resp:
        assert resp.status == 404


@pytest.fixture
async def pg_schema() -> AsyncIterator[str]:
    """A fresh PostgreSQL schema (skipped where PostgreSQL is not reachable)."""
    async with fresh_pg_schema() as name:
        yield name


async def test_a_page_gets_the_push_of_a_commit_made_by_another_process(pg_schema: str) -> None:
    """Two bot processes on one PostgreSQL store (docs/web.md, "several processes"): a page
    served by the first gets the push of a press the second committed; a link the first
    signed works on the second (one secret, kept in the store)."""
    import random

    from bot.games.registry import all_games
    from bot.service.service import TableService
    from storage.postgres import PostgresRepository
    from tests.service.fakes import FakeClock, RecordingNotifier
    from tests.storage.conftest import PG_DSN

    clock = FakeClock()
    repos = [await PostgresRepository.open(PG_DSN, schema=pg_schema, max_size=4) for _ in range(2)]
    first, second = (
        TableService(
            repo,
            RecordingNotifier(),
            clock=clock,
            rng=random.Random(i),
            bot_delay=0.0,
            games=all_games(),
        )
        for i, repo in enumerate(repos)
    )
    web_first = await start_web(first, watch_interval=0.02)
    web_second = await start_web(second, watch_interval=0.02)
    try:
        assert (await first.handle(Open(CHANNEL, ALICE))).ok
        assert (await first.handle(Join(CHANNEL, BOB))).ok
        assert (await first.handle(Start(CHANNEL, ALICE))).ok
        table = await first.table_state(CHANNEL)
        rules = first.game_of(table)
        seat = rules.deciders(table.match)[0]
        mover = ALICE if table.seats[seat].user == ALICE.key else BOB
        link = web_first.links.seat_link(table.table_id, mover.key) or ""
        async with aiohttp.ClientSession() as session:
            served = Served(Harness(), web_first, session)
            page = await served.page(table.table_id, link=_proof(link))
            version = page.view["version"]
            assert page.view["choices"]
            # The second process signs alike and takes the press.
            other = Served(Harness(), web_second, session)
            there = await other.page(table.table_id, link=_proof(link))
            assert there.hello["denied"] is None and there.view["choices"]
            reply = await second.handle(Press(CHANNEL, mover, there.view["choices"][0]["token"]))
            assert reply.ok, reply.text
            pushed = await page.until(version)  # pushed by the first, committed by the second
            assert pushed["version"] > version and not pushed["choices"]
    finally:
        await web_first.stop()
        await web_second.stop()
        for service in (first, second):
            await service.shutdown()
        for repo in repos:
            await repo.close()


async def test_telegram_opens_the_mini_app_by_url_in_groups_and_web_app_in_private() -> None:
    """The group's table message carries `https://t.me/<bot>/<app>?startapp=<table id>` as a
    url button (Telegram refuses web_app buttons in groups, as the fake does); a player's
    private hand carries their own link as a web_app button (a Mini App in a private chat)."""
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
    from telegram.error import BadRequest

    from tests.adapters.test_telegram_bench import Bench
    from tests.fakes.telegram_api import FakeTelegram

    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        web = await start_web(
            bench.service,
            telegram_token=tg.token,
            webapp="table",
            public_url="https://gnav.example.org",
        )
        app = bench.platform.app
        assert app is not None
        web.links.telegram_bot = app.bot.username
        try:
            alice = tg.add_user("Alice")
            bob = tg.add_user("Bob")
            group = tg.add_group("Carnival", members=[alice, bob])
            tg.user_starts_bot(alice)
            tg.user_starts_bot(bob)
            bench.say(alice, group, "/karnaval")
            await bench.wait_table(group, button="Join")
            bench.say(bob, group, "/gnav_join")
            await bench.wait_table(group, "Bob")
            bench.say(alice, group, "/gnav_settings bots=1 delay=0")
            await bench.idle()
            bench.say(alice, group, "/gnav_start")
            await bench.wait_table(group, button="My hand")
            table = await bench.table(group)
            msg = bench.table_message(group)
            assert msg is not None
            buttons = msg.buttons()
            link = f"https://t.me/{app.bot.username}/table?startapp={table.table_id}"
            assert any(b.get("url") == link for b in buttons)
            assert not any("web_app" in b for b in buttons)
            await bench.idle()
            private = [
                b
                for user in (alice, bob)
                for m in tg.messages_in(tg.private_chat(user), from_bot=True)
                for b in m.buttons()
                if "web_app" in b
            ]
            assert private, "no Mini App button in a private hand"
            own = private[0]["web_app"]["url"]
            assert own.startswith(f"https://gnav.example.org/t/{table.table_id}?k=telegram%3A")
            with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
                await app.bot.send_message(
                    group.id,
                    "a Mini App button in a group",
                    reply_markup=InlineKeyboardMarkup(
                        [[InlineKeyboardButton("app", web_app=WebAppInfo("https://x.org/"))]]
                    ),
                )
        finally:
            await web.stop()
            await bench.stop()


def test_play_web_serves_the_terminal_table_and_prints_the_players_link(tmp_path: Any) -> None:
    """`gnav-bot play --web --port N`: the table on 127.0.0.1:N and the local player's own
    signed link printed (issue 21 point 6)."""
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = ["--db", str(tmp_path / "play.sqlite3"), "--bot-delay", "0", "--players", "3"]
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--web", "--port", str(port), *options],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = re.search(
        rf"http://127\.0\.0\.1:{port}/t/[0-9a-z]+\?k=console%3Ayou\.[0-9a-f]+\.[\w-]+",
        done.stdout,
    )
    assert found, done.stdout


def test_discord_shows_a_link_button_beside_the_table_buttons() -> None:
    """A screen's link (the web table) is a Discord link button (no custom_id, nothing comes
    back); the token buttons stay persistent items."""
    import discord

    from adapters.discord.buttons import build_view
    from bot.service.ports import Button, Screen

    screen = Screen(
        "table",
        (
            (Button("My hand", "g:abc:1:view"),),
            (Button("Play on the web", "", url="https://gnav.example.org/t/abc?k=x"),),
        ),
    )
    view = build_view(screen)
    assert view is not None
    links = [i for i in view.children if isinstance(i, discord.ui.Button) and i.url]
    assert [b.url for b in links] == ["https://gnav.example.org/t/abc?k=x"]
    assert len(view.children) == 2


@pytest.mark.parametrize("game", ["gnav", "gnavspiel", "karnaval"])
async def test_every_game_shows_a_seat_its_own_holding_only_N1_G4_K4(
    served: Served, game: str
) -> None:
    """Each game's page at the deal: the seated player's own piece, card or hand as tiles,
    never another seat's (checked in everything the page received), a spectator none."""
    svc = served.h.service
    assert (await svc.handle(Open(CHANNEL, ALICE, game=game))).ok
    assert (await svc.handle(Join(CHANNEL, BOB))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["bots=1", "timeout=600"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    table = await served.h.table()
    links = served.stack.links
    alice = await served.page(
        table.table_id, link=_proof(links.seat_link(table.table_id, ALICE.key) or "")
    )
    watcher = await served.page(table.table_id)
    view = svc.view_of(table)
    a, b = table.seat_of(ALICE.key), table.seat_of(BOB.key)
    own = view.web_view(table.match, a, table.names, svc.texts(table))["own"]["tiles"]
    theirs = view.web_view(table.match, b, table.names, svc.texts(table))["own"]["tiles"]
    assert alice.view["shapes"]["own"]["tiles"] == own
    assert "own" not in watcher.view["shapes"]
    mine = {t["text"] for t in own}
    if game == "karnaval":  # public: the trump card, the draw for the first player (K2)
        k = table.match.k
        shown = {k.current.trump_card} | {c for r in k.draw or [] for c in r.values()}
        mine |= {card_text(c) for c in shown if c}
    for tile in theirs:
        if tile["text"] in mine:
            continue  # the twin of what Alice holds, or of a public card: it says nothing
        for text in alice.received + watcher.received:
            assert f'"text":"{tile["text"]}"' not in text
            assert not re.search(
                rf"(?<![\w]){re.escape(tile['text'])}(?![\w])",
                json.loads(text).get("view", {}).get("text", ""),
            ), tile


async def test_telegram_my_piece_popup_is_not_told_to_use_inline_mode_for_a_link() -> None:
    """Gnav's "My piece" popup carries the player's web link among its buttons (for platforms
    that show them); Telegram's popup shows text only and, with no choice to make there, never
    says to choose by inline mode (N1: the popup is the presser's alone)."""
    from tests.adapters.test_telegram_bench import Bench
    from tests.fakes.telegram_api import FakeTelegram

    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        web = await start_web(bench.service, telegram_token=tg.token)
        try:
            alice = tg.add_user("Alice")
            group = tg.add_group("Gnav", members=[alice])
            bench.say(alice, group, "/gnav")
            await bench.wait_table(group, button="Join")
            bench.say(alice, group, "/gnav_settings bots=1 timeout=600")
            await bench.idle()
            bench.say(alice, group, "/gnav_start")
            answer = await bench.press(alice, group, "My piece")
            assert answer.text and "@" not in answer.text, answer.text
            assert answer.show_alert
        finally:
            await web.stop()
            await bench.stop()


# ---------------------------------------------------------------- issue 30: links and replays
PUBLIC = "https://gnav.example.org"


def _own_link(button: dict[str, Any]) -> str:
    """A button's address: a url button's, or a Mini App button's (web_app)."""
    return str(button.get("url") or (button.get("web_app") or {}).get("url") or "")


@pytest.mark.parametrize("game", ["gnav", "karnaval"])
async def test_each_seated_player_gets_the_link_with_the_deals_first_dm_on_telegram(
    game: str,
) -> None:
    """On Telegram without a Mini App, each seated person's first private message of the deal
    (Gnav's piece, Karnaval's hand: no choices on them) carries their own signed link."""
    from tests.adapters.test_telegram_bench import Bench
    from tests.fakes.telegram_api import FakeTelegram

    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        web = await start_web(bench.service, telegram_token=tg.token, public_url=PUBLIC)
        try:
            alice = tg.add_user("Alice")
            bob = tg.add_user("Bob")
            group = tg.add_group("Club", members=[alice, bob])
            tg.user_starts_bot(alice)
            tg.user_starts_bot(bob)
            bench.say(alice, group, f"/{game}")
            await bench.wait_table(group, button="Join")
            bench.say(bob, group, "/gnav_join")
            await bench.wait_table(group, "Bob")
            bench.say(alice, group, "/gnav_settings bots=1 timeout=600 delay=300")
            await bench.idle()
            before = {
                u.id: len(tg.messages_in(tg.private_chat(u), from_bot=True)) for u in (alice, bob)
            }
            bench.say(alice, group, "/gnav_start")
            await bench.wait_table(group, button="My ")
            await bench.idle()
            table = await bench.table(group)
            for user in (alice, bob):
                mine = f"{PUBLIC}/t/{table.table_id}?k=telegram%3A{user.id}."

                def first(user: Any = user) -> Any:
                    sent = tg.messages_in(tg.private_chat(user), from_bot=True)
                    return sent[before[user.id]] if len(sent) > before[user.id] else None

                message = await tg.wait_for(first, timeout=30, what="the deal's first DM")
                links = [_own_link(b) for b in message.buttons()]
                assert any(link.startswith(mine) for link in links), (message.text, links)
        finally:
            await web.stop()
            await bench.stop()


async def test_each_seated_player_gets_the_link_with_the_deals_first_dm_on_discord() -> None:
    """On Discord, a Gnav deal's first DM (the piece: Gnav's choices are on the table
    message) carries the player's own signed link as a link button."""
    from storage.memory import MemoryRepository
    from tests.adapters.test_discord_play import fake_world, running_bot, slash

    async with fake_world() as world, running_bot(world, MemoryRepository()) as bot:
        web = await start_web(bot.service, public_url=PUBLIC)
        try:
            await slash(world, world.alice, "new")
            await slash(world, world.carl, "join")
            await slash(world, world.alice, "settings", {"changes": "bots=1 timeout=600"})
            before = {u.id: len(world.fake.dms_to(u)) for u in (world.alice, world.carl)}
            await slash(world, world.alice, "start")
            await bot.settle()
            table = await bot.table(world.channel)
            for user in (world.alice, world.carl):
                mine = f"{PUBLIC}/t/{table.table_id}?k=discord%3A{user.id}."
                first = await world.fake.wait_for(
                    lambda u=user: (world.fake.dms_to(u)[before[u.id] :] or [None])[0]
                )
                urls = [
                    c.get("url", "")
                    for row in first.get("components") or []
                    for c in row["components"]
                ]
                assert any(u.startswith(mine) for u in urls), (first["content"], urls)
        finally:
            await web.stop()


async def _finished(served: Served, game: str, language: str) -> Any:
    """A whole short match of `game` against bots, in `language`; the closed table."""
    svc = served.h.service
    settings = {"gnav": ["lives=1"], "gnavspiel": ["chips=2"], "karnaval": []}[game]
    assert (await svc.handle(Open(CHANNEL, ALICE, game=game))).ok
    assert (
        await svc.handle(Configure(CHANNEL, ALICE, ["bots=2", f"lang={language}", *settings]))
    ).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    for _ in range(3000):
        await served.h.settle()
        table = await served.h.table()
        if table.status == "closed":
            return table
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            served.h.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = table.seats[deciders[0]]
        if not seat.bot:
            choice = rules.choices(table.match, deciders[0])[0]
            await svc.handle(
                Act(CHANNEL, User(seat.user, seat.name), choice.action, arg=choice.arg)
            )
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("game", ["gnav", "gnavspiel", "karnaval"])
async def test_a_replay_shows_every_hand_from_the_deals_start_in_the_tables_language(
    served: Served, game: str
) -> None:
    """`/r/<table id>` of a German table: every seat's piece, card or hand from each deal's
    first step (not only at the reveal); the steps' lines are the table's log lines in German
    (no "Bot 1: stay"); `»` goes to the next deal's first step; the page is served with the
    live page's strict Content-Security-Policy (no inline script runs)."""
    from adapters.web.server import PAGE_POLICY

    table = await _finished(served, game, "de")
    async with served.session.get(f"{served.base}/r/{table.table_id}") as resp:
        assert resp.status == 200
        assert resp.headers["Content-Security-Policy"] == PAGE_POLICY
        page = await resp.text()
    assert '<html lang="de">' in page
    assert "<script>" not in page  # the frames are a data block, never run
    steps = _frames(page)["steps"]
    deals = sorted({s["deal"] for s in steps})
    assert deals == list(range(len(deals))) and len(steps) > len(deals)
    for d in deals:
        first = next(s for s in steps if s["deal"] == d)
        hands = first["shapes"]["hands"]
        seated = [i for i, s in enumerate(first["seats"]) if s["in"]]
        assert hands and any(hands[i] for i in seated), (game, d)
        # Gnav sits a Narr pair out; every other seat in the deal holds something.
        assert sum(1 for i in seated if hands[i]) >= 2, (game, d, hands)
    later = [s for s in steps if "—" in s["text"]]
    assert later
    for step in later:
        told = step["text"].split("—", 1)[1]
        assert not re.search(r": (stay|swap|offer|accept|decline|pass|draw|borrow)\b", told), told
    english = re.compile(r"\b(bids|plays|stays|swaps|takes the trick|round|deal|offers)\b")
    assert not any(english.search(s["text"]) for s in steps), [
        s["text"] for s in steps if english.search(s["text"])
    ][:1]
