"""Shared pieces of the search strategies (mc, ismcts): a private random stream, legal moves
with their sub-decision paths, determinisations of the hidden cards, and rollouts.

A move is one row of a moves array: hand index, line, direction, then the decision path
(PRINT, PASTE and GOSUB choices in resolution order) that put_card follows.
"""

from __future__ import annotations

import numpy as np

from sim.engine.cards import BLANK, ENTER, GOSUB, PASTE, PRINT
from sim.engine.clone import clone, copy_into
from sim.engine.cpu import cpu_turn
from sim.engine.decide import n_dirs, nth_dir
from sim.engine.jit import inlined, kernel
from sim.engine.paths import advance as next_path
from sim.engine.paths import scratch_state, set_path
from sim.engine.rng import advance, below, mix
from sim.engine.score import scores_plus
from sim.engine.state import (
    MAX_CARDS,
    MAX_DEPTH,
    ONGOING,
    POLICY_PATH,
    POLICY_RANDOM,
    VIS_CLOSED,
    VIS_OPEN,
)
from sim.engine.turn import (
    HAND_SIZE,
    begin_turn,
    canonical_turn,
    card_lines,
    finish_turn,
    line_masks,
    put_card,
)
from strategies.greedy import play_on_copy

MAX_MOVES = 512  # more legal moves than this in one turn are not considered
M_INDEX, M_LINE, M_DIR, M_LEN, M_PATH = 0, 1, 2, 3, 4  # M_LEN: decisions in the path
MOVE_WIDTH = M_PATH + MAX_DEPTH


@kernel
def rand(r, n):
    """A uniform integer in 0..n-1 from the search's private stream r (a 1-element array)."""
    r[0] = advance(r[0])
    return below(mix(r[0]), n)


@kernel
def search_stream(s, digit):
    """The search's private stream, split off the mover's strategy stream (advanced once a
    decision, so the game stays deterministic per seed)."""
    s.srng[digit] = advance(s.srng[digit])
    r = np.empty(1, dtype=np.uint64)
    r[0] = mix(s.srng[digit] ^ np.uint64(0x5EA5C4))
    return r


@kernel
def new_moves():
    return np.zeros((MAX_MOVES, MOVE_WIDTH), dtype=np.int16)


@kernel
def has_choices(s, cid):
    """Only PRINT, PASTE and GOSUB start chains with decisions; other cards need no trial."""
    kind = s.kind[cid]
    return kind == PRINT or kind == PASTE or kind == GOSUB


@kernel
def same_card_earlier(s, digit, index):
    """Whether an earlier hand card is interchangeable with this one (same kind and axis)."""
    cid = s.hand[digit, index]
    for i in range(index):
        other = s.hand[digit, i]
        if s.kind[other] == s.kind[cid] and s.axis[other] == s.axis[cid]:
            return True
    return False


@inlined
def add_move(moves, n, index, line, direction, path, depth):
    if n >= MAX_MOVES:
        return n
    moves[n, M_INDEX] = index
    moves[n, M_LINE] = line
    moves[n, M_DIR] = direction
    moves[n, M_LEN] = depth
    # readers stop at M_LEN: no tail to clear. A loop: numba's slice assignment went through
    # a broadcast check and a byte-by-byte copy
    for d in range(depth):
        moves[n, M_PATH + d] = path[d]
    return n + 1


@kernel
def list_moves(s, spare, digit, forced, moves, path):
    """Every legal move of the mover into moves (interchangeable hand cards once); the count.

    Sub-decision paths are found by walking the chain on a copy in the scratch record spare,
    as greedy does, in path (MAX_DEPTH int8, the caller's: ismcts lists moves at every tree
    step, and allocating it there was 1.5-2% of an ismcts game in malloc and free, perf).
    add_move and play_on_copy, called per move, are inlined: as calls, each passing arrays
    cost reference counts (with ismcts's own calls, NRT_incref/decref were 10% of an ismcts
    game, perf).
    """
    plain, cont = line_masks(s)
    n = 0
    for index in range(s.hand_len[digit]):
        if same_card_earlier(s, digit, index):
            continue
        cid = s.hand[digit, index]
        mask = card_lines(s, cid, forced, plain, cont)
        for line in range(s.lines):
            if not mask & (1 << line):
                continue
            for k in range(n_dirs(s, cid)):
                direction = nth_dir(s, cid, k)
                path[:] = 0
                if not has_choices(s, cid):
                    n = add_move(moves, n, index, line, direction, path, 0)
                    continue
                while True:
                    depth, options = play_on_copy(
                        s, spare, digit, index, line, direction, forced, path
                    )
                    n = add_move(moves, n, index, line, direction, path, depth)
                    if not next_path(path, options, depth):
                        break
    return n


@inlined
def play_move(t, digit, moves, m, forced, policy):
    """A whole turn of the mover in t along moves[m], the seat on policy afterwards. Inlined:
    called per rollout (mc) and per tree step (ismcts), where the moves array and its row
    cost reference counts as a call."""
    t.policy[digit] = POLICY_PATH
    set_path(t, moves[m, M_PATH:], moves[m, M_LEN])  # the row's tail past M_LEN is stale
    t.path_pos = 0
    put_card(t, digit, moves[m, M_INDEX], moves[m, M_LINE], moves[m, M_DIR], forced)
    t.policy[digit] = policy
    finish_turn(t, digit, False, True)


