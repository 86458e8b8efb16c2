"""A Python strategy cannot hang or escape: a decision timeout, and SystemExit, KeyboardInterrupt
and errors in __init__, start_game and end_game each give the one standard message, with
where in the strategy's file and a replay command that fails the same way. A real Ctrl-C
still stops a run cleanly.

Most tests run the real command in its own process, with real worker processes."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from sim.model import config as cfg
from sim.play.batch import play_matchup
from sim.play.stepped import StrategyError
from sim.players import guard
from sim.players.specs import matchup

HERE = Path(__file__).resolve().parents[1]  # tests/
ROOT = HERE.parent
TEST_STRATEGIES = HERE / "strategies_for_tests.py"
BASE = cfg.load("base")


def spec(name: str) -> str:
    return f"{TEST_STRATEGIES}:{name}"


def sim(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sim", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def line_of(cls: str, text: str) -> int:
    """The line number of the first line holding `text` in class `cls` of the test
    strategies' file, read from the file itself."""
    lines = TEST_STRATEGIES.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"class {cls}("))
    return next(i for i in range(start, len(lines)) if text in lines[i]) + 1


def the_failure(result: subprocess.CompletedProcess) -> dict[str, str]:
    """A failed command's one message, by part: error (its first line, without the worker's
    `ChunkError: `), config, where and replay; it must be the only error and no traceback."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    message = result.stderr[result.stderr.index("error:") :].splitlines()
    parts = {"error": message[0].removeprefix("error: ").removeprefix("ChunkError: ")}
    for line in message[1:]:
        key = line.strip().split(" ", 1)[0].rstrip(":")
        parts[key] = line.strip()
    return parts


def replayed(command: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run a suggested `sim ...` replay command as it is written."""
    words = shlex.split(command.removeprefix("replay it: "))
    assert words[0] == "sim", command
    return sim(*words[1:], timeout=timeout)


def run_args(player: str, out: Path, *more: str) -> list[str]:
    return [
        "run", "--config", "base", "--players", f"{player},random", "--games", "4",
        "--workers", "1", "--quiet", "--out", str(out), *more,
    ]  # fmt: skip


def test_a_hanging_strategy_stops_the_run_within_seconds_and_its_replay_too(tmp_path):
    started = time.monotonic()
    result = sim(*run_args(spec("Hangs"), tmp_path / "run", "--decision-timeout", "1"))
    seconds = time.monotonic() - started
    failure = the_failure(result)
    assert seconds < 30, f"took {seconds:.1f} s"
    assert failure["error"] == (
        f"strategy {spec('Hangs')} did not return within the decision timeout of 1 s"
    )
    assert failure["config"].startswith("config base, game seed ")
    assert ", turn 1, play decision with " in failure["config"]
    line = line_of("Hangs", "time.sleep(0.05)")
    assert failure["where"] == f"where: {TEST_STRATEGIES}:{line} in choose: time.sleep(0.05)"
    assert failure["replay"].endswith("--decision-timeout 1")
    again = the_failure(replayed(failure["replay"]))
    assert again["error"] == failure["error"] and again["where"] == failure["where"]


@pytest.mark.parametrize(
    ("name", "problem", "method", "source"),
    [
        ("Raiser", "raised ValueError: no idea what to do", "choose", "raise ValueError"),
        ("Exits", "raised SystemExit: 3", "choose", "sys.exit(3)"),
        ("Interrupts", "raised KeyboardInterrupt", "choose", "raise KeyboardInterrupt"),
        (
            "BrokenInit",
            "could not be created: it raised RuntimeError in __init__: cannot set up",
            "__init__",
            "raise RuntimeError",
        ),
        (
            "BrokenStart",
            "raised LookupError in start_game: no table for this seat",
            "start_game",
            "raise LookupError",
        ),
        (
            "BrokenEnd",
            "raised ZeroDivisionError in end_game: no games to average",
            "end_game",
            "raise ZeroDivisionError",
        ),
    ],
)
def test_a_run_stops_with_one_message_and_a_replay_that_fails_the_same_way(
    tmp_path, name, problem, method, source
):
    failure = the_failure(sim(*run_args(spec(name), tmp_path / "run")))
    assert failure["error"] == f"strategy {spec(name)} {problem}"
    seed = failure["config"].removeprefix("config base, game seed ").split()[0].rstrip(",")
    assert seed.isdigit()
    line = line_of(name, source)
    assert failure["where"].startswith(f"where: {TEST_STRATEGIES}:{line} in {method}: {source}")
    players = f"'{spec(name)},random'"
    show = f"sim show --config base --seed {seed} --players {players}"
    assert failure["replay"] == f"replay it: {show}"
    again = the_failure(replayed(failure["replay"]))
    assert again["error"] == failure["error"]
    assert again["config"] == failure["config"] and again["where"] == failure["where"]


def test_solo_reports_a_failing_human_in_one_message_with_the_level_in_its_replay():
    failure = the_failure(sim("solo", "--human", spec("Raiser"), "--games", "5"))
    assert failure["error"] == f"strategy {spec('Raiser')} raised ValueError: no idea what to do"
    assert failure["where"].startswith(f"where: {TEST_STRATEGIES}:")
    assert f"--players '{spec('Raiser')},cpu(level=1)'" in failure["replay"]
    again = the_failure(replayed(failure["replay"]))
    assert (again["error"], again["config"]) == (failure["error"], failure["config"])


@pytest.mark.parametrize("name", ["Raiser", "LateStarter", "BrokenInit"])
def test_strategies_check_suggests_a_replay_that_fails_the_same_way(name):
    failure = the_failure(sim("strategies", "check", spec(name), "--games", "3"))
    assert failure["error"].startswith(f"strategy {spec(name)} ")
    assert failure["where"].startswith(f"where: {TEST_STRATEGIES}:")
    assert spec(name) in failure["replay"]
    again = the_failure(replayed(failure["replay"]))
    assert (again["error"], again["where"]) == (failure["error"], failure["where"])


