"""Gnavspiel strategy benchmark: one strategy seat against naive-baseline seats, through the engine.

Run from the repository root: `.venv/bin/python -m benchmarks.gnavspiel_strategy` (prints
figures; never a timed test). Options: `--matches N` per table size (default 400), `--seed S`
(default 12), `--tune` to search the thresholds of `bot/games/gnavspiel/strategy.py` first
(coordinate search on seeded single deals, printed as a `PARAMS` literal), `--deals N` for the
tuning sample per candidate, `--weight W` how much the content baseline counts in tuning
(default 0.5), `--sizes 2,3` to run some table sizes only.

For every table size 2-6 and both readings of the baseline (offer below 7, always borrow, the
dealer draws below 7; "literal" accepts an offer with a card above 7, as the brief words it,
"content" accepts with a card below 7, as the seed's content player would), it plays seeded
whole matches (5 chips, until one is left) with the strategy seat moving round the table, and
reports the strategy seat's chips paid per deal it played, the baselines' figure, and the
strategy seat's win rate against the fair share 1/n. A random-choice seat is measured the same
way for scale.

`--level strong` measures the `strong` seat (bot/games/gnavspiel/search.py) against `normal`
seats (today's thresholds) in duplicate format (issue 22): match i of size n is played twice
on the same deals (the shuffles come from their own seeded generator), once with every seat
`normal` and once with seat i mod n `strong`; the strong seat's balance at the end (C23) is
compared with the normal seat's in the same seat. It reports chips paid per deal by each level
with a 95% confidence interval, the duplicate win rate (a better balance; a tie counts half),
how often each wins its match, and the strong seat's decision times (CPU time, one core);
`--samples` sets its worlds per decision. Its last line is one JSON object:
`win_rate_strong_vs_normal` per size and `decision_p99_ms`.

`--level oracle` (issue 33) plays the same duplicate matches with the omniscient seat of
`benchmarks/oracle.py` in the strong seat's place (it sees every card and the stock and looks
ahead exactly through the deal against the normal seats): its duplicate win rate is the
ceiling of any honest bot in this format. A measuring tool only, never a table level; its
records carry `"level": "oracle"` and its JSON line `win_rate_oracle_vs_normal`.
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
from dataclasses import replace

from benchmarks.chunks import read_records
from benchmarks.oracle import gnavspiel_oracle
from bot.games.gnavspiel import strategy
from bot.games.gnavspiel.engine import DECK, Choice, Match
from bot.games.gnavspiel.search import SAMPLES, choose_strong
from bot.games.gnavspiel.strategy import Params, baseline_choice, choose

Chooser = Callable[[Match, int], Choice]


def literal(m: Match, s: int) -> Choice:
    return baseline_choice(m, s, literal=True)


def content(m: Match, s: int) -> Choice:
    return baseline_choice(m, s, literal=False)


def random_seat(rng: random.Random) -> Chooser:
    def pick(m: Match, s: int) -> Choice:
        return rng.choice(m.choices(s))

    return pick


def play_match(
    n: int, hero: int, hero_choose: Chooser, other: Chooser, seed: int
) -> tuple[int, int, int, int]:
    """One whole match; returns (hero pays, hero deals, others' pays, others' deals) + winner
    as the hero's 1/0 in the last slot of a tuple."""
    rng = random.Random(seed)
    m = Match([f"P{i}" for i in range(n)], chips=5, dealer=rng.randrange(n))
    pays = [0] * n
    dealt = [0] * n
    while m.phase != "over":
        if m.phase == "deal":
            cards = list(DECK)
            rng.shuffle(cards)
            m.start_deal(*m.deal_from(cards))
            for s in range(n):
                if m.in_match[s]:
                    dealt[s] += 1
            continue
        s = m.deciders()[0]
        pick = hero_choose(m, s) if s == hero else other(m, s)
        for e in m.act(s, pick.action, pick.arg):
            if e.kind == "pay":
                pays[e.seats[0]] += 1
    assert m.result is not None
    others_pay = sum(pays) - pays[hero]
    others_dealt = sum(dealt) - dealt[hero]
    return pays[hero], dealt[hero], others_pay, others_dealt * 1000 + (m.result.winner == hero)


