"""Settings of several processes: Discord shards split over processes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.config import BotSettings


def settings(**values: object) -> BotSettings:
    return BotSettings(_env_file=None, discord_token="x", **values)  # type: ignore[call-arg]


def test_discord_shards_of_this_process_and_the_count() -> None:
    s = settings(discord_shard_ids="0, 2", discord_shard_count=4)
    assert s.shard_ids == [0, 2] and s.discord_shard_count == 4
    assert settings().shard_ids is None


@pytest.mark.parametrize(
    ("ids", "count", "error"),
    [
        ("0", None, "needs DISCORD_SHARD_COUNT"),
        ("4", 4, "below DISCORD_SHARD_COUNT"),
        ("one", 2, "list of shard numbers"),
    ],
)
def test_wrong_shard_settings_are_refused_clearly(ids: str, count: int | None, error: str) -> None:
    with pytest.raises(ValidationError, match=error):
        settings(discord_shard_ids=ids, discord_shard_count=count)
