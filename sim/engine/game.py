"""Setting up (RULES.md 3) and playing whole games inside compiled code."""

from __future__ import annotations

import numpy as np

from sim.cards import BLANK
from sim.engine.board import place
from sim.engine.hands import draw
from sim.engine.jit import entry, kernel
from sim.engine.rng import advance, chance_int, mix
from sim.engine.score import controller
from sim.engine.state import (
    MAX_LINES,
    NO_CARD,
    ONGOING,
    POLICY_RANDOM,
)
from sim.engine.turn import HAND_SIZE, random_turn

# Columns of the per-game result rows returned by play_games.
R_FIRST, R_END, R_TURNS, R_SCORE_FIRST, R_SCORE_SECOND, R_ERROR = 0, 1, 2, 3, 4, 5
R_LINE0 = 6  # then one column per line: controlling seat 0 first, 1 second, -1 nobody
RESULT_WIDTH = R_LINE0 + MAX_LINES

FIRST_RANDOM = -1


@kernel
def clear(s, lines, capacity, free):
    """Reset a state for a new game (the record is reused: allocation costs more than a game)."""
    s.grid[:, :] = NO_CARD
    s.mark[:, :] = 0
    s.count[:] = 0
    s.width[:] = 0
    s.gap[:] = 0
    s.saved[:] = 0
    s.dirn[:] = 0
    s.hand_len[:] = 0
    s.cut_len = 0
    s.removed_len = 0
    s.lines = lines
    s.capacity = capacity
    s.free = free
    s.forced_line = -1
    s.forced_col = -1
    s.passed[:] = 0
    s.turns = 0
    s.ended = ONGOING
    s.error = 0
    s.script_len = 0
    s.script_pos = 0


@kernel
def seed_streams(s, seed):
    """Split one game seed into the deal's stream and each digit's strategy stream."""
    x = advance(np.uint64(seed))
    s.chance = mix(x)
    x = advance(x)
    s.srng[0] = mix(x)
    x = advance(x)
    s.srng[1] = mix(x)


@kernel
def deal(s, kinds, axes, first_option):
    """Build both decks, set a BLANK aside each, shuffle, choose the first player, draw 3."""
    n = kinds.shape[0]
    s.n_cards = 2 * n
    first = first_option if first_option >= 0 else chance_int(s, 2)
    s.first = first
    s.mover = first
    for digit in range(2):
        start = -1
        size = 0
        for i in range(n):
            cid = digit * n + i
            s.kind[cid] = kinds[i]
            s.axis[cid] = axes[i]
            s.face[cid] = digit
            s.owner[cid] = digit
            if start < 0 and kinds[i] == BLANK:
                start = cid
            else:
                s.pile[digit, size] = cid
                size += 1
        for i in range(size - 1, 0, -1):  # Fisher-Yates
            j = chance_int(s, i + 1)
            tmp = s.pile[digit, i]
            s.pile[digit, i] = s.pile[digit, j]
            s.pile[digit, j] = tmp
        s.pile_top[digit] = 0
        s.pile_len[digit] = size
        place(s, start, 0 if digit == first else 1, 0)
    for digit in range(2):
        for _ in range(HAND_SIZE):
            draw(s, digit)


@kernel
def record(s, out):
    """Write a finished game's result row (seats: 0 first, 1 second)."""
    first = s.first
    zero = 0
    one = 0
    for line in range(MAX_LINES):
        who = controller(s, line) if line < s.lines else -1
        if who == 0:
            zero += 10 * (line + 1)
        elif who == 1:
            one += 10 * (line + 1)
        out[R_LINE0 + line] = -1 if who < 0 else (0 if who == first else 1)
    out[R_FIRST] = first
    out[R_END] = s.ended
    out[R_TURNS] = s.turns
    out[R_SCORE_FIRST] = one if first else zero
    out[R_SCORE_SECOND] = zero if first else one
    out[R_ERROR] = s.error


@kernel
def setup(s, kinds, axes, lines, capacity, free, first_option, seed):
    """A new game in s, ready for the first turn, both seats on the random policy."""
    clear(s, lines, capacity, free)
    seed_streams(s, seed)
    s.policy[0] = POLICY_RANDOM
    s.policy[1] = POLICY_RANDOM
    deal(s, kinds, axes, first_option)


@entry
def play_games(s, kinds, axes, lines, capacity, free, first_option, seeds, out):
    """Play one random-vs-random game per seed; one result row each in out."""
    for g in range(seeds.shape[0]):
        setup(s, kinds, axes, lines, capacity, free, first_option, seeds[g])
        while s.ended == ONGOING and s.error == 0:
            random_turn(s)
        record(s, out[g])
    return 0
