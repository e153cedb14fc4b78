"""Statistics per game through the service, the game's ranking of `top`, and tables by id."""

from __future__ import annotations

from bot.games.gnav.game import GnavRules, GnavView
from bot.service.commands import Stats, Top
from bot.service.i18n import Catalog, with_game_messages
from bot.service.i18n import catalog as service_catalog
from bot.service.ports import StatDelta, TableRow
from bot.service.table import TableKey, User
from tests.service.conftest import ALICE, BOB, CHANNEL, Harness
from tests.service.test_service import play_to_end, start_table


def catalog(language: str) -> Catalog:
    """The catalog of a Gnav table: the service's with Gnav's own texts."""
    return with_game_messages(service_catalog(language), [GnavView(GnavRules()).messages])


def delta(user: str, name: str, game: str = "gnav", **counters: int) -> StatDelta:
    """A statistics delta in the test channel's chat."""
    return StatDelta(CHANNEL.chat_key, user, name, game, counters)


async def store_stats(harness: Harness, *deltas: StatDelta) -> None:
    """Store statistics as a finished save would (with a throw-away table row)."""
    await harness.repo.save_table(
        TableRow("scratch", 1, "closed", {}), expected_version=None, stats=deltas
    )


async def test_a_match_counts_the_games_counters_and_its_own(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["bots=1", "lives=2"])
    await play_to_end(harness)
    table = await harness.table()
    winners = {table.seats[i].user for i in GnavRules().winners(table.match)}
    for user in (ALICE, BOB):
        found = await harness.repo.player_stats(CHANNEL.chat_key, user.key, "gnav")
        assert found is not None and found.name == user.name and found.game == "gnav"
        assert set(found.counters) <= set(GnavView.stat_counters)
        assert found.counters["matches"] == 1
        assert found.counters.get("wins", 0) == (1 if user.key in winners else 0)
        assert 1 <= found.counters["rounds"] <= GnavView(GnavRules()).round_number(table.match)
    # Bots have no statistics; nothing is counted under another game.
    assert [p.user for p in await harness.repo.chat_stats(CHANNEL.chat_key, "gnav")] == sorted(
        [ALICE.key, BOB.key]
    )
    assert await harness.repo.chat_stats(CHANNEL.chat_key, "karnaval") == []


async def test_top_ranks_wins_then_lives_lost_per_round_then_matches_then_name(
    harness: Harness,
) -> None:
    await store_stats(
        harness,
        delta("few", "Few", matches=2, wins=1, rounds=10, lives_lost=1),
        delta("best", "Best", matches=5, wins=4, rounds=20, lives_lost=10),
        delta("careful", "Careful", matches=5, wins=4, rounds=20, lives_lost=2),
        delta("busy", "busy", matches=9, wins=1, rounds=10, lives_lost=1),
        delta("zed", "Zed", matches=2, wins=1, rounds=10, lives_lost=1),
        delta("adam", "adam", matches=2, wins=1, rounds=10, lives_lost=1),
        delta("rounds", "Rounds only", rounds=3, lives_lost=3),
        delta("idle", "Idle"),  # nothing played: not ranked
        delta("other", "Other game", "karnaval", matches=50, wins=50),
        StatDelta("elsewhere", "elsewhere", "Elsewhere", "gnav", {"matches": 50, "wins": 50}),
    )
    top = (await harness.service.handle(Top(CHANNEL))).text.splitlines()
    names = [line.split(". ", 1)[1].split(":")[0] for line in top[1:]]
    assert names == ["Careful", "Best", "busy", "adam", "Few", "Zed", "Rounds only"]
    assert top[1] == "1. Careful: wins 4 · matches 5 (lives lost 2 · rounds 20)"
    assert top[-1] == "7. Rounds only: wins 0 · matches 0 (lives lost 3 · rounds 3)"
    assert len((await harness.service.handle(Top(CHANNEL, limit=2))).text.splitlines()) == 3
    empty = await harness.service.handle(Top(TableKey("test", "nobody here")))
    assert empty.text == catalog("en").t("gnav.top.none")


async def test_stats_show_absent_counters_as_zero(harness: Harness) -> None:
    await store_stats(harness, delta(ALICE.key, "Alice", rounds=2), delta(BOB.key, "Bob"))
    alice = await harness.service.handle(Stats(CHANNEL, ALICE))
    assert alice.text == (
        "Alice: matches 0 · wins 0 · rounds 2 · lives lost 0 · paid at a reveal 0 · "
        "refusals dealt 0."
    )
    bob = await harness.service.handle(Stats(CHANNEL, BOB))
    assert bob.text.startswith("Bob: matches 0 · wins 0 · rounds 0")
    carl = await harness.service.handle(Stats(CHANNEL, User("test:3", "Carl")))
    assert carl.text == catalog("en").t("gnav.stats.none", name="Carl")


def test_gnav_declares_and_renders_its_counters() -> None:
    view = GnavView(GnavRules())
    assert view.stat_counters == (
        "matches",
        "wins",
        "rounds",
        "lives_lost",
        "times_paid",
        "refusals",
    )
    counters = dict(zip(view.stat_counters, (3, 2, 30, 7, 4, 5), strict=True))
    cat = catalog("nb")
    assert view.render_stats("Åse", counters, cat) == cat.t(
        "gnav.stats.line", name="Åse", **counters
    )
    assert view.render_top_line(2, "Åse", counters, cat) == cat.t(
        "gnav.top.line", n=2, name="Åse", wins=2, matches=3, lives_lost=7, rounds=30
    )
    assert view.top_key({}) == view.top_key({"refusals": 9}) == (0, 0.0, 0)
    assert view.top_key(counters) < view.top_key({**counters, "lives_lost": 8})


async def test_the_table_is_found_by_its_id(harness: Harness) -> None:
    await start_table(harness, ALICE, BOB, words=["bots=1"])
    table = await harness.table()
    found = await harness.repo.load_table_by_id(table.table_id)
    assert found is not None and found.key == CHANNEL.key
    assert found.table_id == table.table_id == found.state["table_id"]
