"""Gnav's stay/swap by determinized sampling over the seat's information set (issue 22).

`Knowledge.from_match(match, seat)` snapshots what one seat may know at its turn: who was dealt
a piece, its own dealt piece and its piece now, the exchanges it took part in, the actions taken
so far and the round's public events (knocks, refusals with the matador shown, passes, bag
draws). `choose_sampled(knowledge, seed, worlds)` deals the unseen pieces many times (the own
dealt piece kept, a Narr to every seat that knocked and none to the others, N5), replays the
round's actions on each deal through the engine and keeps the deals that give the same public
events and the same own exchanges (and where every recorded action is legal: a stay is not,
for a Narr under T3); each kept deal is weighed by how well it explains the other seats'
choices (a seat that stayed on a deal where the tuned thresholds of `strategy.decide` would
swap counts `SLIP`), and in each the round is played out twice, staying and swapping, with
every seat on `strategy.decide`. The action with the fewer lives lost on (weighted) average
is chosen.

Not a level: it does not beat the tuned thresholds, so Gnav's `strong` plays as `normal`.
Measured by `python -m benchmarks.strategy --level strong` (duplicate rounds: the same deal
played by normal seats, then with one seat sampling; 2,000 rounds per size, CPU time of one
core): taking the better sampled mean at once (`--margin 0 --worlds 32`) changes 51-78 rounds
in 2,000 and loses more lives than the thresholds, +0.0050 ± 0.0087 a round at 3 players,
+0.0055 ± 0.0070 at 4, +0.0135 ± 0.0080 at 6 (its overrulings are mostly sampling noise on
close calls); overruling them only past 2 standard errors of 128 deals (the defaults) changes
0, 4 and 6 rounds in 2,000 (+0.0000, -0.0020 ± 0.0020, +0.0010 ± 0.0024), at a p99 of 67-131
ms a decision. The thresholds were tuned as a best response on the same engine, so sampling
finds nothing they get measurably wrong.

The ceiling (issue 33): an omniscient seat (benchmarks/oracle.py: it sees every piece and the
bag and looks ahead exactly against the `normal` seats) loses fewer lives than the `normal`
seat in its place in 0.516-0.546 of duplicate rounds (2,000 per size, 2-20 players, every turn
position in turn, each interval ± 0.004-0.006): small, but not noise. It wins by seeing the
partner's piece or the bag's next one, which no public event has touched. With `slip` 0 the
deals kept follow the exact posterior given the public events when the other seats are
`normal`; the best response to them (benchmarks/gnav_posterior.py, scored on fresh deals)
saves -0.004 to +0.002 lives a round against the oracle's 0.06-0.10, and as the level
(`--slip 0 --margin 2`, 500 rounds per size) it changes 0-4 rounds in 500, 0.497-0.503: the
honest ceiling is within noise of the thresholds, so `strong` stays `normal`
(docs/performance.md, "Bot strength").

`hint` (issue 33) answers a person learning with `strong`'s choice (today the thresholds')
and the share of the deals sampled from their own knowledge on which it loses no life.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from bot.games.gnav.engine.events import Event
from bot.games.gnav.engine.match import NO_PIECE, Match
from bot.games.gnav.engine.pieces import NARR
from bot.games.gnav.engine.profiles import get_profile
from bot.games.gnav.strategy import Action, BotView, decide

#: Lives of the sampled tables: nobody leaves during a sampled round.
MANY_LIVES = 10**6
#: Weight of a deal on which another seat's recorded action is not what `decide` would do.
SLIP = 0.2
#: Deals kept per decision.
WORLDS = 128
#: The sampled difference must exceed this many standard errors to overrule the thresholds.
MARGIN = 2.0
#: Deals tried per world asked for (most fit: only refusals, passes and knocks constrain).
ATTEMPTS = 4


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat may know at its turn (picklable, never another seat's piece)."""

    seat: int
    n: int
    profile: str
    dealer: int
    dealt: tuple[int, ...]  # seats dealt a piece, in seat order (public)
    own_dealt: int
    own_now: int
    actions: tuple[tuple[int, str], ...]  # the round's actions so far (public)
    public: tuple[Event, ...]  # the round's public events so far
    own_exchanges: tuple[tuple[int, int, int, int], ...]  # since the last undo, own only
    legal: tuple[str, ...]

    @classmethod
    def from_match(cls, match: Match, seat: int) -> Knowledge:
        """Read from the match only what `seat` may see (ValueError when no round is under
        way for it)."""
        log = match.log
        if match.phase != "play" or log is None or seat not in match.order:
            raise ValueError(f"seat {seat} takes no part in a round under way")
        return cls(
            seat=seat,
            n=match.n,
            profile=match.profile.name,
            dealer=log.dealer,
            dealt=tuple(s for s in range(match.n) if log.deal[s] != NO_PIECE),
            own_dealt=log.deal[seat],
            own_now=match.hands[seat],
            actions=tuple(log.actions),
            public=tuple(log.events),
            own_exchanges=tuple(x for x in match.exchanges if seat in (x[0], x[1])),
            legal=tuple(match.legal_actions(seat)),
        )


