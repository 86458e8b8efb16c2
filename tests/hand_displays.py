"""Displays set by hand on an engine state, for the arc's tests: which digit controls which
line, with each line's points the board keeps set as a placement would."""

from __future__ import annotations

import numpy as np

from sim.engine.board import keep_lead
from sim.engine.game import record, setup, track
from sim.engine.state import END_RUN
from sim.model.config import load
from sim.play.batch import result_buffers


def controlled(s, lines: dict[int, int]) -> None:
    """A display where digit lines[v] controls the line worth v and no other line is
    controlled: 3 cards showing that digit (the engine's kept counts), other lines empty;
    each line's points set as the board does (board.keep_lead)."""
    for line in range(int(s.lines)):
        who = lines.get(10 * (line + 1))
        s.count[line] = 0 if who is None else 3
        s.ones[line] = 3 * (who or 0)
        s.rems[line] = 0
        keep_lead(s, line)


def recorded(
    s, sequence: list[dict[int, int]], first: int, leads, config: str = "base"
) -> np.ndarray:
    """The result row of a game of config played into s whose display after turn t is
    sequence[t - 1] (controlled), the game added to leads (a lead_buffer) as it is recorded."""
    setup(s, *load(config).engine_args(0), np.uint64(1), 0)
    s.first = first
    for turn, lines in enumerate(sequence, start=1):
        controlled(s, lines)
        s.turns = turn
        track(s)
    s.ended = END_RUN
    out, cards = result_buffers(1)
    record(s, out[0], cards[0], leads)
    return out[0]
