"""Playing games: batches in the compiled loop, any match-up, and one game turn by turn.

The turn-by-turn driver (python_loop) plays exactly the compiled loop's turns, so a seed
gives the same game either way.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from sim.config import Config
from sim.engine.game import setup
from sim.engine.state import END_REASONS, new_state
from sim.python_loop import EngineError, Turn

__all__ = ["EngineError", "Turn", "end_reason", "play_batch", "play_matchup", "start", "turns"]


def start(config: Config, seed: int, cpu_level: int = 0):
    """A state holding a freshly dealt game (with the CPU in the second seat if cpu_level)."""
    s = new_state()
    setup(s, *config.engine_args(cpu_level), np.uint64(seed), 0)
    return s


def play_batch(
    config: Config,
    seeds: np.ndarray,
    s=None,
    cpu_level: int = 0,
    swapped=None,
    buffers=None,
    policies=(0, 0),
    budgets=(0, 0),
) -> tuple[np.ndarray, np.ndarray]:
    """Play one game per seed in one compiled call.

    policies are the engine codes of strategies A and B (players.policy_codes), budgets
    their search budgets (players.budgets); A sits
    first unless the game's swapped flag is set; cpu_level puts the CPU in the second
    seat. Returns the result rows (engine/game.py R_* columns) and the card counts
    [game, seat, kind, C_*]. Pass a state to reuse it across batches.
    """
    from sim.engine.game import play_games

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    out, cards = buffers if buffers is not None else result_buffers(len(seeds))
    state = new_state() if s is None else s
    flags = np.zeros(len(seeds), np.uint8) if swapped is None else np.asarray(swapped, np.uint8)
    seats = np.asarray(policies, dtype=np.int8)
    limits = np.asarray(budgets, dtype=np.int32)
    play_games(state, *config.engine_args(cpu_level), seats, limits, seeds, flags, out, cards)
    return out, cards


def result_buffers(games: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed result rows and card counts for a batch of games."""
    from sim.cards import N_KINDS
    from sim.engine.game import RESULT_WIDTH

    out = np.zeros((games, RESULT_WIDTH), dtype=np.int32)
    return out, np.zeros((games, 2, N_KINDS, 3), dtype=np.uint8)


def turns(s, seed: int = 0) -> Iterator[Turn]:
    """Play the game in s to its end with the seats' compiled policies (random unless set),
    yielding each turn after it."""
    from sim.python_loop import Context, drive

    yield from drive(s, (None, None), Context(seed=seed))


def play_matchup(
    config: Config,
    a: str,
    b: str,
    seeds: np.ndarray,
    swapped=None,
    cpu_level: int = 0,
    state=None,
    buffers=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play strategies A and B (specs) once per seed: in the compiled loop when both are
    built-ins, else in the Python loop; the same result rows and card counts either way.
    buffers: zeroed result_buffers to fill (a worker reuses its own), else new ones."""
    from sim import players, python_loop

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    flags = np.zeros(len(seeds), np.uint8) if swapped is None else np.asarray(swapped, np.uint8)
    if players.compiled(a, b):
        codes, limits = players.policy_codes(a, b), players.budgets(a, b)
        return play_batch(config, seeds, state, cpu_level, flags, buffers, codes, limits)
    out, cards = result_buffers(len(seeds)) if buffers is None else buffers
    first_game = (seeds[0], flags[0]) if len(seeds) else (0, 0)  # where a seat's failure shows
    seat_a, seat_b = python_loop.seats(config, a, b, *first_game)
    python_loop.play_games(config, seat_a, seat_b, seeds, flags, cpu_level, out, cards)
    return out, cards


def end_reason(s) -> str | None:
    return END_REASONS[int(s.ended)] or None
