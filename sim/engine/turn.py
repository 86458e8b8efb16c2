"""A turn (RULES.md 4): INPUT with its legal placements, EXECUTE, end check and LOAD."""

from __future__ import annotations

import numpy as np

from sim.engine.board import can_enter, in_bounds, is_shut, leftmost_empty
from sim.engine.cards import CONT
from sim.engine.commands import execute_card, put_down, put_from_hand
from sim.engine.decide import choose_dir, dir_allowed, n_dirs, nth_dir
from sim.engine.hands import draw, hand_remove
from sim.engine.jit import inlined, kernel
from sim.engine.rng import advance, below, mix
from sim.engine.state import (
    END_DECK_OUT,
    END_RUN,
    END_STALLED,
    ERR_ILLEGAL,
    MAX_LINES,
)

HAND_SIZE = 3


def _nth_bit_table() -> np.ndarray:
    """[mask, k]: position of the k-th set bit of a line mask (lines < MAX_LINES)."""
    table = np.zeros((1 << MAX_LINES, MAX_LINES), np.int64)
    for mask in range(1 << MAX_LINES):
        bits = [pos for pos in range(MAX_LINES) if mask >> pos & 1]
        table[mask, : len(bits)] = bits
    return table


# A lookup instead of a bit walk whose length is random: its exit branch mispredicted.
_NTH_LINE = _nth_bit_table()


@inlined
def forced_applies(s, digit):
    """RULES.md 4.1 NEXT: a forced slot binds only if some hand card may enter it."""
    if s.forced_line < 0:
        return False
    for i in range(s.hand_len[digit]):
        if can_enter(s, s.forced_line, s.forced_col, s.hand[digit, i]):
            return True
    return False


def _open_table() -> np.ndarray:
    """[full3 mask]: the lines the open-line rule (4.1) allows, whatever their room: the 10
    and 20 lines, and every line below a run of lines from the top each holding 3 cards."""
    table = np.zeros(1 << MAX_LINES, np.int64)
    for mask in range(1 << MAX_LINES):
        run = 0
        while run < MAX_LINES and mask >> run & 1:
            run += 1
        table[mask] = (1 << (max(run, 1) + 1)) - 1
    return table


_OPEN = _open_table()


@inlined
def line_masks(s):
    """Bitmasks of the lines open to any card, and of those open only to a CONT (shut lines).

    Computed once a turn: only CONT differs between cards, so every card shares them. From
    the kept masks (full3, shut) with selects: the walk over the lines it replaces exited
    at a random line, a mispredicted branch every turn.
    """
    if s.far:  # a line reached MAX_COLS: the walk, which reports the overflow
        return line_masks_walk(s)
    run_bit = 1 << (s.lines - 1)
    eligible = _OPEN[s.full3] & ((run_bit << 1) - 1)
    plain = eligible & ~s.shut
    cont = eligible & s.shut
    # the RUN line has room below capacity; every other line has (no line is far)
    plain &= ~run_bit if s.gap[s.lines - 1] >= s.capacity else -1
    cont &= ~run_bit if s.width[s.lines - 1] >= s.capacity else -1
    return plain, cont


@kernel
def line_masks_walk(s):
    """line_masks line by line, with in_bounds's overflow check on each open line."""
    plain = 0
    cont = 0
    for line in range(s.lines):
        if line >= 2 and (s.count[0] < 3 or s.count[line - 1] < 3):
            break  # lines 1..line-2 were checked on earlier passes
        if is_shut(s, line):
            if in_bounds(s, line, s.width[line]):
                cont |= 1 << line
        elif leftmost_empty(s, line) >= 0:
            plain |= 1 << line
    return plain, cont


@inlined
def card_lines(s, cid, forced, plain, cont):
    """Bitmask of the lines where a hand card may be played this turn."""
    if forced:
        if can_enter(s, s.forced_line, s.forced_col, cid):
            return 1 << s.forced_line
        return 0
    return plain | cont if s.kind[cid] == CONT else plain


@kernel
def legal_lines(s, digit, index, forced):
    """Bitmask of the lines where the index-th hand card may be played this turn."""
    plain, cont = line_masks(s)
    return card_lines(s, s.hand[digit, index], forced, plain, cont)


@kernel
def popcount(mask):
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


