"""One place that decides how engine functions are compiled, and where their cache lives."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

DISABLED = bool(numba.config.DISABLE_JIT)
_ENGINE = Path(__file__).resolve().parent
_SIM = _ENGINE.parent
# What the compiled code is built from: the rules, the built-in players (strategies/), the
# loops joining them and the Python loop's entries (calls.py). numba's cache only watches
# each function's own file, so an edit to a callee or a dtype in another file would leave
# stale code behind.
_SOURCES = (
    sorted(_ENGINE.glob("*.py"))
    + [_SIM / "play" / "compiled.py", _SIM / "play" / "calls.py"]
    + sorted((_SIM.parent / "strategies").glob("*.py"))
)


def fingerprint() -> str:
    """A short digest of every compiled source (_SOURCES) and the numba version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in _SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def build() -> str:
    """The name of this build's compiled code: the source fingerprint, and how numba was
    told to compile (bounds checks, an optimisation level below 3), which numba's own cache
    key leaves out: a bounds-checked build (the test suite's) must not be loaded as the
    normal one, nor the other way round."""
    flags = "-boundscheck" if numba.config.BOUNDSCHECK else ""
    if int(numba.config.OPT) != 3:
        flags += f"-opt{int(numba.config.OPT)}"
    return fingerprint() + flags


def cache_folder() -> Path:
    """The numba cache of this exact build (build()), under NUMBA_CACHE_DIR when the user
    set one, else beside the engine's sources."""
    root = os.environ.get("NUMBA_CACHE_DIR") or str(_ENGINE / "__pycache__" / "numba")
    return Path(root) / build()


# Set before any function below is decorated: numba picks a function's cache folder then.
numba.config.CACHE_DIR = str(cache_folder())


# numba indexes like Python: a negative index counts from the end, so every integer index
# costs a compare and a select, on the chains of dependent loads a turn is made of. The
# engine and the built-in players never index with a negative value (tests/engine/test_indexes.py
# plays every policy and config with numba's bounds checks on, which then reject one), so
# their code is compiled without that wrap, which makes random play measurably faster.
# Functions are told apart by their LLVM names (numba mangles module and function name),
# so any other numba code in the process, sim's own part writer included, keeps the wrap.
OWN_CODE = (b"_ZN3sim6engine", b"_ZN3sim4play8compiled", b"_ZN10strategies")


def _unwrapped_indexes() -> None:
    """Install the no-wrap index fix-up for OWN_CODE in numba's array lowering (once)."""
    from numba.core import types
    from numba.np import arrayobj

    wrapping = getattr(arrayobj, "fix_integer_index", None)
    if wrapping is None or getattr(wrapping, "sim_unwrapped", False):
        return  # another numba layout: keep its own (slower, equally correct) indexing

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.encode().startswith(OWN_CODE):
            return context.cast(builder, idx, idxty, types.intp)
        return wrapping(context, builder, idxty, idx, size)

    fix_integer_index.sim_unwrapped = True
    arrayobj.fix_integer_index = fix_integer_index


_unwrapped_indexes()


# numba passes forceinline down to every callee that does not set it, so each decorator
# sets it: only the functions marked inlined are forced.


def kernel(func):
    """Compile an engine function, cached on disk; LLVM decides whether to inline it."""
    return numba.njit(cache=True, forceinline=False)(func)


def inlined(func):
    """Compile a mid-size function on the per-turn path inlined into its caller.

    LLVM does not inline these by itself, and forcing it is faster (docs/engine.md). It is
    forced in LLVM (alwaysinline), not in numba's IR (inline="always"): the same code, but
    numba types each function once instead of once per caller, so cold compiles are shorter.
    """
    return numba.njit(cache=True, forceinline=True)(func)


def entry(func):
    """Compile an engine entry point called from Python (not inlined: it is called once)."""
    return numba.njit(cache=True, forceinline=False)(func)


def cached(dispatcher) -> bool:
    """Whether an entry point has fresh compiled code on disk (a load, not a compile)."""
    if DISABLED or dispatcher.overloads:
        return True
    try:
        return bool(dispatcher._cache._cache_file._load_index())  # numba has no public check
    except (AttributeError, OSError, EOFError):
        return False
