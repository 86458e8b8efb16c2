"""Engine benchmark: this checkout against a baseline revision, side by side in one run.

    python benchmarks/engine.py --baseline c73cebb --config base --games 200000 --rounds 5

Each side runs in its own process with its own PYTHONPATH and its own numba cache; the
sides alternate (A B, then B A, ...) so a load spike on the shared machine hits both, and
the table gives medians and the median of the per-round ratios. Compile time is paid in an
untimed warm-up per side. Ratios, not absolute figures, are what to compare.
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
# Runs inside each side's own checkout: only the bench API both sides share.
SNIPPET = (
    "import sys; from sim.bench import bench; from sim.config import load; "
    "r = bench(load(sys.argv[1]), int(sys.argv[2]), players=sys.argv[3]); "
    "print(r.games_per_second)"
)


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


def side_env(root: Path, label: str) -> dict[str, str]:
    """The environment of one side: its sources first on the path, its own numba cache."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root)
    env["NUMBA_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / "sim-bench-cache" / label)
    return env


def games_per_second(root: Path, label: str, config: str, games: int, players: str) -> float:
    """One timed bench call in a fresh process of one side."""
    command = [sys.executable, "-c", SNIPPET, config, str(games), players]
    done = subprocess.run(
        command, cwd=root, env=side_env(root, label), capture_output=True, text=True
    )
    if done.returncode:
        sys.exit(f"error: {label} failed on {config} {players}: {done.stderr.strip()[-400:]}")
    return float(done.stdout.split()[-1])


def measure(sides: dict[str, Path], config: str, players: str, args) -> dict[str, list[float]]:
    """Alternating rounds of every side on one config and match-up (after a warm-up each)."""
    for label, root in sides.items():
        games_per_second(root, label, config, 200, players)  # compile or load, untimed
    figures: dict[str, list[float]] = {label: [] for label in sides}
    labels = list(sides)
    for round_ in range(args.rounds):
        order = labels if round_ % 2 == 0 else labels[::-1]
        for label in order:
            figures[label].append(
                games_per_second(sides[label], label, config, args.games, players)
            )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="c73cebb", help="git revision to compare with")
    parser.add_argument("--config", action="append", help="config(s) (default: base)")
    parser.add_argument("--players", action="append", help="match-up(s) A,B (default random)")
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    base = args.baseline
    sides = {f"main@{base}": baseline_checkout(base), "branch": HERE}
    print(f"{'config':8} {'players':18} {'main g/s':>10} {'branch g/s':>11} {'ratio':>6}  rounds")
    for config in args.config or ["base"]:
        for players in args.players or ["random,random"]:
            figures = measure(sides, config, players, args)
            old, new = figures[f"main@{base}"], figures["branch"]
            ratios = [n / o for o, n in zip(old, new, strict=True)]
            print(
                f"{config:8} {players:18} {statistics.median(old):10,.0f} "
                f"{statistics.median(new):11,.0f} {statistics.median(ratios):6.2f}  "
                + " ".join(f"{r:.2f}" for r in ratios),
                flush=True,
            )


if __name__ == "__main__":
    main()
