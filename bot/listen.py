"""Serving an aiohttp application on a host and port: the web table's server and the
metrics' own port start theirs the same way."""

from __future__ import annotations

from aiohttp import web


async def listen(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Start `app` on `host:port` (0: a free port); returns its runner (to clean up) and the
    port it listens on. Access logs and signal handling stay off (the bot's loop owns those)."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    server = getattr(site, "_server", None)
    sockets = getattr(server, "sockets", None) or []
    return runner, sockets[0].getsockname()[1] if sockets else port
