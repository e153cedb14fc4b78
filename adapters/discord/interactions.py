"""Answering interactions: every slash command and press is acknowledged within Discord's 3 s.

The service call runs as a task. When it is done within `defer_after` seconds (2 by default)
the answer is the interaction's response; otherwise the interaction is deferred first (a
"thinking" message for commands, a silent update for buttons) and the answer follows as a
followup. The service call is never cancelled: a slow command still completes and is stored.

A press on a private message (a DM hand, an ephemeral hand) lends its interaction to the
notifier (`PressedMessage`): the presser's next private screen, which the press's commit
sends, may update the pressed message by the interaction's response itself. Its answers
here then take turns with that update, so the interaction is responded to once.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import discord

from adapters.discord import texts
from adapters.discord.buttons import build_view, render_text
from adapters.discord.notifier import PressedMessage
from bot.service import tokens
from bot.service.commands import Press
from bot.service.ports import Screen, StoreUnavailable
from bot.service.service import Reply, TableService
from bot.service.table import TableKey, User
from bot.service.tokens import Token

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
#: Service commands as the handler runs them.
Work = Callable[[], Awaitable[Reply]]
#: Lends a press on a private message to the notifier: (user key, interaction, token).
Pressing = Callable[[str, discord.Interaction[Any], Token | None], PressedMessage | None]


def table_key(interaction: discord.Interaction[Any]) -> TableKey:
    """The table of the channel (or thread: a thread is a channel with an id of its own)."""
    return TableKey("discord", str(interaction.channel_id))


def user_of(interaction: discord.Interaction[Any]) -> User:
    """Who interacted; admin when they may manage the channel (or the server); the language
    their Discord app is set to, when the catalogs have it."""
    perms = interaction.permissions
    admin = perms.manage_channels or perms.manage_guild or perms.administrator
    return User(
        f"discord:{interaction.user.id}",
        interaction.user.display_name,
        admin=admin,
        language=texts.catalog_language(interaction.locale),
    )


def can_post(interaction: discord.Interaction[Any]) -> bool:
    """Whether the bot may post its table message where the interaction happened."""
    perms = interaction.app_permissions
    channel_type = getattr(interaction.channel, "type", None)
    in_thread = channel_type in (
        discord.ChannelType.public_thread,
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    )
    return perms.view_channel and (
        perms.send_messages_in_threads if in_thread else perms.send_messages
    )


def member_user(member: discord.abc.User) -> User:
    """Another member named in a command option (e.g. `/gnav stats player:`)."""
    return User(f"discord:{member.id}", member.display_name)


class InteractionHandler:
    """Runs service commands for interactions and answers them in time."""

    def __init__(
        self,
        service: TableService,
        *,
        defer_after: float = 2.0,
        pulled: Callable[[str, discord.Interaction[Any]], None] | None = None,
        pressing: Pressing | None = None,
    ) -> None:
        self.service = service
        self.defer_after = defer_after
        #: Told of each private hand shown ephemerally to a player DMs do not reach, so the
        #: notifier can refresh that view when the player's choices change.
        self.pulled = pulled
        #: Told of each press on a private message, whose interaction may then show the
        #: presser's next private screen in the pressed message.
        self.pressing = pressing
        self.closing = False
        self._inflight: set[asyncio.Task[Any]] = set()

    @contextlib.contextmanager
    def _tracked(self) -> Iterator[None]:
        task = asyncio.current_task()
        if task is not None:
            self._inflight.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._inflight.discard(task)

    async def wait_idle(self, timeout: float) -> None:
        """Wait (up to `timeout` s) for the interactions under way to be answered."""
        pending = [t for t in self._inflight if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    async def command(
        self, interaction: discord.Interaction[Any], work: Work, *, public: bool
    ) -> None:
        """Answer a slash command; `public`: its successful answer is for the whole channel.

        `public` also decides how a slow command's "thinking" message is shown, since that
        message is the one the answer completes.
        """
        await self._answer(interaction, work, component=False, public=public)

    async def refuse(self, interaction: discord.Interaction[Any], key: str) -> None:
        """Answer with one of the adapter's own texts, to the person only."""
        message = texts.text(key, interaction.locale)
        try:
            await interaction.response.send_message(message, ephemeral=True)
        except discord.HTTPException as exc:
            log.warning("answering an interaction failed: %s %s", exc.status, exc.text)

    async def press(self, interaction: discord.Interaction[Any], token: str) -> None:
        """Answer a button press: refusals and "My piece" ephemerally, the rest silently."""
        tk, user = table_key(interaction), user_of(interaction)
        decoded = tokens.decode(token)  # once: for the pressed message and the service
        pressed = None
        if self.pressing is not None and not self.closing:
            pressed = self.pressing(user.key, interaction, decoded)
        await self._answer(
            interaction,
            lambda: self.service.handle(Press(tk, user, decoded or token)),
            component=True,
            public=False,
            pressed=pressed,
        )

    async def _answer(
        self,
        interaction: discord.Interaction[Any],
        work: Work,
        *,
        component: bool,
        public: bool,
        pressed: PressedMessage | None = None,
    ) -> None:
        if self.closing:
            log.info("an interaction arrived while stopping: not handled")
            return
        with self._tracked():
            task = asyncio.ensure_future(work())
            deferred = False
            try:
                done, _ = await asyncio.wait({task}, timeout=self.defer_after)
                if not done:
                    deferred = True
                    if pressed is not None:
                        await pressed.acknowledge(done=False)  # unless the screen answered
                    elif component:
                        await interaction.response.defer()  # type 6: no visible change
                    else:
                        await interaction.response.defer(ephemeral=not public, thinking=True)
                    await asyncio.wait({task})
                if task.cancelled():
                    return  # the loop is shutting down
                silent = _silent(task.result(), component) if task.exception() is None else False
                if silent and pressed is not None:
                    await pressed.acknowledge(done=True)  # unless its screen answered it
                    return
                if pressed is not None and await pressed.close():
                    deferred = True  # the next screen answered: what else is said follows
                if isinstance(task.exception(), StoreUnavailable):
                    # Met outside a command (the service answers its own): the clear line.
                    refused = self.service.unavailable_reply(
                        table_key(interaction), user_of(interaction)
                    )
                    await self._deliver(
                        interaction, refused, component=component, deferred=deferred
                    )
                    return
                if task.exception() is not None:
                    # Logged below; the person gets an answer rather than a silent failure.
                    failed = texts.text("failed", interaction.locale)
                    if deferred:
                        await interaction.followup.send(failed, ephemeral=True)
                    else:
                        await interaction.response.send_message(failed, ephemeral=True)
                    return
                await self._deliver(
                    interaction, task.result(), component=component, deferred=deferred
                )
            except discord.NotFound as exc:
                if exc.code == 10062:  # past Discord's 3 s (or 15 min for followups)
                    log.warning("an interaction expired before it was answered")
                else:
                    log.warning("answering an interaction failed: %s %s", exc.status, exc.text)
            except discord.HTTPException as exc:
                log.warning("answering an interaction failed: %s %s", exc.status, exc.text)
            finally:
                if not task.done():
                    await asyncio.wait({task})  # the command completes and is stored anyway
                failure = None if task.cancelled() else task.exception()
                if failure is not None and not isinstance(failure, StoreUnavailable):
                    log.error("a command failed", exc_info=failure)

    async def _deliver(
        self,
        interaction: discord.Interaction[Any],
        reply: Reply,
        *,
        component: bool,
        deferred: bool,
    ) -> None:
        if _silent(reply, component):
            # A press that worked shows in the table message itself: say nothing more.
            if not deferred:
                await interaction.response.defer()
            return
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
        if reply.document is not None:
            name, data = reply.document
            kwargs["file"] = discord.File(io.BytesIO(data), filename=name)
        if reply.buttons and not reply.public:
            # A private hand to choose from: an ephemeral view with the seat's own buttons
            # (they carry the seat's version, so they stay valid while others act).
            view = build_view(Screen(reply.text, reply.buttons))
            if view is not None:
                kwargs["view"] = view
        text = render_text(reply.text, reply.blocks)
        try:
            if not deferred:
                await interaction.response.send_message(text, ephemeral=not reply.public, **kwargs)
            else:
                # After a "thinking" defer the first followup completes that message, whose
                # visibility was chosen when deferring.
                await interaction.followup.send(text, ephemeral=not reply.public, **kwargs)
        finally:
            if "view" in kwargs:
                # Presses are routed by the one registered DynamicItem, not by this view:
                # let discord.py forget it (no 15-minute timer per ephemeral hand).
                kwargs["view"].stop()
        if "view" in kwargs and self.pulled is not None:
            user = user_of(interaction)
            if await self.service.reachable(user.key) is not True:
                self.pulled(user.key, interaction)


def _silent(reply: Reply, component: bool) -> bool:
    """Whether a press's answer says nothing (it worked: the table message shows it)."""
    return component and reply.ok and not reply.alert and reply.document is None
