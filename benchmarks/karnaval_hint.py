"""Karnaval hint cost: the CPU time of one hint (issue 33) at every decision of whole games.

Run from the repository root: `.venv/bin/python -m benchmarks.karnaval_hint` (prints figures;
never a timed test). Options: `--games N` per table size (default 2), `--seed S` (default 5),
`--sizes 3,6`.

Every seat plays `normal` (today's strategy) through seeded whole matches (four quarters, K3);
before each decision the hint for the seat to decide is asked as the service asks it
(`KarnavalRules.hint`: the strong search over 32 worlds sampled from the seat's own view, no
clock). It reports, per size, the hints asked and their CPU time (p50, p99, max: one core, so a
busy machine does not inflate them) and the mean share it gives (worlds in which the seat takes
exactly its bid). Its last line is one JSON object: `hint_ms` per size.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository first
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import random
import time

from benchmarks.karnaval_strategy import draw, percentile
from bot.games.karnaval.engine import Karnaval
from bot.games.karnaval.engine.cards import full_deck
from bot.games.karnaval.game import KarnavalMatch, KarnavalRules
from bot.games.karnaval.strategy import choose


def hint_times(n: int, seed: int) -> tuple[list[float], list[float]]:
    """One whole game of `n` normal seats: each hint's CPU seconds and its share."""
    rng = random.Random(seed)
    rules = KarnavalRules()
    k = Karnaval([f"P{i + 1}" for i in range(n)], draw(rng, n))
    times: list[float] = []
    shares: list[float] = []
    while k.phase != "over":
        if k.phase == "deal":
            deck = full_deck()
            rng.shuffle(deck)
            k.start_deal(*k.deal_from(deck))
            continue
        (seat,) = k.deciders()
        t = time.process_time()
        found = rules.hint(KarnavalMatch(k), seat, rng)
        times.append(time.process_time() - t)
        if found is not None:
            shares.append(found.share)
        c = choose(k, seat, rng)
        k.act(seat, c.action, c.arg)
    return times, shares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="whole games per size")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--sizes", default="3,4,5,6", help="table sizes, comma-separated")
    args = parser.parse_args(argv)
    out: dict[str, dict[str, float]] = {}
    print("| players | hints | p50 ms | p99 ms | max ms | mean exact share |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in (int(s) for s in args.sizes.split(",")):
        times: list[float] = []
        shares: list[float] = []
        for g in range(args.games):
            t, s = hint_times(n, args.seed * 1000 + 10 * n + g)
            times += t
            shares += s
        times.sort()
        p50, p99, top = (
            1000 * x for x in (percentile(times, 0.5), percentile(times, 0.99), times[-1])
        )
        share = sum(shares) / max(1, len(shares))
        print(f"| {n} | {len(times)} | {p50:.1f} | {p99:.1f} | {top:.1f} | {share:.2f} |")
        out[str(n)] = {
            "hints": len(times),
            "p50": round(p50, 1),
            "p99": round(p99, 1),
            "max": round(top, 1),
        }
    print(json.dumps({"hint_ms": out, "games_per_size": args.games, "seed": args.seed}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
