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
    from sim.engine.game import R_END, R_ERROR, R_TURNS, RESULT_WIDTH, play_games
    from sim.engine.state import END_REASONS, new_state

    s = new_state()
    args = config.engine_args()
    started = time.perf_counter()
    play_games(s, *args, np.arange(1, dtype=np.uint64), np.zeros((1, RESULT_WIDTH), np.int32))
    warmup = time.perf_counter() - started
    seeds = np.arange(seed, seed + games, dtype=np.uint64)
    out = np.zeros((games, RESULT_WIDTH), dtype=np.int32)
    started = time.perf_counter()
    play_games(s, *args, seeds, out)
    seconds = time.perf_counter() - started
    ends = np.bincount(out[:, R_END], minlength=len(END_REASONS)) / games
    return BenchResult(
        config.name,
        games,
        seconds,
        warmup,
        float(out[:, R_TURNS].mean()),
        float(first_seat_wins(out).mean()),
        {name: float(ends[i]) for i, name in enumerate(END_REASONS) if name and ends[i]},
        int(np.count_nonzero(out[:, R_ERROR])),
    )


def first_seat_wins(out: np.ndarray) -> np.ndarray:
    """Per result row, whether the first seat won (on points or on the tie-break)."""
    from sim.engine.game import R_LINE0, R_SCORE_FIRST, R_SCORE_SECOND

    first, second = out[:, R_SCORE_FIRST], out[:, R_SCORE_SECOND]
    lines = out[:, R_LINE0:]
    controlled = lines >= 0
    # the highest-valued controlled line is the right-most controlled column
    top = np.where(
        controlled.any(axis=1), lines.shape[1] - 1 - np.argmax(controlled[:, ::-1], axis=1), 0
    )
    top_owner = lines[np.arange(len(out)), top]
    return (first > second) | ((first == second) & (first > 0) & (top_owner == 0))
