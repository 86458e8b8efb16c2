"""Setting up (RULES.md 3) and playing whole games inside compiled code."""

from __future__ import annotations

import numpy as np

from sim.engine.board import place, settle_lead
from sim.engine.cards import BLANK, CONT, END, LEFT, N_KINDS, REM, RIGHT
from sim.engine.hands import draw
from sim.engine.jit import entry, inlined, kernel
from sim.engine.rng import advance, below, chance_int, mix
from sim.engine.score import controller
from sim.engine.state import (
    ARC_TURNS,
    LEAD_BINS,
    LEAD_MAX,
    LEAD_TURNS,
    MAX_COLS,
    MAX_LINES,
    NO_CARD,
    NO_CPU,
    ONGOING,
    POLICY_RANDOM,
)
from sim.engine.turn import HAND_SIZE, canonical_turn

# Columns of the per-game result rows returned by play_games (seats: 0 first, 1 second).
R_FIRST, R_END, R_TURNS, R_SCORE_FIRST, R_SCORE_SECOND, R_ERROR = 0, 1, 2, 3, 4, 5
R_WINNER, R_OUTCOME, R_TIEBREAK_LINE = 6, 7, 8  # winner: 0, 1 or 2 (draw)
R_LINE0 = 9  # then one column per line: controlling seat, -1 nobody
# then the game's arc (docs/statistics.md), from track: sign flips of the lead, the turn from
# which the winner stayed ahead and their largest deficit (-1 for a draw), and the seat
# leading at the end of turn turns // 2 (-1: level, or past ARC_TURNS)
R_LEAD_CHANGES = R_LINE0 + MAX_LINES
R_DECIDED_TURN, R_MAX_DEFICIT, R_HALF_LEADER = (R_LEAD_CHANGES + i for i in (1, 2, 3))
RESULT_WIDTH = R_HALF_LEADER + 1
WIN_FIRST, WIN_SECOND, DRAW = 0, 1, 2
OUTCOME_POINTS, OUTCOME_TIEBREAK, OUTCOME_DRAW = 0, 1, 2
# The cards array: [game, seat, kind, C_*]
C_DRAWN, C_PLAYED, C_EFFECT = 0, 1, 2

FIRST_RANDOM = -1


@kernel
def clear(s, lines, capacity, free):
    """Reset a state for a new game (the record is reused: allocation costs more than a game)."""
    # only the columns the last game used: clearing all of grid and mark cost 35 ns a game
    span = s.span if s.tidy else MAX_COLS
    s.grid[:, :span] = NO_CARD
    s.mark[:, :span] = 0
    s.span = 0
    s.tidy = 1
    s.count[:] = 0
    s.ones[:] = 0
    s.rems[:] = 0
    s.lasting_at[:] = -1
    s.width[:] = 0
    s.gap[:] = 0
    s.shut = 0
    s.full3 = 0
    s.far = 0
    s.saved[:] = 0
    s.dirn[:] = 0
    s.drawn[:, :] = 0
    s.played[:, :] = 0
    s.effect[:, :] = 0
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
    s.path_ask = 0
    s.snap_at = -1
    s.cpu = NO_CPU
    s.cpu_log_len = 0
    s.arc_points[:] = 0
    s.arc_leads[0] = 0


@kernel
def seed_streams(s, seed, swapped):
    """Split one game seed into the deal's stream and each digit's strategy stream.

    The second game of a seat-swapped pair keeps the deal but gets other strategy
    streams, so two copies of one strategy do not simply replay the first game.
    """
    x = advance(np.uint64(seed))
    s.chance = mix(x)
    x = advance(x ^ (np.uint64(swapped) * _SWAP_SALT))
    s.srng[0] = mix(x)
    x = advance(x)
    s.srng[1] = mix(x)


_SWAP_SALT = np.uint64(0xD1B54A32D192ED03)


@kernel
def load_deck(s, kinds, axes):
    """Both decks' cards and their unshuffled piles (RULES.md 3).

    The same for every game of a batch, so a batch loads them once: rewriting them for
    every game measured 48 ns of a 1,300 ns random game. Nothing in a game changes a
    card's kind, axis or owner.
    """
    n = kinds.shape[0]
    s.n_cards = 2 * n
    lasting = False
    end = False
    rem = False
    s.aside = -1
    for i in range(n):
        lasting |= kinds[i] == REM or kinds[i] == END or kinds[i] == CONT
        end |= kinds[i] == END
        rem |= kinds[i] == REM
        for digit in range(2):
            s.kind[digit * n + i] = kinds[i]
            s.axis[digit * n + i] = axes[i]
            s.owner[digit * n + i] = digit
        if s.aside < 0 and kinds[i] == BLANK:
            s.aside = i
    s.no_lasting = not lasting
    s.no_end = not end
    s.no_rem = not rem


