"""What every game must keep true, checked on a state by several tests."""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.engine.state import NO_CARD


def locations(s) -> Counter:
    """How many places hold each card id: display, hands, piles, cut pile, removed."""
    where: Counter = Counter()
    grid = np.asarray(s.grid[: int(s.lines)])
    where.update(int(c) for c in grid[grid != NO_CARD])
    for d in (0, 1):
        where.update(int(c) for c in s.hand[d, : s.hand_len[d]])
        where.update(int(c) for c in s.pile[d, s.pile_top[d] : s.pile_len[d]])
    where.update(int(c) for c in s.cut[: s.cut_len])
    where.update(int(c) for c in s.removed[: s.removed_len])
    return where
