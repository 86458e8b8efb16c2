"""Runner benchmark: end-to-end games/s on N workers against the single-process engine
figure, round by round in one invocation, and the peak resident memory of every process.

    python benchmarks/runner.py --games 10000000 --workers 2 --rounds 3
    python benchmarks/runner.py --games 20000000 --rounds 3 --baseline 204008b

Ratios, not absolute figures, are what to compare: these machines are shared and noisy.
With --baseline REV the same run of that revision (a git worktree of it, its own numba
cache, warmed up first) alternates with this checkout's in every round, so the two are
compared under the same load: the median of the rounds' this/baseline ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.model.config import load
from sim.play.bench import bench

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, beside engine.py
from engine import HERE, baseline_checkout, side_env  # noqa: E402


def rss_of_tree(pid: int) -> dict[int, int]:
    """Resident bytes of a process and all its descendants, from /proc."""
    sizes, todo = {}, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                sizes[current] = int(line.split()[1]) * 1024
        todo += [int(c) for c in children]
    return sizes


def engines_at_once(config: str, games: int, workers: int) -> float:
    """Summed games/s of `workers` single-process engines started together, no runner and no
    writing: what the cores give when nothing else runs, the runner's real ceiling."""
    code = (
        "import sys; from sim.play.bench import bench; from sim.model.config import load; "
        "print(bench(load(sys.argv[1]), int(sys.argv[2])).games_per_second)"
    )
    command = [sys.executable, "-c", code, config, str(games)]
    procs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=HERE)
        for _ in range(workers)
    ]
    return sum(float(p.communicate()[0]) for p in procs)