def measure(
    n: int, matches: int, seed: int, hero: Chooser, other: Chooser
) -> tuple[float, float, float]:
    """(hero chips paid per deal, baselines' chips paid per deal, hero win rate)."""
    hp = hd = op = od = wins = 0
    for i in range(matches):
        a, b, c, packed = play_match(n, i % n, hero, other, seed * 100_003 + i)
        hp, hd, op = hp + a, hd + b, op + c
        od += packed // 1000
        wins += packed % 1000
    return hp / max(1, hd), op / max(1, od), wins / matches


def deal_pay_rate(n: int, deals: int, seed: int, hero: Chooser, other: Chooser) -> float:
    """Single deals (first deal of fresh matches): the hero's chance of paying."""
    paid = 0
    for i in range(deals):
        rng = random.Random(seed * 7_919 + i)
        m = Match([f"P{k}" for k in range(n)], chips=5, dealer=rng.randrange(n))
        cards = list(DECK)
        rng.shuffle(cards)
        m.start_deal(*m.deal_from(cards))
        h = i % n
        while m.phase == "play":
            s = m.deciders()[0]
            pick = hero(m, s) if s == h else other(m, s)
            for e in m.act(s, pick.action, pick.arg):
                if e.kind == "pay" and e.seats[0] == h:
                    paid += 1
    return paid / deals


def tune(deals: int, seed: int, sizes: list[int], weight: float) -> None:
    """Coordinate search of each table size's Params against the two baselines (the pay rate
    against content seats weighted `weight`, against literal ones 1 - weight), printed as a
    literal."""
    grid: dict[str, list[object]] = {
        "offer": [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6],
        "accept_margin": [-0.1, 0.0, 0.05, 0.1, 0.2, 0.3],
        "draw_margin": [-0.05, 0.0, 0.05, 0.1],
        "dealer_offers": [False, True],
        "content_weight": [0.0, 0.25, 0.5, 0.75, 1.0],
    }
    for n in sizes:
        best = strategy.PARAMS[n]

        def score(p: Params, n: int = n) -> float:
            strategy.PARAMS[n] = p
            return (1 - weight) * deal_pay_rate(
                n, deals, seed, choose, literal
            ) + weight * deal_pay_rate(n, deals, seed, choose, content)

        best_score = score(best)
        for _ in range(2):
            for name, values in grid.items():
                for v in values:
                    cand = replace(best, **{name: v})
                    sc = score(cand)
                    if sc < best_score - 1e-9:
                        best, best_score = cand, sc
        strategy.PARAMS[n] = best
        print(f"    {n}: {best!r},  # pays {best_score:.4f} per deal", flush=True)


def play_levels(
    n: int,
    seed: int,
    strong_seat: int | None,
    samples: int,
    times: list[float],
    level: str = "strong",
) -> tuple[int, int, int, bool]:
    """One whole match on the deals of `seed`, every seat `normal` but `strong_seat` (None:
    all normal): (that seat's balance, chips it paid, deals it played, it won). With None the
    figures are seat `seed`'s counterpart's: the caller passes the seat to compare."""
    deals = random.Random(seed)
    think = random.Random(seed * 7 + 1)
    m = Match([f"P{i}" for i in range(n)], chips=5, dealer=deals.randrange(n))
    paid = [0] * n
    dealt = [0] * n
    while m.phase != "over":
        if m.phase == "deal":
            cards = list(DECK)
            deals.shuffle(cards)
            m.start_deal(*m.deal_from(cards))
            for s in range(n):
                dealt[s] += m.in_match[s]
            continue
        s = m.deciders()[0]
        if s == strong_seat:
            t = time.process_time()
            if level == "oracle":  # sees every card: a measuring tool, never a level
                pick = gnavspiel_oracle(m, s)
            else:
                pick = choose_strong(m, s, think, samples)
            times.append(time.process_time() - t)
        else:
            pick = choose(m, s)
        for e in m.act(s, pick.action, pick.arg):
            if e.kind == "pay":
                paid[e.seats[0]] += 1
    assert m.result is not None
    seat = strong_seat if strong_seat is not None else seed % n
    return m.result.balance[seat], paid[seat], dealt[seat], m.result.winner == seat


