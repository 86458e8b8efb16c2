"""Reading a run folder never runs code it names (issue #36): a run folder from someone
else whose manifest names a Python strategy file must not import that file when a
designer summarises, compares, reports, verifies or replays it, unless they name the
strategy themselves (--players) or say they trust the run (--trust-run).

Every command runs in a fresh interpreter, so an import would really happen there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRATEGY = """
from pathlib import Path

Path(__file__).with_name("MARKER").write_text("imported")

from sim.strategy import Strategy


class Evil(Strategy):
    def choose(self, observation, decision):
        return 0
"""


def sim(*args: str, cwd: Path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "sim", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> tuple[Path, Path, str]:
    """A run of a strategy file against itself, as received: the marker removed."""
    root = tmp_path_factory.mktemp("received")
    (root / "evil.py").write_text(STRATEGY)
    spec = f"{root / 'evil.py'}:Evil"
    args = ["--games", "20", "--chunk-size", "10", "--workers", "1", "--out", "run", "--quiet"]
    made = sim("run", "--config", "base", "--players", f"{spec},{spec}", *args, cwd=root)
    assert made.returncode == 0, made.stderr
    assert (root / "MARKER").exists()  # the run itself imported it, as it should
    (root / "MARKER").unlink()
    return root, root / "run", f"{spec},{spec}"


@pytest.mark.parametrize(
    "args",
    [
        ("summary", "run", "--detail"),
        ("summary", "run", "--json"),
        ("compare", "run", "run"),
        ("report", "run", "--out", "report.html"),
        ("verify", "run"),
        ("show", "--run", "run", "--game", "3"),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_reading_a_run_imports_nothing_it_names(shared, args):
    root, _, _ = shared
    sim(*args, cwd=root)
    assert not (root / "MARKER").exists(), f"sim {' '.join(args)} imported the run's strategy"


def test_the_notebook_api_imports_nothing_the_run_names(shared):
    root, _, _ = shared
    code = "import sim; r = sim.open_run('run'); r.summary(); r.games.collect(); r.cards.collect()"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert not (root / "MARKER").exists()


def test_a_replay_says_what_to_pass_and_exits_2(shared):
    root, _, matchup = shared
    refused = sim("show", "--run", "run", "--game", "3", cwd=root)
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in refused.stderr
    assert f"--players {matchup}" in lines[0] and "--trust-run" in lines[0]
    assert "evil.py:Evil" in lines[0]
    assert not (root / "MARKER").exists()


@pytest.mark.parametrize("permission", ["--players", "--trust-run"])
def test_named_or_trusted_the_replay_runs_it(shared, permission):
    root, _, matchup = shared
    given = ["--players", matchup] if permission == "--players" else ["--trust-run"]
    done = sim("show", "--run", "run", "--game", "3", "--no-legend", *given, cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "MARKER").exists()
    (root / "MARKER").unlink()


def test_weights_players_replay_as_built_ins_do(tmp_path):
    """strong and the personas are weights files, data rather than code: a run of them
    replays without --players or --trust-run, as a run of built-ins does."""
    args = ["--games", "4", "--workers", "1", "--out", "run", "--quiet"]
    made = sim("run", "--config", "base", "--players", "strong,rusher", *args, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    done = sim("show", "--run", "run", "--game", "1", "--no-legend", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ended:" in done.stdout


def test_the_manifest_names_the_file(shared):
    """The premise: the folder names the strategy file, so a reader could import it."""
    _, run, _ = shared
    assert "evil.py:Evil" in json.dumps(json.loads((run / "manifest.json").read_text()))
