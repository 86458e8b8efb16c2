"""Each built-in match-up plays in the smallest compiled loop that holds its players
(sim.play.compiled.TIERS), and that loop plays the same games as the full loop."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EVERY_LOOP, SLOW_ENGINE

# Each match-up (strategy A, strategy B or the CPU) and the loop that must play it, by the
# tiers random < greedy < heuristic < mc < ismcts, the CPU loops where B is the CPU.
MC, ISMCTS = "mc(rollouts=8)", "ismcts(iterations=12)"  # small budgets: seconds, not hours
THROUGH = [
    ("random", "random", "play_random_games"),
    ("greedy", "random", "play_greedy_games"),
    ("random", "greedy", "play_greedy_games"),
    ("greedy", "greedy", "play_greedy_games"),
    ("heuristic", "random", "play_heuristic_games"),
    ("greedy", "heuristic", "play_heuristic_games"),
    (MC, "random", "play_mc_games"),
    ("heuristic", MC, "play_mc_games"),
    (ISMCTS, "random", "play_games"),
    (MC, ISMCTS, "play_games"),
    ("random", "cpu", "play_cpu_games"),
    ("greedy", "cpu(level=3)", "play_cpu_greedy_games"),
    ("heuristic", "cpu", "play_cpu_heuristic_games"),
    (MC, "cpu(level=2)", "play_mc_games"),
    (ISMCTS, "cpu(level=4)", "play_games"),
]


@pytest.mark.parametrize(("a", "b", "loop"), THROUGH)
def test_each_match_up_plays_in_its_loop_the_full_loop_s_games(a, b, loop, every_loop):
    """The full loop (every policy and the CPU) is the reference: the tier's loop must play
    the same games, seat-swapped pairs included."""
    from sim.engine.game import R_TURNS
    from sim.model import config
    from sim.play.batch import game_loop, play_batch
    from sim.players import specs as players

    base = config.load("base")
    seats = players.matchup(a, b)
    level = seats.cpu_level(base.rules.cpu_level)
    codes, limits = seats.policy_codes(), seats.budgets()
    assert game_loop(codes, level).__name__ == loop
    games = 60 if MC in (a, b) or ISMCTS in (a, b) else 300
    games //= 30 if SLOW_ENGINE else 1  # plain Python plays about a hundred times slower
    seeds = np.arange(1, games + 1, dtype=np.uint64)
    swapped = (np.arange(games) % 2).astype(np.uint8)
    out, cards = play_batch(base, seeds, None, level, swapped, None, codes, limits)
    full_out, full_cards = in_the_full_loop(base, seeds, swapped, level, codes, limits)
    assert (out == full_out).all() and (cards == full_cards).all()
    assert len(set(out[:, R_TURNS].tolist())) > 1  # games were played, and differ


def in_the_full_loop(config, seeds, swapped, level, codes, limits):
    """The batch's result rows and card counts from the full loop, whatever the seats."""
    from sim.engine.state import new_state
    from sim.play.batch import engine_seats, lead_buffer, result_buffers
    from sim.play.compiled import play_games

    out, cards = result_buffers(len(seeds))
    seats = engine_seats(codes, limits)
    args = (seats, seeds, swapped, out, cards, lead_buffer())
    play_games(new_state(), config.engine_args(level), *args)
    return out, cards


def test_the_suite_compiles_every_loop_up_front():
    """conftest.every_loop names one match-up per compiled loop, so no loop is left for two
    test processes to compile at once."""
    from sim.model import config
    from sim.play.batch import game_loop
    from sim.play.compiled import TIERS
    from sim.players import specs as players

    level_of = config.load("base").rules.cpu_level
    reached = set()
    for spec in EVERY_LOOP:
        seats = players.parse_matchup(spec)
        reached.add(game_loop(seats.policy_codes(), seats.cpu_level(level_of)).__name__)
    assert reached == {loop.__name__ for tier in TIERS for loop in tier[1:]}
