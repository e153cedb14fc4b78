"""Strategy benchmark: tune the bot seats' swap thresholds through the real engine, then measure.

Run from the repository root: `.venv/bin/python -m benchmarks.strategy` (about 3 minutes on one
core). `--scale 3` triples every sample count, `--counts 4,6` tunes some table sizes only,
`--per-rank` prints the lives lost staying and swapping for every rank, `--gjok N` adds the
check behind `GJOK_STOP`, `--no-tune` only evaluates the table in strategy.py.

Tuning: for every table size (participants) and position class (first, early, late, acting
dealer), seeded rounds are played through `bot.games.gnav.engine.match.Match` with every seat
playing `decide` with the current table. At each turn of a seat of the class being tuned, the
round is also replayed with the other action from that turn on, so every sampled turn gives the
seat's lives lost both when it stays and when it swaps, and the mean for every threshold (over
ranks) is read off the same rounds. Starting from the baseline (swap below VI everywhere, with the
knowledge rules), this best response is iterated `--iterations` times; the table is printed as
a literal for `bot/games/gnav/strategy.py`.

Evaluation: tuned bots (`decide` with the new table) against fixed-threshold bots (swap below
VI whatever the seat or table size; a Narr holder swaps under T3), seats alternating, every
match and round played a second time with the bots' seats exchanged: whole matches (win rate
per bot, fair share 1/n, and lives lost per round) and independent rounds (lives lost per
round), for 3, 4 and 6 players; then, on rounds, the knowledge rules alone (VI everywhere with
the rules, against fixed) and the thresholds alone (tuned against VI with the rules). The last
line is one JSON object with every figure.

`--level strong` (issue 22) plays duplicate rounds instead: round i of n seats (3, 4, 6, or
`--counts`) on the deal of its seed, once with every seat on the thresholds (`normal`) and once
with the seat at turn position i mod n (every position plays 1/n of the rounds) on
`bot/games/gnav/search.py`'s sampled stay/swap (`--worlds` deals, overruling the thresholds
only past `--margin` standard errors, `--slip` the weight of a deal on which another seat's
action is not the thresholds'; 0 keeps only the deals they explain); it reports both levels'
lives lost per round, the difference with its 95% interval, how many rounds the strong seat
changed (better, worse), the duplicate win rate (fewer lives lost; a tie counts half; in the
JSON line also per turn position) and the decision CPU time. `--profile` sets the rules of
these rounds too.

`--level oracle` (issue 33) plays the same duplicate rounds with the omniscient seat of
`benchmarks/oracle.py` in place of the strong one (it sees every piece and the bag and looks
ahead exactly against the normal seats): its duplicate win rate is the ceiling of any honest
bot in this format. A measuring tool only, never a table level.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: make the repository root importable
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchmarks.oracle import gnav_oracle
from bot.games.gnav import search
from bot.games.gnav.engine.match import Match
from bot.games.gnav.engine.pieces import FULL_SET, GJOK, HUS, NARR, RANK_NAMES
from bot.games.gnav.strategy import (
    CLASS_NAMES,
    FIXED_THRESHOLD,
    THRESHOLDS,
    BotView,
    ThresholdTable,
    decide,
    fixed_table,
    forced_action,
    position_class,
    swap_limit,
    threshold,
)

COUNTS = (2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20)
EVAL_COUNTS = (3, 4, 6)
DEFAULT_COUNTS = ",".join(map(str, COUNTS))
#: Thresholds searched: 0 (never swap) ... 16 (swap every ordinary piece).
CANDIDATES = range(17)
#: Lives for tuning and round evaluations: nobody leaves, every round is a fresh sample.
MANY_LIVES = 10**6

Policy = Callable[[Match, int], str]


def names(n: int) -> list[str]:
    """Seat names for an n-seat table."""
    return [f"P{i}" for i in range(n)]


def table_policy(table: ThresholdTable) -> Policy:
    """A bot seat playing `decide` with `table` (public knowledge and its own piece)."""

    def play(match: Match, seat: int) -> str:
        return decide(BotView.from_match(match, seat), table=table)

    return play


def fixed_policy(match: Match, seat: int) -> str:
    """The fixed-threshold bot: swap below VI whatever the seat; a Narr must swap under T3."""
    rank = match.hands[seat]  # its own piece only
    if rank == NARR and match.profile.narr_may_not_stay:
        return "swap"
    return "swap" if rank < FIXED_THRESHOLD else "stay"


# --------------------------------------------------------------------------- tuning
def new_round(m: int, rng: random.Random, profile: str) -> tuple[dict[int, int], list[int]]:
    """A shuffled deal with exactly m participants (deals with N6 sit-outs are drawn again:
    they are rounds of m-2 participants)."""
    while True:
        pieces = list(FULL_SET)
        rng.shuffle(pieces)
        match = Match(names(m), lives=MANY_LIVES, profile=profile)
        deal, bag = match.deal_from(pieces)
        match.start_round(deal, bag)
        if len(match.order) == m:
            return deal, bag


def replay(
    m: int, profile: str, deal: dict[int, int], bag: list[int], actions: Sequence[tuple[int, str]]
) -> Match:
    """The round from its deal, with `actions` applied."""
    match = Match(names(m), lives=MANY_LIVES, profile=profile)
    match.start_round(deal, bag)
    for seat, action in actions:
        match.act(seat, action)
    return match


def finish(match: Match, policy: Policy, actions: list[tuple[int, str]] | None = None) -> None:
    """Play the round to its end with every seat on `policy`."""
    while match.phase == "play":
        seat = match.turn
        assert seat is not None
        action = policy(match, seat)
        if actions is not None:
            actions.append((seat, action))
        match.act(seat, action)


@dataclass(slots=True)
class Search:
    """Lives lost by the tuned seats summed per candidate threshold, and per-rank figures."""

    turns: int = 0
    total: list[float] = field(default_factory=lambda: [0.0] * len(CANDIDATES))
    stay: list[float] = field(default_factory=lambda: [0.0] * 21)
    swap: list[float] = field(default_factory=lambda: [0.0] * 21)
    free: list[int] = field(default_factory=lambda: [0] * 21)

    def add_fixed(self, loss: float) -> None:
        """A turn whose action no threshold changes (forced, or the seat never acted)."""
        self.turns += 1
        for t in CANDIDATES:
            self.total[t] += loss

    def add_choice(self, rank: int, offset: float, stay: float, swap: float) -> None:
        """A free turn: threshold t swaps when rank + 0.5 < t + offset (see `swap_limit`)."""
        self.turns += 1
        for t in CANDIDATES:
            self.total[t] += swap if rank + 0.5 < t + offset else stay
        self.stay[rank] += stay
        self.swap[rank] += swap
        self.free[rank] += 1

    def best(self) -> int:
        """The threshold with the fewest lives lost (the lower one on a tie)."""
        return min(CANDIDATES, key=lambda t: (self.total[t], t))

    def mean(self, t: int) -> float:
        """Mean lives lost per sampled turn with threshold t."""
        return self.total[t] / max(1, self.turns)


def search_class(
    m: int, cls: int, turns: int, rng: random.Random, table: ThresholdTable, profile: str
) -> Search:
    """Sample `turns` turns of class `cls` seats in m-participant rounds, others on `table`."""
    policy = table_policy(table)
    result = Search()
    positions = [p for p in range(m) if position_class(p, m) == cls]
    while result.turns < turns:
        deal, bag = new_round(m, rng, profile)
        match = replay(m, profile, deal, bag, ())
        targets = {match.order[p] for p in positions}
        actions: list[tuple[int, str]] = []
        branches: list[tuple[int, int, int, float, str]] = []  # seat, turn index, rank, offset
        while match.phase == "play":
            seat = match.turn
            assert seat is not None
            view = BotView.from_match(match, seat)
            action = decide(view, table=table)
            if seat in targets and forced_action(view) is None:
                offset = swap_limit(view, table) - threshold(view, table)
                branches.append((seat, len(actions), view.rank, offset, action))
            actions.append((seat, action))
            match.act(seat, action)
        base = {s: MANY_LIVES - match.lives[s] for s in targets}
        free = set()
        for seat, index, rank, offset, action in branches:
            other = "stay" if action == "swap" else "swap"
            alt = replay(m, profile, deal, bag, actions[:index])
            alt.act(seat, other)
            finish(alt, policy)
            losses = {action: base[seat], other: MANY_LIVES - alt.lives[seat]}
            result.add_choice(rank, offset, losses["stay"], losses["swap"])
            free.add(seat)
        for seat in targets - free:
            result.add_fixed(base[seat])
    return result


def classes_of(m: int) -> list[int]:
    """The position classes an m-participant round has."""
    return sorted({position_class(p, m) for p in range(m)})


def fill_row(found: dict[int, int]) -> tuple[int, int, int, int]:
    """A full table row; a class a size does not have copies its neighbour (never read)."""
    first = found[0]
    late = found.get(2, first)
    early = found.get(1, late)
    return (first, early, late, found[3])


def tune(
    counts: Sequence[int], turns: int, iterations: int, seed: int, profile: str, per_rank: bool
) -> tuple[dict[int, tuple[int, int, int, int]], list[dict[str, object]]]:
    """Iterated best response from the fixed baseline; returns the table and search figures."""
    table: dict[int, tuple[int, int, int, int]] = {m: fixed_table()[2] for m in counts}
    report: list[dict[str, object]] = []
    for it in range(1, iterations + 1):
        new: dict[int, tuple[int, int, int, int]] = {}
        for m in counts:
            found: dict[int, int] = {}
            for cls in classes_of(m):
                rng = random.Random(f"{seed}/{it}/{m}/{cls}")
                # More samples where a turn is cheap, so every search takes about as long.
                n = max(200, turns * 4 // max(4, m))
                result = search_class(m, cls, n, rng, table, profile)
                best = result.best()
                found[cls] = best
                old = table[m][cls]
                report.append(
                    {
                        "iteration": it,
                        "players": m,
                        "class": CLASS_NAMES[cls],
                        "turns": result.turns,
                        "best": RANK_NAMES[best],
                        "loss_best": round(result.mean(best), 4),
                        "loss_previous": round(result.mean(old), 4),
                        "loss_fixed": round(result.mean(FIXED_THRESHOLD), 4),
                    }
                )
                print(
                    f"  iter {it} n={m:2} {CLASS_NAMES[cls]:6} turns {result.turns:6}: "
                    f"swap below {RANK_NAMES[best]:5} lives/turn {result.mean(best):.4f} "
                    f"(previous {RANK_NAMES[old]} {result.mean(old):.4f}, "
                    f"fixed VI {result.mean(FIXED_THRESHOLD):.4f})",
                    flush=True,
                )
                if per_rank:
                    for r in range(21):
                        if result.free[r]:
                            k = result.free[r]
                            print(
                                f"      {RANK_NAMES[r]:6} turns {k:6} stay "
                                f"{result.stay[r] / k:.3f} swap {result.swap[r] / k:.3f}"
                            )
            new[m] = fill_row(found)
        table = new
    return table, report


def table_literal(table: dict[int, tuple[int, int, int, int]], command: str) -> str:
    """The table as Python source for strategy.py."""
    lines = [
        f"#: Tuned by `{command}`.",
        "THRESHOLDS: dict[int, tuple[int, int, int, int]] = {",
        "    # players: (first, early, late, dealer)",
    ]
    for m, row in sorted(table.items()):
        ranks = ", ".join(RANK_NAMES[t] for t in row)
        lines.append(f"    {m}: ({', '.join(str(t) for t in row)}),  # below {ranks}")
    lines.append("}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- evaluation
def types_for(n: int, kinds: Sequence[str], mirror: bool) -> list[str]:
    """Seat kinds alternating between the two bots; the mirror exchanges them."""
    return [kinds[(i + mirror) % 2] for i in range(n)]


def play_round(match: Match, rng: random.Random, policies: Sequence[Policy]) -> None:
    """Deal with `rng` and play one round, each seat on its policy."""
    pieces = list(FULL_SET)
    rng.shuffle(pieces)
    deal, bag = match.deal_from(pieces)
    match.start_round(deal, bag)
    while match.phase == "play":
        seat = match.turn
        assert seat is not None
        match.act(seat, policies[seat](match, seat))


@dataclass(slots=True)
class Tally:
    """Figures of one bot type."""

    lives_lost: int = 0
    seat_rounds: int = 0
    wins: float = 0.0
    seat_matches: int = 0

    def as_dict(self) -> dict[str, float]:
        """Rates for the report."""
        out = {"lives_per_round": round(self.lives_lost / max(1, self.seat_rounds), 4)}
        if self.seat_matches:
            out["win_rate"] = round(self.wins / self.seat_matches, 4)
        return out


def evaluate(
    n: int, matches: int, rounds: int, seed: int, policies: dict[str, Policy], profile: str
) -> dict[str, object]:
    """Two bots (`policies`, in order) in n-seat tables: whole matches and independent rounds.

    Seats alternate between the bots, and every match and round is played a second time with
    the same shuffles and the bots' seats exchanged.
    """
    kinds = list(policies)
    in_matches = {t: Tally() for t in kinds}
    in_rounds = {t: Tally() for t in kinds}
    for k in range(matches):
        for mirror in (False, True):
            types = types_for(n, kinds, mirror)
            seat_policies = [policies[t] for t in types]
            rng = random.Random(f"{seed}/match/{n}/{k}")
            match = Match(names(n), profile=profile, dealer=k % n)
            while match.phase != "finished":
                before = list(match.lives)
                playing = match.players_left
                play_round(match, rng, seat_policies)
                for s in playing:
                    tally = in_matches[types[s]]
                    tally.lives_lost += before[s] - match.lives[s]
                    tally.seat_rounds += 1
            assert match.winners
            for s in range(n):
                in_matches[types[s]].seat_matches += 1
            for s in match.winners:
                in_matches[types[s]].wins += 1 / len(match.winners)
    for k in range(rounds):
        for mirror in (False, True):
            types = types_for(n, kinds, mirror)
            seat_policies = [policies[t] for t in types]
            rng = random.Random(f"{seed}/round/{n}/{k}")
            match = Match(names(n), profile=profile, lives=MANY_LIVES, dealer=k % n)
            play_round(match, rng, seat_policies)
            for s in range(n):
                tally = in_rounds[types[s]]
                tally.lives_lost += MANY_LIVES - match.lives[s]
                tally.seat_rounds += 1
    out: dict[str, object] = {"players": n, "matches": 2 * matches, "rounds": 2 * rounds}
    if matches:
        out["matches_by_bot"] = {t: v.as_dict() for t, v in in_matches.items()}
    out["rounds_by_bot"] = {t: v.as_dict() for t, v in in_rounds.items()}
    return out


def gjok_check(
    counts: Sequence[int], rounds: int, seed: int, table: ThresholdTable, profile: str
) -> None:
    """Print, per own rank, the lives lost staying and asking when the partner holds the Gjøk.

    An experiment, not a bot: it peeks at the partner's hand to pick such turns. Asking
    ends the round at once (N12); the figures back `GJOK_STOP` in strategy.py.
    """
    policy = table_policy(table)
    for m in counts:
        rng = random.Random(f"{seed}/gjok/{m}")
        sums: dict[int, list[float]] = {}
        for _ in range(rounds):
            deal, bag = new_round(m, rng, profile)
            match = replay(m, profile, deal, bag, ())
            p = rng.randrange(m - 1)
            seat, partner = match.order[p], match.order[p + 1]
            if match.hands[partner] != GJOK:
                continue
            actions: list[tuple[int, str]] = []
            while match.phase == "play" and match.turn != seat:
                s = match.turn
                assert s is not None
                actions.append((s, policy(match, s)))
                match.act(*actions[-1])
            rank = match.hands[seat]
            if match.phase != "play" or match.hands[partner] != GJOK or rank >= HUS:
                continue
            acc = sums.setdefault(rank, [0, 0.0, 0.0])
            acc[0] += 1
            for i, action in enumerate(("stay", "swap"), start=1):
                alt = replay(m, profile, deal, bag, actions)
                alt.act(seat, action)
                finish(alt, policy)
                acc[i] += MANY_LIVES - alt.lives[seat]
        cells = [
            f"{RANK_NAMES[r]} {a / k:.2f}/{b / k:.2f}" for r, (k, a, b) in sorted(sums.items())
        ]
        print(f"  Gjøk partner, {m} players, lives stay/ask: " + ", ".join(cells))


# --------------------------------------------------------------------------- levels
def level_deal(base_seed: int, n: int, i: int) -> tuple[int, int]:
    """Round i of n seats in the duplicate format: its seed and the measured seat.

    The dealer is seed % n (`level_match`) and the seed moves with i, so seat i % n would keep
    one turn position for a whole size; the seat at turn position i % n is measured instead
    (N8: the dealer's left neighbour first), so every position plays its share of the rounds.
    """
    seed = base_seed * 100_003 + n * 1_009 + i
    return seed, (seed % n + 1 + i % n) % n


def level_match(n: int, seed: int, profile: str) -> Match:
    """The round of `seed` dealt (dealer seed % n), with lives enough that nobody leaves."""
    deals = random.Random(seed)
    match = Match(names(n), lives=MANY_LIVES, dealer=seed % n, profile=profile)
    pieces = list(FULL_SET)
    deals.shuffle(pieces)
    match.start_round(*match.deal_from(pieces))
    return match


def level_round(
    n: int, seed: int, strong_seat: int | None, args: argparse.Namespace, times: list[float]
) -> list[int]:
    """One round of n seats on the deal of `seed`, every seat on `decide` but `strong_seat`
    (None: all of them) on `search.decide_strong` (`--level oracle`: on
    `benchmarks.oracle.gnav_oracle`): the lives each seat lost."""
    think = random.Random(seed * 7 + 1)
    match = level_match(n, seed, args.profile)
    start = list(match.lives)
    while match.phase == "play":
        seat = match.turn
        assert seat is not None
        if seat == strong_seat:
            t = time.process_time()  # CPU time: the machine may be shared
            if args.level == "oracle":  # sees every piece: a measuring tool, never a level
                action = gnav_oracle(match, seat)
            else:
                action = search.decide_strong(
                    match, seat, think, args.worlds, args.margin, args.slip
                )
            times.append(time.process_time() - t)
        else:
            action = decide(BotView.from_match(match, seat))
        match.act(seat, action)
    return [start[s] - match.lives[s] for s in range(n)]


def levels(args: argparse.Namespace) -> int:
    """`--level strong`: duplicate rounds (the same deal played by `normal` seats, then with
    the seat at turn position i mod n `strong`), the strong seat's lives lost against the
    normal seat's, and its duplicate win rate per size and per turn position."""
    sizes = [int(c) for c in args.counts.split(",")] if args.counts != DEFAULT_COUNTS else [3, 4, 6]
    level = args.level
    print(f"profile {args.profile}, seed {args.seed}, {args.rounds} duplicate rounds per size")
    if level == "oracle":
        print("oracle: sees every piece and the bag; exact look-ahead against normal seats")
    else:
        print(
            f"strong: {args.worlds} sampled deals per decision, overruling the thresholds when"
            f" the difference exceeds {args.margin} standard errors; deals weighed {args.slip}"
            " per other seat's action the thresholds would not take"
        )
    print()
    print(
        f"| n | {level} lives/round | normal lives/round | difference | rounds changed |"
        " better | worse | duplicate win rate | p50 ms | p99 ms | max ms | rounds |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rates: dict[str, float] = {}
    cis: dict[str, float] = {}
    by_position: dict[str, list[float]] = {}
    every: list[float] = []
    for n in sizes:
        times: list[float] = []
        diffs: list[float] = []
        strong: list[float] = []
        normal: list[float] = []
        for i in range(args.rounds):
            seed, seat = level_deal(args.seed, n, i)
            base = level_round(n, seed, None, args, [])
            mine = level_round(n, seed, seat, args, times)
            strong.append(mine[seat])
            normal.append(base[seat])
            diffs.append(mine[seat] - base[seat])
        duel = [0.0 if d > 0 else 1.0 if d < 0 else 0.5 for d in diffs]
        by_position[str(n)] = [round(mean_ci(duel[p::n])[0], 4) for p in range(min(n, len(duel)))]
        times.sort()
        every += times
        (sm, _), (nm, _), (dm, dc), (wm, wc) = map(mean_ci, (strong, normal, diffs, duel))
        rates[str(n)] = round(wm, 4)
        cis[str(n)] = round(wc, 4)
        print(
            f"| {n} | {sm:.4f} | {nm:.4f} | {dm:+.4f} ± {dc:.4f} |"
            f" {sum(1 for d in diffs if d)} | {sum(1 for d in diffs if d < 0)} |"
            f" {sum(1 for d in diffs if d > 0)} | {wm:.4f} ± {wc:.4f} |"
            f" {pct(times, 0.5):.1f} | {pct(times, 0.99):.1f} | {pct(times, 1.0):.1f} |"
            f" {args.rounds} |",
            flush=True,
        )
    every.sort()
    print()
    summary = {
        "level": level,
        "profile": args.profile,
        "seed": args.seed,
        f"win_rate_{level}_vs_normal": rates,
        "win_rate_ci95": cis,
        "win_rate_by_turn_position": by_position,
        "decision_p99_ms": round(pct(every, 0.99), 1),
        "rounds_per_size": args.rounds,
        "worlds": args.worlds,
        "margin": args.margin,
        "slip": args.slip,
    }
    print(json.dumps(summary))
    return 0


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    g = len(values)
    m = sum(values) / g
    var = sum((v - m) ** 2 for v in values) / max(1, g - 1)
    return m, 1.96 * (var / g) ** 0.5


def pct(sorted_seconds: Sequence[float], q: float) -> float:
    """The q-quantile of sorted seconds, in ms (0 when empty)."""
    if not sorted_seconds:
        return 0.0
    return sorted_seconds[min(len(sorted_seconds) - 1, int(q * len(sorted_seconds)))] * 1e3


# --------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    """Tune, print the table, evaluate, print the JSON summary."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add = parser.add_argument
    add("--scale", type=float, default=1.0, help="multiply every sample count")
    add("--turns", type=int, default=10000, help="sampled turns per class at 2-4 players")
    add("--iterations", type=int, default=2, help="best-response iterations")
    add("--counts", default=DEFAULT_COUNTS, help="table sizes to tune (--level: to play)")
    add("--matches", type=int, default=1000, help="match pairs per evaluated size")
    add("--rounds", type=int, default=10000, help="round pairs per evaluated size")
    add("--seed", type=int, default=2024)
    add("--profile", default="norsk", choices=("norsk", "tradisjonell"))
    add("--per-rank", action="store_true", help="print lives lost staying/swapping per rank")
    add("--gjok", type=int, default=0, help="rounds for the Gjøk-partner check (0: skip)")
    add("--no-tune", action="store_true", help="evaluate THRESHOLDS of strategy.py as they are")
    add(
        "--level",
        choices=["strong", "oracle"],
        default=None,
        help="strong (or the omniscient oracle, a measuring tool) vs normal, duplicate rounds",
    )
    add("--worlds", type=int, default=search.WORLDS, help="sampled deals per strong decision")
    add("--margin", type=float, default=search.MARGIN, help="standard errors to overrule")
    add("--slip", type=float, default=search.SLIP, help="weight of an unexplained action")
    args = parser.parse_args(argv)
    if args.level is not None:
        return levels(args)
    counts = [int(c) for c in args.counts.split(",")]
    started = time.perf_counter()
    given = list(argv) if argv is not None else sys.argv[1:]
    command = " ".join([".venv/bin/python -m benchmarks.strategy", *given])
    table: dict[int, tuple[int, int, int, int]]
    report: list[dict[str, object]] = []
    if args.no_tune:
        table = dict(THRESHOLDS)
        print("evaluating THRESHOLDS of bot/games/gnav/strategy.py", flush=True)
    else:
        print(f"tuning ({args.profile}), sizes {counts}, {args.iterations} iterations", flush=True)
        table, report = tune(
            counts,
            int(args.turns * args.scale),
            args.iterations,
            args.seed,
            args.profile,
            args.per_rank,
        )
        print()
        print(table_literal(table, command))
        print()
    tuned_seconds = time.perf_counter() - started
    if args.gjok:
        gjok_check(EVAL_COUNTS, int(args.gjok * args.scale), args.seed, table, args.profile)
    tuned = table_policy(table)
    knowing = table_policy(fixed_table())  # VI everywhere, with the knowledge rules
    evaluation = []
    matches, rounds = int(args.matches * args.scale), int(args.rounds * args.scale)
    for n in EVAL_COUNTS:
        result = evaluate(
            n, matches, rounds, args.seed, {"tuned": tuned, "fixed": fixed_policy}, args.profile
        )
        # Where the gain comes from: the knowledge rules alone, then the tuned thresholds.
        rules = evaluate(
            n, 0, rounds, args.seed, {"fixed+rules": knowing, "fixed": fixed_policy}, args.profile
        )
        table_only = evaluate(
            n, 0, rounds, args.seed, {"tuned": tuned, "fixed+rules": knowing}, args.profile
        )
        result["rules_only"] = rules["rounds_by_bot"]
        result["thresholds_only"] = table_only["rounds_by_bot"]
        evaluation.append(result)
        mt = result.get("matches_by_bot")
        rt, ru, to = result["rounds_by_bot"], rules["rounds_by_bot"], table_only["rounds_by_bot"]
        assert isinstance(rt, dict) and isinstance(ru, dict) and isinstance(to, dict)
        if isinstance(mt, dict):
            print(
                f"{n} players, {result['matches']} matches: win rate tuned "
                f"{mt['tuned']['win_rate']:.3f} fixed {mt['fixed']['win_rate']:.3f} "
                f"(fair {1 / n:.3f}), lives lost per round tuned "
                f"{mt['tuned']['lives_per_round']:.4f} fixed {mt['fixed']['lives_per_round']:.4f}",
                flush=True,
            )
        print(
            f"{n} players, {result['rounds']} rounds: lives lost per round tuned "
            f"{rt['tuned']['lives_per_round']:.4f} fixed {rt['fixed']['lives_per_round']:.4f}"
            f"; fixed+rules {ru['fixed+rules']['lives_per_round']:.4f} vs fixed "
            f"{ru['fixed']['lives_per_round']:.4f}; tuned {to['tuned']['lives_per_round']:.4f} "
            f"vs fixed+rules {to['fixed+rules']['lives_per_round']:.4f}",
            flush=True,
        )
    summary = {
        "profile": args.profile,
        "seed": args.seed,
        "command": command,
        "table": {str(m): [RANK_NAMES[t] for t in row] for m, row in sorted(table.items())},
        "search": report,
        "evaluation": evaluation,
        "seconds": {
            "tuning": round(tuned_seconds, 1),
            "total": round(time.perf_counter() - started, 1),
        },
    }
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
