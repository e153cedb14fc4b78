"""The web table put together around a running table service (the composition roots call it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapters.web.auth import SecretHolder, load_secret
from adapters.web.hub import Hub
from adapters.web.links import WebLinks
from adapters.web.server import WebServer


@dataclass(slots=True)
class WebStack:
    """A serving web table: its server, hub and links, and the address it listens on."""

    server: WebServer
    hub: Hub
    links: WebLinks
    port: int
    public_url: str

    async def stop(self) -> None:
        """Stop serving (pages are closed)."""
        await self.server.stop()


async def start_web(
    service: Any,
    *,
    listen: str = "127.0.0.1",
    port: int = 0,
    public_url: str | None = None,
    webapp: str | None = None,
    telegram_token: str | None = None,
    secret: str | None = None,
    watch_interval: float | None = None,
) -> WebStack:
    """Serve `service`'s tables on `listen:port` (0: a free port): the service gets the
    links (`service.links`) and tells the hub of its commits (`service.subscribe`); with a
    store several processes share, the hub also watches the store's versions."""
    repo = service.repo
    clock = service.clock.now
    key = await load_secret(repo, secret)

    async def reload() -> bytes:
        return await load_secret(repo, secret)

    shared = repo.shared
    hub = Hub(service, version_of=repo.table_version if shared else None)
    if watch_interval is not None:
        hub.interval = watch_interval
    from adapters.web.replay import table_frames

    async def replay(table_id: str) -> dict[str, Any] | None:
        return await table_frames(service, table_id)

    holder = SecretHolder(key, reload)
    server = WebServer(
        service,
        hub,
        holder,
        clock=clock,
        telegram_token=telegram_token,
        health=getattr(service, "health", None),
        metrics=getattr(getattr(service, "metrics", None), "page", None),  # GET /metrics
        replay=replay,
    )
    bound = await server.start(listen, port)
    url = (public_url or f"http://{listen}:{bound}").rstrip("/")
    links = WebLinks(url, holder, clock, webapp=webapp)
    service.links = links
    service.subscribe(hub.committed)
    return WebStack(server, hub, links, bound, url)