def run_once(args, out: str, root: Path | None = None, games: int | None = None) -> dict:
    """One `sim run` of random vs random into out (with root: that checkout's, in its own
    folder: `python -m` puts the working folder first on the path, before PYTHONPATH):
    wall seconds, CPU seconds of the run and its workers, and the peak resident memory of
    each of its processes."""
    command = [
        sys.executable, "-m", "sim", "run", "--config", args.config,
        "--players", "random,random", "--games", str(games or args.games), "--seed", "1",
        "--out", out, "--workers", str(args.workers), "--quiet",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = None if root is None else side_env(root)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=root or HERE)
    peak: dict[int, int] = {}
    while proc.poll() is None:
        for pid, size in rss_of_tree(proc.pid).items():
            peak[pid] = max(peak.get(pid, 0), size)
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the run and all its workers
    if proc.returncode:
        sys.exit(f"sim run failed with exit code {proc.returncode}")
    return {
        "seconds": seconds,
        "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        "output": proc.stdout.read().strip(),
        "source": json.loads((Path(out) / "manifest.json").read_text())["params"]["sim_source"],
        "parent": peak.pop(proc.pid, 0),
        "workers": peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="base")
    parser.add_argument("--games", type=int, default=4_000_000)
    parser.add_argument("--workers", type=int, default=2)
    # about 12 s of the engine alone on base: shorter timings swing more with the machine
    parser.add_argument("--bench-games", type=int, default=3_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", help="git revision whose sim run alternates with this one")
    args = parser.parse_args()
    if args.baseline:
        compare_with_baseline(args)
        return
    loadavg = os.getloadavg()
    print(f"load average before: {loadavg[0]:.2f} {loadavg[1]:.2f} {loadavg[2]:.2f}")
    engine = load(args.config)
    together = engines_at_once(args.config, args.bench_games, args.workers)
    singles = [bench(engine, args.bench_games).games_per_second]
    ratios = []
    for number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as out:
            run = run_once(args, out)
            if number == args.rounds:  # the last run's files, for the details below
                parts = {t: sum(p.stat().st_size for p in Path(out, t).glob("*.parquet"))
                         for t in ("games", "card_tallies")}  # fmt: skip
                chunks = json.loads(Path(out, "manifest.json").read_text())["chunks"].values()
        singles.append(bench(engine, args.bench_games).games_per_second)
        # the engine alone timed just before and just after each run: the machine's speed
        # drifts by tens of percent from minute to minute, so each run is set against its
        # own neighbours, and the median round is the figure
        single = (singles[-2] + singles[-1]) / 2
        end_to_end = args.games / run["seconds"]
        ratios.append(end_to_end / single)
        print(
            f"round {number}: sim run {end_to_end:,.0f} games/s; engine alone {singles[-2]:,.0f} "
            f"before and {singles[-1]:,.0f} after; ratio {ratios[-1]:.2f}x"
        )
    print(run["output"])
    print(
        f"sim run, {args.workers} workers, whole command, against the single-process engine: "
        f"median {statistics.median(ratios):.2f}x over {args.rounds} rounds "
        f"(lowest {min(ratios):.2f}x, highest {max(ratios):.2f}x)"
    )
    single = statistics.median(singles)
    print(
        f"{args.workers} single-process engines at once, no runner: {together:,.0f} games/s "
        f"= {together / single:.2f}x the median engine figure (what the cores give to playing)"
    )
    report_last(args, run, parts, chunks, single)


def compare_with_baseline(args) -> None:
    """Rounds of: engine alone, this checkout's run, engine, the baseline's run, engine
    (the order of the two runs alternating), each run set against its neighbouring engine
    timings, and the median of the rounds' this/baseline ratios."""
    sides = {"this": HERE, args.baseline: baseline_checkout(args.baseline)}
    for side, root in sides.items():  # compile each side's cache, untimed
        with tempfile.TemporaryDirectory() as out:
            source = run_once(args, out, root, games=10_000)["source"]
        print(f"{side}: sim source {source} (from {root})")
    engine = load(args.config)
    singles = [bench(engine, args.bench_games).games_per_second]
    ratios: dict[str, list[float]] = {side: [] for side in sides}
    for number in range(args.rounds):
        order = list(sides) if number % 2 == 0 else list(sides)[::-1]
        for side in order:
            with tempfile.TemporaryDirectory() as out:
                run = run_once(args, out, sides[side])
            singles.append(bench(engine, args.bench_games).games_per_second)
            ratios[side].append(args.games / run["seconds"] / ((singles[-2] + singles[-1]) / 2))
        this, base = ratios["this"][-1], ratios[args.baseline][-1]
        print(f"round {number + 1}: this {this:.2f}x, {args.baseline} {base:.2f}x the engine")
    for side, values in ratios.items():
        print(
            f"{side}: sim run on {args.workers} workers, {args.games:,} games: median "
            f"{statistics.median(values):.2f}x one core's engine figure "
            f"(lowest {min(values):.2f}x, highest {max(values):.2f}x)"
        )
    each = [a / b for a, b in zip(ratios["this"], ratios[args.baseline], strict=True)]
    median = statistics.median(each)
    print(f"this / {args.baseline}: median {median:.2f}x over {args.rounds} rounds")


def report_last(args, run: dict, parts: dict, chunks, single: float) -> None:
    """Memory, sizes and where the time went, for the last round's run."""
    seconds, workers = run["seconds"], run["workers"]
    largest = max(workers.values(), default=0)
    each = ", ".join(f"{v / 2**20:,.0f}" for pid, v in sorted(workers.items()))
    print(
        f"peak resident memory: parent {run['parent'] / 2**20:,.0f} MiB, largest worker "
        f"{largest / 2**20:,.0f} MiB (over {len(workers) + 1} processes; the others: {each} MiB)"
    )
    print(
        f"games table: {parts['games'] / args.games:.1f} bytes/game; "
        f"card tallies: {parts['card_tallies'] / args.games:.2f} bytes/game"
    )
    cpu = run["cpu"]
    print(
        f"CPU time of the last run: {cpu:.1f} s = {args.games / cpu:,.0f} games per CPU-second "
        f"= {args.games / cpu / single:.2f}x the median engine figure (2 quiet cores can give "
        "at most twice that)"
    )
    chunk_seconds = sum(c.get("seconds", 0.0) for c in chunks)
    write_seconds = sum(c.get("write_seconds", 0.0) for c in chunks)
    busy = chunk_seconds / args.workers
    print(
        f"where the time went: {seconds:.1f} s in all; per worker {busy:.1f} s in chunks, of "
        f"which {write_seconds / args.workers:.1f} s building and writing parts "
        f"({100 * write_seconds / max(chunk_seconds - write_seconds, 1e-9):.0f}% of playing); "
        f"{seconds - busy:.1f} s outside chunks (start-up, worker spawn and engine load, "
        "summaries, shut-down, load imbalance)"
    )
    playing = (chunk_seconds - write_seconds) / seconds  # summed over the workers
    print(
        f"the workers spent {100 * playing / args.workers:.0f}% of the run's time playing: "
        f"{playing:.2f}x one engine's playing time, if each plays as fast as the engine alone "
        "(a figure from within the run, which the machine's drift hardly moves)"
    )


if __name__ == "__main__":
    main()
