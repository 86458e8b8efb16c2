"""Control and scoring (RULES.md 6), with REM exclusions (5.10)."""

from __future__ import annotations

from sim.engine.cards import LEFT, REM, RIGHT
from sim.engine.jit import kernel
from sim.engine.state import NO_CARD

NOBODY = -1


@kernel
def controller(s, line):
    """The digit controlling a line, or NOBODY.

    REM exclusions (5.10): only the cards from the right-most <REM to the left-most REM>
    count, both included. One pass (two measured ~10% of a random game): a <REM restarts
    the count, the first REM> closes it, and a <REM after that leaves nothing counted.
    """
    if s.count[line] < 3:
        return NOBODY
    if s.rems[line] == 0:  # every card counts: the line's kept count of 1s decides, no walk
        return by_faces(s, line, 0, 0)
    ones = 0
    zeros = 0
    closed = False
    for col in range(s.width[line]):
        cid = s.grid[line, col]
        if cid == NO_CARD:
            continue
        rem = s.kind[cid] == REM
        if rem and s.dirn[cid] == LEFT:
            if closed:
                return NOBODY
            ones = 0
            zeros = 0
        if not closed:
            if s.face[cid]:
                ones += 1
            else:
                zeros += 1
            closed = rem and s.dirn[cid] == RIGHT
    if ones > zeros:
        return 1
    if zeros > ones:
        return 0
    return NOBODY


@kernel
def controller_plus(s, line, face):
    """controller, with one more card showing face in the line, in a deck without REM
    (where a card counts wherever it sits): a move's outcome scored without playing it."""
    if s.count[line] + 1 < 3:
        return NOBODY
    return by_faces(s, line, 1, face)


@kernel
def by_faces(s, line, more, ones):
    """Who controls a line where every card counts, with more cards of which ones show 1."""
    ones += s.ones[line]
    zeros = s.count[line] + more - ones
    return 1 if ones > zeros else (0 if zeros > ones else NOBODY)


@kernel
def scores(s):
    """(score of digit 0, score of digit 1)."""
    zero, one, _ = scores_plus(s, -1, 0)
    return zero, one


@kernel
def scores_plus(s, extra, face):
    """scores, as if one more card showing face had entered line extra (-1: none; see
    controller_plus), and the digit controlling the highest controlled line (NOBODY if
    none), which breaks a tie (RULES.md 6)."""
    zero = 0
    one = 0
    top = NOBODY
    for line in range(s.lines):
        who = controller(s, line) if line != extra else controller_plus(s, line, face)
        zero += 10 * (line + 1) if who == 0 else 0
        one += 10 * (line + 1) if who == 1 else 0
        top = who if who >= 0 else top
    return zero, one, top
