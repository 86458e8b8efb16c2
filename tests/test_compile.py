"""Compiling only what runs, saying so, and a cache that follows the engine's sources.

The cold runs use a fresh NUMBA_CACHE_DIR, so they really compile (the random loop only:
tens of seconds of CPU, not the whole engine).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.engine import jit

ROOT = Path(__file__).resolve().parent.parent
NOTE = "compiling the engine for random vs random, first run only"


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
    assert jit.cache_folder() == tmp_path / "cache" / jit.fingerprint()


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
        and ROOT / "sim" / "compiled_loop.py" in compiled
    )
    assert compiled - {p.resolve() for p in jit._SOURCES} == set()