def test_a_failure_only_the_one_turn_check_finds_is_replayed_by_the_check():
    failure = the_failure(sim("strategies", "check", spec("LateStarter"), "--games", "3"))
    assert "joined a game already under way" in failure["error"]
    assert failure["replay"].startswith(f"replay it: sim strategies check {spec('LateStarter')} ")


def started(args: list[str], tmp_path: Path) -> subprocess.Popen:
    """The command in its own process group, as a terminal would start it."""
    return subprocess.Popen(
        [sys.executable, "-m", "sim", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_a_real_ctrl_c_stops_a_run_of_a_python_strategy_cleanly(tmp_path, warm_random_run):
    out = tmp_path / "run"
    args = run_args(spec("Slow") + "(seconds=0.05)", out, "--chunk-size", "2")
    args[args.index("--games") + 1] = "40"
    proc = started(args, tmp_path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((out / "games").glob("*.parquet")):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole group, workers too
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Run the same command again" in err
    assert "strategy" not in err and "Traceback" not in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert list((out / "games").glob("*.parquet"))


def test_a_real_ctrl_c_during_a_decision_in_show_is_not_the_strategys_failure(tmp_path):
    proc = started(["show", "--players", f"{spec('Slow')},random"], tmp_path)
    for line in proc.stdout:
        if line.startswith("turn 2:"):
            break
    os.killpg(proc.pid, signal.SIGINT)  # most likely inside Slow's sleep
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "strategy" not in err and "Traceback" not in err


def test_a_strategy_that_swallows_the_timeout_still_fails():
    seeds = np.array([3], dtype=np.uint64)
    with guard.timeout(0.2), pytest.raises(StrategyError) as caught:
        play_matchup(BASE, matchup(spec("SwallowsTimeouts"), "random"), seeds)
    assert "did not return within the decision timeout of 0.2 s" in str(caught.value)
    assert "--decision-timeout 0.2" in str(caught.value)


class _Sleeper:
    def choose(self, seconds):
        time.sleep(seconds)
        return 7


def test_no_limit_with_zero_and_a_limit_otherwise():
    with guard.timeout(0):
        assert guard.call(_Sleeper, _Sleeper().choose, 0.3) == 7
    with guard.timeout(0.1), pytest.raises(guard.Failure) as caught:
        guard.call(_Sleeper, _Sleeper().choose, 0.3)
    assert caught.value.timed_out
    assert "time.sleep(seconds)" in caught.value.where


def test_another_timer_of_the_process_is_kept():
    """pytest-timeout's own alarm must still fire after a strategy's calls."""
    fired = []

    def mine(signum, frame):
        fired.append(signum)

    handler = signal.signal(signal.SIGALRM, mine)
    outer = signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        assert guard.call(_Sleeper, _Sleeper().choose, 0.1) == 7
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0.2 < left <= 0.4 + 0.05
        assert signal.getsignal(signal.SIGALRM) is mine and not fired
        time.sleep(0.6)
        assert fired == [signal.SIGALRM]
    finally:
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, *outer)


def test_the_timeout_does_not_change_the_games():
    seeds = np.arange(30, dtype=np.uint64)
    with guard.timeout(0):
        unlimited = play_matchup(BASE, matchup("canonical-random", "random"), seeds)
    with guard.timeout(5):
        limited = play_matchup(BASE, matchup("canonical-random", "random"), seeds)
    compiled = play_matchup(BASE, matchup("random", "random"), seeds)
    for a, b, c in zip(unlimited, limited, compiled, strict=True):
        assert np.array_equal(a, b) and np.array_equal(a, c)


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("import sys\nx = 1\nsys.exit('bye')\n", "failed to import: SystemExit: bye"),
        (
            "import time\nwhile True:\n    time.sleep(0.05)\n",
            "failed to import: did not return from the import within the decision timeout of 0.3 s",
        ),
    ],
)
def test_a_strategy_file_that_exits_or_hangs_as_it_is_imported_is_refused(tmp_path, code, problem):
    from sim.players.specs import PlayerError, parse_player

    path = tmp_path / "mine.py"
    path.write_text(code)
    with guard.timeout(0.3), pytest.raises(PlayerError) as caught:
        parse_player(f"{path}:Mine")
    first, where = str(caught.value).splitlines()
    assert first == f"strategy file {path} {problem}"
    assert where.startswith(f"  where: {path}:3 in <module>: ")


def test_bench_reports_a_failing_strategy_in_one_message():
    from typer.testing import CliRunner

    from sim.cli import app

    result = CliRunner().invoke(
        app, ["bench", "--config", "base", "--games", "3", "--players", f"{spec('Exits')},random"]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"error: strategy {spec('Exits')} raised SystemExit: 3" in result.output
    assert "replay it: sim show --config base --seed " in result.output


def test_on_dask_threads_a_strategys_system_exit_is_one_clear_error(tmp_path):
    """Dask calls strategies outside the main thread: no timer there, but what the strategy
    raises is still its failure, not the worker's end."""
    from dask import distributed  # a test dependency: never skipped

    from sim.runner.dask_backend import ClusterError
    from sim.runner.plan import make_plan
    from sim.runner.run import RunOptions, execute

    plan = make_plan(["base"], [f"{spec('Exits')},random"], 4, 1)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False)
    failure = pytest.raises(ClusterError, match=r"(?s)raised SystemExit: 3.*where: .*sys.exit")
    with cluster, distributed.Client(cluster) as client, failure:
        execute(plan, tmp_path / "dask", RunOptions(backend="dask", scheduler=client))
