"""The web table's page in a real browser (issue 30, points 7 to 9): Debian's chromium driven by
Playwright over a service with bots (no chat platform). The log follows its newest line, the
6-player score sheet scrolls sideways at 360 px with its first column held, a right-to-left
name does not reorder its line, the title and favicon, and axe-core finds no serious or
critical violation on a player's page, a spectator's page and the replay page.

Skipped, with the reason, where chromium, Playwright or axe-playwright-python is missing.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from adapters.web.stack import WebStack, start_web
from bot.service.commands import Act, Configure, Join, Open, Start
from bot.service.table import TableKey, User
from tests.service.conftest import ALICE, CHANNEL, Harness

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

playwright_api = pytest.importorskip(
    "playwright.async_api", reason="Playwright for Python is not installed (pip: playwright)"
)
axe_api = pytest.importorskip(
    "axe_playwright_python.async_playwright",
    reason="axe-playwright-python is not installed (pip: axe-playwright-python)",
)
if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
    pytest.skip(
        f"no browser: {CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True
    )

#: A name written right to left (Hebrew), for the bidirectional-text test.
RTL = "שרה"


class World:
    """A service with bots (the harness), its web table and a browser."""

    def __init__(self, h: Harness, web: WebStack, browser: Any) -> None:
        self.h = h
        self.web = web
        self.browser = browser

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web.port}"

    async def page(self, path: str, width: int = 360, height: int = 640) -> Any:
        context = await self.browser.new_context(viewport={"width": width, "height": height})
        page = await context.new_page()
        await page.goto(f"{self.base}{path}")
        return page

    async def seat_page(self, table_id: str, user: str, width: int = 360) -> Any:
        link = self.web.links.seat_link(table_id, user) or ""
        page = await self.page(urlsplit(link).path + "?" + urlsplit(link).query, width)
        await until(page, "window.gnavView !== undefined")
        return page

    async def open(
        self, game: str, *settings: str, user: User = ALICE, key: TableKey = CHANNEL
    ) -> str:
        svc = self.h.service
        assert (await svc.handle(Open(key, user, game=game))).ok
        assert (await svc.handle(Configure(key, user, ["timeout=600", *settings]))).ok
        assert (await svc.handle(Start(key, user))).ok
        await self.h.settle()
        table = await svc.table_state(key)
        return str(table.table_id)

    async def step(self, key: TableKey = CHANNEL) -> bool:
        """The human seat to act takes its first choice (bots then move); False at the end."""
        svc = self.h.service
        await self.h.settle()
        table = await svc.table_state(key)
        if table.status != "playing":
            return False
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            self.h.clock.advance(table.settings.next_round_delay + 1)
            await self.h.settle()
            return True
        seat = table.seats[deciders[0]]
        choice = rules.choices(table.match, deciders[0])[0]
        await svc.handle(Act(key, User(seat.user, seat.name), choice.action, arg=choice.arg))
        await self.h.settle()
        return True


@pytest.fixture
async def world() -> AsyncIterator[World]:
    h = Harness()
    web = await start_web(h.service, secret="page tests")
    async with playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield World(h, web, browser)
        finally:
            await browser.close()
            await web.stop()


async def until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Wait until `expression` holds in the page (asked from here: the page's policy refuses
    Playwright's own polling `eval`); `timeout` is a last guard only."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await page.evaluate(f"!!({expression})"):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the page never had {expression!r} within {timeout} s")
        await asyncio.sleep(0.02)


async def shown_version(w: World, page: Any, key: TableKey = CHANNEL) -> int:
    """Wait until the page shows the stored table's version; returns it."""
    table = await w.h.service.table_state(key)
    version = table.row_version or 0
    await until(page, f"window.gnavView && window.gnavView.version >= {version}")
    return version