def _pct(sorted_times: list[float], q: float) -> float:
    """The q-quantile of sorted seconds, in ms (0 when empty)."""
    if not sorted_times:
        return 0.0
    return sorted_times[min(len(sorted_times) - 1, int(q * len(sorted_times)))] * 1e3


def _ci(values: list[float]) -> tuple[float, float]:
    g = len(values)
    mean = sum(values) / g
    var = sum((v - mean) ** 2 for v in values) / max(1, g - 1)
    return mean, 1.96 * math.sqrt(var / g)


def match_record(
    n: int, base_seed: int, i: int, samples: int, level: str = "strong"
) -> dict[str, object]:
    """Match i of size n in duplicate format, all `normal` and with seat `seed % n` `strong`
    (or `oracle`): one JSON-able record (the unit the chunks and `--merge` pool)."""
    seed = base_seed * 100_003 + n * 1_009 + i
    seat = seed % n
    times: list[float] = []
    b_bal, b_paid, b_dealt, b_won = play_levels(n, seed, None, samples, [])
    s_bal, s_paid, s_dealt, s_won = play_levels(n, seed, seat, samples, times, level)
    return {
        "level": level,
        "n": n,
        "seed": base_seed,
        "match": i,
        "samples": samples,
        "strong_balance": s_bal,
        "normal_balance": b_bal,
        "strong_paid": s_paid,
        "strong_dealt": s_dealt,
        "normal_paid": b_paid,
        "normal_dealt": b_dealt,
        "strong_won": s_won,
        "normal_won": b_won,
        "times_ms": [round(t * 1e3, 3) for t in times],
    }


