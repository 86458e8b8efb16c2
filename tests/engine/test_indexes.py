"""The engine and the built-in players are compiled without numba's negative-index wrap
(sim/engine/jit.py): safe only while they never index with a negative value.

A negative index there would read or write outside the array instead of counting from
its end. With numba's bounds checks on (NUMBA_BOUNDSCHECK=1) such an index raises
IndexError instead. The whole suite runs that build (tests/conftest.py); here a child
process of it plays every built-in policy and the CPU card on every shipped config, and
the rule scenarios, whatever build the suite itself runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from conftest import SLOW_ENGINE

import sim.engine.jit  # noqa: F401 (installs the no-wrap indexing)

HERE = Path(__file__).resolve().parents[1]  # tests/


def _probe(module: str, checked: bool = True):
    """a[i] compiled as if defined in module (numba mangles it in), with bounds checks, or
    (checked False) with the session's own setting."""

    def at(a, i):
        return a[i]

    at.__module__ = module
    return numba.njit(boundscheck=True)(at) if checked else numba.njit(at)


@pytest.mark.skipif(SLOW_ENGINE, reason="numba compiles nothing with the JIT off")
def test_only_the_engine_s_own_code_loses_the_wrap():
    a = np.arange(5)
    assert _probe("tests.elsewhere")(a, -1) == 4  # other numba code indexes as Python does
    assert _probe("sim.store.tables")(a, -1) == 4  # sim's part writer too
    for module in ("sim.engine.probe", "sim.play.compiled", "strategies.probe"):
        assert _probe(module)(a, 1) == 1
        with pytest.raises(IndexError):  # no wrap, so -1 is below the bounds
            _probe(module)(a, -1)


def _module_of(prefix: bytes) -> str:
    """The dotted module a mangled-name prefix stands for: _ZN3sim6engine -> sim.engine."""
    text, names = prefix.decode().removeprefix("_ZN"), []
    while text:
        digits = len(text) - len(text.lstrip("0123456789"))
        size = int(text[:digits])
        names.append(text[digits : digits + size])
        text = text[digits + size :]
    return ".".join(names)


def test_every_no_wrap_prefix_names_a_real_module():
    """A module renamed without its prefix in jit.OWN_CODE would silently keep the wrap."""
    root = HERE.parent
    for prefix in sim.engine.jit.OWN_CODE:
        path = root / _module_of(prefix).replace(".", "/")
        assert path.is_dir() or path.with_suffix(".py").is_file(), prefix
    assert _module_of(b"_ZN3sim4play8compiled") == "sim.play.compiled"


# Every loop compiled with bounds checks: the full loop (every policy, with and without the
# CPU card) and random play's own loop, on every shipped config. Small budgets: the searches'
# code is the same at any budget.
CHILD = """
import numpy as np
from sim.play.compiled import play_games
from sim.model.config import load
from sim.engine.game import lead_buffer, play_random_games
from sim.engine.state import new_state
from sim.play.batch import engine_seats, result_buffers
from sim.players.specs import parse_matchup

MATCHUPS = ("greedy,random", "heuristic,greedy", "mc(rollouts=12),heuristic",
            "ismcts(iterations=30),mc(rollouts=12)", "random,cpu(level=1)",
            "greedy,cpu(level=2)", "heuristic,cpu(level=3)", "mc(rollouts=12),cpu(level=4)")
for name in ("base", "base-60", "variants", "101", "large"):
    config = load(name)
    for players, games in [("random,random", 3000)] + [(m, 6) for m in MATCHUPS]:
        seats = parse_matchup(players)
        level = seats.cpu_level(config.rules.cpu_level)
        loop = play_random_games if players == "random,random" else play_games
        seeds = np.arange(1, games + 1, dtype=np.uint64)
        swapped = np.zeros(games, np.uint8) if level else (np.arange(games) % 2).astype(np.uint8)
        seats = engine_seats(seats.policy_codes(), seats.budgets(), seats.evaluations())
        out, cards = result_buffers(games)
        leads = lead_buffer()
        loop(new_state(), config.engine_args(level), seats, seeds, swapped, out, cards, leads)
        assert (out[:, 5] == 0).all(), (name, players)  # R_ERROR
print("ok")

# The rule scenarios, in this same bounds-checked process.
import sys, pytest
sys.exit(int(pytest.main(["-q", "-n", "0", "-p", "no:cacheprovider", "model/test_scenarios.py"])))
"""


@pytest.mark.skipif(SLOW_ENGINE, reason="numba compiles nothing with the JIT off")
def test_the_suite_runs_the_bounds_checked_build():
    """conftest.py asks for bounds checks before numba is imported: a function of the
    engine's own code, compiled with no option, rejects a negative index."""
    if os.environ.get("NUMBA_BOUNDSCHECK") != "1":
        pytest.skip("NUMBA_BOUNDSCHECK is not 1: this session tests the normal build")
    with pytest.raises(IndexError):
        _probe("sim.engine.probe", checked=False)(np.arange(5), -1)
    assert sim.engine.jit.build().endswith("-boundscheck")


# The fixture may compile every loop cold under this test's timeout: minutes of CPU, past the
# suite's 15 min guard on a shared machine. The child then loads that bounds-checked build
# from the suite's cache (sim.engine.jit.build) instead of compiling it again.
@pytest.mark.timeout(2400)
@pytest.mark.skipif(SLOW_ENGINE, reason="numba compiles nothing with the JIT off")
def test_no_engine_index_is_negative(every_loop):
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=HERE, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0 and "ok" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
