"""Screenshots of the web table (issue 30): each game mid-deal at 360x640 (a phone) and
1280x800 (a desktop) as a seated player sees them, and a replay page, into `--out`
(artifacts/web/ by default: kept in the repository, looked at before each change of the page).

Run: `python benchmarks/web_screenshots.py --screenshots` (Playwright and Debian's chromium at
/usr/bin/chromium; a few seconds). Not part of the test suite; the browser tests
(tests/adapters/test_web_page.py) check what these pictures show.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import random
from typing import Any
from urllib.parse import urlsplit

from adapters.web.stack import start_web
from benchmarks.service import NullNotifier
from bot.games.registry import all_games
from bot.service.commands import Act, Configure, Open, Start
from bot.service.service import TableService
from bot.service.table import TableKey, User
from storage.memory import MemoryRepository

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]
SIZES = ((360, 640), (1280, 800))
ME = User("web:me", "Alice")


def _small(path: Path) -> Path:
    """The PNG in 256 colours (a page of flat colours: about a third of the bytes)."""
    from PIL import Image

    with Image.open(path) as shot:
        fewer = shot.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    fewer.save(path, optimize=True)
    return path


async def _settle(service: TableService) -> None:
    while await service.tick():
        pass
    await service.thinking.wait()
    while await service.tick():
        pass


async def _to_my_turn(service: TableService, key: TableKey, want: Any) -> None:
    """Play (the first choice for the person, the bots by themselves) until `want(table)` holds
    with the person to choose."""
    for _ in range(400):
        await _settle(service)
        table = await service.table_state(key)
        rules = service.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            continue
        seat = deciders[0]
        mine = table.seats[seat].user == ME.key
        if mine and want(table):
            return
        if mine:
            choice = rules.choices(table.match, seat)[0]
            await service.handle(Act(key, ME, choice.action, arg=choice.arg))
    raise RuntimeError("never reached the wanted moment")


def _karnaval_mid_trick(table: Any) -> bool:
    d = table.match.k.current
    return d is not None and d.trick and len(d.tricks) >= 2


async def shoot(out: Path) -> list[Path]:
    """Every screenshot; the files written."""
    from playwright.async_api import async_playwright

    service = TableService(
        MemoryRepository(), NullNotifier(), rng=random.Random(30), bot_delay=0.0, games=all_games()
    )
    web = await start_web(service, secret="screenshots")
    games = (
        ("karnaval", ["bots=3"], _karnaval_mid_trick),
        ("gnav", ["bots=4"], lambda t: True),
        ("gnavspiel", ["bots=3"], lambda t: True),
    )
    written: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--headless"])
        try:
            for n, (game, settings, want) in enumerate(games):
                key = TableKey("web", f"shots{n}")
                await service.handle(Open(key, ME, game=game))
                await service.handle(Configure(key, ME, ["timeout=600", *settings]))
                await service.handle(Start(key, ME))
                await _to_my_turn(service, key, want)
                table = await service.table_state(key)
                link = web.links.seat_link(table.table_id, ME.key) or ""
                for width, height in SIZES:
                    context = await browser.new_context(
                        viewport={"width": width, "height": height}, reduced_motion="reduce"
                    )
                    page = await context.new_page()
                    parts = urlsplit(link)
                    await page.goto(f"http://127.0.0.1:{web.port}{parts.path}?{parts.query}")
                    await page.wait_for_selector(".seat")
                    path = out / f"table-{game}-{width}x{height}.png"
                    await page.screenshot(path=str(path))
                    written.append(_small(path))
                    await context.close()
            written.append(await _replay(browser, out))
        finally:
            await browser.close()
            await web.stop()
            await service.shutdown()
    return written


async def _replay(browser: Any, out: Path) -> Path:
    """The offline replay page (`gnav-bot replay --html`) of a public Karnaval record, at its
    second deal's first step (after `»`), 1280x800."""
    from bot.cli import _replay_html

    record = ROOT / "tests" / "vectors" / "karnaval" / "public" / "bar_on_last_bid.json"
    page_file = out / "replay.html"
    page_file.write_text(_replay_html(record.read_text(encoding="utf-8"), "en"), "utf-8")
    context = await browser.new_context(
        viewport={"width": 1280, "height": 800}, reduced_motion="reduce"
    )
    page = await context.new_page()
    await page.goto(page_file.as_uri())
    await page.locator(".steps button", has_text="»").click()
    await page.locator(".steps button", has_text="›").click()
    path = out / "table-replay-1280x800.png"
    await page.screenshot(path=str(path))
    await context.close()
    page_file.unlink()
    return _small(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--screenshots", action="store_true", help="take them (the default)")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "web")
    args = parser.parse_args()
    for path in asyncio.run(shoot(args.out)):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
