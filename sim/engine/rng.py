"""splitmix64: a tiny, fast 64-bit generator, one stream per game and per player.

A per-game generator is several times faster than reseeding numba's np.random for every
game (docs/engine.md), and makes games independent of workers and chunking.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import DISABLED, kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_MASK = (1 << 64) - 1


def _mix_py(x):
    """Plain-Python twin of _mix_jit: NumPy scalars warn on wrap-around, Python ints don't."""
    z = int(x)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return np.uint64(z ^ (z >> 31))


def _advance_py(x):
    return np.uint64((int(x) + 0x9E3779B97F4A7C15) & _MASK)


@kernel
def _mix_jit(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@kernel
def _advance_jit(x):
    return x + _GOLDEN


mix = _mix_py if DISABLED else _mix_jit
advance = _advance_py if DISABLED else _advance_jit


@kernel
def below(raw, n):
    """Map a 64-bit draw to 0..n-1 (multiply-shift; the bias is below 2**-32 for small n)."""
    return np.int64(((raw >> _S32) * np.uint64(n)) >> _S32)


@kernel
def chance_int(s, n):
    """A uniform integer in 0..n-1 from the deal's stream."""
    s.chance = advance(s.chance)
    return below(mix(s.chance), n)


@kernel
def strategy_int(s, digit, n):
    """A uniform integer in 0..n-1 from one player's strategy stream."""
    s.srng[digit] = advance(s.srng[digit])
    return below(mix(s.srng[digit]), n)
