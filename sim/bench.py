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

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def bench(config: Config, games: int, seed: int = 1) -> BenchResult:
    """Play random vs random games in one compiled call and time it."""
    from sim.engine.game import R_TURNS, RESULT_WIDTH, play_games
    from sim.engine.state import new_state

    s = new_state()
    rules = config.rules
    args = (
        config.kinds(),
        config.axes(),
        rules.lines,
        rules.run_capacity,
        int(rules.orientation == "free"),
        rules.first_option,
    )
    started = time.perf_counter()
    play_games(s, *args, np.arange(1, dtype=np.uint64), np.zeros((1, RESULT_WIDTH), np.int32))
    warmup = time.perf_counter() - started
    seeds = np.arange(seed, seed + games, dtype=np.uint64)
    out = np.zeros((games, RESULT_WIDTH), dtype=np.int32)
    started = time.perf_counter()
    play_games(s, *args, seeds, out)
    seconds = time.perf_counter() - started
    return BenchResult(config.name, games, seconds, warmup, float(out[:, R_TURNS].mean()))
