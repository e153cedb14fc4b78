"""Engine benchmark: complete random Gnav rounds per second on one core, for 2, 6, 12, 20 players.

Run from the repository root: `.venv/bin/python -m benchmarks.engine [--rounds N] [--repeat R]`.

What is timed: `Match.deal_from`, `Match.start_round` and every `Match.act` until the reveal,
in norsk matches whose players have a billion lives each (so every round has the same number of
players; eliminations and winners are tested elsewhere), a fresh match every 200 rounds (so the
match history stays the size of a long real match, and the garbage collector runs as usual).

The shuffled deals (42 pieces shuffled by one `random.Random(seed)`) and the random decisions
(stay or swap, one in two) are **generated before timing**, so the main figure is the engine's
alone; they are moved out of the garbage collector's sight (`gc.freeze`) while timing, since a
real caller does not keep thousands of deals alive. A second figure, `with_shuffle`, also times
the `random.Random.shuffle` of each deal, as the service pays it. Each figure is the best of
`--repeat` runs. Rates are rounds per CPU second of this single-threaded process
(`time.process_time`: one core, without the time the OS gives to other processes on a busy
machine); the wall-clock rate is printed beside it. The bar is 50,000 six-player rounds/s.

The last line printed is one JSON object: `rounds_per_s_<n>`, `rounds_per_s_wall_<n>` and
`rounds_per_s_with_shuffle_<n>` for each table size, plus `events_per_round_<n>` (engine work per
round) and the settings.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: put the repository root first on the path
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import gc
import json
import platform
import random
import time
from typing import Any

from bot.games.gnav.engine.match import Match
from bot.games.gnav.engine.pieces import FULL_SET

SIZES = (2, 6, 12, 20)
BAR_6 = 50_000
MATCH_ROUNDS = 200  # rounds per benchmark match before a fresh one


def make_inputs(n: int, rounds: int, seed: int) -> tuple[list[list[int]], list[str]]:
    """Shuffled sets (one per round) and enough stay/swap decisions, from one seeded RNG."""
    rng = random.Random(seed)
    deals = []
    for _ in range(rounds):
        pieces = list(FULL_SET)
        rng.shuffle(pieces)
        deals.append(pieces)
    decisions = ["swap" if rng.random() < 0.5 else "stay" for _ in range(rounds * n)]
    return deals, decisions


def new_match(n: int) -> Match:
    """A norsk match of `n` players who cannot be eliminated within the benchmark."""
    return Match([f"P{i}" for i in range(n)], lives=10**9)


def play_rounds(n: int, deals: list[list[int]], decisions: list[str]) -> None:
    """Play one round per pre-shuffled deal, taking the decisions in order.

    A fresh match every `MATCH_ROUNDS` rounds keeps its history the size of a long real match.
    """
    actions = iter(decisions)
    match = new_match(n)
    for i, pieces in enumerate(deals, 1):
        deal, bag = match.deal_from(pieces)
        match.start_round(deal, bag)
        while match.phase == "play":
            match.act(match.order[match.pos], next(actions))
        if i % MATCH_ROUNDS == 0:
            match = new_match(n)


def count_events(n: int, deals: list[list[int]], decisions: list[str]) -> int:
    """The events the engine produces over the same rounds (not timed: engine work per round)."""
    actions = iter(decisions)
    produced = 0
    match = new_match(n)
    for i, pieces in enumerate(deals, 1):
        deal, bag = match.deal_from(pieces)
        produced += len(match.start_round(deal, bag))
        while match.phase == "play":
            produced += len(match.act(match.order[match.pos], next(actions)))
        if i % MATCH_ROUNDS == 0:
            match = new_match(n)
    return produced


def play_rounds_shuffling(n: int, rounds: int, decisions: list[str], seed: int) -> None:
    """The same, but shuffling each deal inside the timed loop (as the service does)."""
    shuffle = random.Random(seed).shuffle
    actions = iter(decisions)
    match = new_match(n)
    for i in range(1, rounds + 1):
        pieces = list(FULL_SET)
        shuffle(pieces)
        deal, bag = match.deal_from(pieces)
        match.start_round(deal, bag)
        while match.phase == "play":
            match.act(match.order[match.pos], next(actions))
        if i % MATCH_ROUNDS == 0:
            match = new_match(n)


def _timed(fn: Any, *args: Any) -> tuple[float, float, Any]:
    """CPU seconds of this (single-threaded) process, wall seconds, and `fn`'s result."""
    gc.collect()
    # The pre-generated inputs (thousands of shuffled lists) are not the engine's: keep the
    # collector from scanning them in every full collection, as it would not in a real caller.
    gc.freeze()
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        result = fn(*args)
        return time.process_time() - cpu, time.perf_counter() - wall, result
    finally:
        gc.unfreeze()


def bench(n: int, rounds: int, repeat: int, seed: int) -> dict[str, float]:
    """Best-of-`repeat` rounds per second for `n` players, without and with the shuffle."""
    deals, decisions = make_inputs(n, rounds, seed)
    best = best_wall = best_shuffle = float("inf")
    events = count_events(n, deals, decisions)
    for _ in range(repeat):
        cpu, wall, _ = _timed(play_rounds, n, deals, decisions)
        best = min(best, cpu)
        best_wall = min(best_wall, wall)
        cpu, _, _ = _timed(play_rounds_shuffling, n, rounds, decisions, seed)
        best_shuffle = min(best_shuffle, cpu)
    return {
        f"rounds_per_s_{n}": round(rounds / best),
        f"rounds_per_s_wall_{n}": round(rounds / best_wall),
        f"rounds_per_s_with_shuffle_{n}": round(rounds / best_shuffle),
        f"events_per_round_{n}": round(events / rounds, 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one line per table size, then the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000, help="rounds per table size")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (the best counts)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    summary: dict[str, Any] = {
        "python": platform.python_version(),
        "rounds": args.rounds,
        "repeat": args.repeat,
    }
    for n in SIZES:
        result = bench(n, args.rounds, args.repeat, args.seed + n)
        summary.update(result)
        print(
            f"{n:2d} players: {result[f'rounds_per_s_{n}']:>7,} rounds/s "
            f"(wall clock {result[f'rounds_per_s_wall_{n}']:>7,}; "
            f"with the shuffle {result[f'rounds_per_s_with_shuffle_{n}']:>7,}; "
            f"{result[f'events_per_round_{n}']} events/round)"
        )
    verdict = "meets" if summary["rounds_per_s_6"] >= BAR_6 else "is below"
    print(f"6 players {verdict} the bar of {BAR_6:,} rounds/s on one core")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
