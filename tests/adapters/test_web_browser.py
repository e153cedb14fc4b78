"""The web table in a real browser (issue 21): Debian's chromium driven by Playwright, beside
the real Telegram adapter on the fake Bot API. Two people in two browser contexts play a whole
Karnaval deal and a Gnav round by tapping: Alice opens the Mini App (initData signed with the
test bot's token, `window.Telegram.WebApp` injected, dark theme), Bob his signed link. After
every move the group's table message and both pages agree; each page only ever shows its own
hand (K4, N1); a 360x640 screenshot of each game is kept (artifacts/web/).

Skipped, with the reason, where chromium or Playwright is not installed (CI installs both).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from adapters.web.auth import sign_init_data
from adapters.web.stack import WebStack, start_web
from bot.games.karnaval.game import card_text
from bot.service.commands import Configure, Join, Open, Start
from bot.service.table import TableKey
from tests.adapters.test_telegram_bench import Bench
from tests.fakes.telegram_api import FakeTelegram

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("GNAV_ARTIFACTS", ROOT / "artifacts")) / "web"

playwright_api = pytest.importorskip(
    "playwright.async_api", reason="Playwright for Python is not installed (pip: playwright)"
)
if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
    pytest.skip(
        f"no browser: {CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True
    )

#: Telegram's dark theme, as a client hands it to a Mini App.
DARK = {
    "bg_color": "#212d3b",
    "text_color": "#ffffff",
    "hint_color": "#7d8b99",
    "link_color": "#5eabe1",
    "button_color": "#5289c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#151e27",
}


class World:
    """The fake Telegram, the bot (platform, service), the web table and a browser."""

    def __init__(self, tg: FakeTelegram, bench: Bench, web: WebStack, browser: Any) -> None:
        self.tg = tg
        self.bench = bench
        self.web = web
        self.browser = browser

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web.port}"

    async def mini_app(self, user: Any, table_id: str) -> Any:
        """A page opened as the Mini App by `user` (initData signed with the bot's token)."""
        fields = {
            "auth_date": str(int(self.bench.service.clock.now())),
            "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
            "start_param": table_id,
            "user": json.dumps({"id": user.id, "first_name": user.first_name}),
        }
        init = sign_init_data(fields, self.tg.token)
        webapp = {
            "initData": init,
            "initDataUnsafe": {"start_param": table_id},
            "themeParams": DARK,
            "colorScheme": "dark",
        }
        context = await self.browser.new_context(viewport={"width": 360, "height": 640})
        await context.add_init_script(
            "window.Telegram = {WebApp: Object.assign("
            + json.dumps(webapp)
            + ", {ready() {}, expand() {}})};"
        )
        page = await context.new_page()
        await page.goto(f"{self.base}/")
        return page

    async def by_link(self, user_key: str, table_id: str) -> Any:
        """A page opened by the player's signed link (a plain browser)."""
        link = self.web.links.seat_link(table_id, user_key)
        assert link is not None
        context = await self.browser.new_context(viewport={"width": 360, "height": 640})
        page = await context.new_page()
        await page.goto(link)
        return page


@pytest.fixture
async def world() -> AsyncIterator[World]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    async with FakeTelegram() as tg:
        bench = await Bench(tg).start()
        web = await start_web(bench.service, telegram_token=tg.token, webapp="table")
        app = bench.platform.app
        assert app is not None
        web.links.telegram_bot = app.bot.username
        async with playwright_api.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                yield World(tg, bench, web, browser)
            finally:
                await browser.close()
                await web.stop()
                await bench.stop()


async def _until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Wait until `expression` holds in the page. Asked from here (`evaluate` is not subject
    to the page's content-security-policy); Playwright's `wait_for_function` polls with an
    `eval` inside the page, which the page's policy (no 'unsafe-eval') refuses whenever the
    condition is not already true at the first look. `timeout` is a last guard only."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await page.evaluate(f"!!({expression})"):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the page never had {expression!r} within {timeout} s")
        await asyncio.sleep(0.02)


async def _page_version(page: Any) -> int:
    return int(await page.evaluate("window.gnavView ? window.gnavView.version : -1"))


async def _settled(w: World, group: Any, pages: list[Any]) -> str:
    """Wait until both pages show the stored table and the group's table message says what
    the pages say; returns that text."""
    await w.bench.service.outbox.drain()
    table = await w.bench.table(group)
    version = table.row_version or 0
    for page in pages:
        await _until(page, f"window.gnavView && window.gnavView.version >= {version}")
    text = await pages[0].evaluate("window.gnavView.text")
    assert text == await pages[1].evaluate("window.gnavView.text")

    def agrees() -> Any:
        msg = w.bench.table_message(group)
        return msg if msg is not None and (msg.text or "") == text else None

    await w.tg.wait_for(agrees, timeout=30, what="the group's table message as the pages show")
    # The page's log box shows the round's whole log (the table message shows the state and
    # only its newest events), line by line; outside a round, the message's text. The
    # message's newest events are the log's own lines.
    shown = await pages[0].eval_on_selector_all(
        ".lines p, .lines pre", "e => e.map(x => x.innerText)"
    )
    log = list(await pages[0].evaluate("window.gnavView.log || []"))
    for line in (x for x in (log or text.split("\n")) if x.strip()):
        assert any(line in s for s in shown), line
    if log and "\n—\n" in text:
        events = text.split("\n—\n", 1)[1].split("\n")
        for line in (x for x in events if x.strip() and not x.startswith("▶")):
            assert line in log, (line, log[-5:])
    return text


async def _bots_moved(w: World, group: Any, version: int) -> None:
    """Wait until the table moved past `version` (a bot seat acted)."""
    for _ in range(3000):
        table = await w.bench.table(group)
        if (table.row_version or 0) > version:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the bots did not move")


async def _own_tiles(page: Any) -> list[str]:
    return list(
        await page.evaluate("(window.gnavView.shapes.own || {tiles: []}).tiles.map(t => t.id)")
    )


async def _open(
    w: World, command: str, people: tuple[Any, Any, Any] | None = None
) -> tuple[Any, Any, Any, Any, str]:
    tg, bench = w.tg, w.bench
    if people is None:
        alice = tg.add_user("Alice")
        bob = tg.add_user("Bob")
        group = tg.add_group("Web", members=[alice, bob])
        tg.user_starts_bot(alice)
        tg.user_starts_bot(bob)
    else:
        alice, bob, group = people
    bench.say(alice, group, command)
    await bench.wait_table(group, button="Join")
    bench.say(bob, group, "/gnav_join")
    await bench.wait_table(group, "Bob")
    bench.say(alice, group, "/gnav_settings bots=1 timeout=600 delay=300")
    await bench.idle()
    bench.say(alice, group, "/gnav_start")
    await bench.wait_table(group, button="My ")
    table = await bench.table(group)
    # The group's table message opens the Mini App by a url button (no web_app in groups).
    msg = bench.table_message(group)
    assert msg is not None
    urls = [b.get("url", "") for b in msg.buttons()]
    app_link = f"https://t.me/{bench.platform.app.bot.username}/table?startapp={table.table_id}"
    assert app_link in urls and not any("web_app" in b for b in msg.buttons())
    return alice, bob, group, table, table.table_id


async def _tap_for(w: World, group: Any, pages: dict[str, Any], shot: Path | None = None) -> bool:
    """The person whose turn it is taps their first offered choice (a screenshot of their
    page first, to `shot`); False when a bot or nobody is to act."""
    table = await w.bench.table(group)
    rules = w.bench.service.game_of(table)
    if table.status != "playing" or not rules.deciders(table.match):
        return False
    seat = rules.deciders(table.match)[0]
    if table.seats[seat].bot:
        return False
    page = pages[table.seats[seat].user]
    # A card of the hand when cards are offered, else the first button of the keypad.
    control = page.locator("button.tile.can, .choices button[data-token]").first
    await control.wait_for(timeout=30_000)
    before = table.row_version or 0
    if shot is not None:
        await page.screenshot(path=str(shot))
    await control.click()
    await _until(page, f"window.gnavView && window.gnavView.version > {before}")
    return True


async def test_a_karnaval_deal_and_a_gnav_round_played_by_tapping_K4_N1(world: World) -> None:
    w = world
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # ---------------------------------------------------------------- Karnaval: a whole deal
    alice, bob, group, table, table_id = await _open(w, "/karnaval")
    pa = await w.mini_app(alice, table_id)
    pb = await w.by_link(f"telegram:{bob.id}", table_id)
    pages = {f"telegram:{alice.id}": pa, f"telegram:{bob.id}": pb}
    frames: dict[str, list[str]] = {key: [] for key in pages}
    for key, page in pages.items():
        page.on(
            "websocket",
            lambda ws, k=key: ws.on("framereceived", lambda f: frames[k].append(str(f))),
        )
    await pa.reload()
    await pb.reload()
    # The Mini App took Telegram's dark theme.
    assert await pa.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(33, 45, 59)"
    await _settled(w, group, [pa, pb])
    deal = table.match.k.current.index
    moves = 0
    # What each player may not see, by table version: the others' cards not yet public.
    secret_at: dict[int, dict[str, set[str]]] = {}
    for _ in range(200):
        table = await w.bench.table(group)
        k = table.match.k
        d = k.current
        if d.index != deal or d.complete:
            break
        public = {c for p in d.plays for c in p.cards} | {d.trump_card} - {None}
        public |= {c for r in k.draw or [] for c in r.values()}
        secret_at[table.row_version or 0] = {
            key: {c for s in range(k.n) if s != table.seat_of(key) for c in d.held[s]}
            - set(d.held[table.seat_of(key)])
            - public
            for key in pages
        }
        # Each page shows its own hand, only.
        for key, page in pages.items():
            seat = table.seat_of(key)
            assert sorted(await _own_tiles(page)) == sorted(d.held[seat])
        shot = ARTIFACTS / "karnaval-360x640.png" if moves == 4 else None
        if await _tap_for(w, group, pages, shot):
            moves += 1
        else:
            await _bots_moved(w, group, table.row_version or 0)
        await _settled(w, group, [pa, pb])
    table = await w.bench.table(group)
    assert table.match.k.current.index != deal or table.match.k.current.complete
    assert moves >= 8, moves
    await pb.screenshot(path=str(ARTIFACTS / "karnaval-end-of-deal-360x640.png"))
    assert frames[f"telegram:{alice.id}"] and frames[f"telegram:{bob.id}"]
    # Every payload each page received, searched for the cards it may not see at its version
    # (a later version's secret is a subset of an earlier one's: a sound, if weaker, check).
    checked = 0
    for key, received in frames.items():
        for text in received:
            msg = json.loads(text)
            if msg.get("type") != "state":
                continue
            later = [v for v in secret_at if v >= msg["view"]["version"]]
            if not later:
                continue
            secret = secret_at[min(later)][key]
            assert not [c for c in secret if f'"{c}"' in text or card_text(c) in text], key
            checked += 1
    assert checked >= 10, checked
    # ---------------------------------------------------------------- Gnav: a round
    alice2, bob2 = alice, bob
    group = w.tg.add_group("Web 2", members=[alice, bob])  # a channel of Gnav
    *_, table, _ = await _open(w, "/gnav", (alice, bob, group))
    assert table.game == "gnav"
    ga = await w.mini_app(alice2, table.table_id)
    gb = await w.by_link(f"telegram:{bob2.id}", table.table_id)
    gpages = {f"telegram:{alice2.id}": ga, f"telegram:{bob2.id}": gb}
    await _settled(w, group, [ga, gb])
    taps = 0
    for _ in range(50):
        table = await w.bench.table(group)
        rules = w.bench.service.game_of(table)
        if not rules.deciders(table.match):
            break
        for key, page in gpages.items():
            seat = table.seat_of(key)
            tiles = await _own_tiles(page)
            assert tiles == (["own"] if table.match.hands[seat] >= 0 else [])
        shot = ARTIFACTS / "gnav-360x640.png" if taps == 0 else None
        if await _tap_for(w, group, gpages, shot):
            taps += 1
        else:
            await _bots_moved(w, group, table.row_version or 0)
        await _settled(w, group, [ga, gb])
    table = await w.bench.table(group)
    assert taps >= 1 and table.match.history[-1].end is not None  # the round ended
    text = await _settled(w, group, [ga, gb])
    assert "Reveal" in text or "reveal" in text.lower()
    await ga.screenshot(path=str(ARTIFACTS / "gnav-reveal-360x640.png"))


async def test_a_spectator_page_has_no_control_that_acts(world: World) -> None:
    w = world
    alice, _bob, group, table, table_id = await _open(w, "/karnaval")
    context = await w.browser.new_context(viewport={"width": 360, "height": 640})
    page = await context.new_page()
    await page.goto(f"{w.base}/t/{table_id}")
    await _until(page, "window.gnavView !== undefined")
    assert await page.locator("[data-token]").count() == 0
    assert await page.locator("button.tile").count() == 0
    assert "watching" in (await page.inner_text(".notice"))
    # A forged Mini App (one byte of initData changed): a notice, the public table only.
    fields = {
        "auth_date": str(int(w.bench.service.clock.now())),
        "start_param": table_id,
        "user": json.dumps({"id": alice.id, "first_name": "Alice"}),
    }
    init = sign_init_data(fields, w.tg.token)
    forged = init.replace("Alice", "Alicf")
    context2 = await w.browser.new_context()
    await context2.add_init_script(
        "window.Telegram = {WebApp: {initData: "
        + json.dumps(forged)
        + ", initDataUnsafe: {}, ready() {}, expand() {}}};"
    )
    page2 = await context2.new_page()
    await page2.goto(f"{w.base}/?t={table_id}")
    await _until(page2, "window.gnavView !== undefined")
    assert await page2.locator("[data-token]").count() == 0
    assert "could not be verified" in await page2.inner_text(".notice")
    # A tampered link: a 403 page.
    link = w.web.links.seat_link(table_id, f"telegram:{alice.id}") or ""
    proof = parse_qs(urlsplit(link).query)["k"][0]
    response = await page.goto(f"{w.base}/t/{table_id}?k={proof[:-1]}x")
    assert response is not None and response.status == 403
    assert TableKey("telegram", str(group.id)).key == table.key.key


async def test_the_replay_page_works_offline_step_by_step(world: World, tmp_path: Path) -> None:
    """`gnav-bot replay --html FILE > match.html`: one file, opened with no network at all,
    steps through the match (issue 21 point 4)."""
    from bot.cli import _replay_html

    record = ROOT / "tests" / "vectors" / "karnaval" / "public" / "bar_on_last_bid.json"
    page_file = tmp_path / "match.html"
    page_file.write_text(_replay_html(record.read_text(encoding="utf-8"), "en"), "utf-8")
    context = await world.browser.new_context(viewport={"width": 360, "height": 640}, offline=True)
    asked: list[str] = []
    context.on("request", lambda r: asked.append(r.url))
    page = await context.new_page()
    await page.goto(page_file.as_uri())
    counter = page.locator(".steps .hint")
    await counter.wait_for(timeout=30_000)
    first = await counter.inner_text()
    assert first.startswith("1 / ")
    before = await page.inner_text(".lines")
    await page.locator(".steps button", has_text="›").click()
    assert (await counter.inner_text()).startswith("2 / ")
    # `»`: the next deal's first step (issue 30), not the last step.
    frames = json.loads(await page.evaluate("document.getElementById('replay').textContent"))
    steps = frames["steps"]
    second = next(i for i, s in enumerate(steps) if s["deal"] == 1)
    await page.locator(".steps button", has_text="»").click()
    assert (await counter.inner_text()).startswith(f"{second + 1} / "), second
    assert second + 1 < len(steps)
    last = await page.inner_text(".lines")
    assert last != before
    assert all(url.startswith("file:") for url in asked), asked
    await page.screenshot(path=str(ARTIFACTS / "replay-karnaval-360x640.png"))


async def test_a_gnavspiel_table_on_a_phone(world: World) -> None:
    """Gnavspiel's page at 360x640 (its own card, the pot, chips): a screenshot is kept."""
    from bot.service.table import User

    w = world
    alice = w.tg.add_user("Alice")
    bob = w.tg.add_user("Bob")
    group = w.tg.add_group("Spiel", members=[alice, bob])
    tk = TableKey("telegram", str(group.id))
    svc = w.bench.service
    a, b = User(f"telegram:{alice.id}", "Alice"), User(f"telegram:{bob.id}", "Bob")
    assert (await svc.handle(Open(tk, a, game="gnavspiel"))).ok
    assert (await svc.handle(Join(tk, b))).ok
    assert (await svc.handle(Configure(tk, a, ["bots=1", "timeout=600"]))).ok
    assert (await svc.handle(Start(tk, a))).ok
    table = await svc.table_state(tk)
    page = await w.by_link(a.key, table.table_id)
    await _until(page, "window.gnavView !== undefined")
    own = await _own_tiles(page)
    assert own == ["own"]
    await page.screenshot(path=str(ARTIFACTS / "gnavspiel-360x640.png"))
