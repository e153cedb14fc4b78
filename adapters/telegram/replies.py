"""Replies waiting for a chat's flood limits: sent in order, combined when many wait, never
dropped.

A group may get about 20 messages a minute. When people send commands faster than that, their
answers wait here, one queue per chat drained by one task (sending in a chat is one call at a
time anyway). Nothing a person asked for is thrown away: the "pieces by DM" hints of several
joiners become one hint naming them all, and once `MAX_WAITING` messages wait, each further
answer joins the newest waiting one (each line naming whom it answers, repeats counted), so a
flood of commands costs a few long messages instead of many short ones.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from telegram.error import TelegramError

from adapters.telegram.notifier import failed

log = logging.getLogger(__name__)

#: Messages that may wait in one chat before further answers are combined into them.
MAX_WAITING = 10
#: Longest message text (Telegram counts UTF-16 units).
MAX_TEXT = 4096

#: Sends a text: (chat id, text, thread, markup, reply_to, literals).
SendText = Callable[..., Coroutine[Any, Any, object]]
#: The combined hint for several joiners: (language, their names) -> text.
HintText = Callable[[str, Sequence[str]], str]


@dataclass(slots=True)
class Outgoing:
    """One message waiting to go to a chat."""

    kind: Literal["answer", "hint", "file"]
    thread: int | None = None
    text: str = ""
    #: Whom an answer answers (shown when answers are combined).
    sender: str = ""
    markup: Any = None
    reply_to: int | None = None
    literals: tuple[str, ...] = ()
    #: Preformatted pieces of the text (a score sheet): sent in monospace, never combined.
    blocks: tuple[str, ...] = ()
    #: A hint: the joiners it is for, and its language.
    names: list[str] = field(default_factory=list)
    language: str = "en"
    #: Combined answers: (sender, text, times asked).
    parts: list[tuple[str, str, int]] | None = None
    #: A document: how to send it.
    file: Callable[[], Coroutine[Any, Any, object]] | None = None

    def rendered(self) -> str:
        """The message text (combined answers one per line, each naming its sender)."""
        if self.parts is None:
            return self.text
        return "\n".join(
            f"{sender}: {text}" + (f" (×{n})" if n > 1 else "") for sender, text, n in self.parts
        )


class ReplyQueue:
    """Per-chat queues of waiting replies, each drained by one task."""

    def __init__(
        self, send_text: SendText, hint_text: HintText, *, max_waiting: int = MAX_WAITING
    ) -> None:
        self._send_text = send_text
        self._hint_text = hint_text
        self.max_waiting = max_waiting
        self._queues: dict[int, deque[Outgoing]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._sending: dict[int, Outgoing] = {}

    def waiting(self, chat_id: int) -> int:
        """How many messages wait for a chat (not counting the one being sent)."""
        return len(self._queues.get(chat_id, ()))

    def pending(self, chat_id: int) -> list[Outgoing]:
        """The message being sent to a chat, if any, and those waiting, in order."""
        sending = self._sending.get(chat_id)
        return ([sending] if sending is not None else []) + list(self._queues.get(chat_id, ()))

    def put(self, chat_id: int, item: Outgoing) -> None:
        """Queue `item` for the chat, combining it with what waits where that is possible."""
        queue = self._queues.setdefault(chat_id, deque())
        if item.kind == "hint" and self._add_to_hint(queue, item):
            return
        crowded = item.kind == "answer" and len(queue) >= self.max_waiting
        if crowded and self._combine(queue, item):
            log.warning(
                "chat %s: %d replies waiting for the flood limits; answers combined",
                chat_id,
                len(queue),
            )
            return
        queue.append(item)
        task = self._tasks.get(chat_id)
        if task is None or task.done():
            self._tasks[chat_id] = asyncio.get_running_loop().create_task(self._drain(chat_id))

    def _add_to_hint(self, queue: deque[Outgoing], item: Outgoing) -> bool:
        """Fold a joiner's hint into one already waiting in the same place (one hint for
        several joiners: it says the same to each)."""
        for waiting in queue:
            if waiting.kind == "hint" and waiting.thread == item.thread:
                new = [n for n in item.names if n not in waiting.names]
                waiting.names.extend(new)
                waiting.text = self._hint_text(waiting.language, waiting.names)
                waiting.literals = tuple(dict.fromkeys((*waiting.literals, *item.literals)))
                waiting.reply_to = None  # it answers several people now
                return True
        return False

    def _combine(self, queue: deque[Outgoing], item: Outgoing) -> bool:
        """Add an answer to the newest waiting text answer of the same place, if it fits (an
        answer with a preformatted block goes on its own, its columns kept)."""
        if item.blocks:
            return False
        for waiting in reversed(queue):
            if waiting.kind != "answer" or waiting.thread != item.thread or waiting.markup:
                continue
            if waiting.blocks:
                continue
            parts = list(waiting.parts or [(waiting.sender, waiting.text, 1)])
            for i, (sender, text, n) in enumerate(parts):
                if (sender, text) == (item.sender, item.text):
                    parts[i] = (sender, text, n + 1)
                    break
            else:
                parts.append((item.sender, item.text, 1))
            combined = Outgoing("answer", waiting.thread, parts=parts)
            if _utf16(combined.rendered()) > MAX_TEXT:
                return False  # full: the answer waits as a message of its own
            waiting.parts = parts
            waiting.reply_to = None
            waiting.literals = tuple(
                dict.fromkeys((*waiting.literals, *item.literals, waiting.sender, item.sender))
            )
            return True
        return False

    async def _drain(self, chat_id: int) -> None:
        queue = self._queues[chat_id]
        try:
            while queue:
                item = queue.popleft()
                self._sending[chat_id] = item
                try:
                    if item.file is not None:
                        await item.file()
                    else:
                        await self._send_text(
                            chat_id,
                            item.rendered(),
                            thread=item.thread,
                            markup=item.markup,
                            reply_to=item.reply_to,
                            literals=item.literals,
                            blocks=item.blocks,
                        )
                except TelegramError as exc:
                    failed(exc, "a reply in chat %s failed: %s", chat_id, exc.message)
                except Exception:
                    log.exception("a reply in chat %s failed", chat_id)
        finally:
            self._sending.pop(chat_id, None)
            if not queue and self._queues.get(chat_id) is queue:
                del self._queues[chat_id]

    async def drain(self) -> None:
        """Wait until every waiting reply is sent (or failed)."""
        while True:
            tasks = [t for t in self._tasks.values() if not t.done()]
            if not tasks:
                self._tasks.clear()
                return
            await asyncio.gather(*tasks, return_exceptions=True)


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
