"""Karnaval strategy benchmark: one strategy seat against random-legal and heuristic seats.

Run from the repository root: `.venv/bin/python -m benchmarks.karnaval_strategy` (prints
figures; never a timed test). Options: `--games N` per table size and opponent (default 200),
`--seed S` (default 13), `--sizes 3,4` to run some table sizes only, `--hero heuristic` to
measure the heuristic baseline in the strategy's seat instead (for scale).

For every table size 3-6 it plays seeded whole matches (four quarters, K3) through the engine:
the strategy seat moves round the table (game i: seat i mod n), every other seat is (a) a
uniform random legal choice or (b) `heuristic_choice`. It reports the strategy seat's points per
game, the other seats' mean, its win rate (ties for the highest total share the win, KC12)
against the fair share 1/n, and the time of each of its decisions (p50, p99; bar: p99 under
100 ms on one core).

`--level strong` measures the `strong` seat (bot/games/karnaval/search.py) against `normal`
seats (today's strategy) in duplicate format (issue 22): game i of size n is played twice on
the same deals (the deck shuffles come from their own seeded generator, untouched by the
choices), once with every seat `normal` and once with seat i mod n `strong` (so the seats
rotate); the strong seat's total is compared with the normal seat's total in the same seat
of the same deals. It reports both levels' mean points per game with a 95% confidence
interval, the mean difference with its interval, the duplicate win rate (strong above normal
in its seat; a tie counts half) with its interval, how often each wins its table (KC12), and
the strong seat's decision times (p50, p99, max: CPU time of one core, so a busy machine does
not inflate them). `--samples` sets its worlds per
decision (a count, not a time: the run is repeatable). Its last line is one JSON object:
`win_rate_strong_vs_normal` per size, `decision_p99_ms`, and the games played.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository first, for benchmarks.chunks
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import math
import random
import time
from collections.abc import Callable

from benchmarks.chunks import read_records
from bot.games.karnaval.engine import Choice, Karnaval
from bot.games.karnaval.engine.cards import full_deck, strength
from bot.games.karnaval.search import Budget, choose_strong
from bot.games.karnaval.strategy import choose, heuristic_choice, random_choice

Chooser = Callable[[Karnaval, int, random.Random], Choice]
HEROES: dict[str, Chooser] = {"strategy": choose, "heuristic": heuristic_choice}
OPPONENTS: dict[str, Chooser] = {"random": random_choice, "heuristic": heuristic_choice}


def draw(rng: random.Random, n: int) -> list[dict[int, str]]:
    """A draw for the first player (K2, KC1, KC4): whole-deck rounds until one lowest card."""
    rounds: list[dict[int, str]] = []
    drawing = list(range(n))
    while len(drawing) > 1:
        deck = full_deck()
        rng.shuffle(deck)
        rnd = {s: deck[i] for i, s in enumerate(drawing)}
        rounds.append(rnd)
        low = min(strength(c) for c in rnd.values())
        drawing = [s for s in drawing if strength(rnd[s]) == low]
    return rounds


def play_game(
    n: int, seed: int, hero: Chooser, other: Chooser, times: list[float]
) -> tuple[int, float, bool]:
    """One whole match: (hero's total, the other seats' mean total, hero among the winners).
    Appends the duration of each hero decision to `times`."""
    rng = random.Random(seed)
    k = Karnaval([f"P{i + 1}" for i in range(n)], draw(rng, n))
    h = seed % n
    while k.phase != "over":
        if k.phase == "deal":
            deck = full_deck()
            rng.shuffle(deck)
            k.start_deal(*k.deal_from(deck))
            continue
        (s,) = k.deciders()
        if s == h:
            t = time.perf_counter()
            pick = hero(k, s, rng)
            times.append(time.perf_counter() - t)
        else:
            pick = other(k, s, rng)
        k.act(s, pick.action, pick.arg)
    totals = k.totals()
    winners = k.winners
    assert totals is not None and winners is not None
    return totals[h], (sum(totals) - totals[h]) / (n - 1), h in winners


def play_levels(
    n: int, seed: int, strong_seat: int | None, budget: Budget, times: list[float]
) -> tuple[list[int], list[int]]:
    """One whole match on the deals of `seed`: every seat `normal` except `strong_seat` (None:
    all normal). The deals come from their own generator, so both plays see the same cards.
    Returns (totals, winners); appends the strong seat's decision times to `times`."""
    deals = random.Random(seed)
    think = random.Random(seed * 7 + 1)
    k = Karnaval([f"P{i + 1}" for i in range(n)], draw(deals, n))
    while k.phase != "over":
        if k.phase == "deal":
            deck = full_deck()
            deals.shuffle(deck)
            k.start_deal(*k.deal_from(deck))
            continue
        (s,) = k.deciders()
        if s == strong_seat:
            t = time.process_time()  # CPU time: the machine may be shared
            pick = choose_strong(k, s, think, budget)
            times.append(time.process_time() - t)
        else:
            pick = choose(k, s, think)
        k.act(s, pick.action, pick.arg)
    totals, winners = k.totals(), k.winners
    assert totals is not None and winners is not None
    return totals, winners


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    g = len(values)
    m = sum(values) / g
    if g < 2:
        return m, float("nan")
    var = sum((v - m) ** 2 for v in values) / (g - 1)
    return m, 1.96 * math.sqrt(var / g)