@kernel
def pass_turn(t, digit):
    finish_turn(t, digit, True, True)


@kernel
def reseed(t, r):
    """Fresh deal and strategy streams for a copy, so it does not follow the real future."""
    t.chance = mix(advance(r[0]) ^ np.uint64(1))
    t.srng[0] = mix(advance(r[0]) ^ np.uint64(2))
    t.srng[1] = mix(advance(r[0]) ^ np.uint64(3))
    r[0] = advance(r[0])


@kernel
def hidden_places(s, digit, spans):
    """Per place (0: opponent's hand, 1 and 2: the piles of digits 0 and 1), the range of
    hidden cards: (start, stop) rows, into spans."""
    spans[0, 0] = 0
    spans[0, 1] = s.hand_len[1 - digit] if s.visibility != VIS_OPEN else 0
    for d in range(2):
        start = s.pile_top[d]
        if s.visibility != VIS_CLOSED and start < s.pile_len[d]:
            start += 1  # the top card is visible
        spans[1 + d, 0] = start
        spans[1 + d, 1] = max(start, s.pile_len[d])


# determinise's working arrays, in one record made once a turn (search_start): allocating
# them for every deal was 4-5% of an mc game (malloc, free and reference counts, perf)
DEAL_DTYPE = np.dtype(
    [
        ("spans", np.int64, (3, 2)),  # hidden_places
        ("need", np.int64, (3, 2)),  # hidden cards per place and owner deck
        ("pool_len", np.int64, (2,)),
        ("used", np.int64, (2,)),
        ("hidden", np.uint8, (MAX_CARDS,)),
        ("pool", np.int16, (2, MAX_CARDS)),
    ],
    align=True,
)


@kernel
def place_card(t, digit, place, i):
    """The card at row i of a hidden place."""
    if place == 0:
        return t.hand[1 - digit, i]
    return t.pile[place - 1, i]


@kernel
def set_place_card(t, digit, place, i, cid):
    """Put a card at row i of a hidden place, face up as its holder's digit."""
    holder = 1 - digit if place == 0 else place - 1
    if place == 0:
        t.hand[holder, i] = cid
    else:
        t.pile[holder, i] = cid
    t.face[cid] = holder


@kernel
def search_start(s, digit):
    """What every search turn begins with: the forced slot, the search stream, a
    determinisation in det[0], a spare scratch state, determinise's work record, and the
    legal moves listed on the determinisation (they do not depend on the hidden cards)
    with their number."""
    forced = begin_turn(s, digit)
    r = search_stream(s, digit)
    det = scratch_state()
    work = scratch_state()
    deals = np.zeros(1, dtype=DEAL_DTYPE)  # used as deals[0]: keep the array alive
    moves = new_moves()
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    n = list_moves(determinise(s, det, digit, r, deals[0]), work[0], digit, forced, moves, path)
    return forced, r, det, work, deals, moves, n


@kernel
def determinise(s, scratch, digit, r, deal):
    """A copy of s in scratch[0] with the cards the mover cannot see dealt again at random.

    Each hidden place keeps its count of cards from each deck (piles hold their own deck;
    a hand may hold stolen cards), which the mover can work out from what it sees. The pool
    of each deck is taken in card-id order, so the sample depends only on the observation
    and r, never on where the hidden cards really are. deal: a DEAL_DTYPE record to work in.
    """
    t = clone(scratch, s)
    spans, need, hidden, pool = deal["spans"], deal["need"], deal["hidden"], deal["pool"]
    size, used = deal["pool_len"], deal["used"]
    hidden_places(s, digit, spans)
    hidden[:] = 0
    need[:, :] = 0
    size[:] = 0
    used[:] = 0
    for place in range(3):
        for i in range(spans[place, 0], spans[place, 1]):
            cid = place_card(s, digit, place, i)
            hidden[cid] = 1
            need[place, s.owner[cid]] += 1
    for cid in range(s.n_cards):
        if hidden[cid]:
            o = s.owner[cid]
            pool[o, size[o]] = cid
            size[o] += 1
    for o in range(2):
        for i in range(size[o] - 1, 0, -1):  # Fisher-Yates
            j = rand(r, i + 1)
            tmp = pool[o, i]
            pool[o, i] = pool[o, j]
            pool[o, j] = tmp
    for place in range(3):
        i = spans[place, 0]
        for o in range(2):
            for _ in range(need[place, o]):
                set_place_card(t, digit, place, i, pool[o, used[o]])
                used[o] += 1
                i += 1
        # a place's decks were dealt in owner order; shuffle it so neither deck sits on top
        start = spans[place, 0]
        for k in range(spans[place, 1] - start - 1, 0, -1):
            j = rand(r, k + 1)
            a = place_card(t, digit, place, start + k)
            b = place_card(t, digit, place, start + j)
            set_place_card(t, digit, place, start + k, b)
            set_place_card(t, digit, place, start + j, a)
    reseed(t, r)
    t.policy[0] = POLICY_RANDOM
    t.policy[1] = POLICY_RANDOM
    return t


