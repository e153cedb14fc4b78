"""Issue 8, point 5: no reply is silently dropped while a chat's flood limits hold replies."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from adapters.telegram import texts
from adapters.telegram.replies import MAX_TEXT, Outgoing, ReplyQueue

CHAT = -100


class GatedSender:
    """A chat whose flood limit holds every message until `open()`."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, chat_id: int, text: str, **kwargs: Any) -> None:
        await self.gate.wait()
        self.sent.append({"chat": chat_id, "text": text, **kwargs})


def hint(name: str) -> Outgoing:
    return Outgoing(
        "hint",
        None,
        texts.text("en", "join_link", text=f"{name} sat down."),
        names=[name],
        literals=(name,),
    )


def answer(sender: str, text: str) -> Outgoing:
    return Outgoing("answer", None, text, sender=sender, reply_to=7)


async def test_no_answer_is_dropped_after_thirteen_joins(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    chat = GatedSender()
    queue = ReplyQueue(chat.send_text, texts.join_link_many)
    names = [f"P{i}" for i in range(13)]
    for name in names:
        queue.put(CHAT, hint(name))
    queue.put(CHAT, answer("P3", "You are already seated."))
    queue.put(CHAT, answer("Host", 'lives needs a whole number, not "x".'))
    queue.put(CHAT, answer("P5", "P5 has no Gnav statistics in this chat yet."))
    await asyncio.sleep(0)
    chat.gate.set()
    await queue.drain()
    sent = [m["text"] for m in chat.sent]
    assert any("already seated" in t for t in sent)
    assert any("whole number" in t for t in sent)
    assert any("no Gnav statistics" in t for t in sent)
    # One combined hint names every joiner.
    hints = [t for t in sent if "Privately by DM" in t]
    assert len(hints) == 1
    assert all(name in hints[0] for name in names)
    assert len(sent) == 4


async def test_a_flood_of_answers_is_combined_never_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    chat = GatedSender()
    queue = ReplyQueue(chat.send_text, texts.join_link_many, max_waiting=10)
    for i in range(200):
        queue.put(CHAT, answer(f"U{i % 7}", f"answer {i}"))
    for _ in range(3):  # the same answer again and again: counted, not repeated
        queue.put(CHAT, answer("U1", "again"))
    assert queue.waiting(CHAT) <= 11
    chat.gate.set()
    await queue.drain()
    everything = "\n".join(m["text"] for m in chat.sent)
    for i in range(200):
        assert f"answer {i}" in everything
    assert "U1: again (×3)" in everything
    assert all(len(m["text"]) <= MAX_TEXT for m in chat.sent)
    assert "answers combined" in caplog.text and str(CHAT) in caplog.text
    combined = [m for m in chat.sent if "\n" in m["text"]]
    assert combined and all(m["reply_to"] is None for m in combined)


async def test_replies_keep_their_order_and_quote_when_few_wait() -> None:
    chat = GatedSender()
    queue = ReplyQueue(chat.send_text, texts.join_link_many)
    for i in range(5):
        queue.put(CHAT, answer("A", f"reply {i}"))
    chat.gate.set()
    await queue.drain()
    assert [m["text"] for m in chat.sent] == [f"reply {i}" for i in range(5)]
    assert all(m["reply_to"] == 7 for m in chat.sent)
