"""Decisions inside a turn: directions, and the PRINT, PASTE and GOSUB sub-decisions.

Each seat is driven by a policy: the canonical random strategy (RULES.md 9), a
script of pre-set choices (used by rule scenarios), or a path of option indexes (the
CPU's ranked choices, RULES.md 8). Options are enumerated in a fixed order (directions
L R U D, lines top to bottom, cut cards oldest first) so a choice is an index.
"""

from __future__ import annotations

import numpy as np

from sim.engine.board import can_enter, leftmost_empty
from sim.engine.cards import AXIS_H, AXIS_NONE, AXIS_V, DIR_NONE, LEFT, UP
from sim.engine.jit import inlined, kernel
from sim.engine.paths import path_choice
from sim.engine.rng import strategy_int
from sim.engine.state import ERR_ILLEGAL, POLICY_PATH, POLICY_RANDOM, POLICY_SCRIPT, SCRIPT_LINE

ASK_DIR, ASK_HAND, ASK_CUT, ASK_LINE = 1, 2, 3, 4  # what a decision is about

# [free, axis]: how many directions a card may point and the first of them (the others
# follow it in L R U D order). Lookups, because a random card's axis is unpredictable and
# each branch on it mispredicted.
_N_DIRS = np.array([[1, 2, 2], [1, 4, 4]], np.int64)
_FIRST_DIR = np.zeros((2, 3), np.int64)
_FIRST_DIR[:, AXIS_NONE] = DIR_NONE
_FIRST_DIR[:, AXIS_H] = LEFT
_FIRST_DIR[0, AXIS_V] = UP
_FIRST_DIR[1, AXIS_V] = LEFT


@kernel
def ask_about(s, what, cid, line, col):
    """Note what the next decision is about, when a Python strategy is to be asked."""
    if s.path_ask:
        s.ask[0] = what
        s.ask[1] = cid
        s.ask[2] = line
        s.ask[3] = col


@kernel
def pick(s, digit, n):
    """The chosen one of n options, for the random and the path-following policies."""
    if s.policy[digit] == POLICY_RANDOM:
        return strategy_int(s, digit, n)
    return path_choice(s, n)


@kernel
def n_dirs(s, cid):
    """How many directions the card may point (1 for undirected cards)."""
    return _N_DIRS[s.free, s.axis[cid]]


@kernel
def nth_dir(s, cid, k):
    """The k-th allowed direction, in the order L, R, U, D."""
    return _FIRST_DIR[s.free, s.axis[cid]] + k


@kernel
def dir_allowed(s, cid, direction):
    for k in range(n_dirs(s, cid)):
        if nth_dir(s, cid, k) == direction:
            return True
    return False


@kernel
def next_script(s):
    """The next scripted sub-decision's row, or -1 (and an error) when the script ran out."""
    if s.script_pos >= s.script_len:
        s.error = ERR_ILLEGAL
        return -1
    row = s.script_pos
    s.script_pos += 1
    return row


@kernel
def script_matches(s, row, cid):
    """Whether a card matches a scripted (kind, axis, face); -1 fields match anything."""
    want = s.script[row]
    return (
        s.kind[cid] == want[0]
        and (want[1] < 0 or s.axis[cid] == want[1])
        and (want[2] < 0 or s.face[cid] == want[2])
    )


@kernel
def choose_dir(s, digit, cid, row):
    """A direction for a card: uniform for random, from the script row otherwise."""
    if s.policy[digit] != POLICY_SCRIPT:
        ask_about(s, ASK_DIR, cid, -1, -1)
        return nth_dir(s, cid, pick(s, digit, n_dirs(s, cid)))
    direction = s.script[row, 3]
    if not dir_allowed(s, cid, direction):
        s.error = ERR_ILLEGAL
        return DIR_NONE
    return direction


@kernel
def choose_card(s, digit, cards, n, line, col, what):
    """Index into cards[:n] (the hand or the cut pile: what) of a card that may enter
    (line, col), or -1 if none may (or error)."""
    cpu = s.policy[digit] == POLICY_PATH and digit == s.cpu
    options = 0
    for i in range(n):
        if offered(s, cards, i, line, col, cpu):
            options += 1
    if options == 0:
        return -1, -1
    if s.policy[digit] != POLICY_SCRIPT:
        ask_about(s, what, -1, line, col)
        k = pick(s, digit, options)
        for i in range(n):
            if offered(s, cards, i, line, col, cpu):
                if k == 0:
                    return i, -1
                k -= 1
    row = next_script(s)
    if row >= 0:
        for i in range(n):
            if can_enter(s, line, col, cards[i]) and script_matches(s, row, cards[i]):
                return i, row
    s.error = ERR_ILLEGAL
    return -1, -1


# inlined: asked per card of each PRINT and PASTE, and as a call its array argument cost a
# reference count up and down each time
@inlined
def offered(s, cards, i, line, col, cpu):
    """Whether cards[i] is an option. For the CPU's ranked choice (RULES.md 8) a card just
    like an earlier option (kind, axis, face) is not tried again: it leads to the same
    ranks, and the fixed order takes the earlier one anyway; this keeps a cut pile of many
    equal cards from multiplying the paths the CPU ranks."""
    cid = cards[i]
    if not can_enter(s, line, col, cid):
        return False
    if cpu:
        for j in range(i):
            other = cards[j]
            if (
                s.kind[other] == s.kind[cid]
                and s.axis[other] == s.axis[cid]
                and s.face[other] == s.face[cid]
                and can_enter(s, line, col, other)
            ):
                return False
    return True


@kernel
def gosub_line_ok(s, line, cid):
    """RULES.md 5.13: a line with at least 3 cards whose left-most empty slot the card may enter."""
    if s.count[line] < 3:
        return False
    slot = leftmost_empty(s, line)
    return slot >= 0 and can_enter(s, line, slot, cid)


@kernel
def choose_gosub_line(s, digit, cid):
    """A destination line for GOSUB's target, or -1 when none qualifies (or error)."""
    options = 0
    for line in range(s.lines):
        if gosub_line_ok(s, line, cid):
            options += 1
    if options == 0:
        return -1
    if s.policy[digit] != POLICY_SCRIPT:
        ask_about(s, ASK_LINE, cid, -1, -1)
        k = pick(s, digit, options)
        for line in range(s.lines):
            if gosub_line_ok(s, line, cid):
                if k == 0:
                    return line
                k -= 1
    row = next_script(s)
    if row >= 0:
        line = s.script[row, 4]
        if s.script[row, 0] == SCRIPT_LINE and 0 <= line < s.lines and gosub_line_ok(s, line, cid):
            return line
    s.error = ERR_ILLEGAL
    return -1
