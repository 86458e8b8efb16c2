"""The compiled game loops of the built-in match-ups: the rules (sim/engine) joined with the
built-in players (strategies/), one layer above both, so the engine imports no strategy.

One small loop per tier of players (strategies/seats.py), with and without the CPU card, so
a run compiles (or loads) only the players its seats can need: separate explicit loops,
because numba caches neither a loop that takes the turn function as an argument nor one
made by a factory. Random against random without the CPU has its own loop in the engine
(sim.engine.game.play_random_games). Each loop takes the rule arguments as one tuple
(Config.engine_args) and the seats as one (policies, budgets, evaluation weights), and
adds its games to a histogram of leads by turn (game.lead_buffer).
"""

from __future__ import annotations

from sim.engine.game import play_random_games, record, setup, track
from sim.engine.jit import entry, inlined, kernel
from sim.engine.state import (
    ONGOING,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_MC,
    POLICY_RANDOM,
)
from strategies.seats import (
    cpu_or_any,
    cpu_or_greedy,
    cpu_or_heuristic,
    cpu_or_mc,
    cpu_or_random,
    greedy_seat,
    heuristic_seat,
)


@kernel
def seat_policies(s, policies, budgets, weights, swapped):
    """Strategies A and B (policies[0], policies[1], with their budgets and evaluation
    weights) into their seats; B sits first in the second game of a seat-swapped pair."""
    a, b = (1, 0) if swapped else (0, 1)
    s.policy[s.first] = policies[a]
    s.policy[1 - s.first] = policies[b]
    s.budget[s.first] = budgets[a]
    s.budget[1 - s.first] = budgets[b]
    s.weights[s.first, :] = weights[a]
    s.weights[1 - s.first, :] = weights[b]


@inlined
def start_game(s, rules, seats, seed, swapped):
    """A new game in s from the rule tuple, its seed and swap flag, the seats' policies on."""
    setup(s, *rules, seed, swapped)
    seat_policies(s, seats[0], seats[1], seats[2], swapped)


@entry
def play_cpu_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Random against the CPU card: one game per seed, a result row in out, card counts in
    cards (as every loop here)."""
    for g in range(seeds.shape[0]):
        start_game(s, rules, seats, seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            cpu_or_random(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0


@entry
def play_greedy_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Greedy or random in each seat, no CPU."""
    for g in range(seeds.shape[0]):
        start_game(s, rules, seats, seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            greedy_seat(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0


@entry
def play_cpu_greedy_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Greedy or random against the CPU card."""
    for g in range(seeds.shape[0]):
        start_game(s, rules, seats, seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            cpu_or_greedy(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0


@entry
def play_heuristic_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Heuristic, greedy or random in each seat, no CPU."""
    for g in range(seeds.shape[0]):
        start_game(s, rules, seats, seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            heuristic_seat(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0


@entry
def play_cpu_heuristic_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Heuristic, greedy or random against the CPU card."""
    for g in range(seeds.shape[0]):
        start_game(s, rules, seats, seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            cpu_or_heuristic(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0


@entry
def play_mc_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Any policy but ismcts in each seat, with or without the CPU card."""
    for g in range(seeds.shape[0]):
        start_game(s, rules, seats, seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            cpu_or_mc(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0


@entry
def play_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Any built-in policy in each seat, with or without the CPU card: the full loop."""
    for g in range(seeds.shape[0]):
        start_game(s, rules, seats, seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            cpu_or_any(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0


# The tiers, smallest first: (policy, loop without the CPU, loop with it); a tier's loops
# play its own policy and every one before it.
TIERS = (
    (POLICY_RANDOM, play_random_games, play_cpu_games),
    (POLICY_GREEDY, play_greedy_games, play_cpu_greedy_games),
    (POLICY_HEURISTIC, play_heuristic_games, play_cpu_heuristic_games),
    (POLICY_MC, play_mc_games, play_mc_games),
    (POLICY_ISMCTS, play_games, play_games),
)
