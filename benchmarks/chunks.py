"""Records of a benchmark run in chunks: JSON lines, one record a game or match, pooled by
`--merge` (benchmarks/karnaval_strategy.py, benchmarks/gnavspiel_strategy.py)."""

from __future__ import annotations

import json


def read_records(paths: list[str]) -> list[dict[str, object]]:
    """Every record in these JSON-lines files, skipping a line cut short by a run stopped
    while writing it; prints how many records and cut lines it found."""
    records: list[dict[str, object]] = []
    cut = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    cut += 1
    print(f"pooled: {len(records)} records from {len(paths)} file(s), {cut} cut lines skipped")
    return records
