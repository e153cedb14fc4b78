"""Who a page's viewer is, proven: Telegram Mini App `initData`, or a link the bot signed.

`initData` is checked as Telegram documents it (core.telegram.org/bots/webapps, "Validating
data received via the Mini App"): the secret key is HMAC-SHA256 of the bot token keyed with
"WebAppData", the hash is HMAC-SHA256 of the data-check-string (every other field, sorted by
name, `name=value` joined by newlines) keyed with that secret. `auth_date` must be at most a
day old. A signed link is `<user>.<expiry>.<signature>` for one table: HMAC-SHA256 over the
table id, the user key and the expiry, with the bot's web secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

#: How old `initData` may be (Telegram's `auth_date`), in seconds.
INIT_DATA_MAX_AGE = 24 * 3600
#: How long a signed link is valid, in seconds.
LINK_TTL = 2 * 24 * 3600
#: Where the generated web secret is kept in the store (a settings row of its own).
SECRET_KEY = "web:secret"


@dataclass(frozen=True, slots=True)
class Viewer:
    """A proven viewer: the user key, a display name, the language the platform reports, and
    the table the proof is for (None: any, as Telegram's initData is per user)."""

    user: str
    name: str
    language: str | None = None
    table_id: str | None = None


def check_init_data(init_data: str, bot_token: str, now: float) -> Viewer | None:
    """The Telegram user `initData` proves, or None when it is forged, expired or another
    bot's. The table is its `start_param` (from `?startapp=`), when it has one."""
    if not init_data or len(init_data) > 8192:
        return None
    try:
        fields = dict(parse_qsl(init_data, keep_blank_values=True, strict_parsing=True))
    except ValueError:
        return None
    given = fields.pop("hash", "")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    expected = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, given):
        return None
    try:
        auth_date = int(fields.get("auth_date", ""))
        user: Any = json.loads(fields.get("user", ""))
    except ValueError:
        return None
    if not (now - INIT_DATA_MAX_AGE <= auth_date <= now + 60):
        return None
    if not isinstance(user, dict) or not isinstance(user.get("id"), int):
        return None
    name = " ".join(
        str(user[k]) for k in ("first_name", "last_name") if isinstance(user.get(k), str)
    )
    language = user.get("language_code") if isinstance(user.get("language_code"), str) else None
    return Viewer(
        f"telegram:{user['id']}",
        name or str(user.get("username") or user["id"]),
        language,
        fields.get("start_param") or None,
    )


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """`initData` as Telegram would send it, signed with `bot_token` (for tests and tools)."""
    from urllib.parse import urlencode

    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def _link_signature(secret: bytes, table_id: str, user: str, expiry: int) -> str:
    mac = hmac.new(secret, f"{table_id}\n{user}\n{expiry}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:16]).decode().rstrip("=")


def sign_link(secret: bytes, table_id: str, user: str, expiry: int) -> str:
    """A player's proof for one table until `expiry` (seconds since the epoch)."""
    return f"{user}.{expiry:x}.{_link_signature(secret, table_id, user, expiry)}"


def check_link(secret: bytes, table_id: str, proof: str, now: float) -> str | None:
    """The user key a signed link proves for `table_id`, or None when it is tampered with,
    expired, or for another table."""
    user, _, rest = proof.rpartition(".")
    user, _, expiry_text = user.rpartition(".")
    if not user or not rest or not expiry_text or len(proof) > 256:
        return None
    try:
        expiry = int(expiry_text, 16)
    except ValueError:
        return None
    if not hmac.compare_digest(_link_signature(secret, table_id, user, expiry), rest):
        return None
    return user if now <= expiry else None


def new_secret() -> bytes:
    """A fresh web secret (32 random bytes)."""
    return secrets.token_bytes(32)


async def load_secret(repo: Any, configured: str | None) -> bytes:
    """The key player links are signed with: `WEB_SECRET` when set, else the one kept in the
    store (generated and stored the first time, then read back, so that every process of the
    bot signs with the same key, whichever stored first)."""
    if configured:
        return hashlib.sha256(configured.encode()).digest()
    stored = await repo.load_settings(SECRET_KEY)
    if not stored or not isinstance(stored.get("secret"), str):
        await repo.save_settings(SECRET_KEY, {"secret": new_secret().hex()})
        stored = await repo.load_settings(SECRET_KEY)
    return bytes.fromhex(stored["secret"])


class SecretHolder:
    """The web secret, read again from the store when a link does not check (another process
    may have generated and stored the secret first, see `auth.load_secret`)."""

    def __init__(self, secret: bytes, reload: Callable[[], Awaitable[bytes]] | None = None):
        self.secret = secret
        self.reload = reload

    async def check(self, table_id: str, proof: str, now: float) -> str | None:
        """The user a signed link proves for `table_id` (None: refused)."""
        user = check_link(self.secret, table_id, proof, now)
        if user is None and self.reload is not None:
            fresh = await self.reload()
            if fresh != self.secret:
                self.secret = fresh
                user = check_link(fresh, table_id, proof, now)
        return user
