"""Issue 11, item 3: when no person is left in a match, the bots finish it at once and one
message tells the result (who won, in how many more rounds)."""

from __future__ import annotations

from bot.service.commands import Act, Configure, Leave, Open, Start
from bot.service.table import User
from tests.service.conftest import ALICE, CHANNEL, Harness


async def _start(h: Harness, lives: int) -> None:
    svc = h.service
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    assert (await svc.handle(Configure(CHANNEL, ALICE, ["bots=3", f"lives={lives}"]))).ok
    assert (await svc.handle(Start(CHANNEL, ALICE))).ok
    await h.settle()


def _public(h: Harness) -> list[str]:
    return [m.screen.text for m in h.notifier.messages.values() if m.channel == CHANNEL.key]


async def _knocked_out(seed: int) -> Harness | None:
    """Alice stays every turn until the table closes; the harness if she went out first."""
    h = Harness(seed=seed)
    await _start(h, lives=1)
    for _ in range(200):
        await h.settle()
        table = await h.table()
        if table.status == "closed":
            break
        if table.match.phase == "play" and table.match.turn == table.seat_of(ALICE.key):
            legal = table.match.legal_actions(table.match.turn)
            await h.service.handle(Act(CHANNEL, User(ALICE.key, ALICE.name), legal[0]))
    table = await h.table()
    alice = table.seat_of(ALICE.key)
    return h if table.match.winners and alice not in table.match.winners else None


async def test_a_person_knocked_out_sees_the_bots_finish_with_a_winner() -> None:
    found = [h for seed in range(1, 12) if (h := await _knocked_out(seed)) is not None]
    assert found, "no seed knocked Alice out"
    for h in found:
        table = await h.table()
        assert table.status == "closed" and table.closed_reason == "finished"
        assert h.service.game_of(table).winners(table.match)
        texts = _public(h)
        assert not any("No player is left" in t for t in texts)
        results = [t for t in texts if "🏆 The bots played on" in t]
        assert len(results) == 1, texts
        winners = ", ".join(table.names[s] for s in table.match.winners)
        assert winners in results[0] and "later" in results[0]
        assert "round" in results[0] and "deal" not in results[0]  # Gnav counts rounds
        stored = await h.repo.last_finished_match(CHANNEL.key)
        assert stored is not None
        assert stored.winners == [table.names[s] for s in table.match.winners]
        stats = await h.repo.player_stats(CHANNEL.chat_key, ALICE.key, "gnav")
        assert stats is not None
        assert stats.counters["matches"] == 1 and stats.counters.get("wins", 0) == 0


async def test_the_last_person_leaving_lets_the_bots_finish_in_one_message(
    harness: Harness,
) -> None:
    await _start(harness, lives=3)
    before = len(harness.notifier.order)
    assert (await harness.service.handle(Leave(CHANNEL, ALICE))).ok
    await harness.settle()
    table = await harness.table()
    assert table.status == "closed"
    assert harness.service.game_of(table).winners(table.match)
    new_posts = [e for e in harness.notifier.order[before:] if e[0] == "post"]
    assert len(new_posts) == 1  # the result, not a replay of the bots' rounds
    result = harness.notifier.messages[new_posts[0][2]].screen.text
    rounds = harness.service.view_of(table).round_number(table.match) - 1
    assert f"{rounds} round" in result
    assert "won the match" in result or "shared the win" in result
