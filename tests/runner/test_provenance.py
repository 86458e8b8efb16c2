"""Provenance: what code made a run, so a run folder is never continued by other code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.players.specs import parse_player
from sim.runner import provenance
from sim.runner.plan import make_plan
from sim.runner.run import RunError, RunOptions, execute
from sim.runner.worker import ChunkError, Task, play_chunk

EXAMPLE = Path(__file__).resolve().parents[2] / "strategies" / "examples" / "high_lines.py"


def test_the_source_fingerprint_changes_with_any_file(tmp_path, monkeypatch):
    for name in ("a.py", "engine/b.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    monkeypatch.setattr(provenance, "PACKAGE", tmp_path)
    fingerprint = provenance.source_hash.__wrapped__
    before = fingerprint()
    assert fingerprint() == before
    (tmp_path / "engine" / "b.py").write_text("x = 2\n")
    assert fingerprint() != before


def test_the_source_fingerprint_covers_the_whole_sim_package():
    """Every layer's code deals, plays or records games: the engine, the game model, the
    players, the loops, the store and the runner."""
    root = Path(__file__).resolve().parents[2]
    assert root / "sim" == provenance.PACKAGE
    assert root / "strategies" == provenance.BUILT_INS


def test_the_source_fingerprint_changes_with_a_built_in_player(tmp_path, monkeypatch):
    (tmp_path / "greedy.py").write_text("x = 1\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "mine.py").write_text("x = 1\n")
    monkeypatch.setattr(provenance, "BUILT_INS", tmp_path)
    fingerprint = provenance.source_hash.__wrapped__
    before = fingerprint()
    (tmp_path / "examples" / "mine.py").write_text("x = 2\n")  # versioned by its own file
    assert fingerprint() == before
    (tmp_path / "greedy.py").write_text("x = 2\n")
    assert fingerprint() != before


def test_a_python_strategy_is_versioned_by_its_file_and_its_own_version(tmp_path):
    path = tmp_path / "mine.py"
    shutil.copy(EXAMPLE, path)
    first = provenance.strategy_version(parse_player(f"{path}:HighLines"))
    assert "mine.py sha256" in first
    other = tmp_path / "other.py"
    other.write_text(EXAMPLE.read_text().replace("self.high = high", "self.high = not high"))
    assert (
        provenance.strategy_version(parse_player(f"{other}:HighLines")).split("sha256")[1]
        != first.split("sha256")[1]
    )
    versioned = tmp_path / "versioned.py"
    versioned.write_text(
        EXAMPLE.read_text().replace("    def __init__", '    version = "2.1"\n\n    def __init__')
    )
    version = provenance.strategy_version(parse_player(f"{versioned}:HighLines"))
    assert version.startswith("version 2.1, ")


def test_entry_point_and_built_in_versions_name_their_package():
    assert "package one-zero-one-sim" in provenance.strategy_version(parse_player("high-lines"))
    assert provenance.strategy_version(parse_player("greedy")).startswith(
        f"built-in, sim {provenance.sim_version()}"
    )


def small(games=200, players=("random,random",)):
    return make_plan(configs=["base"], players=list(players), games=games, seed=5)


def test_a_run_is_not_continued_by_changed_sim_code(tmp_path, monkeypatch):
    out = tmp_path / "r"
    execute(small(), out, RunOptions(workers=1))
    monkeypatch.setattr("sim.runner.plan.source_hash", lambda: "another-build")
    with pytest.raises(RunError, match="sim's code has changed since it was played"):
        execute(small(), out, RunOptions(workers=1))


def test_a_run_is_not_continued_by_a_changed_strategy_file(tmp_path):
    path = tmp_path / "mine.py"
    shutil.copy(EXAMPLE, path)
    plan = small(games=20, players=[f"{path}:HighLines,random"])
    out = tmp_path / "r"
    execute(plan, out, RunOptions(workers=1))
    path.write_text(EXAMPLE.read_text() + "\n# tuned\n")
    changed = small(games=20, players=[f"{path}:HighLines,random"])
    with pytest.raises(RunError, match=r"strategy .*mine.py:HighLines has changed"):
        execute(changed, out, RunOptions(workers=1))


def test_a_worker_with_other_sim_code_refuses_its_chunk(tmp_path):
    plan = small()
    chunk = plan.chunks()[0]
    task = Task(str(tmp_path), plan.run_id, chunk, 1, True, sim_source="0123456789abcdef")
    with pytest.raises(ChunkError, match="runs other sim code .* install the same sim"):
        play_chunk(task)
    assert not list(tmp_path.rglob("*.parquet"))
