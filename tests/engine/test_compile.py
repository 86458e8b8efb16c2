"""Compiling only what runs, saying so, and a cache that follows the engine's sources.

The cold runs use a fresh NUMBA_CACHE_DIR, so they really compile (the random loop only:
tens of seconds of CPU, not the whole engine).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sim.engine import jit

ROOT = Path(__file__).resolve().parents[2]
NOTE = "compiling the engine for random vs random, first run only"
WRITER_NOTE = "compiling the run's part writer, first run only"


def sim(cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    command = [sys.executable, "-m", "sim", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def cold(tmp_path_factory):
    """A first `sim run` of random vs random on an empty cache, then the cache it left."""
    cache = tmp_path_factory.mktemp("numba")
    out = tmp_path_factory.mktemp("run") / "quick"
    done = sim(cache, "run", "--games", "2000", "--workers", "1", "--out", str(out))
    return done, cache


def test_a_cold_run_says_it_compiles_once_and_only_the_random_loop(cold):
    done, cache = cold
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NOTE) == 1
    names = [p.name for p in cache.rglob("*.nbi")]
    assert any("play_random_games" in n for n in names)
    for other in ("play_games", "greedy", "heuristic", "mc.", "ismcts", "cpu."):
        assert not any(other in n for n in names), (other, names)


def runner_files(cache: Path) -> set[str]:
    """The cached compiled code of the runner's own kernels (part writer, tallies)."""
    return {p.name for d in cache.rglob("store_*") for p in d.iterdir()}


