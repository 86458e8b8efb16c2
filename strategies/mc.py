"""The `mc` strategy: determinised Monte Carlo over the legal moves, by successive halving.

Each round deals the hidden cards again (search.determinise) and rolls every surviving move
out on the same deal with the same random streams (common random numbers, so moves are
compared on equal luck); the better half by mean value survives. The budget is the total
number of rollouts per decision, spread evenly over the rounds. Rollouts are random but
take an immediate win, and may use the evaluation: heuristic turns among the random ones,
a cut after some turns scored by the evaluation (guided.guided_rollout, the seat's knobs).
"""

from __future__ import annotations

import numpy as np

from sim.engine.clone import clone
from sim.engine.jit import kernel
from sim.engine.paths import scratch_state
from sim.engine.state import POLICY_MC, POLICY_RANDOM
from strategies.guided import guided_rollout, knobs
from strategies.search import determinise, pass_turn, play_move, search_start

MARGIN_WEIGHT = 0.002  # a point of margin is worth this much win probability (breaks ties)


@kernel
def rounds_for(n):
    """Halving rounds until one move is left: ceil(log2(n))."""
    rounds = 0
    while (1 << rounds) < n:
        rounds += 1
    return rounds


@kernel
def rank(alive, m, total, count):
    """Sort alive[:m] by mean value, best first; ties keep the fixed move order."""
    for a in range(1, m):
        mv = alive[a]
        mean = total[mv] / count[mv]
        b = a
        while b > 0:
            prev = alive[b - 1]
            if total[prev] / count[prev] >= mean:
                break
            alive[b] = prev
            b -= 1
        alive[b] = mv


@kernel
def halving(s, det, work, deals, digit, forced, moves, n, budget, r):
    """The index of the best of moves[:n] after successive halving."""
    spare = scratch_state()
    depth, guide, box = knobs(s, digit)
    alive = np.arange(n)
    total = np.zeros(n)
    count = np.zeros(n)
    m = n
    rounds = rounds_for(n)
    for _ in range(rounds):
        per = max(1, budget // rounds // m)
        for _ in range(per):
            determinise(s, det, digit, r, deals[0])
            for a in range(m):
                mv = alive[a]
                t = clone(work, det[0])
                play_move(t, digit, moves, mv, forced, POLICY_RANDOM)
                value, margin = guided_rollout(t, digit, spare, box, depth, guide, r)
                total[mv] += value + MARGIN_WEIGHT * margin
                count[mv] += 1
        rank(alive, m, total, count)
        m = (m + 1) // 2
    return alive[0]


@kernel
def mc_turn(s):
    """One whole turn of an mc player, with s.budget[mover] rollouts."""
    digit = s.mover
    forced, r, det, work, deals, moves, n = search_start(s, digit)
    if n == 0:
        pass_turn(s, digit)
        return
    best = 0
    if n > 1:
        best = halving(s, det, work, deals, digit, forced, moves, n, s.budget[digit], r)
    play_move(s, digit, moves, best, forced, POLICY_MC)