@kernel
def deal(s, first_option):
    """Set a BLANK aside each, shuffle the loaded decks, choose the first player, draw 3."""
    n = s.n_cards // 2
    size = n - 1  # a config's deck holds a BLANK (config.py): the one set aside
    first = first_option if first_option >= 0 else chance_int(s, 2)
    s.first = first
    s.mover = first
    if s.cpu_level > 0:  # solo mode: the CPU always plays second (RULES.md 8)
        s.cpu = 1 - first
    for digit in range(2):
        s.face[digit * n : (digit + 1) * n] = digit
        for i in range(size):  # the deck in order, without the BLANK set aside
            s.pile[digit, i] = digit * n + i + (i >= s.aside)
        # Fisher-Yates with the deal's stream in a local: chance_int's store and reload of
        # s.chance on every draw sat on the loop's critical path (+2.7% a random game)
        x = s.chance
        for i in range(size - 1, 0, -1):
            x = advance(x)
            j = below(mix(x), i + 1)
            tmp = s.pile[digit, i]
            s.pile[digit, i] = s.pile[digit, j]
            s.pile[digit, j] = tmp
        s.chance = x
        s.pile_top[digit] = 0
        s.pile_len[digit] = size
        place(s, digit * n + s.aside, 0 if digit == first else 1, 0)
    for digit in range(2):
        if digit != s.cpu:  # the CPU has no hand
            for _ in range(HAND_SIZE):
                draw(s, digit)


@inlined
def track(s):
    """The lead at the end of a turn (the game loops call it after every turn), kept for
    record_arc: the sum of the lines' signed points, which the board keeps up to date
    (board.keep_lead). A game lasts at most about twice its cards' turns (every play takes
    a hand card; two passes in a row end it), far below ARC_TURNS."""
    if not s.no_rem:
        settle_lead(s)
    turn = s.turns
    if turn < ARC_TURNS:
        lead = 0
        for line in range(MAX_LINES):  # lines past s.lines hold 0
            lead += s.arc_points[line]
        s.arc_leads[turn] = lead


@kernel
def record(s, out, cards, leads):
    """Write a finished game's result row and its per-seat, per-kind card counts, and add
    it to the batch's histogram of leads by turn (lead_buffer)."""
    first = s.first
    zero = 0
    one = 0
    top_line = -1
    for line in range(MAX_LINES):
        who = controller(s, line) if line < s.lines else -1
        if who == 0:
            zero += 10 * (line + 1)
        elif who == 1:
            one += 10 * (line + 1)
        if who >= 0:
            top_line = line
        out[R_LINE0 + line] = -1 if who < 0 else (0 if who == first else 1)
    out[R_FIRST] = first
    out[R_END] = s.ended
    out[R_TURNS] = s.turns
    out[R_SCORE_FIRST] = one if first else zero
    out[R_SCORE_SECOND] = zero if first else one
    out[R_ERROR] = s.error
    out[R_TIEBREAK_LINE] = 0
    if zero != one:
        out[R_OUTCOME] = OUTCOME_POINTS
        out[R_WINNER] = WIN_FIRST if out[R_SCORE_FIRST] > out[R_SCORE_SECOND] else WIN_SECOND
    elif s.cpu >= 0:  # solo: equal scores lose for the CPU, with no deciding line
        out[R_OUTCOME] = OUTCOME_TIEBREAK
        out[R_WINNER] = WIN_FIRST
    elif zero == 0:
        out[R_OUTCOME] = OUTCOME_DRAW
        out[R_WINNER] = DRAW
    else:
        out[R_OUTCOME] = OUTCOME_TIEBREAK
        out[R_WINNER] = out[R_LINE0 + top_line]
        out[R_TIEBREAK_LINE] = 10 * (top_line + 1)
    record_arc(s, out, leads)
    if not s.no_lasting:  # a walk over the display that decks without REM, END, CONT skip
        count_lasting_effects(s)
    for digit in range(2):
        seat = 0 if digit == first else 1
        for kind in range(N_KINDS):
            cards[seat, kind, C_DRAWN] = s.drawn[digit, kind]
            cards[seat, kind, C_PLAYED] = s.played[digit, kind]
            cards[seat, kind, C_EFFECT] = s.effect[digit, kind]


