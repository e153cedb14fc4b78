"""The benchmarks' measurements a running bot keeps: the newest values, at a fixed size."""

from __future__ import annotations

from bot.service.samples import Samples


def test_samples_keep_the_newest_values_oldest_first_at_a_fixed_size() -> None:
    kept = Samples(4)
    assert list(kept) == [] and len(kept) == 0
    for value in (1.0, 2.0, 3.0):
        kept.append(value)
    assert list(kept) == [1.0, 2.0, 3.0]
    for value in (4.0, 5.0, 6.0):
        kept.append(value)
    assert list(kept) == [3.0, 4.0, 5.0, 6.0] and len(kept) == 4
    kept.clear()
    kept.append(7.0)
    assert list(kept) == [7.0]
