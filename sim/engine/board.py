"""The display: bounds, open and shut lines, entering, placing, removing and moving cards."""

from __future__ import annotations

import numpy as np

from sim.engine.cards import CONT, DIR_NONE, DOWN, END, LEFT, REM, RIGHT, UP
from sim.engine.jit import inlined, kernel
from sim.engine.score import NOBODY, controller
from sim.engine.state import ERR_OVERFLOW, MAX_COLS, MAX_LINES, NO_CARD

# The step to a card's target per direction, as tables: a random card's direction is
# unpredictable, and a lookup replaces a chain of mispredicted branches. No direction steps
# above the top line, so an undirected card's "target" is out of bounds like (-1, -1) was.
_STEP_LINE = np.zeros(5, np.int64)
_STEP_COL = np.zeros(5, np.int64)
_STEP_LINE[DIR_NONE], _STEP_LINE[UP], _STEP_LINE[DOWN] = -2 * MAX_LINES, -1, 1
_STEP_COL[LEFT], _STEP_COL[RIGHT] = -1, 1


@kernel
def in_bounds(s, line, col):
    """RULES.md 2: not a Program Line card, above the top, below the bottom, or the RUN card."""
    if line < 0 or line >= s.lines or col < 0:
        return False
    if line == s.lines - 1:
        return col < s.capacity
    if col >= MAX_COLS:  # in bounds by the rules, but past the state: refuse, never ignore
        s.error = ERR_OVERFLOW
        return False
    return True


@kernel
def neighbour(line, col, direction):
    """The slot a card at (line, col) points to (out of bounds for no direction)."""
    return line + _STEP_LINE[direction], col + _STEP_COL[direction]


@kernel
def is_shut(s, line):
    """RULES.md 5.10: the right-most card of the line is an END pointing right."""
    return ((s.shut >> line) & 1) != 0


@kernel
def update_shut(s, line):
    """Keep s.shut's bit for a line whose right-most card changed: one bit test per
    is_shut instead of a chain of four dependent loads on every turn's open-line check."""
    if s.no_end:  # no line can be shut: skip the right-most card's kind and direction
        return
    s.shut &= ~(1 << line)
    width = s.width[line]
    if width > 0:
        cid = s.grid[line, width - 1]
        if s.kind[cid] == END and s.dirn[cid] == RIGHT:
            s.shut |= 1 << line


@kernel
def can_enter(s, line, col, cid):
    """RULES.md 5: in bounds, empty, and not in a shut line (but CONT right of the END)."""
    if not in_bounds(s, line, col) or s.grid[line, col] != NO_CARD:
        return False
    if is_shut(s, line):
        return s.kind[cid] == CONT and col == s.width[line]
    return True


@kernel
def leftmost_empty(s, line):
    """The left-most empty slot of a line, or -1 when it has none (a full RUN line)."""
    col = s.gap[line]
    if not in_bounds(s, line, col):
        if col >= MAX_COLS:
            s.error = ERR_OVERFLOW
        return -1
    return col


@kernel
def keep_full3(s, line):
    """s.full3's bit for a line whose count changed (a select, no branch)."""
    bit = 1 << line
    s.full3 = (s.full3 & ~bit) | (bit if s.count[line] >= 3 else 0)


@kernel
def keep_lasting(s, line, col, cid, entering):
    """s.rems and s.lasting_at for a card entering (or leaving) the slot (line, col)."""
    if s.no_lasting:  # a deck without REM, END and CONT: no kind to look at
        return
    kind = s.kind[cid]
    s.rems[line] += (1 if entering else -1) if kind == REM else 0
    if kind == REM or kind == END or kind == CONT:
        # np.int64: with the JIT off, line may be an int8 scalar that line * MAX_COLS overflows
        s.lasting_at[cid] = np.int64(line) * MAX_COLS + col if entering else -1


@kernel
def place(s, cid, line, col):
    """Put a card into an empty slot; a pending SAVE mark saves it as it enters (5.5)."""
    place_inline(s, cid, line, col)


@inlined  # for a hand card's turn: LLVM kept place a call there (9% of a random game, perf)
def place_inline(s, cid, line, col):
    """place, inlined into its caller."""
    s.grid[line, col] = cid
    s.count[line] += 1
    s.ones[line] += s.face[cid]
    keep_full3(s, line)
    keep_lasting(s, line, col, cid, True)
    s.span = max(s.span, col + 1)
    if col >= MAX_COLS - 1:
        s.far = 1
    if col >= s.width[line]:
        s.width[line] = col + 1
        update_shut(s, line)
    if col == s.gap[line]:
        gap = col + 1
        while gap < MAX_COLS and s.grid[line, gap] != NO_CARD:
            gap += 1
        s.gap[line] = gap
    if s.mark[line, col]:
        s.mark[line, col] = 0
        s.saved[cid] = 1
    keep_lead(s, line)


@kernel
def lift(s, line, col):
    """Take the card out of a slot, leaving a gap; returns its id."""
    cid = s.grid[line, col]
    s.grid[line, col] = NO_CARD
    s.count[line] -= 1
    s.ones[line] -= s.face[cid]
    keep_full3(s, line)
    keep_lasting(s, line, col, cid, False)
    if col < s.gap[line]:
        s.gap[line] = col
    if col == s.width[line] - 1:
        width = col
        while width > 0 and s.grid[line, width - 1] == NO_CARD:
            width -= 1
        s.width[line] = width
        update_shut(s, line)
    keep_lead(s, line)
    return cid


@kernel
def turn_over(s, line, cid):
    """Turn a card in a line to its other digit (IF...THEN, IF...ELSE, SYNTAX ERROR)."""
    s.face[cid] = 1 - s.face[cid]
    s.ones[line] += 1 if s.face[cid] else -1
    keep_lead(s, line)


@inlined  # on every placement: as a call it cost random play about 7%
def keep_lead(s, line):
    """A line's signed points (s.arc_points) after its cards changed: only that line's
    controller can have changed. game.track sums the lines' points at the turn's end; a
    running sum kept here as well made random play slower (docs/performance.md).
    By the line's kept counts, as if every card counted: in a deck with REM, settle_lead
    corrects the lines holding one by the walk at the turn's end (the walk's call here,
    even untaken, cost random play in base 10%)."""
    count = np.int64(s.count[line])
    margin = count - 2 * np.int64(s.ones[line])  # zeros - ones
    held = (np.int64(margin > 0) - np.int64(margin < 0)) * np.int64(count >= 3)
    s.arc_points[line] = held * 10 * (line + 1)


@kernel
def settle_lead(s):
    """The points of each line holding a REM, by its controller from the walk (score.
    controller): keep_lead counted every card. A line whose last REM left was counted
    right by keep_lead, which runs after the REM count is kept."""
    for line in range(s.lines):
        if s.rems[line]:
            who = controller(s, line)
            s.arc_points[line] = (0 if who == NOBODY else 1 - 2 * who) * 10 * (line + 1)


@kernel
def move_to_line(s, line, col, dest):
    """Move the card at (line, col) to dest's left-most empty slot, found before it leaves."""
    cid = s.grid[line, col]
    slot = leftmost_empty(s, dest)
    if slot < 0 or not can_enter(s, dest, slot, cid):
        return False
    lift(s, line, col)
    place(s, cid, dest, slot)
    return True
