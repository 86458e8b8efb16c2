"""Peak memory and time of the reading commands on a run folder (a benchmark, not a test).

Each command runs in its own fresh process; its peak resident memory comes from the
kernel's accounting of that child (os.wait4), its time is wall-clock and CPU. Make the
run once, e.g. a 10M-game random run (about a minute on 2 idle cores):

    python -m sim run --config base --players random,random --games 10000000 --out /tmp/big --quiet
    python benchmarks/reading.py /tmp/big

card-impact plays its own games (it reads no run folder): it is measured at --impact-games.
On a shared machine the wall time grows with the load; the CPU time does not.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(args: list[str]) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak RSS MiB, exit code) of `python -m sim ARGS` in a fresh process."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code:
        print(proc.stderr.read().decode(errors="replace"), file=sys.stderr)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder written by `sim run`")
    parser.add_argument("--impact-games", type=int, default=200_000)
    options = parser.parse_args()
    run = str(options.run)
    with tempfile.TemporaryDirectory() as tmp:
        commands = {
            "summary": ["summary", run],
            "compare RUN RUN": ["compare", run, run],
            "report": ["report", run, "--out", str(Path(tmp) / "report.html")],
            f"card-impact ({options.impact_games:,} games)": [
                "card-impact", "--card", "SAVE", "--games", str(options.impact_games),
            ],
        }  # fmt: skip
        load = os.getloadavg()[0]
        print(f"{run}; load average {load:.1f} on {os.cpu_count()} cores at the start")
        for name, args in commands.items():
            wall, cpu, rss, code = measure(args)
            failed = f"  (exit {code})" if code else ""
            print(f"{name:32} {wall:6.1f} s wall {cpu:6.1f} s CPU {rss:7.0f} MiB peak{failed}")


if __name__ == "__main__":
    main()
