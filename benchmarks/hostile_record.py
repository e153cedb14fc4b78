"""Hostile record benchmark: `gnav-bot replay` on a Karnaval record with a million tied draw rounds.

Run from the repository root: `python -m benchmarks.hostile_record [--rounds 1000000]`.

Writes a Karnaval record (KARNAVAL_RECORD.md) whose draw is `--rounds` rounds: round 1 drawn by
the three seats, the first two tied for lowest, then every later round drawn by those two and
tied again, so the draw is still undecided after its last round. The file is about 37 MB for a
million rounds. `gnav-bot replay FILE` must answer it with its one error line
(`draw: … tie for lowest in round 1000000 and must draw again`) and exit 2; the benchmark runs it
as a subprocess (in a temporary directory, removed afterwards) and prints the wall time and the
child's peak resident memory (`resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`). The target is at
most 2 s and 200 MB. It also prints the child's processor time (user + system): on a machine
shared with other work the wall time grows with their load. `--alternate` alternates two tied
rounds instead of repeating one. The last line is one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: put the repository root first on the path
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
from collections.abc import Iterator

ROOT = Path(__file__).resolve().parents[1]
#: The seats of the record: names long enough that a million rounds make about 37 MB.
SEATS = ("Annabel", "Bartho", "Cy")


def tied_draw_chunks(rounds: int, *, alternate: bool = False) -> Iterator[str]:
    """The text of a Karnaval record whose draw ties for `rounds` rounds, in pieces (never
    the whole text at once); with `alternate` the later rounds alternate two ties."""
    a, b, c = (json.dumps(s) for s in SEATS)
    yield '{"game": "karnaval", "seats": ' + json.dumps(list(SEATS)) + ', "draw": [\n'
    yield "{" + f'{a}: "10H", {b}: "10S", {c}: "KD"' + "}"
    later = ",\n{" + f'{a}: "10D", {b}: "10C"' + "}"
    if alternate:
        later += ",\n{" + f'{a}: "7S", {b}: "7H"' + "}"
    per = 2 if alternate else 1
    batch = 10_000
    left = rounds - 1
    while left >= per:
        k = min(batch, left // per)
        yield later * k
        left -= k * per
    if left:
        yield later[: later.index("}") + 1]
    yield '\n], "deals": []}\n'


def write_record(path: Path, rounds: int, *, alternate: bool = False) -> int:
    """Write the tied-draw record to `path`; its size in bytes."""
    with path.open("w", encoding="utf-8") as f:
        for chunk in tied_draw_chunks(rounds, alternate=alternate):
            f.write(chunk)
    return path.stat().st_size


def gnav_bot() -> list[str]:
    """The `gnav-bot` command of this checkout (`python -m bot` with the repository first)."""
    return [sys.executable, "-m", "bot"]


def run_replay(path: Path) -> dict[str, object]:
    """Run `gnav-bot replay PATH` once: exit status, stderr, seconds, peak RSS in MB."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*gnav_bot(), "replay", str(path)], capture_output=True, text=True, cwd=ROOT, env=env
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "code": done.returncode,
        "stderr": done.stderr.strip()[:200],
        "stdout_bytes": len(done.stdout),
        "seconds": round(seconds, 3),
        # processor time of the child: the wall time of a machine shared with other work
        # grows with their load; this does not
        "cpu_seconds": round(cpu, 3),
        # ru_maxrss of the children is the largest child so far (KiB on Linux): this child.
        "peak_rss_mb": round(after.ru_maxrss / 1024, 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Write the record, replay it, print the figures; exit 1 over the 2 s / 200 MB target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument(
        "--alternate", action="store_true", help="two tied rounds in turn, not one repeated"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hostile-record-") as tmp:
        path = Path(tmp) / "karnaval-tied-draw.json"
        size = write_record(path, args.rounds, alternate=args.alternate)
        result = run_replay(path)
    result = {"rounds": args.rounds, "file_mb": round(size / 1e6, 1), **result}
    print(f"record: {result['file_mb']} MB, {args.rounds} draw rounds")
    print(f"gnav-bot replay: exit {result['code']}, {result['stderr']}")
    print(
        f"seconds {result['seconds']} (processor {result['cpu_seconds']}), "
        f"peak RSS {result['peak_rss_mb']} MB"
    )
    print(json.dumps(result))
    ok = result["code"] == 2 and result["seconds"] <= 2.0 and result["peak_rss_mb"] <= 200
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