def _comparable(events: tuple[Event, ...] | list[Event]) -> list[Event]:
    """Public events to match a sampled round against (T4 sit-outs are set before the deal
    and not replayed: the sampled table just deals those seats nothing)."""
    return [e for e in events if e.kind != "sit_out"]


class Worlds:
    """Deals consistent with a seat's knowledge, replayed through the engine."""

    def __init__(self, k: Knowledge, slip: float = SLIP) -> None:
        self.k = k
        self.slip = slip
        self.profile = get_profile(k.profile)
        knockers = {e.seats[0] for e in k.public if e.kind == "knock"}
        self.knockers = knockers
        pool = list(self.profile.deck)
        pool.remove(k.own_dealt)
        for s in knockers:
            if s != k.seat:
                pool.remove(NARR)  # N5: whoever was dealt a Narr knocked
        self.pool = sorted(pool)
        self.others = [s for s in k.dealt if s != k.seat and s not in knockers]
        self.names = [f"P{i}" for i in range(k.n)]
        self.public = _comparable(k.public)

    def table(self, deal: dict[int, int], bag: list[int]) -> Match:
        """A fresh match dealt `deal` and `bag` (the seats dealt nothing sit out)."""
        k = self.k
        m = Match(self.names, profile=self.profile, lives=MANY_LIVES, dealer=k.dealer)
        dealt = set(k.dealt)
        m.in_match = [s in dealt for s in range(k.n)]
        m.start_round(deal, bag)
        return m

    def sample(self, rng: random.Random) -> tuple[dict[int, int], list[int]]:
        """One dealing of the unseen pieces: (deal, bag). A seat that did not knock was dealt
        no Narr (N5), so the Narrs nobody knocked for lie in the bag: the other pieces are
        dealt uniformly, then the bag (those left and the Narrs) is shuffled."""
        k = self.k
        pool = [r for r in self.pool if r != NARR]
        rng.shuffle(pool)
        deal = {k.seat: k.own_dealt}
        for s in self.knockers:
            if s != k.seat:
                deal[s] = NARR
        for i, s in enumerate(self.others):
            deal[s] = pool[i]
        bag = pool[len(self.others) :] + [r for r in self.pool if r == NARR]
        rng.shuffle(bag)
        return deal, bag

    def replay(self, deal: dict[int, int], bag: list[int]) -> tuple[Match, float] | None:
        """The round so far on this deal, with the deal's weight (how well `decide` explains
        the other seats' actions), or None when it contradicts what the seat saw."""
        k = self.k
        m = self.table(deal, bag)
        weight = 1.0
        for s, action in k.actions:
            if m.phase != "play" or m.turn != s or action not in m.legal_actions(s):
                # A stay where this deal gives the seat a Narr under T3 is one more way for
                # the deal to contradict what was seen.
                return None
            if (
                s != k.seat
                and "stay" in m.legal_actions(s)
                and decide(BotView.from_match(m, s)) != action
            ):
                weight *= self.slip
            m.act(s, action)
        if m.phase != "play" or m.turn != k.seat or m.hands[k.seat] != k.own_now:
            return None
        log = m.log
        assert log is not None
        if _comparable(log.events) != self.public:
            return None
        own = tuple(x for x in m.exchanges if k.seat in (x[0], x[1]))
        if own != k.own_exchanges:
            return None
        return m, weight

    def outcome(self, deal: dict[int, int], bag: list[int], action: str) -> int:
        """Lives the seat loses this round when it takes `action` now and every seat plays
        `strategy.decide` from then on."""
        k = self.k
        m = self.table(deal, bag)
        start = m.lives[k.seat]
        for s, a in k.actions:
            m.act(s, a)
        m.act(k.seat, action)
        while m.phase == "play":
            turn = m.turn
            assert turn is not None
            m.act(turn, decide(BotView.from_match(m, turn)))
        return start - m.lives[k.seat]