async def serious(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page (rule id and a target each)."""
    results = await axe_api.Axe().run(page)
    found = []
    for v in results.response["violations"]:
        if v.get("impact") in ("serious", "critical"):
            targets = [str(n.get("target")) for n in v.get("nodes", [])][:3]
            found.append(f"{v['id']} ({v['impact']}): {targets}")
    return found


async def finished_gnav(w: World, key: TableKey) -> str:
    """A whole Gnav match against a bot (one life each: short); its table id."""
    table_id = await w.open("gnav", "bots=1", "lives=1", key=key)
    for _ in range(500):
        if not await w.step(key):
            break
    table = await w.h.service.table_state(key)
    assert table.status == "closed"
    return table_id


LOG_AT_END = """(() => {
  const log = document.querySelector('.log');
  const last = log && log.lastElementChild;
  if (!last) return false;
  const box = log.getBoundingClientRect();
  const line = last.getBoundingClientRect();
  return line.bottom <= box.bottom + 1 && line.top >= box.top - 1;
})()"""


async def test_the_log_shows_its_newest_line_after_every_push(world: World) -> None:
    w = world
    table_id = await w.open("karnaval", "bots=2")
    errors: list[str] = []
    for width in (360, 1280):
        page = await w.seat_page(table_id, ALICE.key, width)
        page.on("pageerror", lambda e: errors.append(str(e)))
        for _ in range(12):
            if not await w.step():
                break
            await shown_version(w, page)
            assert await page.evaluate(LOG_AT_END), f"the newest line is hidden at {width} px"
    assert not errors, errors  # the cards' moves (a trick to its taker) among them
    # A reader who scrolled up keeps their place.
    await page.evaluate("document.querySelector('.log').scrollTop = 0")
    await w.step()
    await shown_version(w, page)
    assert await page.evaluate("document.querySelector('.log').scrollTop") == 0


async def test_the_six_player_sheet_scrolls_sideways_at_360_px_first_column_held(
    world: World,
) -> None:
    """Six players with long names: the score sheet is wider than a phone; it scrolls
    sideways inside its box (the page itself never wider than the screen), and its first
    column stays in place while it does."""
    w = world
    svc = w.h.service
    people = [
        User(f"test:{i}", name)
        for i, name in enumerate(["Alexandrina", "Bartholomew", "Konstantinos"], start=1)
    ]
    assert (await svc.handle(Open(CHANNEL, people[0], game="karnaval"))).ok
    for person in people[1:]:
        assert (await svc.handle(Join(CHANNEL, person))).ok
    assert (await svc.handle(Configure(CHANNEL, people[0], ["timeout=600", "bots=3"]))).ok
    assert (await svc.handle(Start(CHANNEL, people[0]))).ok
    for _ in range(40):  # until the sheet has a row (the first deal's bids)
        table = await svc.table_state(CHANNEL)
        if len(table.match.k.current.bids) == 6:
            break
        await w.step()
    page = await w.seat_page(table.table_id, people[0].key, 360)
    await until(page, "[...document.querySelectorAll('table')].some(t => t.rows.length > 1)")
    fits = await page.evaluate(
        """(() => {
        // The score sheet: the table with a column per player (7: the rows' labels, 6 seats).
        const sheet = [...document.querySelectorAll('table')].find(
          (t) => t.rows[0].cells.length === 7);
        const box = sheet.parentElement;
        const r = box.getBoundingClientRect();
        const style = getComputedStyle(box);
        const first = sheet.rows[1].cells[0];
        const before = first.getBoundingClientRect().left;
        box.scrollLeft = box.scrollWidth;
        const after = first.getBoundingClientRect().left;
        return {
          pageWidth: document.documentElement.scrollWidth, right: r.right,
          inner: box.scrollWidth, shown: box.clientWidth, overflow: style.overflowX,
          scrolled: box.scrollLeft, held: Math.abs(after - before) < 1,
        };
      })()"""
    )
    assert fits["pageWidth"] <= 360 and fits["right"] <= 360, fits
    assert fits["inner"] > fits["shown"], fits  # wider than the phone: it must scroll
    assert fits["overflow"] in ("auto", "scroll") and fits["scrolled"] > 0, fits
    assert fits["held"], fits


BIDI = """(name) => {
  // Every line naming `name`: the text after the name sits to its right (an LTR page).
  const out = [];
  for (const el of document.querySelectorAll('.log p, .seat, .trick .tile')) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const nodes = [];
    let text = '';
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      nodes.push([n, text.length]);
      text += n.data;
    }
    const at = text.indexOf(name);
    if (at < 0) continue;
    let next = at + name.length;
    while (next < text.length && /[\\s\\u2068\\u2069]/.test(text[next])) next += 1;
    if (next >= text.length) continue;
    const rect = (i, j) => {
      const range = document.createRange();
      const find = (k) => {
        let hit = nodes[0];
        for (const node of nodes) if (node[1] <= k) hit = node;
        return [hit[0], k - hit[1]];
      };
      const [a, ao] = find(i);
      const [b, bo] = find(j - 1);
      range.setStart(a, ao);
      range.setEnd(b, bo + 1);
      return range.getBoundingClientRect();
    };
    const nameBox = rect(at, at + name.length);
    const after = rect(next, next + 1);
    if (Math.abs(after.top - nameBox.top) > 4) continue; // wrapped to the next line
    out.push({text, ok: after.left >= nameBox.right - 1});
  }
  return out;
}"""


async def test_a_right_to_left_name_does_not_reorder_its_line(world: World) -> None:
    w = world
    svc = w.h.service
    sarah = User("test:9", RTL)
    assert (await svc.handle(Open(CHANNEL, ALICE, game="karnaval"))).ok
    assert (await svc.handle(Join(CHANNEL, sarah))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["timeout=600", "bots=1"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    for _ in range(6):
        await w.step()
    table = await svc.table_state(CHANNEL)
    page = await w.seat_page(table.table_id, ALICE.key, 1280)
    await shown_version(w, page)
    lines = await page.evaluate(BIDI, RTL)
    assert lines, "no line names the right-to-left player"
    assert all(x["ok"] for x in lines), [x["text"] for x in lines if not x["ok"]]


async def test_title_in_the_tables_language_and_a_favicon(world: World) -> None:
    w = world
    table_id = await w.open("karnaval", "bots=2", "lang=ru")
    page = await w.seat_page(table_id, ALICE.key)
    assert "Карнавал" in await page.title()
    assert await page.evaluate("document.documentElement.lang") == "ru"
    icon = await page.evaluate("document.querySelector('link[rel~=icon]').href")
    response = await page.goto(icon)
    assert response is not None and response.status == 200
    response = await page.goto(f"{w.base}/favicon.ico")
    assert response is not None and response.status == 200
    assert (response.headers.get("content-type") or "").startswith("image/")


async def test_axe_finds_no_serious_violation_on_the_three_pages(world: World) -> None:
    """A player's page (Karnaval mid-deal, their hand to tap), a spectator's page and the
    replay page of a finished match: 0 serious or critical violations by axe-core."""
    w = world
    table_id = await w.open("karnaval", "bots=2")
    for _ in range(4):
        await w.step()
    player = await w.seat_page(table_id, ALICE.key)
    spectator = await w.page(f"/t/{table_id}")
    await until(spectator, "window.gnavView !== undefined")
    other = TableKey("test", "chat2")
    replay_id = await finished_gnav(w, other)
    replay = await w.page(f"/r/{replay_id}")
    await until(replay, "document.querySelector('.steps')")
    found = {
        "player": await serious(player),
        "spectator": await serious(spectator),
        "replay": await serious(replay),
    }
    assert found == {"player": [], "spectator": [], "replay": []}, found


def _proof(link: str) -> str:
    return parse_qs(urlsplit(link).query)["k"][0]


async def test_a_card_is_named_tabbed_to_and_played_by_the_keyboard(world: World) -> None:
    """A Russian table at Alice's turn: the title says it is her turn, her cards carry their
    names in Russian ("Дама червей, козырь"), Tab reaches a card with a visible focus ring and
    Enter plays it."""
    w = world
    table_id = await w.open("karnaval", "bots=2", "lang=ru")
    for _ in range(40):
        table = await w.h.service.table_state(CHANNEL)
        rules = w.h.service.game_of(table)
        deciders = rules.deciders(table.match)
        seat = table.seat_of(ALICE.key)
        mine = list(deciders) == [seat]
        if mine and any(c.action == "play" for c in rules.choices(table.match, seat)):
            break
        await w.step()
    else:
        raise AssertionError("Alice never had a card to play")
    page = await w.seat_page(table_id, ALICE.key, 1280)
    version = await shown_version(w, page)
    assert (await page.title()).startswith("▶ Ваш ход")
    labels = await page.eval_on_selector_all(
        "button.tile.can", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    suits = ("пик", "червей", "бубен", "треф", "джокер")
    assert labels and all(any(s in label for s in suits) for label in labels), labels
    for _ in range(80):
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.matches('button.tile.can')"):
            break
    else:
        raise AssertionError("Tab never reached a card")
    ring = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert ring not in ("", "none"), ring
    await page.keyboard.press("Enter")
    await until(page, f"window.gnavView.version > {version}")
    table = await w.h.service.table_state(CHANNEL)
    assert (table.row_version or 0) > version
