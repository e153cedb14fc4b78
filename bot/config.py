"""Settings of `gnav-bot run`, from environment variables and an optional `.env` file.

pydantic-settings reads them; tokens are `SecretStr`, so they never appear in logs or reprs.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: What the Bot API server accepts as a token at all (telegram-bot-api, ClientManager::send):
#: the bot's id (a positive number below 2^54, no leading 0), a colon, the secret, at most 80
#: characters in all. BotFather's secrets are 35 characters of [A-Za-z0-9_-], but the server
#: does not require that length, so neither does this check: a secret of another length is
#: refused by Telegram itself (401), which is a configuration error all the same.
_TELEGRAM_TOKEN = re.compile(r"[1-9][0-9]{0,16}:[A-Za-z0-9_-]+")
#: A Discord bot token: three parts of base64url text joined by dots (the bot's user id, a
#: timestamp, an HMAC). Discord documents no format, so only that shape is required, not
#: what the parts decode to: it rules out a pasted "Bot " prefix, quotes, spaces, or a
#: Telegram token in the wrong variable.
_DISCORD_TOKEN = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


def telegram_token_problem(token: str) -> str | None:
    """Why `token` cannot be a Telegram bot token (one line, never the token), or None."""
    if _TELEGRAM_TOKEN.fullmatch(token) and len(token) <= 80 and int(token.split(":")[0]) < 2**54:
        return None
    hint = ""
    if token.lower().startswith("bot"):
        hint = " (without the 'bot' of the API's URLs)"
    elif token[:1] in "\"'" and token[-1:] in "\"'":
        hint = " (without quotes)"
    return (
        "TELEGRAM_TOKEN is not a Telegram bot token: it is the bot's number, a colon and the "
        f"secret, as @BotFather gives it (/mybots, API Token){hint}"
    )


def discord_token_problem(token: str) -> str | None:
    """Why `token` cannot be a Discord bot token (one line, never the token), or None."""
    if _DISCORD_TOKEN.fullmatch(token):
        return None
    hint = " (without 'Bot ')" if token.lower().startswith("bot ") else ""
    return (
        "DISCORD_TOKEN is not a Discord bot token: it is three parts joined by dots, as the "
        f"Developer Portal gives it (your application > Bot > Reset Token){hint}"
    )


class BotSettings(BaseSettings):
    """Everything `gnav-bot run` can be told. Unset platforms are not started."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=False
    )

    # Telegram
    telegram_token: SecretStr | None = None
    telegram_base_url: str = "https://api.telegram.org/bot"
    telegram_base_file_url: str = "https://api.telegram.org/file/bot"
    telegram_mode: Literal["polling", "webhook"] = "polling"
    telegram_webhook_url: str | None = None  # public HTTPS URL Telegram posts to
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int = Field(default=8443, ge=1, le=65535)
    telegram_webhook_secret: SecretStr | None = None

    # Discord
    discord_token: SecretStr | None = None
    discord_guild_id: int | None = None  # sync commands to one guild (development)
    discord_sharded: bool = False  # AutoShardedClient (required from 2,500 guilds)
    # Several processes: the shards this one runs ("0,1") of DISCORD_SHARD_COUNT in all.
    discord_shard_ids: str | None = None
    discord_shard_count: int | None = Field(default=None, ge=1)
    discord_sync: Literal["auto", "always", "never"] = "auto"

    # The web table (docs/web.md): off unless WEB_PORT is set.
    web_port: int | None = Field(default=None, ge=0, le=65535)
    web_listen: str = "127.0.0.1"
    web_public_url: str | None = None  # the https address users reach (behind the proxy)
    web_secret: SecretStr | None = None  # signs player links (same in every process)
    telegram_webapp: str | None = None  # the Mini App's short name from BotFather

    # Prometheus metrics (bot/metrics.py): /metrics on the web table's port, and on this one.
    metrics_port: int | None = Field(default=None, ge=0, le=65535)
    metrics_listen: str = "127.0.0.1"

    # Storage
    gnav_db: str | None = None  # SQLite file (default: the user's data directory)
    gnav_database_url: SecretStr | None = None  # postgresql://... : the shared store

    # Behaviour
    gnav_bot_delay: float = Field(default=1.5, ge=0, le=30)
    # Bot seats of a stronger level think away from the event loop (bot/service/thinking.py):
    # in this many worker processes (0: threads of this process), at most this many at once,
    # each within this many seconds (a decision unanswered after 8 times that, at least 2 s, is
    # played as `normal`: thinking.py).
    gnav_think_processes: int = Field(default=1, ge=0, le=64)
    gnav_think_concurrent: int = Field(default=2, ge=1, le=64)
    gnav_think_seconds: float = Field(default=0.25, gt=0, le=10)
    # How long to keep trying a platform that cannot be reached at start (no network yet).
    startup_retry_seconds: float = Field(default=900, ge=0)
    # How long one store outage may last before the bot gives up and exits with status 75
    # (EX_TEMPFAIL) for its supervisor; 0: never (it waits, refusing commands clearly).
    gnav_store_give_up: float = Field(default=0, ge=0)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_in_any_case(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _webhook_needs_url(self) -> BotSettings:
        if self.telegram_mode == "webhook" and not self.telegram_webhook_url:
            raise ValueError("TELEGRAM_MODE=webhook needs TELEGRAM_WEBHOOK_URL")
        return self

    @model_validator(mode="after")
    def _shards_need_a_count(self) -> BotSettings:
        ids = self.shard_ids
        if ids is not None:
            if self.discord_shard_count is None:
                raise ValueError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT")
            if any(i >= self.discord_shard_count for i in ids):
                raise ValueError("DISCORD_SHARD_IDS must be below DISCORD_SHARD_COUNT")
        return self

    @property
    def shard_ids(self) -> list[int] | None:
        """DISCORD_SHARD_IDS as numbers ("0,1" or "0 1"); None when unset."""
        if not self.discord_shard_ids or not self.discord_shard_ids.strip():
            return None
        try:
            ids = [int(x) for x in self.discord_shard_ids.replace(",", " ").split()]
        except ValueError:
            raise ValueError("DISCORD_SHARD_IDS is a list of shard numbers, e.g. 0,1") from None
        if any(i < 0 for i in ids):
            raise ValueError("DISCORD_SHARD_IDS are 0 or more")
        return ids

    def token_problems(self) -> list[str]:
        """What is wrong with the shape of the tokens given (one line each, never a token):
        checked before any network call, so a token that cannot be one is a configuration
        error at once (`gnav-bot run` exits 78) instead of a refusal from the platform."""
        problems = []
        for secret, check in (
            (self.telegram_token, telegram_token_problem),
            (self.discord_token, discord_token_problem),
        ):
            token = secret.get_secret_value().strip() if secret is not None else ""
            problem = check(token) if token else None
            if problem is not None:
                problems.append(problem)
        return problems

    @property
    def platforms(self) -> list[str]:
        """The platforms that have a token."""
        out = []
        if self.telegram_token is not None and self.telegram_token.get_secret_value():
            out.append("telegram")
        if self.discord_token is not None and self.discord_token.get_secret_value():
            out.append("discord")
        return out
