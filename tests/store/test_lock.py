"""One run per folder: a second `sim run` into a live run's folder is refused, naming the
holder; the lock dies with its process; readers tell a live run from a dead one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.store import lock, verify


def command(out: Path) -> list[str]:
    return [
        sys.executable, "-m", "sim", "run", "--config", "base", "--players", "random,random",
        "--games", "1000000", "--chunk-size", "2000", "--seed", "5", "--out", str(out),
        "--workers", "1", "--quiet",
    ]  # fmt: skip


def wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def live_run(tmp_path, warm_random_run):
    """A real run in its own process, once it holds the lock and has recorded a chunk."""
    out = tmp_path / "run"
    proc = subprocess.Popen(command(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: (lock.holder(out) or {}).get("pid") == proc.pid)
        wait_for(lambda: verify.counted_parts(out, "games"))
        yield out, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)


def test_a_second_run_is_refused_naming_the_holder_and_the_first_goes_on(live_run):
    out, first = live_run
    second = subprocess.run(command(out), capture_output=True, text=True, timeout=120)
    assert second.returncode == 1
    errors = [line for line in second.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in second.stderr
    assert f"PID {first.pid} on host " in errors[0] and "in use by another sim run" in errors[0]
    _, err = first.communicate(timeout=300)  # the refused run swept nothing of the first's
    assert first.returncode == 0, err
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


def test_readers_say_a_run_is_live_and_after_kill_9_that_it_died(live_run):
    out, first = live_run
    live = CliRunner().invoke(app, ["summary", str(out), "--no-cards"], prog_name="sim")
    assert live.exit_code == 0, live.output
    assert f"a run is still writing it (PID {first.pid}" in live.output
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=60)
    assert lock.holder(out) is None  # the kernel dropped the lock with the process
    dead = CliRunner().invoke(app, ["summary", str(out), "--no-cards"], prog_name="sim")
    assert "stopped without finishing (killed or crashed)" in dead.output
    with lock.hold(out):  # free for the next run
        pass


def test_the_same_command_finishes_a_killed_run(live_run, tmp_path):
    out, first = live_run
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=60)
    again = subprocess.run(command(out), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert {c["status"] for c in manifest["chunks"].values()} == {"done"}
    verified = CliRunner().invoke(app, ["verify", str(out)], prog_name="sim")
    assert verified.exit_code == 0 and "1,000,000 games" in verified.output


def test_a_held_lock_is_refused_in_process_too(tmp_path):
    refused = pytest.raises(lock.LockError, match=f"PID {os.getpid()} on host")
    with lock.hold(tmp_path), refused, lock.hold(tmp_path):
        pass
    with lock.hold(tmp_path):  # released on leaving
        pass


def test_no_lock_file_means_no_holder(tmp_path):
    assert lock.holder(tmp_path) is None
    assert lock.holder(tmp_path / "missing") is None
