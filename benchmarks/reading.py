"""Peak memory and time of the reading commands on a run folder (a benchmark, not a test).

Each command runs in its own fresh process; its peak resident memory comes from the
kernel's accounting of that child (os.wait4), its time is wall-clock and CPU. Make the
run once, e.g. a 10M-game random run (about a minute on 2 idle cores):

    python -m sim run --config base --players random,random --games 10000000 --out /tmp/big --quiet
    python benchmarks/reading.py /tmp/big
    python benchmarks/reading.py /tmp/big --baseline /tmp/old-checkout --rounds 3

With --baseline (another source tree of sim, e.g. `git archive` of an older commit) each
round runs every command with the baseline and then with this tree, alternating, and the
medians are printed side by side. card-impact plays its own games into a fresh folder
each time (it reads no run folder): it is measured at --impact-games. On a shared machine
the wall time grows with the load (printed per command); the CPU time much less.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def measure(args: list[str], tree: Path, tmp: str) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak RSS MiB, exit code) of `python -m sim ARGS` run with the source
    tree `tree`, in a fresh process and a fresh working folder under tmp: card-impact
    writes its run under ./runs, which a second measurement would only resume."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=tempfile.mkdtemp(dir=tmp),
        env=env,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code:
        print(proc.stderr.read().decode(errors="replace"), file=sys.stderr)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code


def commands(run: str, tmp: str, impact_games: int, skip_impact: bool) -> dict[str, list[str]]:
    """The benchmarked commands by name."""
    out = {
        "summary": ["summary", run],
        "compare RUN RUN": ["compare", run, run],
        "report": ["report", run, "--out", str(Path(tmp) / "report.html")],
    }
    if not skip_impact:
        out[f"card-impact ({impact_games:,} games)"] = [
            "card-impact", "--card", "SAVE", "--games", str(impact_games),
        ]  # fmt: skip
    return out


def line(name: str, figures: list[tuple[float, float, float, int, float]]) -> str:
    """One printed row: medians of wall, CPU, peak RSS and the load at the start."""
    wall, cpu, rss, load = (statistics.median(f[i] for f in figures) for i in (0, 1, 2, 4))
    failed = any(f[3] for f in figures)
    return (
        f"{name:40} {wall:6.1f} s wall {cpu:6.1f} s CPU {rss:7.0f} MiB peak"
        f"  (load {load:.1f}){'  FAILED' if failed else ''}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder written by `sim run`")
    parser.add_argument("--impact-games", type=int, default=200_000)
    parser.add_argument("--skip-impact", action="store_true", help="leave card-impact out")
    parser.add_argument("--baseline", type=Path, help="another sim source tree to compare")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (medians printed)")
    options = parser.parse_args()
    trees = {"this tree": HERE}
    if options.baseline:
        trees = {"baseline": options.baseline.resolve(), **trees}
    with tempfile.TemporaryDirectory() as tmp:
        run = str(options.run.resolve())
        plan = commands(run, tmp, options.impact_games, options.skip_impact)
        print(
            f"{options.run}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
            f"at the start; {options.rounds} round(s), medians"
        )
        figures: dict[tuple[str, str], list] = {}
        for _ in range(options.rounds):
            for name, args in plan.items():
                for label, tree in trees.items():  # alternating: the load hits both alike
                    load = os.getloadavg()[0]
                    figures.setdefault((label, name), []).append((*measure(args, tree, tmp), load))
        for label in trees:
            print(f"-- {label} ({trees[label]})")
            for name in plan:
                print(line(name, figures[(label, name)]))


if __name__ == "__main__":
    main()
