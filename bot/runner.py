"""`gnav-bot run`: the chat platforms, the service and the store in one asyncio loop.

Platforms are started from their settings; SIGTERM and Ctrl-C stop them from taking new
updates, let the commands under way finish and be stored, deliver what is queued, and close.
A platform that cannot be reached at start (no network yet at boot, an outage) is tried again
with a growing pause for STARTUP_RETRY_SECONDS; a rejected token is not retried.

Exit statuses (README, "Exit statuses"): 0 stopped; 78 (EX_CONFIG) a configuration error
(no platform, a token that is not one or that the platform rejects, settings that do not
hold): fix it, starting again will not help (the shipped systemd unit does not restart it);
2 could not start for now (a platform unreachable for STARTUP_RETRY_SECONDS, the store could
not be opened, a port in use): restarted; 75 the store stayed away past GNAV_STORE_GIVE_UP;
1 the store went away under the bot (its file deleted or replaced).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
from collections.abc import Callable
from typing import Any, Protocol

from bot.config import BotSettings
from bot.games.registry import all_games
from bot.metrics import start_metrics
from bot.runtime import tune_garbage_collector
from bot.service.ports import Notifier, PlatformError, PlatformMisconfigured, StoreError
from bot.service.routing import RoutingNotifier
from bot.service.service import TableService
from bot.service.store import Repository
from bot.service.thinking import Thinking

log = logging.getLogger("gnav_bot")

#: The exit status after the store stayed away longer than GNAV_STORE_GIVE_UP (EX_TEMPFAIL:
#: a temporary failure, worth starting again later); a lost store file exits with 1.
STORE_GAVE_UP = 75
#: The exit status of a configuration error (EX_CONFIG): a supervisor should not restart it
#: (deploy/gnav-bot.service: RestartPreventExitStatus=78).
CONFIG_ERROR = os.EX_CONFIG
#: The exit status of a start that failed for now (a platform unreachable for the whole
#: STARTUP_RETRY_SECONDS, a port in use): worth starting again.
START_FAILED = 2


class Platform(Protocol):
    """A chat platform adapter as the runner drives it."""

    name: str

    @property
    def notifier(self) -> Notifier:
        """What the service sends through."""
        ...

    async def start(self, service: TableService) -> None:
        """Connect, register handlers and begin receiving updates (PlatformError on failure)."""
        ...

    async def stop(self) -> None:
        """Stop receiving updates; let handlers under way finish; disconnect."""
        ...


#: Builds a platform from the settings (imported lazily by name, see `_factories`).
PlatformFactory = Callable[[BotSettings], Platform]


def _factories() -> dict[str, PlatformFactory]:
    def telegram(settings: BotSettings) -> Platform:
        from adapters.telegram.platform import TelegramPlatform

        return TelegramPlatform(settings)

    def discord(settings: BotSettings) -> Platform:
        from adapters.discord.platform import DiscordPlatform

        return DiscordPlatform(settings)

    return {"telegram": telegram, "discord": discord}


async def open_repository(
    settings: BotSettings, default_db: str, *, exclusive: bool = False
) -> Repository:
    """PostgreSQL when GNAV_DATABASE_URL is set, else SQLite at GNAV_DB (or `default_db`).

    Raises StoreError, one line naming the store (never its password) and the cause, when
    the store cannot be opened. `exclusive` (for `run`): an SQLite store refuses a second
    process (PostgreSQL is the store that several processes share).
    """
    if settings.gnav_database_url is not None:
        url = settings.gnav_database_url.get_secret_value()
        name = f"PostgreSQL store {redact_url(url)}"
        try:
            from storage.postgres import PostgresRepository
        except ImportError:
            raise StoreError(
                f"cannot open the {name}: the PostgreSQL driver (asyncpg) is not installed: "
                "pip install 'gnav-bot[postgres]'"
            ) from None
        try:
            return await PostgresRepository.open(url)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"cannot open the {name}: {_cause(exc, url)}") from None
    from storage.sqlite import SqliteRepository

    path = settings.gnav_db or default_db
    try:
        return await SqliteRepository.open(path, exclusive=exclusive)
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"cannot open the SQLite store {path}: {_cause(exc)}") from None


def redact_url(url: str) -> str:
    """A database URL without its password."""
    from urllib.parse import urlsplit, urlunsplit

    if "://" not in url:
        return "(GNAV_DATABASE_URL, not a postgresql:// URL)"  # may hold a password anywhere
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.rpartition("@")[2]
        user = parts.username or ""
        return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))
    except ValueError:
        return "(unreadable URL)"


def _cause(exc: BaseException, secret: str | None = None) -> str:
    """An exception as one short line (a URL's password never in it)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
    if secret:
        from urllib.parse import urlsplit

        with contextlib.suppress(ValueError):
            password = urlsplit(secret).password
            if password:
                text = text.replace(password, "***")
    return text[:300]


async def run(
    settings: BotSettings,
    default_db: str,
    *,
    stop_event: asyncio.Event | None = None,
    factories: dict[str, PlatformFactory] | None = None,
) -> int:
    """Run until SIGTERM/SIGINT (or `stop_event`); returns the process exit status."""
    names = settings.platforms
    if not names:
        log.error("no platform configured: set TELEGRAM_TOKEN and/or DISCORD_TOKEN")
        return CONFIG_ERROR
    problems = settings.token_problems()  # before any network call, or the store
    for problem in problems:
        log.error("%s", problem)
    if problems:
        return CONFIG_ERROR
    makers = factories or _factories()
    platforms = [makers[name](settings) for name in names]
    repo = await open_repository(settings, default_db, exclusive=True)
    service = TableService(
        repo,
        RoutingNotifier({p.name: p.notifier for p in platforms}),
        rng=random.Random(),
        bot_delay=settings.gnav_bot_delay,
        games=all_games(),
        store_give_up=settings.gnav_store_give_up or None,
        thinking=Thinking(
            processes=settings.gnav_think_processes,
            concurrent=settings.gnav_think_concurrent,
            seconds=settings.gnav_think_seconds,
        ),
    )
    stop = stop_event or asyncio.Event()
    service.on_store_lost = stop.set  # the store went away: stop, and exit non-zero
    metrics = await start_metrics(settings, service, platforms)  # /metrics (bot/metrics.py)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    started: list[Platform] = []
    timers: asyncio.Task[None] | None = None
    web: Any = None
    status = 0
    try:
        restored = await service.resume()
        log.info("restored %d table(s)", restored)
        web = await start_web_table(settings, service)
        tune_garbage_collector()
        for p in platforms:
            if not await _start_unless_stopped(p, service, stop):
                break
            started.append(p)
            log.info("%s is running", p.name)
            if web is not None and p.name == "telegram":
                # The Mini App's t.me link names the bot: known once the platform started.
                app = getattr(p, "app", None)
                web.links.telegram_bot = getattr(getattr(app, "bot", None), "username", None)
        else:
            timers = asyncio.create_task(service.run(), name="gnav-timers")
            await stop.wait()
        log.info("stopping")
    except PlatformError as exc:
        log.error("%s", exc)
        status = CONFIG_ERROR if isinstance(exc, PlatformMisconfigured) else START_FAILED
    finally:
        for p in reversed(started):
            try:
                await p.stop()
            except Exception:
                log.exception("stopping %s failed", p.name)
        if timers is not None:
            timers.cancel()
            await asyncio.gather(timers, return_exceptions=True)
        if web is not None:
            await web.stop()
        await service.shutdown()
        await metrics.close()
        await repo.close()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
    if service.store_lost is not None:
        log.error("stopped: %s (the supervisor should restart the bot)", service.store_lost)
        return STORE_GAVE_UP if service.health.gave_up else 1
    return status


async def start_web_table(settings: BotSettings, service: TableService) -> Any:
    """Serve the web table (docs/web.md) when WEB_PORT is set; None when it is not."""
    if settings.web_port is None:
        return None
    from adapters.web.stack import start_web

    token = settings.telegram_token.get_secret_value() if settings.telegram_token else None
    secret = settings.web_secret.get_secret_value() if settings.web_secret else None
    web = await start_web(
        service,
        listen=settings.web_listen,
        port=settings.web_port,
        public_url=settings.web_public_url,
        webapp=settings.telegram_webapp,
        telegram_token=token,
        secret=secret,
    )
    log.info("the web table is served on %s:%d (%s)", settings.web_listen, web.port, web.public_url)
    return web


async def _start_unless_stopped(p: Platform, service: TableService, stop: asyncio.Event) -> bool:
    """Start `p`; False when SIGTERM or Ctrl-C came first (a start may be retrying for long)."""
    starting = asyncio.ensure_future(p.start(service))
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        starting.cancel()
        raise
    finally:
        stopping.cancel()
    if starting.done():
        starting.result()  # PlatformError
        return True
    starting.cancel()  # the platform cleans up after itself
    await asyncio.gather(starting, return_exceptions=True)
    return False