@kernel
def outcome(t, digit):
    """A finished game's value for digit: win 1, draw 0.5, loss 0 (RULES.md 6, 8), and its
    score margin."""
    return outcome_plus(t, digit, -1)


@kernel
def outcome_plus(t, digit, extra):
    """outcome, as if a BLANK showing digit had entered line extra (-1: none); extra only
    in a deck without REM, where a card counts for control wherever it sits in its line."""
    zero, one, top = scores_plus(t, extra, digit)
    mine, theirs = (one, zero) if digit == 1 else (zero, one)
    margin = mine - theirs
    if margin > 0:
        return 1.0, margin
    if margin < 0:
        return 0.0, margin
    if t.cpu >= 0:  # solo: equal scores lose for the CPU
        return (0.0 if digit == t.cpu else 1.0), margin
    if mine == 0 or top < 0:
        return 0.5, margin
    return (1.0 if top == digit else 0.0), margin


@kernel
def may_end(t, digit):
    """Whether the mover's turn may end the game: the RUN line one card short, or its LOAD
    about to run its pile out."""
    if t.count[t.lines - 1] >= t.capacity - 1:
        return True
    return runs_out(t, digit)


@kernel
def runs_out(t, digit):
    """Whether the mover's LOAD at the end of a turn that plays a card runs its pile out."""
    return t.pile_len[digit] - t.pile_top[digit] < HAND_SIZE + 1 - t.hand_len[digit]


@kernel
def scored_in_place(t, cid):
    """Whether a card's trial needs no copy (blank_wins): a BLANK in a deck without REM."""
    return t.no_rem and t.kind[cid] == BLANK


@kernel
def blank_wins(t, digit, line):
    """In a turn where may_end holds, for a card scored_in_place: whether the BLANK the mover
    puts into line ends the game with the mover winning. Scored in place, no trial on a copy
    (most of an mc player's time went to trials on copies): a BLANK does nothing once
    placed, and the turn ends the game if LOAD runs the pile out or the BLANK fills the RUN
    line; only the line's count and faces change (tests/test_blank_outcome)."""
    if line != t.lines - 1 and not runs_out(t, digit):
        return False
    return outcome_plus(t, digit, line)[0] == 1.0


@kernel
def may_move_down(s, cid):
    """Cards whose chain may put a card into the RUN line from another line."""
    kind = s.kind[cid]
    return kind == ENTER or kind == PRINT or kind == PASTE or kind == GOSUB


@kernel
def take_win(t, digit, spare):
    """In a turn where may_end holds: if a move (random sub-decisions) ends the game at once
    with the mover winning, play that whole turn in t and return True. Tried on a copy in
    the scratch record spare (clone.copy_into) with the same random streams, so the copy
    that wins is the turn played: it is copied back rather than played again."""
    forced = begin_turn(t, digit)
    plain, cont = line_masks(t)
    run = 1 << (t.lines - 1)
    by_load = runs_out(t, digit)
    lost = 0  # lines where a BLANK was scored and does not win
    for index in range(t.hand_len[digit]):
        cid = t.hand[digit, index]
        mask = card_lines(t, cid, forced, plain, cont)
        if not by_load and not may_move_down(t, cid):
            mask &= run
        blank = scored_in_place(t, cid)
        if blank:
            mask &= ~lost
        for line in range(t.lines):
            if not mask & (1 << line):
                continue
            for k in range(n_dirs(t, cid)):
                direction = nth_dir(t, cid, k)
                if blank:
                    if blank_wins(t, digit, line):
                        put_card(t, digit, index, line, direction, forced)
                        finish_turn(t, digit, False, True)
                        return True
                    lost |= 1 << line
                    continue
                w = copy_into(spare, t)
                put_card(w, digit, index, line, direction, forced)
                finish_turn(w, digit, False, True)
                if w.ended != ONGOING and outcome(w, digit)[0] == 1.0:
                    copy_into(t, w)
                    return True
    return False


@kernel
def rollout_to_end(t, spare):
    """Play t to its end by random turns (the CPU card as itself), except that a player whose
    turn may end the game ends it when that wins: without this, random replies let a search
    leave the RUN line one card short for the opponent to fill (measured: mc(1000) won 45%
    against heuristic with plain random rollouts, 51% with this; greedy rollouts did worse)."""
    t.policy[0] = POLICY_RANDOM
    t.policy[1] = POLICY_RANDOM
    while t.ended == ONGOING and t.error == 0:
        digit = t.mover
        if digit == t.cpu:
            cpu_turn(t)
        elif not may_end(t, digit) or not take_win(t, digit, spare):
            canonical_turn(t)  # both seats were just set to random


@kernel
def rollout(t, digit, margin_weight, spare):
    """Play t to its end; digit's value with a margin term."""
    rollout_to_end(t, spare)
    value, margin = outcome(t, digit)
    return value + margin_weight * margin
