"""One turn of a human seat by the built-in policy sitting there, in tiers: each tier's
dispatch reaches its own policy and every tier below it, so a loop compiles only the players
its seats can need (random < greedy < heuristic < mc < ismcts). The policies are exclusive,
so every tier plays a seat it reaches exactly as the full dispatch (seat_turn) does."""

from __future__ import annotations

from sim.engine.cpu import cpu_turn
from sim.engine.jit import inlined
from sim.engine.state import POLICY_GREEDY, POLICY_HEURISTIC, POLICY_ISMCTS, POLICY_MC
from sim.engine.turn import random_turn
from strategies.greedy import greedy_turn
from strategies.heuristic import heuristic_turn
from strategies.ismcts import ismcts_turn
from strategies.mc import mc_turn


@inlined
def greedy_seat(s):
    """The mover's turn: greedy, else random."""
    if s.policy[s.mover] == POLICY_GREEDY:
        greedy_turn(s)
    else:
        random_turn(s)


@inlined
def heuristic_seat(s):
    """The mover's turn: heuristic, else as greedy_seat."""
    if s.policy[s.mover] == POLICY_HEURISTIC:
        heuristic_turn(s)
    else:
        greedy_seat(s)


@inlined
def mc_seat(s):
    """The mover's turn: mc, else as heuristic_seat."""
    if s.policy[s.mover] == POLICY_MC:
        mc_turn(s)
    else:
        heuristic_seat(s)


@inlined
def seat_turn(s):
    """The mover's turn by any built-in policy (random unless another is seated)."""
    if s.policy[s.mover] == POLICY_ISMCTS:
        ismcts_turn(s)
    else:
        mc_seat(s)


ismcts_seat = seat_turn  # the top tier reaches every policy


@inlined
def cpu_or_random(s):
    """The CPU card's turn when it moves, else the random seat's."""
    if s.mover == s.cpu:
        cpu_turn(s)
    else:
        random_turn(s)


@inlined
def cpu_or_greedy(s):
    """The CPU card's turn when it moves, else as greedy_seat."""
    if s.mover == s.cpu:
        cpu_turn(s)
    else:
        greedy_seat(s)


@inlined
def cpu_or_heuristic(s):
    """The CPU card's turn when it moves, else as heuristic_seat."""
    if s.mover == s.cpu:
        cpu_turn(s)
    else:
        heuristic_seat(s)


@inlined
def cpu_or_mc(s):
    """The CPU card's turn when it moves, else as mc_seat (mc's rollouts compile the CPU
    anyway, so the mc tier has one loop for both)."""
    if s.mover == s.cpu:
        cpu_turn(s)
    else:
        mc_seat(s)


@inlined
def cpu_or_any(s):
    """The CPU card's turn when it moves, else as seat_turn."""
    if s.mover == s.cpu:
        cpu_turn(s)
    else:
        seat_turn(s)


def turn_for(policy: int):
    """The compiled turn of one built-in policy, for callers in Python (the Python loop,
    the conformance suite): calling it compiles that player alone, not every tier."""
    return _TURNS.get(int(policy), random_turn)


_TURNS = {
    POLICY_GREEDY: greedy_turn,
    POLICY_HEURISTIC: heuristic_turn,
    POLICY_MC: mc_turn,
    POLICY_ISMCTS: ismcts_turn,
}