@inlined
def random_input(s, digit, forced, canonical):
    """RULES.md 9: a playable card uniformly, then a legal line, then a direction.

    Returns (hand index, line, column, direction), or index -1 to pass. canonical: the seat is
    known to be random, so the direction is drawn here (the draw choose_dir would make)
    instead of in a call that also serves scripts and paths (measured ~6% of a turn).
    """
    plain, cont = line_masks(s)
    n = s.hand_len[digit]
    if forced or cont:  # some card's lines differ from another's: ask each card
        playable = 0
        for i in range(n):
            playable += card_lines(s, s.hand[digit, i], forced, plain, cont) != 0
    else:  # every card may go to the plain lines: no walk over the hand's kinds
        playable = n if plain else 0
    if playable == 0:
        return -1, -1, -1, 0
    # The turn's draws at once: the stream's steps do not depend on the choices, so the
    # mixes run side by side, not one after another on the turn's critical path.
    x_card = advance(s.srng[digit])
    x_line = advance(x_card)
    x_dir = advance(x_line)
    s.srng[digit] = x_dir if canonical else x_line
    k = below(mix(x_card), playable)
    index = k
    mask = plain
    if forced or cont:
        # the k-th playable card by selects over the whole hand, not an exit at a random
        # index (a mispredicted branch every turn)
        index = 0
        mask = 0
        for i in range(n):
            lines = card_lines(s, s.hand[digit, i], forced, plain, cont)
            take = (lines != 0) & (k == 0)
            index = i if take else index
            mask = lines if take else mask
            k -= lines != 0
    line = _NTH_LINE[mask, below(mix(x_line), popcount(mask))]
    cid = s.hand[digit, index]
    if canonical:
        direction = nth_dir(s, cid, below(mix(x_dir), n_dirs(s, cid)))
    else:  # a script or a path may choose the direction: the stream goes on from x_line
        direction = choose_dir(s, digit, cid, -1)
    # the slot from the masks (a shut line is only ever in cont), not a second is_shut:
    # its chain of dependent loads sat on every turn's path
    if forced:
        col = s.forced_col
    elif (cont >> line) & 1:
        col = s.width[line]
    else:
        col = s.gap[line]
    return index, line, col, direction


@kernel
def play_card(s, digit, index, line, direction, forced):
    """INPUT and EXECUTE of one hand card; sets s.error and changes nothing if illegal."""
    if index < 0 or index >= s.hand_len[digit] or line < 0 or line >= s.lines:
        s.error = ERR_ILLEGAL
        return
    cid = s.hand[digit, index]
    if not (legal_lines(s, digit, index, forced) >> line) & 1 or not dir_allowed(s, cid, direction):
        s.error = ERR_ILLEGAL
        return
    put_card(s, digit, index, line, direction, forced)


@inlined
def put_card(s, digit, index, line, direction, forced):
    """INPUT and EXECUTE of a hand card already known to be legal there."""
    if forced:
        col = s.forced_col
    elif is_shut(s, line):
        col = s.width[line]
    else:
        col = s.gap[line]
    put_card_at(s, digit, index, line, col, direction)


@inlined
def put_card_at(s, digit, index, line, col, direction):
    """put_card with the slot already found."""
    play_at(s, digit, index, line, col, direction, False)


@inlined
def play_at(s, digit, index, line, col, direction, canonical):
    """put_card_at; canonical (a random seat in random play or a rollout): no turn record
    (s.last) and no path to note the card for, stores and a load every such turn skips."""
    cid = s.hand[digit, index]
    s.forced_line = -1
    if not canonical:
        s.last[0] = cid
        s.last[1] = line
        s.last[2] = direction
    hand_remove(s, digit, index)
    if canonical:
        put_from_hand(s, digit, cid, direction, line, col)
    else:
        put_down(s, digit, cid, direction, line, col)
    execute_card(s, digit, cid, line, col, canonical)


@inlined
def begin_turn(s, digit):
    """Whether a NEXT-forced slot binds this turn; a slot that does not bind is dropped."""
    forced = forced_applies(s, digit)
    if not forced:
        s.forced_line = -1
    return forced


@inlined
def finish_turn(s, digit, passed, load):
    """RULES.md 4.3: RUN check, LOAD (deck_out), then stalled; hands the turn over."""
    s.passed[digit] = passed
    s.turns += 1
    if s.count[s.lines - 1] >= s.capacity:
        s.ended = END_RUN
        return
    if load:
        while s.hand_len[digit] < HAND_SIZE:
            if not draw(s, digit):
                s.ended = END_DECK_OUT
                return
    if s.passed[0] and s.passed[1]:
        s.ended = END_STALLED
        return
    s.mover = 1 - digit


@inlined
def random_turn(s):
    """One whole turn of the player to move, choices from the canonical random strategy
    (or the seat's script or path, which follow the same order of decisions)."""
    any_turn(s, False)


@inlined
def canonical_turn(s):
    """random_turn for a seat known to be on the random policy (random vs random, rollouts):
    the same draws, without asking whether a script or a path drives the seat."""
    any_turn(s, True)


@inlined
def any_turn(s, canonical):
    digit = s.mover
    forced = begin_turn(s, digit)
    index, line, col, direction = random_input(s, digit, forced, canonical)
    if index >= 0:
        play_at(s, digit, index, line, col, direction, canonical)
    finish_turn(s, digit, index < 0, True)


@kernel
def legal_plays(s, digit, forced, out):
    """Every legal play as rows (hand index, line, direction) in out, in the fixed order
    (hand order, lines top to bottom, directions L R U D); returns how many."""
    plain, cont = line_masks(s)
    n = 0
    for index in range(s.hand_len[digit]):
        cid = s.hand[digit, index]
        mask = card_lines(s, cid, forced, plain, cont)
        for line in range(s.lines):
            if mask & (1 << line):
                for k in range(n_dirs(s, cid)):
                    out[n, 0] = index
                    out[n, 1] = line
                    out[n, 2] = nth_dir(s, cid, k)
                    n += 1
    return n