def _fitting(
    w: Worlds, seed: int, worlds: int
) -> Iterator[tuple[dict[int, int], list[int], float]]:
    """Up to `worlds` sampled deals that replay to what the seat saw, each with its weight
    (at most `worlds * ATTEMPTS` tries, from `random.Random(seed)`)."""
    rng = random.Random(seed)
    kept = 0
    for _ in range(worlds * ATTEMPTS):
        if kept >= worlds:
            return
        deal, bag = w.sample(rng)
        seen = w.replay(deal, bag)
        if seen is None or seen[1] <= 0:  # a weight of 0 (`slip` 0): it contradicts too
            continue
        kept += 1
        yield deal, bag, seen[1]


def outcomes(
    k: Knowledge, seed: int, worlds: int, slip: float = SLIP
) -> list[tuple[float, dict[str, int]]]:
    """Up to `worlds` deals fitting the seat's knowledge: each deal's weight and the lives the
    seat loses on it for each of its legal actions (every seat on `decide` afterwards)."""
    w = Worlds(k, slip)
    return [
        (weight, {a: w.outcome(deal, bag, a) for a in k.legal})
        for deal, bag, weight in _fitting(w, seed, worlds)
    ]


def hint(
    match: Match, seat: int, rng: random.Random, worlds: int = WORLDS
) -> tuple[Action, float, int] | None:
    """Issue 33's hint for `seat`, from what it may know only (`Knowledge`): the action the
    `strong` level takes (today the thresholds', `strategy.decide`), the weighted share of
    sampled deals on which that action loses no life this round, and how many deals were
    kept. None when the seat is not to act."""
    if match.phase != "play" or match.turn != seat:
        return None
    k = Knowledge.from_match(match, seat)
    action = decide(BotView.from_match(match, seat))
    kept = outcomes(k, rng.getrandbits(63), worlds)
    total = sum(x for x, _ in kept)
    if total <= 0:
        return action, 0.0, 0
    safe = sum(x for x, lost in kept if lost[action] == 0)
    return action, safe / total, len(kept)


def evaluate(
    k: Knowledge, seed: int, worlds: int, slip: float = SLIP
) -> tuple[float, float, float]:
    """Over the kept deals (both actions meet the same deals): the weighted mean of the lives
    lost swapping less those lost staying, its standard error, and the deals' total weight."""
    w = Worlds(k, slip)
    diffs = [
        (weight, w.outcome(deal, bag, "swap") - w.outcome(deal, bag, "stay"))
        for deal, bag, weight in _fitting(w, seed, worlds)
    ]
    total = sum(x for x, _ in diffs)
    if total <= 0:
        return 0.0, 0.0, 0.0
    mean = sum(x * d for x, d in diffs) / total
    var = sum(x * (d - mean) ** 2 for x, d in diffs) / total
    kish = total * total / sum(x * x for x, _ in diffs)  # the weighted sample's size
    return mean, (var / kish) ** 0.5, total


def choose_sampled(
    k: Knowledge, seed: int, worlds: int = WORLDS, margin: float = MARGIN, slip: float = SLIP
) -> Action | None:
    """The sampled choice, "stay" or "swap", when the deals show one better by more than
    `MARGIN` standard errors; None otherwise (a close call, only one legal action, or no deal
    fitting what the seat saw: then the thresholds decide)."""
    if len(k.legal) < 2:
        return None
    mean, se, total = evaluate(k, seed, worlds, slip)
    if total <= 0 or abs(mean) <= margin * se or mean == 0:
        return None
    return "stay" if mean > 0 else "swap"


def decide_strong(
    match: Match,
    seat: int,
    rng: random.Random,
    worlds: int = WORLDS,
    margin: float = MARGIN,
    slip: float = SLIP,
) -> Action:
    """The sampled action, else today's (`strategy.decide`)."""
    view = BotView.from_match(match, seat)
    if len(match.legal_actions(seat)) < 2:
        return decide(view)
    k = Knowledge.from_match(match, seat)
    pick = choose_sampled(k, rng.getrandbits(63), worlds, margin, slip)
    return pick if pick is not None else decide(view)
