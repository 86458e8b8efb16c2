"""The `mc` strategy (being written: plays as greedy until then)."""

from __future__ import annotations

from sim.engine.greedy import greedy_turn
from sim.engine.jit import kernel


@kernel
def mc_turn(s):
    greedy_turn(s)
