"""Shared test settings: how many random games the property tests play.

NUMBA_DISABLE_JIT=1 runs the engine as plain Python, about a hundred times slower,
so the sample shrinks there.
"""

from __future__ import annotations

import os

from hypothesis import settings

from sim.engine.state import STATE_DTYPE, new_state

SLOW_ENGINE = os.environ.get("NUMBA_DISABLE_JIT") == "1"
settings.register_profile("default", deadline=None, max_examples=60 if SLOW_ENGINE else 700)
settings.load_profile("default")

SHIPPED = ("base", "base-60", "variants", "101", "large")


def copy_state(state):
    """An independent copy of a state record, field by field (the tests' own, simpler than
    the engine's clone, so each checks the other)."""
    out = new_state()
    for name in STATE_DTYPE.names:
        out[name] = state[name]
    return out
