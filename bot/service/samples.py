"""A measurement a running bot keeps for benchmarks (seconds from commit to send...), at a
fixed cost of memory however long it runs."""

from __future__ import annotations

from array import array
from collections.abc import Iterator

#: How many of the newest values are kept (8 bytes each).
SAMPLES = 10_000


class Samples:
    """The newest `size` values appended, in a fixed array (a ring), oldest first when read.

    A deque of floats costs 32 bytes a value (the float object and its slot) and grew with
    every message sent until its cap (200,000: 6 MB); this is 8 bytes a value, allocated once.
    """

    def __init__(self, size: int = SAMPLES) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._size = size
        self._data = array("d", bytes(8 * size))
        self._count = 0  # appended since the last clear

    def append(self, value: float) -> None:
        """Keep `value` (the oldest kept goes once `size` are kept)."""
        self._data[self._count % self._size] = value
        self._count += 1

    @property
    def last(self) -> float:
        """The newest value appended (0.0 before any)."""
        return self._data[(self._count - 1) % self._size] if self._count else 0.0

    def clear(self) -> None:
        """Forget every value."""
        self._count = 0

    def __len__(self) -> int:
        return min(self._count, self._size)

    def __iter__(self) -> Iterator[float]:
        if self._count <= self._size:
            return iter(self._data[: self._count])
        start = self._count % self._size
        return iter(self._data[start:] + self._data[:start])
