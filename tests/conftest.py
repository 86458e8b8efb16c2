"""Shared test settings: the engine's build, how many random games the property tests play.

Every test, and every process a test starts, runs the engine compiled with numba's bounds
checks (NUMBA_BOUNDSCHECK=1), into a cache folder of its own (sim.engine.jit.build): an
index outside an array raises IndexError in any test instead of reading past it
(engine/test_indexes.py), and the engine is compiled once per build, not once checked and
once not. Checks cost compiled play a few percent. NUMBA_BOUNDSCHECK=0 tests the build
runs use. NUMBA_DISABLE_JIT=1 runs the engine as plain Python, about a hundred times
slower, so the sample shrinks there.
"""

from __future__ import annotations

import os
from pathlib import Path

# Before numba is imported: it reads the variable once. 0 asks for the build runs use, which
# is numba's per-function setting (a global 0 would also switch off the checks a test asks for).
if os.environ.setdefault("NUMBA_BOUNDSCHECK", "1") == "0":
    del os.environ["NUMBA_BOUNDSCHECK"]

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from sim.engine.state import STATE_DTYPE, new_state  # noqa: E402

SLOW_ENGINE = os.environ.get("NUMBA_DISABLE_JIT") == "1"
settings.register_profile("default", deadline=None, max_examples=60 if SLOW_ENGINE else 700)
settings.load_profile("default")

SHIPPED = ("base", "base-60", "variants", "101", "large")

# The longest files, longest first (pytest --durations; docs/performance.md, "The test
# suite"): xdist hands out whole files in collection order, so these start first and the
# suite ends on short files instead of one long file running alone.
LONGEST = (
    "engine/test_indexes.py",  # compiles every loop (conftest.every_loop) first
    "model/test_uncompiled.py",  # the rules as plain Python: compiles nothing meanwhile
    "engine/test_invariants.py",  # 700 games per property and config, turn by turn
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


def pytest_configure(config):
    """The project's sources byte-compiled once, by the first pytest process: every Python
    process the suite starts (sim commands, runner workers, children) loads them, where
    otherwise, with PYTHONDONTWRITEBYTECODE set as on CI machines, each compiled them again."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller has done it
        return
    import compileall

    root = Path(__file__).resolve().parents[1]
    for folder in ("sim", "reports", "strategies"):
        compileall.compile_dir(root / folder, quiet=1)


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


# One match-up a compiled loop, smallest tier first, the full loop last (sim.play.compiled).
EVERY_LOOP = (
    "random,random", "greedy,random", "heuristic,random", "random,cpu", "greedy,cpu",
    "heuristic,cpu", "mc(rollouts=4),random", "ismcts(iterations=4),mc(rollouts=4)",
)  # fmt: skip


@pytest.fixture(scope="session")
def every_loop(tmp_path_factory):
    """Every compiled loop in the suite's cache before a test plays the full loop: the first
    test process to ask compiles them, any other waits on a lock all xdist workers share,
    then loads them. Smallest first, so other tests find the small loops cached early
    instead of compiling the same functions again at the same time (on a clean clone,
    minutes of CPU); the loops compiled in one process share their callees' compile."""
    import fcntl

    from sim.model.config import load
    from sim.play.batch import prepare
    from sim.players.specs import parse_matchup

    base = load("base")
    with open(tmp_path_factory.getbasetemp().parent / "every-loop.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        for players in EVERY_LOOP:
            seats = parse_matchup(players)
            level = seats.cpu_level(base.rules.cpu_level)
            prepare(base, seats.policy_codes(), seats.budgets(), level)


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch):
    """Output is checked as a pipe gets it: pytest-xdist's workers carry COLUMNS=80, which
    made tables and warnings wrap there and not in a serial run. A test that wants a width
    passes COLUMNS itself."""
    monkeypatch.delenv("COLUMNS", raising=False)
