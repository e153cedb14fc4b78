"""The web table's HTTP server (aiohttp): the page, its static files, the WebSocket, health.

Routes:

- `GET /` the Telegram Mini App's entry (the table from `start_param`, or `?t=<table id>`);
- `GET /t/<table id>[?k=<signed link>]` a table's page; a tampered, expired or other-table
  link is a 403 page, an unknown table a 404 page;
- `GET /r/<table id>` the replay of a table's finished match (`?` steps through it);
- `GET /static/<file>` the page's HTML, CSS and JavaScript modules (no build step, no CDN);
- `GET /favicon.ico` the page's icon (an SVG, `static/favicon.svg`);
- `GET /ws` the page's WebSocket: `{"hello": {...proof}}` first, then pushed states, and
  `{"press": token, "id": n}` answered by `{"type": "reply", ...}`;
- `GET /healthz` liveness and the store's health (503 while the store is away);
- `GET /metrics` the run's Prometheus metrics (bot/metrics.py), when it has them.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson
from aiohttp import WSMsgType, web

from adapters.web.auth import SecretHolder, Viewer, check_init_data
from adapters.web.files import STATIC, static_text
from adapters.web.hub import Hub, Page, payload
from bot.listen import listen
from bot.service import tokens
from bot.service.commands import Press
from bot.service.table import User

log = logging.getLogger(__name__)

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
#: The live page loads only its own files and talks only to its own server (no inline script,
#: no other host); Telegram's clients may frame it (a Mini App), so no frame-ancestors rule.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'"
)
#: The largest message a page may send (a press is tiny; the hello carries initData).
MAX_MESSAGE = 16 * 1024
#: A page that says nothing this long after connecting is dropped.
HELLO_TIMEOUT = 20.0


class Health(Protocol):
    """The store's health as /healthz serves it (bot/service/health.py's `StoreHealth`)."""

    def snapshot(self) -> dict[str, Any]:
        """The state, JSON-ready."""
        ...

    def http_status(self) -> int:
        """200 while the store answers, 503 while it is away."""
        ...


class WebServer:
    """The aiohttp application of the web table, around one table service."""

    def __init__(
        self,
        service: Any,
        hub: Hub,
        secret: SecretHolder,
        *,
        clock: Callable[[], float],
        telegram_token: str | None = None,
        health: Health | None = None,
        replay: Callable[[str], Awaitable[dict[str, Any] | None]] | None = None,
        metrics: Callable[[web.Request], Awaitable[web.StreamResponse]] | None = None,
    ) -> None:
        self.service = service
        self.hub = hub
        self.secret = secret
        self.clock = clock
        self.telegram_token = telegram_token
        #: The store's health (the service's `StoreHealth`): served by /healthz.
        self.health = health
        #: A table's finished match as replay frames (`adapters.web.replay`), by table id.
        self.replay = replay
        self.app = web.Application()
        self.app.add_routes(
            [
                web.get("/", self.index),
                web.get("/t/{table_id}", self.table_page),
                web.get("/r/{table_id}", self.replay_page),
                web.get("/static/{name}", self.static),
                web.get("/favicon.ico", self.favicon),
                web.get("/ws", self.socket),
                web.get("/healthz", self.healthz),
            ]
        )
        if metrics is not None:  # the run's Prometheus metrics (bot/metrics.py)
            self.app.router.add_get("/metrics", metrics)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    async def start(self, host: str, port: int) -> int:
        """Listen on `host:port` (0: a free port); returns the port."""
        self._runner, self.port = await listen(self.app, host, port)
        self.hub.start_watch()
        return self.port

    async def stop(self) -> None:
        """Close every page and stop listening."""
        await self.hub.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ pages
    async def index(self, request: web.Request) -> web.Response:
        """The page (a Mini App's entry: the table comes with the proof)."""
        return self._page_response()

    async def table_page(self, request: web.Request) -> web.Response:
        """A table's page; a bad signed link is refused with a 403 page."""
        table_id = request.match_info["table_id"]
        proof = request.query.get("k")
        if proof is not None:
            user = await self.secret.check(table_id, proof, self.clock())
            if user is None:
                return _refusal(403, "This link is not valid for this table, or has expired.")
        view = await self.service.page_view(table_id, None)
        if view is None:
            return _refusal(404, "No such table.")
        return self._page_response()

    async def replay_page(self, request: web.Request) -> web.Response:
        """A finished match, step by step."""
        if self.replay is None:
            return _refusal(404, "No replays here.")
        frames = await self.replay(request.match_info["table_id"])
        if frames is None:
            return _refusal(404, "No finished match for this table.")
        from adapters.web.replay import replay_html

        return self._page_response(replay_html(frames, inline=False))

    def _page_response(self, text: str | None = None) -> web.Response:
        """The page (or a replay page: its frames are a JSON data block, not a script), with
        the strict policy: only its own files, nothing inline that runs."""
        return web.Response(
            text=static_text("index.html") if text is None else text,
            content_type="text/html",
            charset="utf-8",
            headers={
                "Cache-Control": "no-store",
                "Referrer-Policy": "no-referrer",
                "Content-Security-Policy": PAGE_POLICY,
                "X-Content-Type-Options": "nosniff",
            },
        )

    async def favicon(self, request: web.Request) -> web.Response:
        """The page's icon where browsers ask for it first."""
        return web.Response(
            body=STATIC.joinpath("favicon.svg").read_bytes(),
            headers={
                "Content-Type": _TYPES[".svg"],
                "Cache-Control": "public, max-age=86400",
                "X-Content-Type-Options": "nosniff",
            },
        )

    async def static(self, request: web.Request) -> web.Response:
        """The page's own files (no directory listing, no path outside the folder)."""
        name = request.match_info["name"]
        kind = _TYPES.get(name[name.rfind(".") :] if "." in name else "")
        if kind is None or "/" in name or name.startswith("."):
            raise web.HTTPNotFound()
        path = STATIC.joinpath(name)
        if not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(
            body=path.read_bytes(),
            headers={
                "Content-Type": kind,
                "Cache-Control": "public, max-age=300",
                "X-Content-Type-Options": "nosniff",
            },
        )

    async def healthz(self, request: web.Request) -> web.Response:
        """Liveness, with the store's health (`StoreHealth.snapshot`): 503 while the store is
        away, so a load balancer sends pages to another process."""
        status = 200
        body: dict[str, Any] = {"pages": sum(len(p) for p in self.hub.pages.values())}
        if self.health is not None:
            body.update(self.health.snapshot())
            status = self.health.http_status()
        body["ok"] = status == 200
        return web.json_response(body, status=status)

    # ------------------------------------------------------------------ the socket
    async def socket(self, request: web.Request) -> web.WebSocketResponse:
        """One page's WebSocket: proof first, then pushes out and presses in."""
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MAX_MESSAGE)
        await ws.prepare(request)
        try:
            first = await ws.receive(timeout=HELLO_TIMEOUT)
        except TimeoutError:
            await ws.close()
            return ws
        hello = _json(first.data) if first.type == WSMsgType.TEXT else None
        if not isinstance(hello, dict) or not isinstance(hello.get("hello"), dict):
            await ws.close(code=4400, message=b"hello expected")
            return ws
        table_id, viewer, denied = await self._prove(hello["hello"])
        if table_id is None:
            await ws.send_str(payload("gone", reason="no table"))
            await ws.close()
            return ws
        page = Page(ws, table_id, viewer.user if viewer else None)
        await ws.send_str(
            payload("hello", table=table_id, you=viewer.name if viewer else None, denied=denied)
        )
        self.hub.add(page)
        try:
            if await self.hub.send_first(page) is None:
                await ws.send_str(payload("gone", reason="no table"))
                return ws
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                data = _json(msg.data)
                if isinstance(data, dict) and isinstance(data.get("press"), str):
                    answer = await self._press(page, viewer, data["press"])
                    await ws.send_str(payload("reply", id=data.get("id"), **answer))
        finally:
            self.hub.remove(page)
            await ws.close()
        return ws

    async def _prove(self, hello: dict[str, Any]) -> tuple[str | None, Viewer | None, int | None]:
        """The table, the proven viewer (None: a spectator) and the refusal (401/403) of a
        bad proof; a bad proof leaves the viewer a spectator."""
        table_id = hello.get("table") if isinstance(hello.get("table"), str) else None
        now = self.clock()
        init = hello.get("init")
        link = hello.get("link")
        if isinstance(init, str) and init:
            found = None
            if self.telegram_token:
                found = check_init_data(init, self.telegram_token, now)
            if found is None:
                return table_id, None, 403
            table_id = table_id or found.table_id
            return table_id, found, None
        if isinstance(link, str) and link:
            if table_id is None:
                return None, None, 403
            user = await self.secret.check(table_id, link, now)
            if user is None:
                return table_id, None, 403
            return table_id, Viewer(user, user.partition(":")[2] or user, None, table_id), None
        return table_id, None, None

    async def _press(self, page: Page, viewer: Viewer | None, token: str) -> dict[str, Any]:
        """A press from the page: the service's own path (tokens, per-seat versions)."""
        decoded = tokens.decode(token)
        if viewer is None or decoded is None or decoded.table_id != page.table_id:
            return {"ok": False, "text": "refused"}
        found = await self.service.seat_at(page.table_id, viewer.user)
        if found is None:
            return {"ok": False, "text": "refused"}
        tk, name = found  # the presser's seat: no page view is built for a press
        user = User(viewer.user, name, admin=False, language=viewer.language)
        reply = await self.service.handle(Press(tk, user, decoded))
        return {"ok": reply.ok, "text": reply.text}


def _json(data: Any) -> Any:
    try:
        return orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        return None


def _refusal(status: int, text: str) -> web.Response:
    """A small, clear page for a refused or unknown address."""
    title = {401: "Not signed in", 403: "Forbidden", 404: "Not found"}.get(status, "Error")
    body = (
        "<!doctype html><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{status} {title}</title>"
        '<link rel=stylesheet href="/static/table.css">'
        f"<main class=refusal><h1>{status} · {title}</h1><p>{html.escape(text)}</p></main>"
    )
    return web.Response(status=status, text=body, content_type="text/html", charset="utf-8")
