"""The bench's outcome summary, checked on hand-made result rows."""

from __future__ import annotations

import numpy as np

from sim import config
from sim.bench import bench, first_seat_wins
from sim.engine.game import RESULT_WIDTH


def row(score_first, score_second, lines):
    out = np.full(RESULT_WIDTH, -1, dtype=np.int32)
    out[3], out[4] = score_first, score_second
    out[6 : 6 + len(lines)] = lines
    return out


def test_first_seat_wins_on_points_and_tiebreak_only():
    rows = np.stack(
        [
            row(30, 20, [1, 0, 1, -1, -1]),  # points
            row(20, 30, [0, 1, 1, -1, -1]),  # loses on points
            row(30, 30, [0, 0, 1, -1, -1]),  # tie, second holds the 30 line
            row(30, 30, [1, 1, 0, -1, -1]),  # tie, first holds the 30 line
            row(0, 0, [-1, -1, -1, -1, -1]),  # draw
        ]
    )
    assert first_seat_wins(rows).tolist() == [True, False, False, True, False]


def test_bench_reports_a_complete_sample():
    result = bench(config.load("base"), 2000)
    assert result.games == 2000 and result.errors == 0
    assert abs(sum(result.end_shares.values()) - 1) < 1e-9
    assert 0.3 < result.first_wins < 0.7
