"""One place that decides how engine functions are compiled."""

from __future__ import annotations

import numba

DISABLED = bool(numba.config.DISABLE_JIT)


def kernel(func):
    """Compile an engine function, cached on disk; LLVM decides whether to inline it."""
    return numba.njit(cache=True)(func)


def inlined(func):
    """Compile a mid-size function on the per-turn path inlined into its caller.

    LLVM does not inline these by itself; forcing it measured faster (PERFORMANCE.md),
    at the price of compile time, so it is kept to the few functions of a turn.
    """
    return numba.njit(cache=True, inline="always")(func)


def entry(func):
    """Compile an engine entry point called from Python (not inlined: it is called once)."""
    return numba.njit(cache=True)(func)
