"""One place that decides how engine functions are compiled, and where their cache lives."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

DISABLED = bool(numba.config.DISABLE_JIT)
_ENGINE = Path(__file__).resolve().parent
_SIM = _ENGINE.parent
# What the compiled code is built from: the rules, the built-in players (strategies/) and
# the loop joining them. numba's cache only watches each function's own file, so an edit
# to a callee or a dtype in another file would leave stale code behind.
_SOURCES = (
    sorted(_ENGINE.glob("*.py"))
    + [_SIM / "cards.py", _SIM / "compiled_loop.py"]
    + sorted((_SIM.parent / "strategies").glob("*.py"))
)


def fingerprint() -> str:
    """A short digest of every compiled source (_SOURCES) and the numba version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in _SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cache_folder() -> Path:
    """The numba cache of this exact engine: one folder per source fingerprint, under
    NUMBA_CACHE_DIR when the user set one, else beside the engine's sources."""
    root = os.environ.get("NUMBA_CACHE_DIR") or str(_ENGINE / "__pycache__" / "numba")
    return Path(root) / fingerprint()


# Set before any function below is decorated: numba picks a function's cache folder then.
numba.config.CACHE_DIR = str(cache_folder())


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


def cached(dispatcher) -> bool:
    """Whether an entry point has fresh compiled code on disk (a load, not a compile)."""
    if DISABLED or dispatcher.overloads:
        return True
    try:
        return bool(dispatcher._cache._cache_file._load_index())  # numba has no public check
    except (AttributeError, OSError, EOFError):
        return False
