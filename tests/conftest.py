"""Shared test settings: how many random games the property tests play.

NUMBA_DISABLE_JIT=1 runs the engine as plain Python, about a hundred times slower,
so the sample shrinks there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from sim.engine.state import STATE_DTYPE, new_state

SLOW_ENGINE = os.environ.get("NUMBA_DISABLE_JIT") == "1"
settings.register_profile("default", deadline=None, max_examples=60 if SLOW_ENGINE else 700)
settings.load_profile("default")

SHIPPED = ("base", "base-60", "variants", "101", "large")

# The longest files, longest first (pytest --durations; docs/performance.md, "The test
# suite"): xdist hands out whole files in collection order, so these start first and the
# suite ends on short files instead of one long file running alone.
LONGEST = (
    "engine/test_indexes.py",  # recompiles the engine with bounds checks
    "engine/test_invariants.py",  # 700 games per property and config, turn by turn
    "model/test_uncompiled.py",  # the rules as plain Python
    "tune/test_tune.py",  # studies played through the runner
    "engine/test_compile.py",  # cold compiles on purpose
    "players/test_strategy_failures.py",  # `sim run` children with failing strategies
    "tune/test_train.py",
    "runner/test_runner.py",
    "cli/test_bad_inputs.py",  # hypothesis-mutated configs and specs
    "store/test_lock.py",
    "reports/test_solo.py",
    "reports/test_calibration.py",
    "players/test_conformance.py",
    "engine/test_engine_limits.py",  # stress decks played to the end
)


def pytest_collection_modifyitems(items):
    """Files in LONGEST first, in that order; the rest as collected."""
    rank = {name: i for i, name in enumerate(LONGEST)}

    def key(item):
        path = Path(str(item.path)).relative_to(Path(__file__).parent).as_posix()
        return rank.get(path, len(LONGEST))

    items.sort(key=key)  # stable: tests keep their order within a file


def copy_state(state):
    """An independent copy of a state record, field by field (the tests' own, simpler than
    the engine's clone, so each checks the other)."""
    out = new_state()
    for name in STATE_DTYPE.names:
        out[name] = state[name]
    return out


@pytest.fixture(scope="session")
def warm_random_run(tmp_path_factory):
    """The random loop and the part writer compiled into the engine's cache before a test
    times a `sim run` child: on a cold cache (a clean clone, or a parallel worker that
    reaches the test first) the child would spend its deadline compiling, not playing."""
    from sim.runner.plan import make_plan
    from sim.runner.run import RunOptions, execute

    plan = make_plan(["base"], ["random,random"], 400, 0, True, 200)
    execute(plan, tmp_path_factory.mktemp("warm") / "run", RunOptions(workers=1))


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch):
    """Output is checked as a pipe gets it: pytest-xdist's workers carry COLUMNS=80, which
    made tables and warnings wrap there and not in a serial run. A test that wants a width
    passes COLUMNS itself."""
    monkeypatch.delenv("COLUMNS", raising=False)
