"""Engine speed: games per second on one core, compile time measured apart."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from sim.model.config import Config
from sim.players.specs import Matchup, parse_matchup


@dataclass(frozen=True)
class BenchResult:
    config: str
    games: int
    seconds: float
    warmup_seconds: float  # compiling (or loading from the cache) and one game, untimed
    mean_turns: float
    first_wins: float  # share of games won by the first seat
    end_shares: dict[str, float]
    errors: int  # games stopped by an engine limit (should be 0)
    compiled: bool = False  # the warm-up compiled the loop (cold cache) rather than loaded it

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def compiling_note(label: str):
    """A progress line for a compile, so a cold first run does not look stuck."""

    def note() -> None:
        print(f"compiling the engine for {label}, first run only", file=sys.stderr, flush=True)

    return note


def bench(
    config: Config, games: int, seed: int = 1, players: Matchup | None = None, note=None
) -> BenchResult:
    """Play one match-up's games (random vs random by default) in one call and time it.

    note(): called before a compile (default: a line on stderr); the compile is timed apart.
    """
    players = players or parse_matchup("random,random")
    from sim.engine.game import R_END, R_ERROR, R_TURNS, R_WINNER, WIN_FIRST
    from sim.engine.state import END_REASONS, new_state
    from sim.play.batch import loop_label, play_batch, play_matchup, prepare, result_buffers

    level = players.cpu_level(config.rules.cpu_level)
    s = new_state()
    seeds = np.arange(seed, seed + games, dtype=np.uint64)
    cold = False
    if players.compiled:
        codes, limits = players.policy_codes(), players.budgets()
        shown = note or compiling_note(loop_label(players, level))
        warmup, cold = prepare(config, codes, limits, level, shown)
        buffers = result_buffers(games)
        for array in buffers:
            array.fill(0)  # touch every page now, so the timing below holds only the games
        started = time.perf_counter()
        weights = players.evaluations()  # a weights file plays its own (it played the shipped)
        out, _ = play_batch(config, seeds, s, level, None, buffers, codes, limits, weights)
    else:
        started = time.perf_counter()
        play_matchup(config, players, np.arange(1, dtype=np.uint64), None, level, s)
        warmup = time.perf_counter() - started
        started = time.perf_counter()
        out, _ = play_matchup(config, players, seeds, None, level)
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
        cold,
    )
