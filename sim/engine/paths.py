"""Decision paths: following a pre-chosen sequence of option indexes through a chain, and
remembering the display at each decision so the CPU can rank what an option led to."""

from __future__ import annotations

import numpy as np

from sim.engine.jit import DISABLED, inlined, kernel
from sim.engine.state import ERR_OVERFLOW, MAX_DEPTH, NO_CARD, STATE_DTYPE


class DecisionPending(Exception):
    """Raised at the decision a Python strategy is to make (s.path_ask); s is left as it
    stands at that decision, so the caller can show the strategy its options."""


@kernel
def path_choice(s, n):
    """The option the path takes at the next decision (which offers n options)."""
    depth = s.path_pos
    if depth >= MAX_DEPTH:  # cannot happen in a legal position (state.MAX_DEPTH); never truncate
        s.error = ERR_OVERFLOW
        return 0
    s.path_options[depth] = n
    if depth == s.path_ask - 1:
        raise DecisionPending()
    if depth == s.snap_at:
        snapshot(s)
    s.path_pos += 1
    choice = s.path[depth]
    return choice if choice < n else 0


@kernel
def set_path(s, path, length):
    """s.path = path[:length], zeros after it, as plain loops, which LLVM turns into vector
    moves: numba's slice assignment into a record's array copied byte by byte behind a
    broadcast check (40% of the time greedy spent playing a move on a copy, perf). Zeros
    first, then the path: one loop with a select per entry went entry by entry over all
    MAX_DEPTH (8% of an ismcts game, whose moves carry a few decisions, perf)."""
    for depth in range(MAX_DEPTH):
        s.path[depth] = 0
    for depth in range(length):
        s.path[depth] = path[depth]


@kernel
def snapshot(s):
    """Each card's line and whether it shows the CPU's digit, as decision s.snap_at is made."""
    s.snap_line[:] = -1
    s.snap_own[:] = 0
    for line in range(s.lines):
        for col in range(s.width[line]):
            cid = s.grid[line, col]
            if cid != NO_CARD:
                s.snap_line[cid] = line
                s.snap_own[cid] = s.face[cid] == s.cpu


@kernel
def note_placed(s, cid, line):
    """A card placed after the snapshot's decision counts, from that decision's point of
    view, as having been on the display from the start (so its later fate is ranked)."""
    if 0 <= s.snap_at < s.path_pos:
        s.snap_line[cid] = line
        s.snap_own[cid] = s.face[cid] == s.cpu


def _scratch_py():
    return np.zeros(1, dtype=STATE_DTYPE).view(np.recarray)


@kernel
def _scratch_jit():
    return np.zeros(1, dtype=STATE_DTYPE)


# A one-record array to copy states into. Keep the array itself alive while its record is
# used: a numba record does not hold a reference to the array it lives in.
scratch_state = _scratch_py if DISABLED else _scratch_jit


@kernel
def next_change(current, options, depth):
    """Where the odometer over the decisions taken turns next: the deepest decision with an
    option left, or -1 when this was the last path."""
    for j in range(depth - 1, -1, -1):
        if current[j] + 1 < options[j]:
            return j
    return -1


@inlined  # per move tried by greedy, heuristic and the searches: arrays cost counts as a call
def advance(current, options, depth):
    """Next path in lexicographic order (an odometer over the decisions taken); False at end."""
    j = next_change(current, options, depth)
    if j < 0:
        return False
    current[j] += 1
    current[j + 1 :] = 0
    return True