def report(records: list[dict[str, object]], sizes: list[int] | None = None) -> int:
    """The table and the final JSON line over match records (one run or pooled chunks); a
    match met twice counts once."""
    unique = {
        (r.get("level", "strong"), r["n"], r["seed"], r["match"], r["samples"]): r for r in records
    }
    samples = sorted({int(str(r["samples"])) for r in unique.values()})
    kinds = sorted({str(r.get("level", "strong")) for r in unique.values()})
    if len(samples) != 1 or len(kinds) != 1:
        print(f"records of several world counts {samples} or levels {kinds}: merge one at a time")
        return 2
    level = kinds[0]
    if level == "oracle":
        print("oracle: sees every card and the stock; exact look-ahead through each deal")
    else:
        print(f"budget: {samples[0]} worlds per decision (a loan is always taken, G8)")
    print()
    print(
        f"| n | {level} paid/deal | normal paid/deal | duplicate win rate | {level} wins match |"
        " normal wins match | p50 ms | p99 ms | max ms | matches | CPU s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rates: dict[str, float] = {}
    cis: dict[str, float] = {}
    counts: dict[str, int] = {}
    every: list[float] = []
    for n in sizes or sorted({int(str(r["n"])) for r in unique.values()}):
        rs = [r for r in unique.values() if r["n"] == n]
        if not rs:
            continue
        skip = ("times_ms", "level")
        num = [{k: float(v) for k, v in r.items() if k not in skip} for r in rs]  # type: ignore[arg-type]
        times = sorted(t / 1e3 for r in rs for t in r["times_ms"])  # type: ignore[attr-defined]
        duel = [
            1.0
            if r["strong_balance"] > r["normal_balance"]
            else 0.5
            if r["strong_balance"] == r["normal_balance"]
            else 0.0
            for r in num
        ]
        sp = [r["strong_paid"] / max(1.0, r["strong_dealt"]) for r in num]
        np_ = [r["normal_paid"] / max(1.0, r["normal_dealt"]) for r in num]
        every += times
        w, wc = _ci(duel)
        a, ac = _ci(sp)
        b, bc = _ci(np_)
        g = len(rs)
        rates[str(n)], cis[str(n)], counts[str(n)] = round(w, 3), round(wc, 3), g
        won = sum(bool(r["strong_won"]) for r in rs), sum(bool(r["normal_won"]) for r in rs)
        print(
            f"| {n} | {a:.3f} ± {ac:.3f} | {b:.3f} ± {bc:.3f} | {w:.3f} ± {wc:.3f} |"
            f" {won[0] / g:.3f} | {won[1] / g:.3f} | {_pct(times, 0.5):.1f} |"
            f" {_pct(times, 0.99):.1f} | {_pct(times, 1.0):.1f} | {g} | {sum(times):.0f} |",
            flush=True,
        )
    every.sort()
    print()
    print(
        json.dumps(
            {
                "level": level,
                f"win_rate_{level}_vs_normal": rates,
                "win_rate_ci95": cis,
                "decision_p99_ms": round(_pct(every, 0.99), 1),
                "decision_p50_ms": round(_pct(every, 0.5), 1),
                "decision_max_ms": round(_pct(every, 1.0), 1),
                "matches_per_size": counts,
                "samples": samples[0],
            }
        )
    )
    return 0


def levels(args: argparse.Namespace, sizes: list[int]) -> int:
    """The duplicate strong-vs-normal run (`--level strong`): matches `--first-match` ..
    `--first-match + --matches - 1`, match by match over the sizes (a run stopped early has
    about as many of every size), each appended to `--out` as one JSON line when set."""
    records: list[dict[str, object]] = []
    out = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    try:
        for i in range(args.first_match, args.first_match + args.matches):
            for n in sizes:
                r = match_record(n, args.seed, i, args.samples, args.level)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--sizes", default="2,3,4,5,6", help="table sizes, e.g. 2,3")
    parser.add_argument("--weight", type=float, default=0.5, help="content baseline weight")
    parser.add_argument(
        "--level",
        choices=["strong", "oracle"],
        default=None,
        help="strong (or the omniscient oracle, a measuring tool) vs normal",
    )
    parser.add_argument("--samples", type=int, default=SAMPLES, help="worlds per decision")
    parser.add_argument("--first-match", type=int, default=0, help="first match (chunks)")
    parser.add_argument("--out", default=None, help="append each match to this JSON-lines file")
    parser.add_argument("--merge", nargs="+", default=None, metavar="FILE", help="pool, print")
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge)
    cmd = "python -m benchmarks.gnavspiel_strategy " + " ".join(argv or sys.argv[1:])
    print(f"command: {cmd.strip()}")
    print(
        f"seeds: match i of table size n uses random.Random({args.seed} * 100003 + i)"
        f" (--level strong: {args.seed} * 100003 + n * 1009 + i)"
    )
    sizes = [int(x) for x in args.sizes.split(",")]
    start = time.perf_counter()
    if args.level is not None:
        return levels(args, [n for n in sizes if n >= 3] if args.sizes == "2,3,4,5,6" else sizes)
    if args.tune:
        print(f"tuning on {args.deals} seeded deals per candidate (seed {args.seed}):")
        tune(args.deals, args.seed, sizes, args.weight)
    print(
        f"{'n':>2} {'baseline':>8} | {'strategy paid/deal':>18} {'baseline paid/deal':>18}"
        f" {'win rate':>8} {'fair':>5} | {'random paid/deal':>16} {'random win':>10}"
    )
    for n in sizes:
        for name, other in (("literal", literal), ("content", content)):
            sp, bp, sw = measure(n, args.matches, args.seed, choose, other)
            rp, _, rw = measure(n, args.matches, args.seed, random_seat(random.Random(n)), other)
            print(
                f"{n:>2} {name:>8} | {sp:>18.3f} {bp:>18.3f} {sw:>8.3f} {1 / n:>5.3f} |"
                f" {rp:>16.3f} {rw:>10.3f}",
                flush=True,
            )
    print(f"({time.perf_counter() - start:.0f} s, {args.matches} matches per row)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