@kernel
def record_arc(s, out, leads):
    """The arc columns of a recorded game (after R_WINNER is set) from the lead at each
    turn's end (track; docs/statistics.md): the flips of its sign, level turns skipped;
    the winner's last turn not strictly ahead and largest deficit; the half-time leader.
    Adds the game to the batch's histogram of the first seat's lead by turn (leads: a
    lead_buffer; an array of its own, not a field of the state: 22 KB more in the record
    made every scratch state a search or evaluating seat allocates cost heuristic 6%).

    A game won with level scores (the tie-break, or the CPU losing equal scores) has its
    winner not ahead at its last turn: decided on that last turn."""
    turns = min(np.int64(s.turns), ARC_TURNS - 1)
    winner = out[R_WINNER]
    ahead = 1 if (s.first ^ winner) == 0 else -1  # the lead's sign for the winner (digit 0: +)
    first = 1 - 2 * np.int64(s.first)  # the lead's sign for the first seat
    last, changes, behind, deficit = np.int64(0), np.int64(0), 0, 0
    for turn in range(1, turns + 1):
        lead = np.int64(s.arc_leads[turn])
        if turn <= LEAD_TURNS:  # the batch's histogram of the first seat's lead by turn
            # no lead passes LEAD_MAX (state.py), so the bin needs no clamp; unsigned, the
            # division by 10 is a multiply and a shift (docs/performance.md)
            leads[turn - 1, np.uint64(first * lead + LEAD_MAX) // np.uint64(10)] += 1
        changes += np.int64(lead * last < 0)  # last: the latest lead that was not level
        last = lead | (last & -np.int64(lead == 0))  # without a branch on a random sign
        margin = ahead * lead
        behind = turn if margin <= 0 else behind
        deficit = max(deficit, -margin)
    out[R_LEAD_CHANGES] = changes
    out[R_DECIDED_TURN] = -1 if winner == DRAW else min(behind + 1, turns)
    out[R_MAX_DEFICIT] = -1 if winner == DRAW else deficit
    half = s.arc_leads[turns // 2]  # index 0: before the first turn, level
    leader = 0 if half > 0 else 1  # the digit ahead, if any
    out[R_HALF_LEADER] = -1 if half == 0 else (0 if leader == s.first else 1)


def lead_buffer() -> np.ndarray:
    """Zeroed games by turn and first seat's lead (state.py LEAD_*), for the game loops to
    add games to: row t is turn t + 1, column b a lead of 10 * b - LEAD_MAX points."""
    return np.zeros((LEAD_TURNS, LEAD_BINS), dtype=np.int64)


@kernel
def count_lasting_effects(s):
    """REM, END and CONT take effect by lying in the display: count those that do at the end.

    A REM that excludes a card, an END that shuts its line, a CONT right of an END pointing
    right; each credited to the player who put it there.
    """
    for cid in range(s.n_cards):
        at = s.lasting_at[cid]
        if at < 0:  # not a REM, END or CONT, or not in the display
            continue
        line, col = at // MAX_COLS, at % MAX_COLS
        width = s.width[line]
        kind = s.kind[cid]
        acts = False
        if kind == REM:
            if s.dirn[cid] == RIGHT:
                acts = has_card(s, line, col + 1, width)
            elif s.dirn[cid] == LEFT:
                acts = has_card(s, line, 0, col)
        elif kind == END:
            acts = col == width - 1 and s.dirn[cid] == RIGHT
        elif kind == CONT and col > 0:
            left = s.grid[line, col - 1]
            acts = left != NO_CARD and s.kind[left] == END and s.dirn[left] == RIGHT
        if acts:
            s.effect[s.by[cid], kind] += 1


@kernel
def has_card(s, line, start, stop):
    for col in range(start, stop):
        if s.grid[line, col] != NO_CARD:
            return True
    return False


@kernel
def setup(
    s,
    kinds,
    axes,
    lines,
    capacity,
    free,
    first_option,
    cpu_level,
    cpu_numeric,
    visibility,
    seed,
    swapped,
):
    """A new game in s, ready for the first turn; the human seats on the random policy.

    cpu_level 1-4 makes the second seat the CPU card (0: no CPU).
    """
    load_deck(s, kinds, axes)
    restart(
        s, lines, capacity, free, first_option, cpu_level, cpu_numeric, visibility, seed, swapped
    )


@kernel
def restart(
    s, lines, capacity, free, first_option, cpu_level, cpu_numeric, visibility, seed, swapped
):
    """setup for a state whose deck is already loaded (load_deck): a batch's next game."""
    clear(s, lines, capacity, free)
    s.cpu_level = cpu_level
    s.cpu_numeric = cpu_numeric
    s.visibility = visibility
    s.cpu_side = 0  # NOT WINNING
    s.cpu_step = cpu_level
    s.cpu_first = 1
    seed_streams(s, seed, swapped)
    s.policy[0] = POLICY_RANDOM
    s.policy[1] = POLICY_RANDOM
    deal(s, first_option)


@entry
def play_random_games(s, rules, seats, seeds, swapped, out, cards, leads):
    """Random against random without the CPU: its own loop, so a random run compiles (and
    loads) only the rules and the random turn, and no turn asks whose it is. rules is
    Config.engine_args(0) as one tuple and seats (policies, budgets, weights), as every loop
    takes, and the lead_buffer the games are added to."""
    load_deck(s, rules[0], rules[1])
    for g in range(seeds.shape[0]):
        restart(s, *rules[2:], seeds[g], swapped[g])
        while s.ended == ONGOING and s.error == 0:
            canonical_turn(s)
            track(s)
        record(s, out[g], cards[g], leads)
    return 0
