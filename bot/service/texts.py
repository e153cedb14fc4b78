"""The service's texts: each language's catalog with every hosted game's messages merged in,
bound per platform (its own wording and its way of writing a command), built once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from bot.service.i18n import Catalog, Template, catalog, with_game_messages
from bot.service.settings import TableSettings


class _Where(Protocol):
    @property
    def platform(self) -> str: ...


class Spoken(Protocol):
    """A table, or a view of one: its settings (its language) and where it lives."""

    @property
    def settings(self) -> TableSettings: ...

    @property
    def key(self) -> _Where: ...


class Catalogs:
    """Catalogs per language and platform (built when first used, then kept: a bound catalog
    remembers its lookups)."""

    def __init__(
        self,
        messages: Iterable[Callable[[str], Mapping[str, Template]]],
        lobby_idle: float,
    ) -> None:
        #: Each game's texts per language (`GameView.messages`).
        self._messages = list(messages)
        self._lobby_minutes = round(lobby_idle / 60)
        self._merged: dict[str, Catalog] = {}
        self._bound: dict[tuple[str, str], Catalog] = {}
        #: How each platform writes a sub-command in help texts: "/gnav_" + "stats" on
        #: Telegram, "/gnav " + "stats" on Discord. Adapters set their own.
        self.command_prefix: dict[str, str] = {"console": ""}

    def set_command_prefix(self, platform: str, prefix: str) -> None:
        """How `platform` writes a sub-command in help texts ("/gnav_" on Telegram)."""
        self.command_prefix[platform] = prefix
        self._bound.clear()  # catalogs bound with the old prefix

    def catalog(self, language: str, platform: str) -> Catalog:
        """A language's catalog (the service's texts and every hosted game's), with the
        platform's own wording and way of writing commands."""
        bound = self._bound.get((language, platform))
        if bound is not None:
            return bound
        merged = self._merged.get(language)
        if merged is None:
            merged = self._merged[language] = with_game_messages(catalog(language), self._messages)
        bound = self._bound[(language, platform)] = merged.for_platform(platform).bind(
            c=self.command_prefix.get(platform, "/gnav "),
            minutes=self._lobby_minutes,
        )
        return bound

    def of(self, table: Spoken) -> Catalog:
        """The catalog a table speaks (its language, its platform)."""
        return self.catalog(table.settings.language, table.key.platform)

    def cat(
        self,
        table: Spoken | None,
        settings: TableSettings | None = None,
        platform: str | None = None,
    ) -> Catalog:
        """The table's catalog; without a table, the one `settings` choose (English without)."""
        if table is not None:
            return self.catalog(table.settings.language, table.key.platform)
        return self.catalog(settings.language if settings else "en", platform or "")


def game_key(cat: Catalog, game: str, key: str) -> str:
    """The game's own version of a service message (`<game>.top.title`) when it has one."""
    own = f"{game}.{key}"
    return own if cat.has(own) else key
