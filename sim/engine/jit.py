"""One place that decides how engine functions are compiled."""

from __future__ import annotations

import numba

DISABLED = bool(numba.config.DISABLE_JIT)


def kernel(func):
    """Compile a hot engine function: cached on disk, always inlined into its caller."""
    return numba.njit(cache=True)(func)


def entry(func):
    """Compile an engine entry point called from Python (not inlined: it is called once)."""
    return numba.njit(cache=True)(func)
