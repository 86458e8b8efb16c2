"""One line on stderr per finished trial: its point, each target's estimate and verdict, the
best trial so far, and the time left at this invocation's pace."""

from __future__ import annotations

import sys
from collections.abc import Callable

from sim.tune.objective import Evaluation
from sim.tune.space import Space


def rank(space: Space, e: Evaluation) -> tuple[int, float]:
    """Best first: fewest targets missed by the estimate, then the smallest total excess."""
    excess = [e.excess(t) for t in space.targets]
    return sum(x > 0 for x in excess), sum(excess)


def reporter(space: Space, trials: int) -> Callable[[int, object, Evaluation, float], None]:
    """The study's `said` callback, remembering the best trial and the pace."""
    seen = {"best": None, "seconds": 0.0, "played": 0}

    def said(index: int, trial, e: Evaluation, seconds: float) -> None:
        seen["seconds"] += seconds
        seen["played"] += 1
        if seen["best"] is None or rank(space, e) < seen["best"][0]:
            seen["best"] = (rank(space, e), trial.number)
        left = max(0, trials - index) * seen["seconds"] / seen["played"]
        point = ", ".join(f"{k}={v}" for k, v in trial.params.items())
        parts = []
        for t in space.targets:
            v = e.value(t)
            parts.append(f"{t.name} {v.value:.1f} [{v.low:.1f}, {v.high:.1f}] "
                         f"{t.verdict(v)}")  # fmt: skip
        early = " (stopped early)" if e.stopped_early else ""
        (missed, _), best = seen["best"]
        print(
            f"trial {index}/{trials} t{trial.number:04d} [{point}]: "
            + "; ".join(parts)
            + f"; {e.pairs:,} pairs{early}, {seconds:.0f} s; best so far t{best:04d} "
            f"({len(space.targets) - missed} of {len(space.targets)} targets met); "
            f"about {_duration(left)} left",
            file=sys.stderr,
            flush=True,
        )

    return said


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
