"""Web table benchmark (issue 21): pages connected to one bot process watching tables of bots.

A server process runs the table service (SQLite store, a notifier that sends nothing) and the web
table, with `--tables` Karnaval tables of four bot seats playing at `--bot-delay`. A client
process opens `--pages` WebSocket pages spread over the tables (two in five proven as a seat
with its signed link, the others spectators), and records when each pushed view arrives. The
server records when each table commit happened. Printed:

- push delay: from a commit to the moment *every* page watching that table has a view of that
  version or newer (pushes are coalesced: a page may skip to a newer one), p50/p99/max; and of
  it, until the server had written that version's push to the last of its pages;
- memory per open page: the server's resident memory with the pages open, minus before they
  connected, divided by the pages;
- page weight of the first view: the HTML, CSS and JavaScript a page loads plus its first
  pushed view (bytes as sent, and gzip-compressed as a proxy with compression sends them).

The last line is one JSON object. Run: `.venv/bin/python benchmarks/web.py` (about a minute;
`--pages 500 --tables 100 --seconds 20 --bot-delay 0.5` are the defaults).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import gzip
import json
import multiprocessing as mp
import os
import random
import statistics
import tempfile
import time
from multiprocessing.connection import Connection
from typing import Any
from urllib.parse import unquote

from benchmarks.service import NullNotifier
from bot.games.registry import all_games
from bot.runtime import tune_garbage_collector
from bot.service.commands import Configure, Open, Start
from bot.service.service import TableService
from bot.service.table import TableKey, User

HOST = User("bench:host", "Host")


def _rss() -> int:
    """This process's resident memory in bytes."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def serve(conn: Connection, tables: int, bot_delay: float, db: str) -> None:
    """The bot process: service, store, web table; answers the client over `conn`."""
    asyncio.run(_serve(conn, tables, bot_delay, db))


async def _serve(conn: Connection, tables: int, bot_delay: float, db: str) -> None:
    from adapters.web.stack import start_web
    from storage.sqlite import SqliteRepository

    repo = await SqliteRepository.open(db)
    service = TableService(
        repo, NullNotifier(), rng=random.Random(1), bot_delay=bot_delay, games=all_games()
    )
    web = await start_web(service, secret="benchmark")
    opened: list[dict[str, Any]] = []
    for i in range(tables):
        key = TableKey("bench", f"t{i}")
        await service.handle(Open(key, HOST, sit=False, game="karnaval"))
        await service.handle(Configure(key, HOST, ["bots=4", "delay=0", "timeout=600"]))
        await service.handle(Start(key, HOST))
        table = await service.table_state(key)
        assert table is not None
        links = [web.links.seat_link(table.table_id, s.user) for s in table.seats[:2]]
        opened.append({"id": table.table_id, "links": links})
    tune_garbage_collector()  # as `gnav-bot run` does once its tables are loaded
    commits: list[tuple[str, int, float]] = []
    service.subscribe(lambda key, tid, v: commits.append((tid, v, time.time())))
    # When the server has written a version's push to its last page (the server's share).
    written: dict[tuple[str, int], float] = {}
    send = web.hub._send

    async def timed(page: Any, view: Any, text: str) -> None:
        await send(page, view, text)
        written[(view.table_id, view.version)] = time.time()

    web.hub._send = timed  # type: ignore[method-assign]
    timers = asyncio.create_task(service.run())
    loop = asyncio.get_running_loop()
    conn.send({"port": web.port, "tables": opened, "rss": _rss()})
    while True:
        msg = await loop.run_in_executor(None, conn.recv)
        if msg == "rss":
            conn.send(_rss())
        elif msg == "mark":
            commits.clear()
            conn.send(True)
        elif msg == "stop":
            timers.cancel()
            server_side = [written[(tid, v)] - at for tid, v, at in commits if (tid, v) in written]
            conn.send((commits, server_side))
            break
    await web.stop()
    await asyncio.gather(timers, return_exceptions=True)
    await service.shutdown()
    await repo.close()


