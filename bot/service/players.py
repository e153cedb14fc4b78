"""The players the service knows: their names, languages and whether private messages reach
them, read from the store once per process and saved when they change."""

from __future__ import annotations

from typing import Any

from bot.service.names import clean_name
from bot.service.ports import Delivery
from bot.service.store import Repository
from bot.service.table import User


class Players:
    """What the store keeps of each player, cached per process."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        #: Each player's stored record as last read or saved, by user key.
        self.known: dict[str, dict[str, Any]] = {}

    async def player(self, user: str) -> dict[str, Any]:
        """`user`'s record (read from the store once)."""
        info = self.known.get(user)
        if info is None:
            info = await self.repo.load_player(user) or {}
            self.known[user] = info
        return info

    async def remember(self, user: User) -> None:
        """Store a player's name and language when they are new or changed."""
        info = await self.player(user.key)
        name = clean_name(user.name)
        changed = info.get("name") != name
        if user.language and info.get("language") != user.language:
            info["language"] = user.language
            changed = True
        if changed:
            info["name"] = name
            await self.repo.save_player(user.key, info)

    async def reachable(self, user: str) -> bool | None:
        """Whether private messages reach `user` (None: not tried yet)."""
        return (await self.player(user)).get("reachable")

    def refused(self, user: str) -> bool:
        """Whether the platform refused private messages to `user` for good (as last known)."""
        info = self.known.get(user)
        return info is not None and info.get("reachable") is False

    def name(self, user: str) -> str:
        """How `user` was last seen called ("?" when never)."""
        info = self.known.get(user)
        return str(info.get("name") or "?") if info else "?"

    async def set_reachable(self, user: User, reachable: bool = True) -> None:
        """An adapter learned that private messages now reach (or no longer reach) `user`."""
        info = await self.player(user.key)
        info["reachable"] = reachable
        info["name"] = clean_name(user.name)
        await self.repo.save_player(user.key, info)

    async def told(self, user: str, result: Delivery) -> None:
        """A private message to `user` was delivered (or refused): kept when it changed."""
        if result is Delivery.FAILED:
            return
        reachable = result is Delivery.DELIVERED
        info = await self.player(user)
        if info.get("reachable") != reachable:
            info["reachable"] = reachable
            await self.repo.save_player(user, info)