def game_record(n: int, base_seed: int, i: int, budget: Budget) -> dict[str, object]:
    """Game i of size n in duplicate format: the deals of its seed played all `normal`, then
    with seat i mod n `strong`. One JSON-able record (the unit the chunks and `--merge` pool)."""
    seed = base_seed * 1_000_003 + n * 10_007 + i
    seat = i % n
    times: list[float] = []
    base, base_win = play_levels(n, seed, None, budget, [])
    mine, mine_win = play_levels(n, seed, seat, budget, times)
    return {
        "n": n,
        "seed": base_seed,
        "game": i,
        "samples": budget.samples,
        "seat": seat,
        "strong": mine[seat],
        "normal": base[seat],
        "strong_wins_table": seat in mine_win,
        "normal_wins_table": seat in base_win,
        "times_ms": [round(t * 1e3, 3) for t in times],
    }


def report(records: list[dict[str, object]], sizes: list[int] | None = None) -> int:
    """The table and the final JSON line over game records (one run or pooled chunks). A game
    met twice (overlapping chunks) counts once."""
    unique: dict[tuple[object, ...], dict[str, object]] = {}
    for r in records:
        unique[(r["n"], r["seed"], r["game"], r["samples"])] = r
    samples = sorted({int(str(r["samples"])) for r in unique.values()})
    if len(samples) != 1:
        print(f"records of several world counts {samples}: merge one count at a time")
        return 2
    print(f"budget: {samples[0]} worlds per decision, at most {Budget().rollouts} play-outs")
    print()
    print(
        "| n | strong pts/game | normal pts/game | difference | duplicate win rate | "
        "strong wins table | normal wins table | p50 ms | p99 ms | max ms | games | CPU s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    present = sorted({int(str(r["n"])) for r in unique.values()})
    rates: dict[str, float] = {}
    cis: dict[str, float | None] = {}
    games: dict[str, int] = {}
    p99s: dict[str, float] = {}
    all_times: list[float] = []
    for n in sizes or present:
        rs = [r for r in unique.values() if r["n"] == n]
        if not rs:
            continue
        strong_pts = [float(str(r["strong"])) for r in rs]
        normal_pts = [float(str(r["normal"])) for r in rs]
        duel = [
            1.0 if a > b else 0.5 if a == b else 0.0
            for a, b in zip(strong_pts, normal_pts, strict=True)
        ]
        times = sorted(t / 1e3 for r in rs for t in r["times_ms"])  # type: ignore[attr-defined]
        g = len(rs)
        sm, sc = mean_ci(strong_pts)
        nm, nc = mean_ci(normal_pts)
        dm, dc = mean_ci([a - b for a, b in zip(strong_pts, normal_pts, strict=True)])
        wm, wc = mean_ci(duel)
        won = (
            sum(bool(r["strong_wins_table"]) for r in rs),
            sum(bool(r["normal_wins_table"]) for r in rs),
        )
        rates[str(n)], games[str(n)] = round(wm, 3), g
        cis[str(n)] = None if math.isnan(wc) else round(wc, 3)
        p99s[str(n)] = round(percentile(times, 0.99) * 1e3, 1)
        all_times += times
        print(
            f"| {n} | {sm:.1f} ± {sc:.1f} | {nm:.1f} ± {nc:.1f} | {dm:+.1f} ± {dc:.1f} |"
            f" {wm:.3f} ± {wc:.3f} | {won[0] / g:.3f} | {won[1] / g:.3f} |"
            f" {percentile(times, 0.5) * 1e3:.1f} | {percentile(times, 0.99) * 1e3:.1f} |"
            f" {times[-1] * 1e3:.1f} | {g} | {sum(times):.0f} |",
            flush=True,
        )
    all_times.sort()
    print()
    summary = {
        "win_rate_strong_vs_normal": rates,
        "win_rate_ci95": cis,
        "decision_p99_ms": round(percentile(all_times, 0.99) * 1e3, 1),
        "decision_p99_ms_per_size": p99s,
        "decision_p50_ms": round(percentile(all_times, 0.5) * 1e3, 2),
        "decision_max_ms": round(all_times[-1] * 1e3, 1) if all_times else 0.0,
        "games_per_size": games,
        "samples": samples[0],
    }
    print(json.dumps(summary))
    return 0


def levels(args: argparse.Namespace) -> int:
    """The duplicate strong-vs-normal run (`--level strong`): games `--first-game` ..
    `--first-game + --games - 1`, game by game over the sizes (so a run stopped early has
    about as many games of every size), each appended to `--out` as one JSON line when set."""
    budget = Budget(samples=args.samples)
    sizes = [int(x) for x in args.sizes.split(",")]
    records: list[dict[str, object]] = []
    out = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    try:
        for i in range(args.first_game, args.first_game + args.games):
            for n in sizes:
                r = game_record(n, args.seed, i, budget)
                records.append(r)
                if out is not None:
                    out.write(json.dumps(r) + "\n")
                    out.flush()
    finally:
        if out is not None:
            out.close()
    return report(records, sizes)


def merge(paths: list[str]) -> int:
    """`--merge`: the table and the JSON line over every record in these JSON-lines files."""
    return report(read_records(paths))


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per size and opponent")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--sizes", default="3,4,5,6", help="table sizes, e.g. 3,4")
    parser.add_argument("--hero", choices=sorted(HEROES), default="strategy")
    parser.add_argument(
        "--level", choices=["strong"], default=None, help="strong vs normal, duplicate format"
    )
    parser.add_argument("--samples", type=int, default=Budget().samples, help="worlds/decision")
    parser.add_argument(
        "--first-game", type=int, default=0, help="first game index (chunks of one long run)"
    )
    parser.add_argument("--out", default=None, help="append each game to this JSON-lines file")
    parser.add_argument(
        "--merge", nargs="+", default=None, metavar="FILE", help="pool JSON-lines files, print"
    )
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge)
    args_text = " ".join(sys.argv[1:] if argv is None else argv)
    print(f"command: python -m benchmarks.karnaval_strategy {args_text}".rstrip())
    print(
        f"seeds: game i ({args.first_game}..{args.first_game + args.games - 1}) of table size n"
        " uses random.Random("
        f"{args.seed} * 1000003 + n * 10007 + i) for the draw, the deals and the random seats;"
        " the measured seat is seat i mod n"
    )
    if args.level == "strong":
        return levels(args)
    print(f"measured seat: {args.hero}")
    print()
    print(
        "| n | opponents | points/game | others' points/game | win rate | fair | "
        "p50 ms | p99 ms | max ms | games | s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    sizes = [int(x) for x in args.sizes.split(",")]
    start = time.perf_counter()
    for n in sizes:
        for name, other in OPPONENTS.items():
            t0 = time.perf_counter()
            times: list[float] = []
            points = others = 0.0
            wins = 0
            for i in range(args.games):
                seed = args.seed * 1_000_003 + n * 10_007 + i
                p, o, won = play_game(n, seed, HEROES[args.hero], other, times)
                points += p
                others += o
                wins += won
            times.sort()
            g = args.games
            print(
                f"| {n} | {name} | {points / g:.1f} | {others / g:.1f} | {wins / g:.3f} |"
                f" {1 / n:.3f} | {percentile(times, 0.5) * 1e3:.2f} |"
                f" {percentile(times, 0.99) * 1e3:.2f} | {times[-1] * 1e3:.1f} | {g} |"
                f" {time.perf_counter() - t0:.0f} |",
                flush=True,
            )
    print()
    print(f"total time: {time.perf_counter() - start:.0f} s on one core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
