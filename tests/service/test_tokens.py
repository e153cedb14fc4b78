"""The one button-token codec: `g:<table id>:<version>:<action>[:<arg>]` within both platforms'
limits (Telegram's 64 bytes of callback data, Discord's 100-character custom_id)."""

from __future__ import annotations

import re

import pytest

from bot.service import tokens


def test_a_token_with_the_longest_parts_fits_telegram_callback_data() -> None:
    token = tokens.encode("z" * 12, 36**10 - 1, "a" * 12, "A" * 24)
    assert len(token.encode()) <= 64
    decoded = tokens.decode(token)
    assert decoded == tokens.Token("z" * 12, 36**10 - 1, "a" * 12, "A" * 24)
    assert re.fullmatch(tokens.TEMPLATE, token)


def test_an_argument_round_trips_and_a_table_action_has_none() -> None:
    card = tokens.decode(tokens.encode("ab12cd", 7, "play", "10H.2"))
    assert card is not None and card.arg == "10H.2" and card.action not in tokens.TABLE_ACTIONS
    join = tokens.decode(tokens.encode("ab12cd", 7, "join"))
    assert join is not None and join.arg is None and join.action in tokens.TABLE_ACTIONS


@pytest.mark.parametrize(
    "text",
    [
        "",
        "g:abc:1",
        "x:abc:1:join",
        "g:ABC:1:join",
        "g:abc:-1:join",
        "g:abc:1:join:",
        "g:abc:1:join:a:b",
        "g:abc:1:join:" + "a" * 25,
        "g:abc:1:jo in",
        "g:abc:1:join\n",
        "g:" + "a" * 13 + ":1:join",
    ],
)
def test_malformed_tokens_are_not_ours(text: str) -> None:
    assert tokens.decode(text) is None


@pytest.mark.parametrize(
    ("action", "arg"), [("Play", None), ("play", "a:b"), ("play", ""), ("p" * 13, None)]
)
def test_encode_refuses_what_a_token_cannot_carry(action: str, arg: str | None) -> None:
    with pytest.raises(ValueError):
        tokens.encode("abc", 1, action, arg)
