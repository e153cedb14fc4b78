"""`TelegramPlatform`: the PTB Application for `gnav-bot run`, wired in one place.

The Application runs with the manual lifecycle (`initialize`, `start`, then polling or a
webhook) so it shares the runner's event loop with other platforms; `run_polling()` would
block it. `Lanes` (adapters/telegram/limits.py) keeps Telegram's flood limits per chat before
sending and retries a `RetryAfter` in its own chat only. The token
never reaches a log: PTB puts it in some error messages, so log records are scrubbed while
the platform runs, and a rejected token becomes a `PlatformMisconfigured` without it.

Long polling allows one consumer per bot token: a second `getUpdates` gets 409 Conflict. So
several processes on one store take turns through the store (`Repository.hold_exclusive`, a
PostgreSQL session advisory lock keyed by the bot's id): the one holding it polls, the others
stand by, trying it every `TelegramLimits.lock_interval`, and the first to get it after the
poller died polls (docs/scaling.md). A store of one process always holds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.error import BadRequest, Conflict, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from adapters.telegram import texts
from adapters.telegram.handlers import Handlers
from adapters.telegram.limits import LaneLimits, Lanes
from adapters.telegram.notifier import TelegramNotifier
from bot.config import BotSettings
from bot.service.i18n import DEFAULT_LANGUAGE, LANGUAGES
from bot.service.ports import (
    PlatformError,
    PlatformMisconfigured,
    PlatformUnreachable,
    StoreUnavailable,
)
from bot.service.retry import retry_unreachable
from bot.service.service import TableService
from bot.service.store import Repository

log = logging.getLogger(__name__)

App = Application[Any, Any, Any, Any, Any, Any]

#: The updates the bot asks for: commands, button presses, (un)blocking by players, and
#: inline mode (choices picked privately inside a chat).
ALLOWED_UPDATES = [
    Update.MESSAGE,
    Update.CALLBACK_QUERY,
    Update.MY_CHAT_MEMBER,
    Update.INLINE_QUERY,  # `@botname` in a chat: a person's private choices
    Update.CHOSEN_INLINE_RESULT,  # the one they picked (inline feedback on at BotFather)
]


@dataclass(frozen=True, slots=True)
class TelegramLimits:
    """Flood limits and timings. The defaults are Telegram's; tests loosen them."""

    overall_per_second: float = 30.0  # messages a second over all chats
    group_per_minute: float = 20.0  # messages a minute in one group
    chat_interval: float = 1.0  # seconds per message to one private chat (bursts of 3)
    poll_timeout: int = 30  # long-polling timeout of getUpdates, seconds
    concurrent_updates: int = 64  # updates handled at once (one lock per table keeps order)
    drain_timeout: float = 15.0  # on stop: seconds to deliver what commands queued
    #: Long polling on a store of several processes: how often a process standing by tries
    #: the polling lock, and the polling one checks it still holds it (seconds).
    lock_interval: float = 0.5
    #: Every flood window and spacing is multiplied by this (a benchmark against a fake that
    #: runs Telegram's limits faster); 1 in production.
    scale: float = 1.0


class StoreCalls:
    """`SharedCalls` through the store the processes share (`Repository.chat_calls`): each
    process records its group calls there and counts the others' in a group's window."""

    def __init__(self, repo: Repository, owner: str) -> None:
        self.repo = repo
        self.owner = owner

    async def others(self, chat: str, since: float) -> list[float]:
        """When other processes called the platform in `chat` since `since`."""
        return await self.repo.chat_calls(chat, since, self.owner)

    async def record(self, chat: str, at: float) -> None:
        """This process called the platform in `chat` at `at`."""
        await self.repo.add_chat_call(chat, at, self.owner)