async def _pages(
    port: int, tables: list[dict[str, Any]], count: int, seconds: float, conn: Connection
) -> dict[str, Any]:
    import aiohttp
    import orjson

    base = f"http://127.0.0.1:{port}"
    seen: dict[int, list[tuple[str, int, float]]] = {}
    which: dict[int, str] = {}
    first_view = 0
    # No cap on connections (aiohttp's default is 100 at once: page 101 would wait for ever).
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        weight = 0
        for path in ("/t/" + tables[0]["id"], "/static/table.css", "/static/table.js"):
            async with session.get(base + path) as resp:
                body = await resp.read()
                weight += len(body)
                gz = len(gzip.compress(body))
                first_view += gz

        async def page(n: int) -> None:
            table = tables[n % len(tables)]
            which[n] = table["id"]
            hello: dict[str, Any] = {"table": table["id"]}
            slot = (n // len(tables)) % 5
            if slot < 2:  # two in five pages are a seat's own (its hand), the rest watch
                hello["link"] = unquote(table["links"][slot].split("?k=", 1)[1])
            ws = await session.ws_connect(f"{base}/ws", max_msg_size=0)
            await ws.send_str(json.dumps({"hello": hello}))
            log = seen.setdefault(n, [])
            async for msg in ws:
                now = time.time()
                data = orjson.loads(msg.data)
                if data["type"] == "state":
                    log.append((table["id"], data["view"]["version"], now))
                    if n == 0 and len(log) == 1:
                        sizes.append(msg.data.encode())

        sizes: list[bytes] = []
        tasks = [asyncio.create_task(page(n)) for n in range(count)]
        while sum(1 for n in range(count) if seen.get(n)) < count:
            await asyncio.sleep(0.05)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, conn.send, "rss")
        rss_open = await loop.run_in_executor(None, conn.recv)
        await loop.run_in_executor(None, conn.send, "mark")
        await loop.run_in_executor(None, conn.recv)
        started = time.time()
        await asyncio.sleep(seconds)
        await loop.run_in_executor(None, conn.send, "stop")
        commits, server_side = await loop.run_in_executor(None, conn.recv)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    first = sizes[0] if sizes else b""
    return {
        "seen": seen,
        "which": which,
        "commits": [c for c in commits if c[2] >= started],
        "server_side": sorted(server_side),
        "rss_open": rss_open,
        "weight": weight + len(first),
        "weight_gzip": first_view + len(gzip.compress(first)),
    }


def _delays(result: dict[str, Any]) -> list[float]:
    """For each commit: the time until every page of its table had that version or newer."""
    by_table: dict[str, list[list[tuple[int, float]]]] = {}
    for n, log in result["seen"].items():
        by_table.setdefault(result["which"][n], []).append([(v, t) for _, v, t in log])
    delays = []
    for table_id, version, at in result["commits"]:
        worst = 0.0
        for log in by_table.get(table_id, []):
            got = next((t for v, t in log if v >= version), None)
            if got is None:
                worst = float("inf")  # never arrived before the end: not counted below
                break
            worst = max(worst, got - at)
        if worst != float("inf"):
            delays.append(worst)
    return delays


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--bot-delay", type=float, default=0.5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ctx = mp.get_context("spawn")
        ours, theirs = ctx.Pipe()
        server = ctx.Process(
            target=serve, args=(theirs, args.tables, args.bot_delay, f"{tmp}/bench.sqlite3")
        )
        server.start()
        hello = ours.recv()
        result = asyncio.run(_pages(hello["port"], hello["tables"], args.pages, args.seconds, ours))
        server.join(30)
    delays = sorted(_delays(result))
    if not delays:
        raise SystemExit("no commits measured")
    p50 = statistics.median(delays) * 1000
    p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))] * 1000
    per_page = (result["rss_open"] - hello["rss"]) / args.pages
    ours = result["server_side"] or [0.0]
    s50 = statistics.median(ours) * 1000
    s99 = ours[min(len(ours) - 1, int(len(ours) * 0.99))] * 1000
    figures = {
        "pages": args.pages,
        "tables": args.tables,
        "commits": len(delays),
        "push_p50_ms": round(p50, 1),
        "push_p99_ms": round(p99, 1),
        "push_max_ms": round(delays[-1] * 1000, 1),
        "server_written_p50_ms": round(s50, 1),
        "server_written_p99_ms": round(s99, 1),
        "memory_per_page_kib": round(per_page / 1024, 1),
        "first_view_bytes": result["weight"],
        "first_view_gzip_bytes": result["weight_gzip"],
        "cores": os.cpu_count(),
    }
    print(f"{args.pages} pages on {args.tables} tables of bots, {len(delays)} commits measured")
    print(f"push delay, commit -> every watching page: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(
        f"of which until the server wrote the push to its pages: p50 {s50:.1f} ms, p99 {s99:.1f} ms"
    )
    print(f"memory per open page: {per_page / 1024:.1f} KiB")
    print(
        f"first view: {result['weight']} bytes ({result['weight_gzip']} gzip-compressed): "
        "HTML, CSS, JavaScript and the first pushed view"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
