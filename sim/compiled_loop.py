"""The compiled game loop for any built-in match-up: the rules (sim/engine) joined with the
built-in players (strategies/), one layer above both, so the engine imports no strategy.

Random against random without the CPU has its own loop in the engine
(sim.engine.game.play_random_games): it needs no seat dispatch.
"""

from __future__ import annotations

from sim.engine.cpu import cpu_turn
from sim.engine.game import record, setup
from sim.engine.jit import entry, kernel
from sim.engine.state import ONGOING
from strategies.seats import seat_turn


@kernel
def seat_policies(s, policies, budgets, swapped):
    """Strategies A and B (policies[0], policies[1], with their budgets) into their seats;
    B sits first in the second game of a seat-swapped pair."""
    a, b = (1, 0) if swapped else (0, 1)
    s.policy[s.first] = policies[a]
    s.policy[1 - s.first] = policies[b]
    s.budget[s.first] = budgets[a]
    s.budget[1 - s.first] = budgets[b]


@entry
def play_games(
    s,
    kinds,
    axes,
    lines,
    capacity,
    free,
    first_option,
    cpu_level,
    cpu_numeric,
    visibility,
    policies,
    budgets,
    seeds,
    swapped,
    out,
    cards,
):
    """Play one game per seed, each seat driven by its built-in policy (or the CPU card);
    a result row in out and card counts in cards."""
    for g in range(seeds.shape[0]):
        setup(
            s,
            kinds,
            axes,
            lines,
            capacity,
            free,
            first_option,
            cpu_level,
            cpu_numeric,
            visibility,
            seeds[g],
            swapped[g],
        )
        seat_policies(s, policies, budgets, swapped[g])
        while s.ended == ONGOING and s.error == 0:
            if s.mover == s.cpu:
                cpu_turn(s)
            else:
                seat_turn(s)
        record(s, out[g], cards[g])
    return 0