def test_the_part_writer_compiles_before_the_workers_and_they_only_load_it(cold, tmp_path):
    """The cold run said so once (its writer compiled beside the engine, in a helper
    process, on a machine with two cores), and its workers added nothing to what
    compile_writer compiles alone on a cache holding just the engine: they compiled
    nothing."""
    done, cache = cold
    assert done.stderr.count(WRITER_NOTE) == 1
    alone = tmp_path / "numba"
    shutil.copytree(cache, alone)
    for folder in list(alone.rglob("store_*")):
        shutil.rmtree(folder)
    code = (
        "from sim.runner.plan import make_plan; from sim.runner.run import compile_writer; "
        "compile_writer(make_plan(['base'], ['random,random'], 2000, 0), print)"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(alone), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    warm_up = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert warm_up.returncode == 0, warm_up.stderr
    assert runner_files(alone) == runner_files(cache) != set()


def test_a_warm_run_says_nothing_about_compiling(cold, tmp_path):
    _, cache = cold
    done = sim(cache, "run", "--games", "2000", "--workers", "1", "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    assert "compiling" not in done.stderr


def test_a_warm_bench_loads_and_says_nothing_about_compiling(cold):
    _, cache = cold
    done = sim(cache, "bench", "--config", "base", "--games", "2000")
    assert done.returncode == 0, done.stderr
    assert NOTE not in done.stderr and "loaded" in done.stdout


def test_the_cache_folder_follows_every_engine_source(tmp_path, monkeypatch):
    sources = []
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("x = 1\n")
        sources.append(tmp_path / name)
    monkeypatch.setattr(jit, "_SOURCES", sources)
    before = jit.fingerprint()
    (tmp_path / "b.py").write_text("x = 2\n")
    assert jit.fingerprint() != before
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(jit.numba.config, "BOUNDSCHECK", None)
    monkeypatch.setattr(jit.numba.config, "OPT", 3)
    assert jit.cache_folder() == tmp_path / "cache" / jit.fingerprint()


@pytest.mark.parametrize(
    ("boundscheck", "opt", "suffix"),
    [(None, 3, ""), (0, 3, ""), (1, 3, "-boundscheck"), (1, 0, "-boundscheck-opt0"),
     (None, 2, "-opt2")],
)  # fmt: skip
def test_each_way_of_compiling_has_its_own_cache_folder(monkeypatch, boundscheck, opt, suffix):
    """numba's cache key leaves out bounds checks and the optimisation level: a folder each,
    so the test suite's bounds-checked build is never loaded by a run, nor a run's by it."""
    monkeypatch.setattr(jit.numba.config, "BOUNDSCHECK", boundscheck)
    monkeypatch.setattr(jit.numba.config, "OPT", opt)
    assert jit.cache_folder().name == jit.fingerprint() + suffix


def compiles_with_the_engine(path: Path) -> bool:
    """Whether a module decorates functions with the engine's numba decorators."""
    decorators = {"kernel", "inlined", "entry"}
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "sim.engine.jit"
        and decorators & {a.name for a in node.names}
        for node in ast.walk(ast.parse(path.read_text()))
    )


def test_the_fingerprint_covers_every_module_compiled_with_the_engine():
    modules = [p for d in ("sim", "strategies") for p in sorted((ROOT / d).rglob("*.py"))]
    compiled = {p.resolve() for p in modules if compiles_with_the_engine(p)}
    assert (
        ROOT / "strategies" / "greedy.py" in compiled
        and ROOT / "sim" / "play" / "compiled.py" in compiled
    )
    assert compiled - {p.resolve() for p in jit._SOURCES} == set()


def test_only_the_functions_marked_inlined_are_forced_inline():
    """numba hands forceinline down to a callee that does not set it, so a function compiled
    without saying (a bare numba.njit) would be forced inline under an inlined caller."""
    import importlib

    from numba.core.registry import CPUDispatcher

    forced = []
    for path in jit._SOURCES:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for attr, value in vars(importlib.import_module(name)).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name:
                assert "forceinline" in value.targetoptions, f"{name}.{attr}"
                if value.targetoptions["forceinline"]:
                    forced.append(attr)
    assert {"canonical_turn", "execute_card", "play_move", "add_child"} <= set(forced)
    assert not {"clone", "take_win", "rollout_to_end", "play_random_games"} & set(forced)


# --- one loop per tier of players -----------------------------------------------------------

REPORT_SIGNATURES = """
import numpy as np
from sim.play import calls, compiled
from sim.model import config
from sim.engine import cpu
from sim.play.batch import play_matchup
from sim.players.specs import matchup
from strategies import greedy, heuristic, ismcts, mc

play_matchup(config.load("base"), matchup(A, "random"), np.arange(3, dtype=np.uint64))
functions = {f.__name__: f for tier in compiled.TIERS for f in tier[1:]}
functions.update(greedy=greedy.greedy_turn, heuristic=heuristic.heuristic_turn,
                 mc=mc.mc_turn, ismcts=ismcts.ismcts_turn, cpu=cpu.cpu_turn)
functions.update({f.__name__: f for f in calls._SEATS.values()})
print(sorted(name for name, f in functions.items() if f.signatures))
"""


def test_a_greedy_run_compiles_or_loads_only_the_greedy_loop():
    """In a fresh process on the engine's own cache (a load when warm, a compile when cold:
    either way no other loop or player is reached)."""
    reached = compiled_by('"greedy", "random"')
    assert reached in ("['play_greedy_games']", "['greedy', 'play_greedy_games']"), reached


def test_a_python_strategy_against_greedy_compiles_greedy_alone():
    """The Python loop calls the seated policy's own turn (calls.greedy_seat), not the full
    dispatch: no loop and no other player is compiled. greedy_turn itself has a signature
    only when the seat's entry was compiled rather than loaded from the cache."""
    reached = compiled_by('"tests/strategies_for_tests.py:First", "greedy"')
    assert reached in ("['greedy_seat']", "['greedy', 'greedy_seat']"), reached


def compiled_by(players: str) -> str:
    """The loops and players that have a signature after a fresh process plays 3 games of
    players (the A,B arguments of play_matchup, as Python source)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    script = REPORT_SIGNATURES.replace('A, "random"', players)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


WARM = """
from sim.play import compiled
from sim.runner.plan import make_plan
from sim.runner.worker import warm
from sim.store import tables

warm([make_plan(["base"], ["greedy,random"], 4, 0).chunks()[0]])
print(bool(compiled.play_greedy_games.signatures), bool(tables._card_tally.signatures))
"""


def warmed(cache: Path | None) -> str:
    """What a worker's warm-up left loaded in a fresh process: the chunk's loop, the writer."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-c", WARM], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_worker_warms_up_from_the_cache_and_never_compiles(tmp_path):
    """On the engine's own cache (warm after a greedy run) the loop and the writer are
    loaded; on an empty cache nothing is compiled: the parent does that, once."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    run = ["run", "--players", "greedy,random", "--games", "4", "--out", str(tmp_path / "run")]
    subprocess.run([sys.executable, "-m", "sim", *run], env=env, check=True, cwd=ROOT)
    assert warmed(None) == "True True"
    assert warmed(tmp_path / "empty") == "False False"
