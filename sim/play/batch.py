"""Playing games: batches in the compiled loop, any match-up, and one game turn by turn.

The turn-by-turn driver (stepped) plays exactly the compiled loop's turns, so a seed
gives the same game either way.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from sim.engine.game import lead_buffer, setup
from sim.engine.state import END_REASONS, new_state
from sim.model.config import Config
from sim.play.stepped import EngineError, Turn
from sim.players.specs import Matchup

__all__ = [
    "EngineError",
    "Turn",
    "end_reason",
    "game_loop",
    "lead_buffer",
    "play_batch",
    "play_matchup",
    "prepare",
    "start",
    "turns",
]


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
    weights=None,
    leads=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play one game per seed in one compiled call.

    policies are the engine codes of strategies A and B (Matchup.policy_codes), budgets
    their search budgets (Matchup.budgets), weights their evaluation weights
    (Matchup.evaluations; None: the shipped heuristic's for both); A sits
    first unless the game's swapped flag is set; cpu_level puts the CPU in the second
    seat. Returns the result rows (engine/game.py R_* columns) and the card counts
    [game, seat, kind, C_*]. Pass a state to reuse it across batches, and leads (a
    lead_buffer) to add the batch's games by turn and first seat's lead to.
    """
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    out, cards = buffers if buffers is not None else result_buffers(len(seeds))
    state = new_state() if s is None else s
    flags = np.zeros(len(seeds), np.uint8) if swapped is None else np.asarray(swapped, np.uint8)
    rules = config.engine_args(cpu_level)
    seats = engine_seats(policies, budgets, weights)
    loop = game_loop(policies, cpu_level)
    loop(state, rules, seats, seeds, flags, out, cards, lead_buffer() if leads is None else leads)
    return out, cards


def engine_seats(policies, budgets, weights=None) -> tuple:
    """The seats tuple every compiled loop takes: codes, budgets, evaluation weights."""
    if weights is None:
        from sim.players.weights import default_weights

        weights = (default_weights(), default_weights())
    return (
        np.asarray(policies, dtype=np.int8),
        np.asarray(budgets, dtype=np.int32),
        np.asarray(weights, dtype=np.float64),
    )


def game_loop(policies=(0, 0), cpu_level: int = 0):
    """The smallest compiled loop that plays these seats (compiled.TIERS): it compiles
    only the players they can need, and a seat it reaches plays as in the full loop.
    A policy outside the tiers gets the full loop."""
    from sim.play.compiled import TIERS

    order = [tier[0] for tier in TIERS]
    top = max(order.index(int(p)) if int(p) in order else len(order) - 1 for p in policies)
    _, plain, solo = TIERS[top]
    return solo if cpu_level else plain


def loop_label(players: Matchup, cpu_level: int = 0) -> str:
    """What a compiled loop is compiled for, as progress shows it."""
    return f"{players.first.text} vs {'the CPU' if cpu_level else players.second.text}"


def prepare(
    config: Config, policies=(0, 0), budgets=(0, 0), cpu_level: int = 0, note=None
) -> tuple[float, bool]:
    """Compile (or load from the cache) the loop these seats need, before any game is timed;
    note() is called first when it must be compiled. Returns the seconds it took and
    whether it compiled."""
    from sim.engine.jit import cached

    cold = not cached(game_loop(policies, cpu_level))
    if cold and note is not None:
        note()
    started = time.perf_counter()
    play_batch(
        config, np.arange(1, dtype=np.uint64), None, cpu_level, None, None, policies, budgets
    )
    return time.perf_counter() - started, cold


def compile_cold(config: Config, players: Matchup, note) -> float:
    """Compile the loop of a built-in match-up here, before workers start, when the cache
    lacks it: one compile the workers then load, not one per worker at once, and never
    inside the timed run. note(label) is called first; returns the seconds (0 if cached)."""
    from sim.engine.jit import cached

    if not players.compiled:
        return 0.0
    level = players.cpu_level(config.rules.cpu_level)
    codes = players.policy_codes()
    if cached(game_loop(codes, level)):
        return 0.0
    note(loop_label(players, level))
    return prepare(config, codes, players.budgets(), level)[0]


def result_buffers(games: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed result rows and card counts for a batch of games."""
    from sim.engine.cards import N_KINDS
    from sim.engine.game import RESULT_WIDTH

    out = np.zeros((games, RESULT_WIDTH), dtype=np.int32)
    return out, np.zeros((games, 2, N_KINDS, 3), dtype=np.uint8)


def turns(s, seed: int = 0) -> Iterator[Turn]:
    """Play the game in s to its end with the seats' compiled policies (random unless set),
    yielding each turn after it."""
    from sim.play.stepped import Context, drive

    yield from drive(s, (None, None), Context(seed=seed))


def play_matchup(
    config: Config,
    players: Matchup,
    seeds: np.ndarray,
    swapped=None,
    cpu_level: int = 0,
    state=None,
    buffers=None,
    leads=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play the match-up's strategies A and B once per seed: in the compiled loop when both
    are built-ins, else in the Python loop; the same result rows and card counts either way.
    buffers: zeroed result_buffers to fill (a worker reuses its own), else new ones; leads:
    a lead_buffer the games are added to."""
    from sim.play import stepped

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    flags = np.zeros(len(seeds), np.uint8) if swapped is None else np.asarray(swapped, np.uint8)
    if players.compiled:
        codes, limits, weights = players.policy_codes(), players.budgets(), players.evaluations()
        return play_batch(
            config, seeds, state, cpu_level, flags, buffers, codes, limits, weights, leads
        )
    out, cards = result_buffers(len(seeds)) if buffers is None else buffers
    first_game = (seeds[0], flags[0]) if len(seeds) else (0, 0)  # where a seat's failure shows
    seat_a, seat_b = stepped.seats(config, players, *first_game)
    stepped.play_games(config, seat_a, seat_b, seeds, flags, cpu_level, out, cards, leads)
    return out, cards


def end_reason(s) -> str | None:
    return END_REASONS[int(s.ended)] or None
