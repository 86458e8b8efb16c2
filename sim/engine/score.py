"""Control and scoring (RULES.md 6), with REM exclusions (5.10)."""

from __future__ import annotations

from sim.cards import LEFT, REM, RIGHT
from sim.engine.jit import kernel
from sim.engine.state import NO_CARD

NOBODY = -1


@kernel
def controller(s, line):
    """The digit controlling a line, or NOBODY."""
    if s.count[line] < 3:
        return NOBODY
    width = s.width[line]
    # REM exclusions: everything right of the left-most REM> and left of the right-most <REM
    right_of = width
    left_of = 0
    for col in range(width):
        cid = s.grid[line, col]
        if cid != NO_CARD and s.kind[cid] == REM:
            if s.dirn[cid] == RIGHT and col < right_of:
                right_of = col
            elif s.dirn[cid] == LEFT and col > left_of:
                left_of = col
    ones = 0
    zeros = 0
    for col in range(left_of, min(right_of + 1, width)):
        cid = s.grid[line, col]
        if cid != NO_CARD:
            if s.face[cid]:
                ones += 1
            else:
                zeros += 1
    if ones > zeros:
        return 1
    if zeros > ones:
        return 0
    return NOBODY


@kernel
def scores(s):
    """(score of digit 0, score of digit 1)."""
    zero = 0
    one = 0
    for line in range(s.lines):
        who = controller(s, line)
        if who == 0:
            zero += 10 * (line + 1)
        elif who == 1:
            one += 10 * (line + 1)
    return zero, one
