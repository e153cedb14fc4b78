"""The one place for seeded random play-outs of every game, sized by one setting.

`GNAV_PLAYOUT_SCALE` (a positive number, default 1) multiplies how many seeded matches each
play-out test plays: `GNAV_PLAYOUT_SCALE=10 pytest tests/playouts` for a long soak, `0.2` for a
quick look. Play-out tests of every game live in this package and size themselves with
`seeds(base)`, so no other test file repeats random play-outs.
"""

from __future__ import annotations

import os


def scale() -> float:
    """The play-out scale from `GNAV_PLAYOUT_SCALE` (default 1; a bad value is an error)."""
    raw = os.environ.get("GNAV_PLAYOUT_SCALE", "1")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"GNAV_PLAYOUT_SCALE must be a positive number, not {raw!r}") from None
    if not value > 0:
        raise ValueError(f"GNAV_PLAYOUT_SCALE must be a positive number, not {raw!r}")
    return value


def seeds(base: int) -> range:
    """The seeds a play-out test runs: `base` scaled by `GNAV_PLAYOUT_SCALE`, at least one."""
    return range(max(1, round(base * scale())))
