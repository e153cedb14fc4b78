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
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from bot.games.karnaval.engine import Choice, Karnaval
from bot.games.karnaval.engine.cards import full_deck, strength
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
    args = parser.parse_args(argv)
    args_text = " ".join(sys.argv[1:] if argv is None else argv)
    print(f"command: python -m benchmarks.karnaval_strategy {args_text}".rstrip())
    print(
        f"seeds: game i (0..{args.games - 1}) of table size n uses random.Random("
        f"{args.seed} * 1000003 + n * 10007 + i) for the draw, the deals and the random seats;"
        " the measured seat is seat i mod n"
    )
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
