"""The `/gnav` slash-command group: one subcommand per service command, nothing more.

Options carry Discord types and ranges taken from the service's own settings table, so Discord
checks a number before the service does; the service stays the judge of every rule.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands

from adapters.discord.interactions import (
    InteractionHandler,
    can_post,
    member_user,
    table_key,
    user_of,
)
from bot.service.commands import (
    Configure,
    Export,
    Help,
    Join,
    Kick,
    Leave,
    Log,
    Open,
    Rules,
    Sheet,
    Start,
    Stats,
    Stop,
    Top,
)
from bot.service.i18n import LANGUAGE_NAMES, LANGUAGES
from bot.service.settings import LEVELS, RANGES

_TIMEOUT = RANGES["turn_timeout"]
_DELAY = RANGES["next_round_delay"]
_BOTS = RANGES["bots"]
_LEVEL_CHOICES = [app_commands.Choice(name=v, value=v) for v in LEVELS]
_LANGUAGE_CHOICES = [app_commands.Choice(name=LANGUAGE_NAMES[c], value=c) for c in LANGUAGES]
#: Autocomplete must be answered within 3 s too: give up on the seat list before that.
_AUTOCOMPLETE_WAIT = 1.5


def gnav_group(handler: InteractionHandler) -> app_commands.Group:
    """The `/gnav` group; every subcommand translates to one `TableService` call."""
    service = handler.service
    game_choices = [app_commands.Choice(name=name, value=name) for name in list(service.games)[:25]]
    # The games hosted, from the registry (Discord allows 100 characters here).
    titles = ", ".join(name.capitalize() for name in service.games)
    gnav = app_commands.Group(
        name="gnav",
        description=f"Play table games in this channel: {titles}"[:100],
        guild_only=True,  # a table lives in a server channel or thread, never in a DM
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )

    @gnav.command(name="new", description="Open a table here (or show the one that is open)")
    @app_commands.describe(game="The game the table plays (else the channel's setting)")
    @app_commands.choices(game=game_choices)
    async def new(interaction: discord.Interaction[Any], game: str | None = None) -> None:
        if not can_post(interaction):  # else the table would open without a message
            await handler.refuse(interaction, "cannot_post")
            return
        tk, user = table_key(interaction), user_of(interaction)
        await handler.command(
            interaction, lambda: service.handle(Open(tk, user, game=game)), public=False
        )

    @gnav.command(name="join", description="Sit down at the table")
    async def join(interaction: discord.Interaction[Any]) -> None:
        tk, user = table_key(interaction), user_of(interaction)
        await handler.command(interaction, lambda: service.handle(Join(tk, user)), public=False)

    @gnav.command(name="leave", description="Leave the table (during a match: give up)")
    async def leave(interaction: discord.Interaction[Any]) -> None:
        tk, user = table_key(interaction), user_of(interaction)
        await handler.command(interaction, lambda: service.handle(Leave(tk, user)), public=False)

    @gnav.command(name="start", description="Start the match (the host or a channel admin)")
    async def start(interaction: discord.Interaction[Any]) -> None:
        tk, user = table_key(interaction), user_of(interaction)
        await handler.command(interaction, lambda: service.handle(Start(tk, user)), public=False)

    @gnav.command(name="stop", description="Stop the table (the host or a channel admin)")
    async def stop(interaction: discord.Interaction[Any]) -> None:
        tk, user = table_key(interaction), user_of(interaction)
        await handler.command(interaction, lambda: service.handle(Stop(tk, user)), public=True)

    @gnav.command(name="kick", description="Remove a player (the host or a channel admin)")
    @app_commands.describe(
        player="The seat's name, as shown at the table",
        member="Or the member to remove (unambiguous when names look alike)",
    )
    async def kick(
        interaction: discord.Interaction[Any],
        player: str | None = None,
        member: discord.Member | None = None,
    ) -> None:
        if member is not None:
            who = f"discord:{member.id}"  # a seat's user key: exactly that member
        elif player and player.strip():
            who = player
        else:
            await handler.refuse(interaction, "kick_usage")
            return
        tk, user = table_key(interaction), user_of(interaction)
        await handler.command(interaction, lambda: service.handle(Kick(tk, user, who)), public=True)

    @kick.autocomplete("player")
    async def kick_names(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            table = await asyncio.wait_for(
                service.status(table_key(interaction)), _AUTOCOMPLETE_WAIT
            )
        except TimeoutError:
            return []
        if table is None or table.status == "closed":
            return []
        wanted = current.casefold()
        return [
            app_commands.Choice(name=s.name[:100], value=s.name[:100])
            for s in table.seats
            if wanted in s.name.casefold()
        ][:25]

    @gnav.command(name="settings", description="Show or change the table's settings")
    @app_commands.describe(
        timeout="Seconds for a turn",
        game="The game the next table plays",
        bots="Bot seats added at the start",
        level="How the bot seats play: easy, normal or strong",
        delay="Seconds before the next round is dealt",
        language="Language of the table",
        changes="Settings as text, the game's own too, e.g. timeout=90 bots=2",
    )
    @app_commands.choices(language=_LANGUAGE_CHOICES, level=_LEVEL_CHOICES, game=game_choices)
    async def settings(
        interaction: discord.Interaction[Any],
        timeout: app_commands.Range[int, _TIMEOUT[0], _TIMEOUT[1]] | None = None,
        game: str | None = None,
        bots: app_commands.Range[int, _BOTS[0], _BOTS[1]] | None = None,
        level: str | None = None,
        delay: app_commands.Range[int, _DELAY[0], _DELAY[1]] | None = None,
        language: str | None = None,
        changes: str | None = None,
    ) -> None:
        named = {
            "timeout": timeout,
            "game": game,
            "bots": bots,
            "level": level,
            "delay": delay,
            "language": language,
        }
        words = [f"{k}={v}" for k, v in named.items() if v is not None]
        words += (changes or "").split()
        tk, user = table_key(interaction), user_of(interaction)
        await handler.command(
            interaction, lambda: service.handle(Configure(tk, user, words)), public=True
        )

    @gnav.command(name="language", description="Choose the table's language")
    @app_commands.describe(language="The language of the table's messages")
    @app_commands.choices(language=_LANGUAGE_CHOICES)
    async def language(interaction: discord.Interaction[Any], language: str) -> None:
        tk, user = table_key(interaction), user_of(interaction)
        words = [f"language={language}"]
        await handler.command(
            interaction, lambda: service.handle(Configure(tk, user, words)), public=True
        )

    @gnav.command(name="rules", description="The rules of the table's game")
    async def rules(interaction: discord.Interaction[Any]) -> None:
        tk = table_key(interaction)
        await handler.command(interaction, lambda: service.handle(Rules(tk)), public=True)

    @gnav.command(name="stats", description="Statistics of the channel's game")
    @app_commands.describe(player="Whose statistics (yours when left out)")
    async def stats(
        interaction: discord.Interaction[Any], player: discord.Member | None = None
    ) -> None:
        tk = table_key(interaction)
        who = member_user(player) if player is not None else user_of(interaction)
        await handler.command(interaction, lambda: service.handle(Stats(tk, who)), public=True)

    @gnav.command(name="top", description="The best players of the channel's game")
    async def top(interaction: discord.Interaction[Any]) -> None:
        tk = table_key(interaction)
        await handler.command(interaction, lambda: service.handle(Top(tk)), public=True)

    @gnav.command(name="export", description="The record of the current or last match (JSON)")
    async def export(interaction: discord.Interaction[Any]) -> None:
        tk = table_key(interaction)
        await handler.command(interaction, lambda: service.handle(Export(tk)), public=False)

    @gnav.command(name="sheet", description="The whole score sheet of the table's game")
    async def sheet(interaction: discord.Interaction[Any]) -> None:
        tk = table_key(interaction)
        await handler.command(interaction, lambda: service.handle(Sheet(tk)), public=True)

    @gnav.command(name="log", description="The whole log of the round under way")
    async def log_(interaction: discord.Interaction[Any]) -> None:
        tk = table_key(interaction)
        await handler.command(interaction, lambda: service.handle(Log(tk)), public=True)

    @gnav.command(name="help", description="How to play with this bot")
    async def help_(interaction: discord.Interaction[Any]) -> None:
        tk = table_key(interaction)
        await handler.command(interaction, lambda: service.handle(Help(tk)), public=True)

    return gnav
