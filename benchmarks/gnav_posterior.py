"""Gnav's honest ceiling (issue 33): how many lives any bot could save over `normal` from what
its seat may know, next to what the omniscient seat saves.

Run from the repository root: `.venv/bin/python -m benchmarks.gnav_posterior --rounds 300`
(prints figures, never a timed test). It plays the duplicate rounds of
`python -m benchmarks.strategy --level oracle` (the same seeds, deals and measured seats: every
turn position in turn) with every seat on `normal` (`strategy.decide`). At the measured seat's
turn, when it may both stay and swap, it estimates the best choice from the seat's own
information set: `search.evaluate` with `--slip 0` keeps only the deals on which the other
seats' recorded actions are exactly `normal`'s, which they are here, so the sampled deals follow
the exact posterior of the hidden pieces given every public event, and each deal is played out
both ways with the other seats on `normal` (a seat acts once a round, so this is the exact best
response to `normal` from the seat's knowledge, up to sampling).

Two samples of `--worlds` deals each, independent: the first chooses (the lower mean of lives
lost), the second measures what that choice saves where it differs from `normal`'s, so the
figure is not flattered by the noise that made the choice (a choice made and scored on the same
deals always looks better than it is). `--sure` reports the same with the choice made only
where the first sample's difference exceeds 2 standard errors. The omniscient seat of
`benchmarks/oracle.py` plays the same round in the same seat; its lives saved per round are the
ceiling with every piece seen. The last line is one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: make the repository root importable
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import copy
import json
import time
from collections.abc import Sequence

from benchmarks.oracle import gnav_oracle
from benchmarks.strategy import level_deal, level_match, mean_ci, pct
from bot.games.gnav import search
from bot.games.gnav.engine.match import Match
from bot.games.gnav.strategy import BotView, decide


def finish_lost(match: Match, seat: int, oracle: bool) -> int:
    """Lives `seat` loses when the round is played to its end from here, every seat on
    `normal` but `seat` on the oracle when `oracle` (a copy is played)."""
    m = copy.deepcopy(match)
    start = m.lives[seat]
    while m.phase == "play":
        turn = m.turn
        assert turn is not None
        pick = gnav_oracle(m, turn) if oracle and turn == seat else None
        m.act(turn, pick or decide(BotView.from_match(m, turn)))
    return start - m.lives[seat]


def measure(n: int, profile: str, base_seed: int, rounds: int, worlds: int) -> dict[str, object]:
    """One table size: lives saved per round by the posterior choice (all, and only the sure
    ones) and by the oracle, each with its 95% interval, and the posterior's CPU time."""
    saved: list[float] = []
    sure: list[float] = []
    oracle: list[float] = []
    times: list[float] = []
    changed = 0
    for i in range(rounds):
        seed, seat = level_deal(base_seed, n, i)
        match = level_match(n, seed, profile)
        oracle.append(finish_lost(match, seat, False) - finish_lost(match, seat, True))
        gain = gain_sure = 0.0
        while match.phase == "play":
            turn = match.turn
            assert turn is not None
            action = decide(BotView.from_match(match, turn))
            if turn == seat and len(match.legal_actions(turn)) == 2:
                k = search.Knowledge.from_match(match, turn)
                t = time.process_time()
                mean, se, total = search.evaluate(k, 2 * seed, worlds, slip=0.0)
                times.append(time.process_time() - t)
                pick = action if total <= 0 or mean == 0 else "swap" if mean < 0 else "stay"
                if pick != action:
                    changed += 1
                    # Scored on fresh deals: swap less stay, so a stay saves it when positive.
                    check, _, found = search.evaluate(k, 2 * seed + 1, worlds, slip=0.0)
                    gain = (check if pick == "stay" else -check) if found > 0 else 0.0
                    gain_sure = gain if abs(mean) > 2 * se else 0.0
            match.act(turn, action)
        saved.append(gain)
        sure.append(gain_sure)
    times.sort()
    (s, sc), (u, uc), (o, oc) = map(mean_ci, (saved, sure, oracle))
    return {
        "players": n,
        "rounds": rounds,
        "posterior_saved": round(s, 4),
        "posterior_ci95": round(sc, 4),
        "sure_saved": round(u, 4),
        "sure_ci95": round(uc, 4),
        "oracle_saved": round(o, 4),
        "oracle_ci95": round(oc, 4),
        "changed": changed,
        "p99_ms": round(pct(times, 0.99), 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print a table of lives saved per round per size and the JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add = parser.add_argument
    add("--counts", default="2,3,4,5,6", help="table sizes")
    add("--rounds", type=int, default=300, help="duplicate rounds per size")
    add("--worlds", type=int, default=300, help="deals per sample (two samples a decision)")
    add("--seed", type=int, default=2024)
    add("--profile", default="norsk", choices=("norsk", "tradisjonell"))
    args = parser.parse_args(argv)
    print(
        f"profile {args.profile}, seed {args.seed}, {args.rounds} rounds per size, "
        f"{args.worlds} deals per sample; lives saved per round over normal"
    )
    print()
    print("| n | posterior (any difference) | posterior (past 2 SE) | oracle | changed | p99 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for n in (int(c) for c in args.counts.split(",")):
        r = measure(n, args.profile, args.seed, args.rounds, args.worlds)
        rows.append(r)
        print(
            f"| {n} | {r['posterior_saved']:+.4f} ± {r['posterior_ci95']:.4f} |"
            f" {r['sure_saved']:+.4f} ± {r['sure_ci95']:.4f} |"
            f" {r['oracle_saved']:+.4f} ± {r['oracle_ci95']:.4f} | {r['changed']} |"
            f" {r['p99_ms']:.0f} |",
            flush=True,
        )
    print()
    summary = {
        "profile": args.profile,
        "seed": args.seed,
        "worlds": args.worlds,
        "lives_saved_per_round": rows,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
