"""Workers kept between runs of one process (sim.runner.local): the next run of built-in
players uses them instead of starting new ones, plays the same games, and never inherits a
worker started for other surroundings or holding a Python strategy."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import polars as pl
import pytest

from sim.runner import local
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute

HERE = Path(__file__).resolve().parents[1]  # tests/


@pytest.fixture(autouse=True)
def _no_idle_workers():
    local.stop_idle_workers()
    yield
    local.stop_idle_workers()


def idle_pids() -> list[int]:
    return sorted(worker.proc.pid for _, worker in local._IDLE)


def games(out: Path) -> pl.DataFrame:
    frame = pl.read_parquet(out / "games" / "*.parquet").drop("run_id")
    return frame.with_columns(pl.col(pl.Categorical).cast(pl.String)).sort("matchup", "game")


def run(out: Path, players: str = "random,random", seed: int = 5, workers: int = 2) -> Path:
    plan = make_plan(["base"], [players], 400, seed, True, 100)
    execute(plan, out, RunOptions(workers=workers))
    return out


def test_a_second_run_uses_the_first_run_s_workers_and_plays_the_same_games(tmp_path):
    run(tmp_path / "first", seed=5)
    kept = idle_pids()
    assert len(kept) == 2
    second = run(tmp_path / "second", seed=6)
    assert idle_pids() == kept  # no worker started, none lost
    local.stop_idle_workers()
    fresh = run(tmp_path / "fresh", seed=6)
    assert not set(idle_pids()) & set(kept)
    assert games(second).equals(games(fresh))


def test_a_python_strategy_s_run_neither_takes_nor_leaves_workers(tmp_path):
    run(tmp_path / "built-in", workers=1)
    kept = idle_pids()
    run(tmp_path / "python", f"{HERE / 'strategies_for_tests.py'}:First,random", workers=1)
    assert idle_pids() == kept


def test_another_environment_starts_its_own_workers_and_one_a_core_stays(tmp_path, monkeypatch):
    cores = os.cpu_count() or 1
    for n in range(cores + 1):
        before = set(idle_pids())
        monkeypatch.setenv("SIM_TEST_SURROUNDINGS", str(n))
        run(tmp_path / f"run{n}", workers=1)
        assert set(idle_pids()) - before  # a worker of its own, not a kept one
        assert len(idle_pids()) == min(n + 1, cores)


def test_a_kept_worker_that_died_is_replaced(tmp_path):
    run(tmp_path / "first", seed=5, workers=1)
    [dead] = idle_pids()
    os.kill(dead, signal.SIGKILL)
    local._IDLE[0][1].proc.join(timeout=5)
    second = run(tmp_path / "second", seed=6, workers=1)
    assert idle_pids() and dead not in idle_pids()
    assert games(second).height == 400
