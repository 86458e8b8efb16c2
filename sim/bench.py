"""Engine speed: games per second on one core, compile time measured apart."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from sim.config import Config


@dataclass(frozen=True)
class BenchResult:
    config: str
    games: int
    seconds: float
    warmup_seconds: float
    mean_turns: float
    first_wins: float  # share of games won by the first seat
    end_shares: dict[str, float]
    errors: int  # games stopped by an engine limit (should be 0)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def bench(config: Config, games: int, seed: int = 1) -> BenchResult:
    """Play random vs random games in one compiled call and time it."""
    from sim.engine.game import R_END, R_ERROR, R_TURNS, R_WINNER, WIN_FIRST
    from sim.engine.state import END_REASONS, new_state
    from sim.game import play_batch, result_buffers

    s = new_state()
    started = time.perf_counter()
    play_batch(config, np.arange(1, dtype=np.uint64), s)
    warmup = time.perf_counter() - started
    buffers = result_buffers(games)
    for array in buffers:
        array.fill(0)  # touch every page now, so the timing below holds only the games
    started = time.perf_counter()
    out, _ = play_batch(config, np.arange(seed, seed + games, dtype=np.uint64), s, buffers=buffers)
    seconds = time.perf_counter() - started
    ends = np.bincount(out[:, R_END], minlength=len(END_REASONS)) / games
    return BenchResult(
        config.name,
        games,
        seconds,
        warmup,
        float(out[:, R_TURNS].mean()),
        float((out[:, R_WINNER] == WIN_FIRST).mean()),
        {name: float(ends[i]) for i, name in enumerate(END_REASONS) if name and ends[i]},
        int(np.count_nonzero(out[:, R_ERROR])),
    )
