"""The Python loop's way into the engine: the state array, and observations cut to the used
columns, must show the same game as the record and the whole display do."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine.jit import DISABLED
from sim.engine.state import MAX_COLS, ONGOING, new_state
from sim.model import config as cfg
from sim.model.position import Plain, display_rows
from sim.play import batch as game
from sim.play import calls
from sim.play.stepped import fresh_state


def _midgame(config, seed: int, turns: int):
    s = game.start(config, seed)
    for turn in game.turns(s, seed):
        if turn.number >= turns:
            break
    return s


@pytest.mark.parametrize("name", ["base", "101", "large"])
def test_the_used_columns_show_the_whole_display(name):
    config = cfg.load(name)
    for seed in range(12):
        s = _midgame(config, seed, 6 + seed)
        plain = Plain(s)
        assert all(len(row) < MAX_COLS for row in plain.grid)  # cut short: the test bites
        assert display_rows(plain) == display_rows(s)  # the record's rows read all columns


def test_the_array_is_the_records_memory_and_plain_when_compiled():
    s = new_state()
    arr = calls.array_of(s)
    assert arr.shape == (1,)
    assert (type(arr) is np.ndarray) != DISABLED  # numba types a recarray the slow way
    s.mover, s.ended, s.cpu = 1, ONGOING, -1
    ended, mover, cpu, error, _ = calls.turn_fields(arr)
    assert (ended, mover, cpu, error) == (ONGOING, 1, -1, 0)
    assert calls.array_of(arr) is arr or DISABLED


def test_a_record_outside_a_one_record_array_is_refused():
    two = np.zeros(2, dtype=fresh_state().dtype).view(np.recarray)
    with pytest.raises(ValueError, match="one-record array"):
        calls.array_of(two[1])
