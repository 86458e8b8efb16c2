"""Runner benchmark: end-to-end games/s on N workers against the single-process engine
figure, measured in one run, and the peak resident memory of every process of the run.

    python benchmarks/runner.py --games 4000000 --workers 2

Ratios, not absolute figures, are what to compare: these machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.bench import bench
from sim.config import load


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
        "import sys; from sim.bench import bench; from sim.config import load; "
        "print(bench(load(sys.argv[1]), int(sys.argv[2])).games_per_second)"
    )
    command = [sys.executable, "-c", code, config, str(games)]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(workers)]
    return sum(float(p.communicate()[0]) for p in procs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="base")
    parser.add_argument("--games", type=int, default=4_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bench-games", type=int, default=1_000_000)
    args = parser.parse_args()
    loadavg = os.getloadavg()
    first = bench(load(args.config), args.bench_games).games_per_second
    together = engines_at_once(args.config, args.bench_games, args.workers)
    with tempfile.TemporaryDirectory() as out:
        command = [
            sys.executable, "-m", "sim", "run", "--config", args.config,
            "--players", "random,random", "--games", str(args.games), "--seed", "1",
            "--out", out, "--workers", str(args.workers), "--quiet",
        ]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        peak: dict[int, int] = {}
        while proc.poll() is None:
            for pid, size in rss_of_tree(proc.pid).items():
                peak[pid] = max(peak.get(pid, 0), size)
            time.sleep(0.2)
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the run and all its workers
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        output = proc.stdout.read()
        games_bytes = sum(p.stat().st_size for p in Path(out, "games").glob("*.parquet"))
        cards_bytes = sum(p.stat().st_size for p in Path(out, "cards").glob("*.parquet"))
        chunks = json.loads(Path(out, "manifest.json").read_text())["chunks"].values()
    # measured again after the run, and the faster of the two kept: a slow moment of a
    # shared machine while the engine alone was timed must not flatter the ratio
    second = bench(load(args.config), args.bench_games).games_per_second
    single = max(first, second)
    end_to_end = args.games / seconds
    print(f"load average before: {loadavg[0]:.2f} {loadavg[1]:.2f} {loadavg[2]:.2f}")
    print(output.strip())
    print(
        f"single-process engine ({args.config}): {single:,.0f} games/s "
        f"(the faster of {first:,.0f} before the run and {second:,.0f} after it)"
    )
    print(
        f"{args.workers} single-process engines at once, no runner: {together:,.0f} games/s "
        f"= {together / single:.2f}x (what the cores give to playing alone)"
    )
    print(
        f"sim run, {args.workers} workers, whole command: {end_to_end:,.0f} games/s "
        f"= {end_to_end / single:.2f}x the single-process figure"
    )
    parent = peak.get(proc.pid, 0)
    workers = max((v for pid, v in peak.items() if pid != proc.pid), default=0)
    each = ", ".join(f"{v / 2**20:,.0f}" for pid, v in sorted(peak.items()) if pid != proc.pid)
    print(
        f"peak resident memory: parent {parent / 2**20:,.0f} MiB, largest worker "
        f"{workers / 2**20:,.0f} MiB (over {len(peak)} processes; the others: {each} MiB)"
    )
    print(
        f"games table: {games_bytes / args.games:.1f} bytes/game; "
        f"cards table: {cards_bytes / args.games:.1f} bytes/game"
    )
    print(
        f"CPU time of the whole run: {cpu:.1f} s = {args.games / cpu:,.0f} games per CPU-second "
        f"= {args.games / cpu / single:.2f}x the single-process figure (what shared cores do not "
        "change much: 2 quiet cores can give at most twice that)"
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
    free = args.games / (seconds - write_seconds / args.workers)
    print(
        f"if building and writing parts cost nothing: about {free:,.0f} games/s = "
        f"{free / single:.2f}x (estimate: the run's time less each worker's writing)"
    )


if __name__ == "__main__":
    main()
