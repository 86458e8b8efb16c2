"""The card tallies' summed counts, added in int32 blocks: equal to int64 sums by seat and
swap over any block size, the largest counts included."""

import numpy as np
import pytest

from sim.store.tables import SUM_BLOCK, _summed_counts


@pytest.mark.parametrize("rows_per_block", [1, 3, 7, 1000])
def test_block_sums_equal_plain_sums_by_side(rows_per_block):
    rng = np.random.default_rng(5)
    cards = rng.integers(0, 256, size=(23, 2, 17, 3), dtype=np.uint8)
    cards[4] = 255  # the largest count a game can hold
    swapped = rng.integers(0, 2, size=23).astype(bool)
    wide = cards.astype(np.int64)
    # side 0 (A's): the first seat of an unswapped game, the second of a swapped one
    a = wide[~swapped, 0].sum(axis=0) + wide[swapped, 1].sum(axis=0)
    b = wide[~swapped, 1].sum(axis=0) + wide[swapped, 0].sum(axis=0)
    sums = _summed_counts(cards.reshape(23, -1), 17, 3, swapped, rows_per_block)
    assert np.array_equal(sums[0], a)
    assert np.array_equal(sums[1], b)


def test_a_block_cannot_overflow_int32():
    assert SUM_BLOCK * 255 < 2**31
