"""What a plan will cost before it plays: each match-up's speed measured in a short bench
on the plan's first config (compiling the loops the run then loads), summed over the cells
and shared by the workers. An estimate: the run's start-up and writing come on top, and
turns per game, other configs and the machine's load all move it."""

from __future__ import annotations

import os

FAST_GAMES, SLOW_GAMES = 2000, 2  # bench games: about a second for either kind of player


def estimate(plan, workers: int | None, decision_timeout: float) -> tuple[float, str]:
    """Seconds of play the plan should take on `workers` processes, and the slowest
    match-up's measured speed, in words."""
    from sim.play.bench import bench
    from sim.players.guard import timeout
    from sim.runner.plan import FAST

    speeds = {}
    for m in plan.matchups:
        fast = all(p.name in FAST or p.weights_file for p in (m.first, m.second))
        with timeout(decision_timeout):
            r = bench(plan.configs[0], FAST_GAMES if fast else SLOW_GAMES, players=m)
        speeds[(m.first.text, m.second.text)] = r.games_per_second
    seconds = len(plan.configs) * sum(plan.games / s for s in speeds.values())
    cores = min(workers or os.cpu_count() or 1, len(plan.chunks()))
    (a, b), slowest = min(speeds.items(), key=lambda kv: kv[1])
    return seconds / cores, f"{a} vs {b} {slowest:,.0f} games/s per core, the slowest"
