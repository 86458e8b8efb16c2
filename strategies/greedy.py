"""The `greedy` strategy: one ply, the move with the best immediate score margin.

Every legal move is tried on a copy of the game: each playable hand card, each of its
lines, each direction, and every sub-decision of the chain it starts (PRINT, PASTE,
GOSUB), found by walking decision paths as the CPU does. Ties go to the first move in
the fixed order: hand order, lines top to bottom, directions L R U D, sub-options in
their order. Passes only when no card can be played.
"""

from __future__ import annotations

import numpy as np

from sim.engine.clone import copy_into
from sim.engine.decide import n_dirs, nth_dir
from sim.engine.jit import inlined, kernel
from sim.engine.paths import advance, scratch_state, set_path
from sim.engine.score import scores
from sim.engine.state import MAX_DEPTH, POLICY_GREEDY, POLICY_PATH
from sim.engine.turn import begin_turn, card_lines, finish_turn, line_masks, put_card


@kernel
def margin(s, digit):
    zero, one = scores(s)
    return one - zero if digit == 1 else zero - one


@inlined
def play_on_copy(s, t, digit, index, line, direction, forced, path):
    """Play one move with its sub-decisions along path on a copy in the scratch record t;
    (decisions taken, options per decision). The options are the copy's own, valid until t
    is next written: a copy of them per move tried cost an allocation. A record, not its
    one-record array: an array passed to a call made per move tried costs a reference count
    up and down (clone.copy_into); inlined, so its path is not counted either."""
    copy_into(t, s)
    t.policy[digit] = POLICY_PATH
    set_path(t, path, MAX_DEPTH)
    t.path_pos = 0
    put_card(t, digit, index, line, direction, forced)
    return t.path_pos, t.path_options


@kernel
def try_move(s, t, digit, index, line, direction, forced, path):
    """Play one move with its sub-decisions along path on a copy in the record t; (margin,
    decisions taken, options per decision)."""
    depth, options = play_on_copy(s, t, digit, index, line, direction, forced, path)
    return margin(t, digit), depth, options


@kernel
def play_move(s, digit, index, line, direction, forced, path, policy):
    """Play the chosen move for real, its sub-decisions along path, then seat policy back."""
    s.policy[digit] = POLICY_PATH
    set_path(s, path, MAX_DEPTH)
    s.path_pos = 0
    put_card(s, digit, index, line, direction, forced)
    s.policy[digit] = policy


@kernel
def greedy_turn(s):
    """One whole turn of a greedy player."""
    digit = s.mover
    forced = begin_turn(s, digit)
    plain, cont = line_masks(s)
    scratch = scratch_state()
    best = -(10**9)
    best_move = (-1, -1, 0)
    best_path = np.zeros(MAX_DEPTH, dtype=np.int8)
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    for index in range(s.hand_len[digit]):
        cid = s.hand[digit, index]
        mask = card_lines(s, cid, forced, plain, cont)
        for line in range(s.lines):
            if not mask & (1 << line):
                continue
            for k in range(n_dirs(s, cid)):
                direction = nth_dir(s, cid, k)
                path[:] = 0
                while True:
                    value, depth, options = try_move(
                        s, scratch[0], digit, index, line, direction, forced, path
                    )
                    if value > best:
                        best = value
                        best_move = (index, line, direction)
                        best_path[:] = path
                    if not advance(path, options, depth):
                        break
    index, line, direction = best_move
    if index >= 0:
        play_move(s, digit, index, line, direction, forced, best_path, POLICY_GREEDY)
    finish_turn(s, digit, index < 0, True)