class _Scrub(logging.Filter):
    """Replaces the bot token in every log record that passes a handler."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.secret in message:
            record.msg, record.args = message.replace(self.secret, "<token>"), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text and self.secret in record.exc_text:
            record.exc_text = record.exc_text.replace(self.secret, "<token>")
        return True


class TelegramPlatform:
    """Telegram for `gnav-bot run`: `notifier` exists at once, `start`/`stop` run the bot."""

    name = "telegram"

    def __init__(self, settings: BotSettings, *, limits: TelegramLimits | None = None) -> None:
        self.settings = settings
        self.limits = limits or TelegramLimits()
        lim = self.limits
        #: The lanes of this bot token in this process (one rate limiter for every call).
        self.lanes = Lanes(
            LaneLimits(
                group=int(lim.group_per_minute),
                group_window=60.0 * lim.scale,
                # About one a second, in bursts of up to three.
                private=3 if lim.chat_interval > 0 else 0,
                private_window=3 * lim.chat_interval * lim.scale,
                overall=int(lim.overall_per_second),
                overall_window=lim.scale,
                horizon=10.0 * lim.scale,
            )
        )
        self.notifier = TelegramNotifier(lanes=self.lanes)
        self.app: App | None = None
        self.service: TableService | None = None
        self.handlers: Handlers | None = None
        self._scrub: _Scrub | None = None
        #: Long polling: the store's lock this process polls under (None: webhook mode, or
        #: not started), whether this process polls, and the task that takes turns.
        self._poll_lock: str | None = None
        self.polling: bool | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._closing = False
        self._wake = asyncio.Event()
        #: 409 Conflict answers to getUpdates (another consumer of this token), and the ones
        #: since the lock was last confirmed; when the last line about them was logged.
        self.conflicts = 0
        self._conflicted = False
        self._conflict_logged: tuple[float, int] | None = None
        #: The store could not tell who holds the polling lock (logged once).
        self._lock_unknown = False

    # ------------------------------------------------------------------ lifecycle
    async def start(self, service: TableService) -> None:
        """Check the token (getMe), register handlers and menus, begin receiving updates."""
        secret = self.settings.telegram_token
        token = secret.get_secret_value().strip() if secret is not None else ""
        if not token:
            self.notifier.close()
            raise PlatformMisconfigured("TELEGRAM_TOKEN is not set: get a token from @BotFather")
        self._guard_logs(token)
        service.set_command_prefix("telegram", "/gnav_")
        self.service = service
        self._closing = False
        if service.repo.shared:
            # Other processes may send on this token: a group's window is kept together.
            self.lanes.shared = StoreCalls(service.repo, service.outbox.owner)
        app = self._build(token)
        try:
            # No network yet (a boot, an outage): getMe is tried again for a while.
            await retry_unreachable(
                "telegram",
                lambda: self._initialize(app, token),
                self.settings.startup_retry_seconds,
            )
        except BaseException as exc:
            await app.bot.shutdown()
            self.notifier.close()
            self._unguard_logs()
            if isinstance(exc, InvalidToken):
                # PTB's message contains the token: say it in our words.
                raise PlatformMisconfigured(
                    "Telegram rejected TELEGRAM_TOKEN: copy it again from @BotFather (/mybots, "
                    "API Token) and check TELEGRAM_BASE_URL"
                ) from None
            raise
        self.app = app
        self.notifier.attach(app.bot, self._migrate)
        self.handlers = Handlers(service, self.notifier)
        self._register(app, self.handlers)
        await app.start()
        try:
            await self._set_commands(app)
            await self._receive(app)
        except BaseException:
            await self._close(app)
            self.app = None
            self._unguard_logs()
            raise
        if self._poll_lock is None:
            log.info("telegram: @%s is receiving updates (%s)", app.bot.username, self._mode())

    async def _initialize(self, app: App, token: str) -> None:
        """PTB's `initialize` (getMe); a network failure or a server error is unreachable."""
        try:
            await app.initialize()
        except BadRequest as exc:  # reached, and refused: trying again will not help
            raise PlatformError(
                f"the Telegram Bot API refused getMe: {_scrubbed(exc.message, token)}"
            ) from None
        except NetworkError as exc:  # includes TimedOut and 5xx answers
            raise PlatformUnreachable(
                f"cannot reach the Telegram Bot API at {self.settings.telegram_base_url}: "
                f"{_scrubbed(exc.message, token)}"
            ) from None

    async def stop(self) -> None:
        """Stop taking updates, let running handlers finish, deliver what they queued, close."""
        app, self.app = self.app, None
        if app is None:
            return
        try:
            await self._close(app)
        finally:
            self._unguard_logs()

    async def _close(self, app: App) -> None:
        self._closing = True
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            self._wake.set()
            await asyncio.gather(keeper, return_exceptions=True)  # its turn under way ends
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        await self._release_poll_lock()  # a process standing by polls from now on
        if app.running:
            await app.stop()  # waits for the handlers under way (their commands are stored)
        # Deliver what those commands queued while the bot can still send (the runner's own
        # drain afterwards finds the queues empty), but not for ever: past the timeout, calls
        # still waiting for a flood limit are abandoned.
        drain = asyncio.ensure_future(self._deliver())
        done, _ = await asyncio.wait({drain}, timeout=self.limits.drain_timeout)
        if not done:
            log.warning("telegram: messages still queued after %.0f s", self.limits.drain_timeout)
        self.notifier.close()
        await asyncio.gather(drain, return_exceptions=True)
        await app.shutdown()

    async def _deliver(self) -> None:
        if self.handlers is not None:
            await self.handlers.drain()
        if self.service is not None:
            await self.service.drain()

    # ------------------------------------------------------------------ wiring
    def _build(self, token: str) -> App:
        s, lim = self.settings, self.limits
        return (
            ApplicationBuilder()
            .token(token)
            .base_url(s.telegram_base_url)
            .base_file_url(s.telegram_base_file_url)
            .rate_limiter(self.lanes)
            .concurrent_updates(lim.concurrent_updates)
            .build()
        )

    @staticmethod
    def _register(app: App, h: Handlers) -> None:
        # Edited messages never re-run a command.
        new = filters.UpdateType.MESSAGE
        private = filters.ChatType.PRIVATE
        commands: list[tuple[str | list[str], Any]] = [
            (["gnav", "gnav_new"], h.gnav),
            ("gnav_join", h.join),
            ("gnav_leave", h.leave),
            ("gnav_start", h.start_match),
            ("gnav_stop", h.stop),
            ("gnav_kick", h.kick),
            ("gnav_settings", h.settings),
            ("gnav_language", h.language),
            ("gnav_rules", h.rules),
            ("gnav_stats", h.stats),
            ("gnav_top", h.top),
            ("gnav_export", h.export),
            ("gnav_sheet", h.sheet),
            ("gnav_log", h.log),
            ("gnav_help", h.help),
        ]
        games = texts.game_commands(h.service.games)
        commands += [(command, h.open_game(game)) for command, game in games]
        app.add_handler(CommandHandler("start", h.start_private, filters=new & private))
        app.add_handler(CommandHandler("start", h.help, filters=new & ~private))
        for names, callback in commands:
            app.add_handler(CommandHandler(names, callback, filters=new))
        app.add_handler(CallbackQueryHandler(h.press))
        app.add_handler(InlineQueryHandler(h.inline_query))
        app.add_handler(ChosenInlineResultHandler(h.chosen_inline_result))
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, h.migrated))
        app.add_handler(ChatMemberHandler(h.my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
        app.add_error_handler(h.on_error)

    async def _set_commands(self, app: App) -> None:
        """The command menus: every command in groups, /start, help and rules in private."""
        assert self.service is not None
        games = [command for command, _ in texts.game_commands(self.service.games)]
        for lang in LANGUAGES:
            code = "" if lang == DEFAULT_LANGUAGE else lang
            for names, scope in (
                ((*texts.GROUP_COMMANDS, *games), BotCommandScopeAllGroupChats()),
                (texts.PRIVATE_COMMANDS, BotCommandScopeAllPrivateChats()),
            ):
                menu = [BotCommand(n, texts.command_text(lang, n, games)) for n in names]
                try:
                    await app.bot.set_my_commands(menu, scope=scope, language_code=code or None)
                except TelegramError as exc:  # the menu is a convenience, not a reason to stop
                    log.warning("telegram: setMyCommands (%s) failed: %s", lang, exc.message)

    async def _receive(self, app: App) -> None:
        assert app.updater is not None
        s = self.settings
        if s.telegram_mode == "polling":
            token = app.bot.token
            self._poll_lock = f"telegram-polling:{token.partition(':')[0]}"  # the bot's id
            await self._poll_turn(app, first=True)
            self._keeper = asyncio.create_task(self._keep_polling(app), name="telegram-polling")
            return
        url = s.telegram_webhook_url or ""
        secret = s.telegram_webhook_secret.get_secret_value() if s.telegram_webhook_secret else None
        try:
            await app.updater.start_webhook(
                listen=s.telegram_webhook_listen,
                port=s.telegram_webhook_port,
                url_path=urlsplit(url).path.lstrip("/"),
                webhook_url=url,
                secret_token=secret or None,
                allowed_updates=ALLOWED_UPDATES,
                drop_pending_updates=False,
            )
        except RuntimeError as exc:  # PTB installed without its webhook server (tornado)
            raise PlatformMisconfigured(
                "TELEGRAM_MODE=webhook needs python-telegram-bot[webhooks]: "
                f"pip install 'python-telegram-bot[webhooks]' ({exc})"
            ) from None
        except OSError as exc:
            raise PlatformError(
                f"cannot listen on {s.telegram_webhook_listen}:{s.telegram_webhook_port} "
                f"for the webhook: {exc.strerror or exc}"
            ) from None
        except TelegramError as exc:
            raise PlatformMisconfigured(
                f"Telegram refused the webhook {url}: {exc.message} (it must be public HTTPS)"
            ) from None

    # ------------------------------------------------------------------ long polling, in turns
    async def _keep_polling(self, app: App) -> None:
        """Take turns on the store's polling lock until the platform stops."""
        while not self._closing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.limits.lock_interval)
            self._wake.clear()
            if self._closing:
                return
            try:
                await self._poll_turn(app)
            except Exception as exc:  # the network at (re)starting to poll, say: next turn
                log.warning("telegram: taking turns at polling failed: %s", _one_line(exc))

    async def _poll_turn(self, app: App, *, first: bool = False) -> None:
        """One look at the polling lock: poll while this process holds it, stand by while
        another does. While the store cannot tell, a poller keeps polling (its chats are
        answered through an outage of the store) unless a 409 says another process polls."""
        assert self.service is not None and self._poll_lock is not None
        assert app.updater is not None
        owner = self.service.outbox.owner
        try:
            held: bool | None = await self.service.repo.hold_exclusive(self._poll_lock, owner)
        except StoreUnavailable as exc:
            held = None
            if not self._lock_unknown:
                self._lock_unknown = True
                log.warning(
                    "telegram: the store cannot tell which process polls (%s); this one %s",
                    exc.reason,
                    "keeps polling" if app.updater.running else "stands by",
                )
        else:
            self._lock_unknown = False
        if held is None:
            if not (app.updater.running and self._conflicted):
                return
            # Someone else polls, and the lock may be theirs now: let them.
            await app.updater.stop()
            held = False
        self._conflicted = False
        if held and not app.updater.running:
            await app.updater.start_polling(
                poll_interval=0,
                timeout=self.limits.poll_timeout,
                allowed_updates=ALLOWED_UPDATES,
                drop_pending_updates=False,  # commands sent while the bot was down still count
                error_callback=self._polling_error,
            )
        elif not held and app.updater.running:
            await app.updater.stop()
        if held != self.polling:
            self.polling = held
            if held:
                log.info(
                    "telegram: @%s is receiving updates (long polling: %s polls%s)",
                    app.bot.username,
                    owner,
                    "" if first else ", taking over",
                )
            else:
                log.info(
                    "telegram: @%s: another process polls for updates; %s stands by and takes "
                    "over when that one stops",
                    app.bot.username,
                    owner,
                )

    def _polling_error(self, exc: TelegramError) -> None:
        """python-telegram-bot's polling met an error (it tries again after a pause growing
        from 1 to 30 s while errors follow each other): one line, never a traceback; a 409
        (another consumer of this token polls) at most once a minute, with a count."""
        if not isinstance(exc, Conflict):
            log.warning("telegram: getUpdates failed: %s", exc.message)
            return
        self.conflicts += 1
        self._conflicted = True
        self._wake.set()  # the lock is looked at again now
        now = time.monotonic()
        last = self._conflict_logged
        if last is not None and now - last[0] < 60:
            return
        since = self.conflicts - (last[1] if last is not None else 0)
        self._conflict_logged = (now, self.conflicts)
        log.warning(
            "telegram: getUpdates got 409 Conflict (%d time(s) since the last such line): "
            "another program polls this bot's updates; polling again after a growing pause",
            since,
        )

    async def _release_poll_lock(self) -> None:
        if self._poll_lock is None or self.service is None:
            return
        with contextlib.suppress(StoreUnavailable):  # its connection is gone, the lock too
            await self.service.repo.release_exclusive(self._poll_lock, self.service.outbox.owner)
        self.polling = None

    def _mode(self) -> str:
        s = self.settings
        if s.telegram_mode == "webhook":
            return f"webhook {s.telegram_webhook_url}"
        return "long polling"

    async def _migrate(self, old: int, new: int) -> int:
        """The notifier met a group upgraded to a supergroup: move its tables."""
        if self.service is None:
            return 0
        return await self.service.migrate_chat("telegram", str(old), str(new))

    # ------------------------------------------------------------------ the token and logs
    def _guard_logs(self, token: str) -> None:
        self._scrub = _Scrub(token)
        for handler in logging.getLogger().handlers:
            handler.addFilter(self._scrub)

    def _unguard_logs(self) -> None:
        if self._scrub is None:
            return
        for handler in logging.getLogger().handlers:
            handler.removeFilter(self._scrub)
        self._scrub = None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]


def _scrubbed(text: str, secret: str) -> str:
    return text.replace(secret, "<token>") if secret else text
