"""Rollouts that use the evaluation: the knob mc and ismcts share (issue #33).

A search seat's state weights hold an evaluation (strategies/heuristic.py's slots, the
trained weights of strategies/weights/guide.toml unless a spec says otherwise) and two
numbers after them:

- GUIDE: the percent of rollout turns the one-ply heuristic plays with those weights
  (epsilon-greedy; the others are random turns that take an immediate win, as before);
- DEPTH: the turns a rollout plays before the evaluation scores the position (0: to the
  end). A cut position's value in points becomes a win chance by a logistic curve of
  LEAF_SCALE points, since the searches average win chances.

GUIDE 0 and DEPTH 0 are the plain random rollouts, which play the same games as before.
"""

from __future__ import annotations

import numpy as np

from sim.engine.cpu import cpu_turn
from sim.engine.jit import kernel
from sim.engine.state import EVAL_SLOTS, ONGOING, POLICY_RANDOM
from sim.engine.turn import canonical_turn
from strategies.heuristic import N_WEIGHTS, one_ply_turn, settled_value, weights_box
from strategies.search import may_end, outcome, rand, take_win

S_DEPTH, S_GUIDE = N_WEIGHTS, N_WEIGHTS + 1  # the seat's weights slots of the two knobs
LEAF_SCALE = 25.0  # points of evaluation per unit of log-odds at a cut rollout's leaf
assert S_GUIDE < EVAL_SLOTS


@kernel
def knobs(s, digit):
    """(depth, guide, the evaluation's record as box[0]) of the seat digit."""
    w = s.weights[digit]
    return int(w[S_DEPTH]), int(w[S_GUIDE]), weights_box(w)


@kernel
def guided_rollout(t, digit, spare, box, depth, guide, r):
    """Play t on (to its end, or depth turns), then digit's value in [0, 1] and a margin
    term's points (0 at a cut): random turns that take an immediate win, each turn the
    heuristic's with probability guide percent (drawn from the search stream r); spare: a
    scratch state array."""
    t.policy[0] = POLICY_RANDOM
    t.policy[1] = POLICY_RANDOM
    turns = 0
    while t.ended == ONGOING and t.error == 0:
        if depth > 0 and turns >= depth:
            value = settled_value(t, t, digit, box[0])
            return 1.0 / (1.0 + np.exp(-value / LEAF_SCALE)), 0.0
        mover = t.mover
        if mover == t.cpu:
            cpu_turn(t)
        elif guide > 0 and rand(r, 100) < guide:
            one_ply_turn(t, box, spare)
            t.policy[mover] = POLICY_RANDOM  # one_ply_turn leaves the seat on the heuristic
        elif not may_end(t, mover) or not take_win(t, mover, spare[0]):
            canonical_turn(t)
        turns += 1
    value, margin = outcome(t, digit)
    return value, margin
