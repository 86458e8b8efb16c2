"""Engine benchmark: this checkout against a baseline revision, side by side in one run.

    python benchmarks/engine.py --baseline c73cebb --config base --games 100000 --rounds 24

(--checkout PATH times another checkout instead of this one: a checkout of the baseline
itself gives the A/A ratio, about 1.0, that says how far the noise reaches.)

Each side runs in processes of its own, with its own PYTHONPATH and numba cache, that
compile (or load) once, untimed, and then play a batch of games on each request. The
sides alternate batch by batch (A B, then B A, ...), so the two timings of a round lie
within a second of each other and a load spike on the shared machine hits both; rounds
go round several processes per side, since each process's memory layout moves its speed
by a few percent (address randomisation: identical code measured 0.96x and 1.05x against
itself with one process a side). The table gives medians of games per CPU second, the
median of the per-round ratios and their quartiles. Every batch replays the same seeds,
so both sides play the same games. Ratios, not absolute figures, are what to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
# Runs inside each side's own checkout, using only the API both sides share. Warms up, says
# "ready", then plays one batch for each line read and prints its games per CPU second of
# this process: on a shared machine the wall clock also counts the time other processes
# held the core (measured: round ratios 0.46-1.22 by wall).
SNIPPET = """
import sys, time
import numpy as np
try:
    from sim.model.config import load
    from sim.play.batch import play_batch, result_buffers
    from sim.players.specs import parse_matchup
except ImportError:  # a baseline from before the layer folders and match-up values
    from sim.config import load
    from sim.game import play_batch, result_buffers
    parse_matchup = None
config, games = load(sys.argv[1]), int(sys.argv[2])
own = ()  # before weights files: play_batch gives both seats the shipped heuristic's weights
if parse_matchup is not None and hasattr(parse_matchup(sys.argv[3]), "policy_codes"):
    m = parse_matchup(sys.argv[3])
    level, codes, limits = m.cpu_level(config.rules.cpu_level), m.policy_codes(), m.budgets()
    if hasattr(m, "evaluations"):  # each its own: strong, a weights file, the searches
        own = (m.evaluations(),)
else:  # before match-up values: functions of the specs
    try:
        from sim.players.specs import budgets, cpu_level, policy_codes, split_top_level
    except ImportError:  # before the layer folders
        from sim.players import budgets, cpu_level, policy_codes, split_top_level
    a, b = split_top_level(sys.argv[3])
    level, codes, limits = cpu_level(b, config.rules.cpu_level), policy_codes(a, b), budgets(a, b)
play_batch(config, np.arange(1, dtype=np.uint64), None, level, None, None, codes, limits, *own)
buffers = result_buffers(games)
seeds = np.arange(1, games + 1, dtype=np.uint64)
print("ready", flush=True)
for _ in sys.stdin:
    for array in buffers:
        array.fill(0)
    started = time.process_time()
    play_batch(config, seeds, None, level, None, buffers, codes, limits, *own)
    print(games / (time.process_time() - started), flush=True)
"""


def baseline_checkout(revision: str) -> Path:
    """A detached git worktree of revision in the temp folder, made on first use."""
    path = Path(tempfile.gettempdir()) / f"sim-bench-{revision}"
    if not (path / "sim").is_dir():
        subprocess.run(
            ["git", "-C", str(HERE), "worktree", "add", "--detach", str(path), revision],
            check=True,
            capture_output=True,
        )
    return path


def side_env(root: Path) -> dict[str, str]:
    """The environment of one side: its sources first on the path, a numba cache of its
    own checkout (shared only when both sides are the same checkout, for an A/A check)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root)
    folder = root.as_posix().strip("/").replace("/", "_")
    env["NUMBA_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / "sim-bench-cache" / folder)
    return env


class Side:
    """One side's process: compiled and warmed up, it plays a batch per request."""

    def __init__(self, root: Path, label: str, config: str, games: int, players: str):
        self.label, self.what = label, f"{config} {players}"
        command = [sys.executable, "-c", SNIPPET, config, str(games), players]
        # stderr to a file, not a pipe: a long run's warnings would fill a pipe nobody reads
        # until the end, and the side would block writing to it
        self.errors = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in close())
        self.process = subprocess.Popen(
            command,
            cwd=root,
            env=side_env(root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
        )
        self._read()  # "ready": compiled or loaded, untimed

    def _read(self) -> str:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            self.errors.seek(0)
            error = self.errors.read().strip()[-400:]
            sys.exit(f"error: {self.label} failed on {self.what}: {error}")
        return line

    def games_per_second(self) -> float:
        """One timed batch."""
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        return float(self._read())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()
        self.errors.close()


def measure(sides: dict[str, Path], config: str, players: str, args) -> dict[str, list[float]]:
    """Alternating rounds of every side on one config and match-up, round r on process
    r % processes of each side."""
    running = {
        label: [Side(root, label, config, args.games, players) for _ in range(args.processes)]
        for label, root in sides.items()
    }
    figures: dict[str, list[float]] = {label: [] for label in sides}
    labels = list(sides)
    for round_ in range(args.rounds):
        for label in labels if round_ % 2 == 0 else labels[::-1]:
            figures[label].append(running[label][round_ % args.processes].games_per_second())
    for processes in running.values():
        for side in processes:
            side.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # c73cebb is issue #14's "today's main": the engine its speed targets are measured against
    parser.add_argument("--baseline", default="c73cebb", help="git revision to compare with")
    parser.add_argument("--config", action="append", help="config(s) (default: base)")
    parser.add_argument("--players", action="append", help="match-up(s) A,B (default random)")
    parser.add_argument(
        "--checkout", type=Path, default=HERE, help="the side to time (default: this one)"
    )
    parser.add_argument("--games", type=int, default=100_000, help="games per side per round")
    parser.add_argument("--rounds", type=int, default=24)
    # Each process is one draw of the memory layout (address randomisation): the same code
    # measured 0.96x and 1.05x against itself in two pairs of processes, so one pair per
    # side would carry that into the ratio. Rounds go round the processes.
    parser.add_argument("--processes", type=int, default=6, help="processes per side")
    args = parser.parse_args()
    base = args.baseline
    sides = {f"main@{base}": baseline_checkout(base), "branch": args.checkout.resolve()}
    width = max([18, *(len(p) for p in args.players or [])])
    head = f"{'config':8} {'players':{width}} {'main g/cpu-s':>14} {'branch g/cpu-s':>14}"
    print(f"{head} {'ratio':>6} {'quartiles':>11} {'range':>11}  ({args.rounds} rounds)")
    for config in args.config or ["base"]:
        for players in args.players or ["random,random"]:
            figures = measure(sides, config, players, args)
            old, new = figures[f"main@{base}"], figures["branch"]
            ratios = sorted(n / o for o, n in zip(old, new, strict=True))
            q1, _, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
            print(
                f"{config:8} {players:{width}} {speed(statistics.median(old)):>14} "
                f"{speed(statistics.median(new)):>14} {statistics.median(ratios):6.2f} "
                f"{q1:5.2f}-{q3:<5.2f} {ratios[0]:5.2f}-{ratios[-1]:<5.2f}",
                flush=True,
            )


def speed(games_per_second: float) -> str:
    """Games per second with the digits that matter (the searches play a few a second)."""
    return f"{games_per_second:,.0f}" if games_per_second >= 100 else f"{games_per_second:.2f}"


if __name__ == "__main__":
    main()
