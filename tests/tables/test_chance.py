"""tables.runtime.PooledSystemRandom: the operating system's randomness, pooled."""

from __future__ import annotations

import collections
import itertools
from typing import Any

import pytest

from tables import runtime
from tables.runtime import PooledSystemRandom


def test_a_deck_is_shuffled_with_one_read_of_the_systems_randomness(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = runtime.os.urandom

    def urandom(n: int) -> bytes:
        reads.append(n)
        return real(n)

    monkeypatch.setattr(runtime.os, "urandom", urandom)
    rng = PooledSystemRandom()
    deck = list(range(52))
    rng.shuffle(deck)
    assert sorted(deck) == list(range(52)) and len(reads) == 1


def test_numbers_are_in_range_and_every_order_of_a_small_deck_as_likely() -> None:
    rng = PooledSystemRandom()
    for k in (0, 1, 7, 8, 9, 31, 64, 300, 4000):
        assert 0 <= rng.getrandbits(k) < 2 ** k
    assert max(rng.getrandbits(3) for _ in range(2000)) == 7  # the top bit is drawn
    with pytest.raises(ValueError):
        rng.getrandbits(-1)
    assert all(0.0 <= rng.random() < 1.0 for _ in range(2000))
    assert len(rng.randbytes(5)) == 5 and rng.randbytes(0) == b""
    # Chi-square over the 24 orders of 4 cards: 24,000 shuffles, 23 degrees of freedom;
    # 60 is beyond the 0.99995 quantile (a correct shuffle fails about once in 20,000).
    counts: collections.Counter[tuple[Any, ...]] = collections.Counter()
    for _ in range(24_000):
        deck = [0, 1, 2, 3]
        rng.shuffle(deck)
        counts[tuple(deck)] += 1
    assert set(counts) == set(itertools.permutations(range(4)))
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 60, chi2
