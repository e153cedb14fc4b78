"""Registering the `/gnav` commands with Discord: always, never, or when their schema changed.

"auto" compares the tree's command JSON with what Discord has registered (one GET per start),
so a restart with unchanged commands costs no sync, while a new option, a renamed command or a
first start with a fresh application is synced at once. Guild commands (DISCORD_GUILD_ID) show
up immediately, which suits development; global ones can take up to an hour to spread.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import discord
from discord import app_commands

log = logging.getLogger(__name__)

SyncMode = Literal["auto", "always", "never"]

#: The keys that make a command's schema; everything else is Discord's bookkeeping (ids,
#: versions) or defaults it fills in. Contexts and install types are left out because guild
#: commands echo them inconsistently: DISCORD_SYNC=always covers a change of those alone.
_COMMAND_KEYS = ("name", "type", "description", "options", "default_member_permissions", "nsfw")
_OPTION_KEYS = (
    "name",
    "type",
    "description",
    "required",
    "choices",
    "options",
    "channel_types",
    "min_value",
    "max_value",
    "min_length",
    "max_length",
    "autocomplete",
)


def schema(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Commands reduced to what matters for a sync, with empty values and defaults dropped."""
    return sorted((_reduce(c, _COMMAND_KEYS) for c in commands), key=lambda c: c.get("name", ""))


def _reduce(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in keys:
        value = data.get(key)
        if key == "options" and value:
            value = [_reduce(o, _OPTION_KEYS) for o in value]
        elif key == "choices" and value:
            value = [{"name": c["name"], "value": c["value"]} for c in value]
        elif key == "default_member_permissions" and value is not None:
            value = str(value)
        if value in (None, False, [], {}, ""):
            continue  # absent, false and empty mean the same to Discord
        out[key] = value
    return out


async def sync_commands(
    tree: app_commands.CommandTree[Any], guild_id: int | None, mode: SyncMode
) -> bool:
    """Sync the tree's commands to the guild (or globally) as `mode` says; True when synced."""
    if mode == "never":
        log.info("command sync skipped (DISCORD_SYNC=never)")
        return False
    guild = discord.Object(guild_id) if guild_id is not None else None
    where = f"guild {guild_id}" if guild_id is not None else "all servers (global)"
    if mode == "auto":
        local = [c.to_dict(tree) for c in tree.get_commands(guild=guild)]
        remote = [c.to_dict() for c in await tree.fetch_commands(guild=guild)]
        if schema(local) == schema(list(remote)):  # type: ignore[arg-type]
            log.info("the /gnav commands registered for %s are up to date", where)
            return False
    await tree.sync(guild=guild)
    log.info("synced the /gnav commands to %s", where)
    return True
