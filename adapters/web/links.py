"""The web table's addresses, for the service's link buttons (`PageLinks`, docs/web.md)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from adapters.web.auth import LINK_TTL, SecretHolder, sign_link


class WebLinks:
    """Public table addresses and players' signed ones.

    `public_url` is what users reach (WEB_PUBLIC_URL, behind the TLS proxy). On Telegram, with a
    Mini App (`webapp`, its short name from BotFather) and the bot's username known, a table's
    public address is the Mini App link `https://t.me/<bot>/<app>?startapp=<table id>`, which a
    group may carry as a `url` button.
    """

    def __init__(
        self,
        public_url: str,
        secret: SecretHolder,
        clock: Callable[[], float],
        *,
        webapp: str | None = None,
        ttl: int = LINK_TTL,
    ) -> None:
        self.public_url = public_url.rstrip("/")
        self.secret = secret
        self.clock = clock
        self.webapp = webapp
        self.ttl = ttl
        #: The Telegram bot's username, once the platform has started (None before).
        self.telegram_bot: str | None = None

    def table_link(self, table_id: str, platform: str) -> str | None:
        """The table's public address as a chat of `platform` opens it."""
        if platform == "telegram" and self.webapp and self.telegram_bot:
            return f"https://t.me/{self.telegram_bot}/{self.webapp}?startapp={table_id}"
        return f"{self.public_url}/t/{table_id}"

    def seat_link(self, table_id: str, user: str) -> str | None:
        """`user`'s own signed address of the table, valid for `ttl` seconds at least (the
        expiry is rounded up to the hour, so the same screen is signed alike within it)."""
        expiry = (int(self.clock()) // 3600 + 1) * 3600 + self.ttl
        proof = sign_link(self.secret.secret, table_id, user, expiry)
        return f"{self.public_url}/t/{table_id}?k={quote(proof, safe='')}"

    def replay_link(self, table_id: str) -> str | None:
        """The replay page of the table's finished match."""
        return f"{self.public_url}/r/{table_id}"
