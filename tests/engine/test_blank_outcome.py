"""take_win scores a BLANK in place when its turn ends the game: LOAD about to run the pile
out (any line), or the RUN line one card short (the RUN line). outcome_plus must agree with
playing the BLANK on a copy and scoring the finished game."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from sim.engine.cards import BLANK
from sim.engine.clone import clone
from sim.engine.game import setup
from sim.engine.paths import scratch_state
from sim.engine.state import ONGOING
from sim.engine.turn import (
    HAND_SIZE,
    begin_turn,
    canonical_turn,
    finish_turn,
    legal_lines,
    put_card,
)
from sim.model.config import load
from strategies.search import outcome, outcome_plus


@numba.njit(cache=True)
def _cases(rules, seeds, out):
    """Per game, play random turns until the mover's LOAD would run its pile out or the RUN
    line is one card short, then for each BLANK in hand and each line it may enter (only the
    RUN line in the second case): (outcome_plus, outcome after playing it, whether that game
    ended, whether it was the RUN case). Returns the number of rows written."""
    box, spare = scratch_state(), scratch_state()
    n = 0
    for g in range(seeds.shape[0]):
        s = box[0]
        setup(s, *rules, seeds[g], 0)
        while s.ended == ONGOING:
            digit = s.mover
            by_load = s.pile_len[digit] - s.pile_top[digit] < HAND_SIZE + 1 - s.hand_len[digit]
            run_short = s.count[s.lines - 1] >= s.capacity - 1
            if by_load or run_short:
                forced = begin_turn(s, digit)
                for index in range(s.hand_len[digit]):
                    if s.kind[s.hand[digit, index]] != BLANK:
                        continue
                    mask = legal_lines(s, digit, index, forced)
                    if not by_load:
                        mask &= 1 << (s.lines - 1)
                    for line in range(s.lines):
                        if mask >> line & 1 and n < out.shape[0]:
                            w = clone(spare, s)
                            put_card(w, digit, index, line, 0, forced)
                            finish_turn(w, digit, False, True)
                            out[n, 0] = outcome_plus(s, digit, line)[0]
                            out[n, 1] = outcome(w, digit)[0]
                            out[n, 2] = w.ended != ONGOING
                            out[n, 3] = not by_load
                            n += 1
                break
            canonical_turn(s)
    return n


@pytest.mark.parametrize("config", ["base", "101", "base-60"])
def test_a_blank_scored_in_place_matches_the_blank_played(config):
    rules = load(config).engine_args(0)
    out = np.zeros((4000, 4))
    n = _cases(rules, np.arange(1, 1500, dtype=np.uint64), out)
    assert n > 500
    rows = out[:n]
    assert rows[:, 2].all(), "a BLANK in these turns must end the game"
    assert 0 < rows[:, 3].sum() < n  # both cases met
    assert np.array_equal(rows[:, 0], rows[:, 1])
    assert {0.0, 1.0} <= set(rows[:, 1])  # both wins and losses among the cases
