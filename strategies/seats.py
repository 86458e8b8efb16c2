"""One turn of a human seat, by the built-in policy sitting there."""

from __future__ import annotations

from sim.engine.jit import inlined
from sim.engine.state import POLICY_GREEDY, POLICY_HEURISTIC, POLICY_ISMCTS, POLICY_MC
from sim.engine.turn import random_turn
from strategies.greedy import greedy_turn
from strategies.heuristic import heuristic_turn
from strategies.ismcts import ismcts_turn
from strategies.mc import mc_turn


@inlined
def seat_turn(s):
    """Dispatch the mover's turn to its policy (random unless another is seated)."""
    policy = s.policy[s.mover]
    if policy == POLICY_GREEDY:
        greedy_turn(s)
    elif policy == POLICY_HEURISTIC:
        heuristic_turn(s)
    elif policy == POLICY_MC:
        mc_turn(s)
    elif policy == POLICY_ISMCTS:
        ismcts_turn(s)
    else:
        random_turn(s)
