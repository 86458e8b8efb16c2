"""The `heuristic` strategy: greedy's one-ply move search with a positional evaluation.

Every legal move, with every sub-decision of its chain (PRINT, PASTE, GOSUB), is tried on
a copy as greedy does (greedy.py), and the position after it is valued from the
mover's side:

- **Game over** (the RUN line is full, or the mover's LOAD cannot reach 3 cards): the result,
  +-WIN plus the score margin (equal scores go by the tie-break of RULES.md 6).
- **Otherwise** the opponent's most harmful *simple reply* is assumed: one card showing
  their digit into the left-most empty slot of a line open to them (or their forced slot).
  A reply that fills the RUN line, or any reply when the opponent's own LOAD will run
  their pile out, ends the game and is valued as a result; so the heuristic ends the game
  when ahead and does not leave the RUN line one card short, or hand the opponent the last
  turn, when that loses. When the mover's card left of that slot is unsaved, the reply
  might be an IF...THEN turning it: that worse reply is mixed in with weight W_FLIP (the
  opponent's hand is hidden, so this is a hedge, not a read). A reply that does not end
  the game costs W_REPLY times what it takes from its line's value (control and the static
  terms below; W_REPLY_LINE weighs the latter), on top of the static value of the position:
  - every scoring line (3+ cards) its value for its controller (the margin), plus a share
    of its value for a lead of 2 and of 3+ cards (one opposing card cannot undo those);
  - every line not yet scoring a share of its value per card of lead (where to build);
  - a share of the line's value per saved counted card (saved cards cannot be deleted or
    turned: SAVE is worth playing on a line one controls);
  - every card still in the mover's hand its kind's worth, so a DELETE or an IF...THEN is
    kept until it changes something;
  - features the shipped weights leave at 0, for trained weights and personas: RUN-line
    pressure (per RUN-line card, + leading, - trailing on score), the mover's pile left
    beyond the opponent's, and the threat to a scoring line led by one unsaved card.

The evaluation reads only what the mover may see (RULES.md 7): the display, hand and pile
sizes, and the mover's own hand. A GET tried on the copy steals a card from the hidden
hand; only its visible effect counts (one more card in hand, valued at W_STOLEN, whatever
it is), and the opponent's hand and pile order are never read. Ties go to the first move
in greedy's fixed order (hand order, lines top to bottom, directions L R U D, sub-options
in order). Deterministic: no random numbers are drawn.
"""

from __future__ import annotations

import numpy as np

from sim.engine.cards import LEFT, N_KINDS, REM, RIGHT
from sim.engine.decide import n_dirs, nth_dir
from sim.engine.jit import inlined, kernel
from sim.engine.paths import advance, scratch_state
from sim.engine.state import (
    EVAL_SLOTS,
    MAX_DEPTH,
    MAX_LINES,
    NO_CARD,
    ONGOING,
    POLICY_HEURISTIC,
)
from sim.engine.turn import HAND_SIZE, begin_turn, card_lines, finish_turn, line_masks
from strategies.greedy import play_move, play_on_copy
from strategies.search import DEAL_DTYPE, determinise, same_card_earlier, search_stream

WIN = 10000.0
# weight slots: shares of a line's value (POT, LEAD2, LEAD3, SAVED), the reply's weights
# (REPLY, REPLY_LINE, FLIP), points for a stolen card, and from W_HAND each kind's in hand.
# Their values are data: strategies/weights/heuristic.toml, read by sim.players.weights.
W_POT, W_LEAD2, W_LEAD3, W_SAVED, W_REPLY, W_STOLEN, W_REPLY_LINE, W_FLIP = 0, 1, 2, 3, 4, 5, 6, 7
W_HAND = 8  # W_HAND + kind
# features added after the hand's slots (0 in the shipped file: the heuristic without them)
W_RUN_PRESSURE, W_PILE, W_THREAT = W_HAND + N_KINDS, W_HAND + N_KINDS + 1, W_HAND + N_KINDS + 2
# the search's numbers (0 in the shipped file: one ply): candidates given a second ply, deals
# of the hidden cards each is tried on, how far below the best a candidate may be (0: any),
# and the one-ply turns played after a candidate before its position is valued
W_PLY2, W_DEALS, W_MARGIN, W_LOOK = W_THREAT + 1, W_THREAT + 2, W_THREAT + 3, W_THREAT + 4
FEATURES = {
    "pot": W_POT,
    "lead2": W_LEAD2,
    "lead3": W_LEAD3,
    "saved": W_SAVED,
    "reply": W_REPLY,
    "reply_line": W_REPLY_LINE,
    "flip": W_FLIP,
    "stolen": W_STOLEN,
    "run_pressure": W_RUN_PRESSURE,
    "pile_left": W_PILE,
    "threat": W_THREAT,
    "second_ply": W_PLY2,
    "deals": W_DEALS,
    "ply_margin": W_MARGIN,
    "lookahead": W_LOOK,
}  # a weights file's names of every slot but the hand's; its [hand] table fills those
N_WEIGHTS = W_LOOK + 1
MAX_PLY2 = 16  # candidates a second ply may look at
MAX_LOOK = 8  # turns a second ply may play after a candidate
assert N_WEIGHTS <= EVAL_SLOTS


# Columns of a position's per-line tallies (tally_lines): counted cards of the mover and of
# the opponent, the saved ones among them (+mine, -theirs), and the REM bounds.
T_MINE, T_THEIRS, T_SAVED, T_LEFT, T_RIGHT = 0, 1, 2, 3, 4


@inlined
def tally_lines(t, digit, out):
    """tally of every line into out[line, T_*]: once per position tried, since the static
    value, the replies and the tie-break all read them (three walks a line measured 23% of
    a heuristic game, perf)."""
    for line in range(t.lines):
        mine, theirs, saved, left_of, right_of = tally(t, line, digit)
        out[line, T_MINE] = mine
        out[line, T_THEIRS] = theirs
        out[line, T_SAVED] = saved
        out[line, T_LEFT] = left_of
        out[line, T_RIGHT] = right_of


@inlined
def tally(t, line, digit):
    """Counted (not REM-excluded) cards of digit and of the other digit in a line, the saved
    ones among them, and the first and last column that counts."""
    width = t.width[line]
    right_of = width
    left_of = 0
    for col in range(width if t.rems[line] else 0):  # a line without REM: no bounds to find
        cid = t.grid[line, col]
        if cid != NO_CARD and t.kind[cid] == REM:
            if t.dirn[cid] == RIGHT and col < right_of:
                right_of = col
            elif t.dirn[cid] == LEFT and col > left_of:
                left_of = col
    mine = 0
    theirs = 0
    saved = 0
    for col in range(left_of, min(right_of + 1, width)):
        cid = t.grid[line, col]
        if cid != NO_CARD:
            sign = 1 if t.face[cid] == digit else -1
            if sign > 0:
                mine += 1
            else:
                theirs += 1
            if t.saved[cid]:
                saved += sign
    return mine, theirs, saved, left_of, right_of


@inlined
def control_value(count, lead, value):
    """The line's value for the mover (+), the opponent (-) or nobody (0)."""
    if count < 3 or lead == 0:
        return 0.0
    return value if lead > 0 else -value


@inlined
def line_value(count, lead, saved, value, w):
    """Static value of one line beyond its control: lead margin, building, saved cards."""
    out = w[W_SAVED] * value * saved
    if count >= 3:
        size = abs(lead)
        extra = 0.0
        if size >= 2:
            extra += w[W_LEAD2] * value
        if size >= 3:
            extra += w[W_LEAD3] * value
        return out + (extra if lead > 0 else -extra)
    return out + w[W_POT] * value * max(-2, min(2, lead))


@kernel
def result_value(t, ev, mine, theirs):
    """A finished game's value: +-WIN and the margin; equal scores by the highest line
    (by the position's tallies in ev)."""
    tl = ev["tl"]
    diff = mine - theirs
    if diff != 0:
        return (WIN if diff > 0 else -WIN) + diff
    if mine == 0:
        return 0.0
    for line in range(t.lines - 1, -1, -1):
        m, o = tl[line, T_MINE], tl[line, T_THEIRS]
        if t.count[line] >= 3 and m != o:
            return WIN if m > o else -WIN
    return 0.0


@inlined
def hand_value(s, t, digit, w):
    """Worth of the mover's hand after the move: its own cards by kind, stolen ones blind."""
    total = 0.0
    for i in range(t.hand_len[digit]):
        cid = t.hand[digit, i]
        known = False
        for j in range(s.hand_len[digit]):
            if s.hand[digit, j] == cid:
                known = True
        total += w[W_HAND + t.kind[cid]] if known else w[W_STOLEN]
    return total


# What evaluate reads besides the states, in one record: an array passed to a call costs a
# reference count up and down (NRT_incref/decref were 35% of a heuristic game, perf, with
# the weights and tallies passed as arrays), a record is a plain pointer. Its helpers are
# inlined into it for the same reason.
EVAL_DTYPE = np.dtype(
    [("w", np.float64, (N_WEIGHTS,)), ("tl", np.int64, (MAX_LINES, 5))], align=True
)


@kernel
def evaluate(s, t, digit, ev):
    """Value for digit of the position t reached from s by digit's move (module docstring);
    ev holds the weights (w) and room for the position's tallies (tl, tally_lines)."""
    w = ev["w"]
    mine, theirs, static = line_terms(t, digit, ev)
    if t.count[t.lines - 1] >= t.capacity or t.hand_len[digit] + pile_left(t, digit) < HAND_SIZE:
        return result_value(t, ev, mine, theirs)
    static += mine - theirs + hand_value(s, t, digit, w) + pressure(t, digit, mine, theirs, w)
    return worst_reply(t, ev, digit, 1 - digit, mine, theirs, static, w)


@inlined
def line_terms(t, digit, ev):
    """(the mover's scoring lines' worth, the opponent's, the static line terms), the
    position's tallies left in ev["tl"]."""
    w, tl = ev["w"], ev["tl"]
    mine = 0.0
    theirs = 0.0
    static = 0.0
    tally_lines(t, digit, tl)
    threat = w[W_THREAT] != 0.0  # a weight of 0 adds nothing: skip its test per line
    for line in range(t.lines):
        m, o, saved = tl[line, T_MINE], tl[line, T_THEIRS], tl[line, T_SAVED]
        value = 10.0 * (line + 1)
        c = control_value(t.count[line], m - o, value)
        if c > 0:
            mine += c
        else:
            theirs -= c
        static += line_value(t.count[line], m - o, saved, value, w)
        if threat and c > 0 and m - o == 1 and saved <= 0:  # one DELETE or IF...THEN
            static -= w[W_THREAT] * value
    return mine, theirs, static


@kernel
def settled_value(s, t, digit, ev):
    """Value for digit of t, a position after the opponent's reply (or the game's end): the
    result, else the static terms alone (no reply is assumed: it is digit's turn)."""
    w = ev["w"]
    mine, theirs, static = line_terms(t, digit, ev)
    if t.ended != ONGOING:
        return result_value(t, ev, mine, theirs)
    return static + mine - theirs + hand_value(s, t, digit, w) + pressure(t, digit, mine, theirs, w)


@inlined
def pressure(t, digit, mine, theirs, w):
    """RUN-line pressure (points per card in the RUN line, + leading, - trailing) and the
    cards left in the mover's pile less the opponent's."""
    if w[W_PILE] == 0.0 and w[W_RUN_PRESSURE] == 0.0:  # the shipped heuristic: nothing
        return 0.0
    out = w[W_PILE] * (pile_left(t, digit) - pile_left(t, 1 - digit))
    if mine != theirs:
        out += w[W_RUN_PRESSURE] * t.count[t.lines - 1] * (1.0 if mine > theirs else -1.0)
    return out


@inlined
def pile_left(t, digit):
    return t.pile_len[digit] - t.pile_top[digit]


@inlined
def worst_reply(t, ev, digit, other, mine, theirs, static, w):
    """The value after the opponent's most harmful simple reply (one card of their digit,
    turning the mover's card left of it with weight W_FLIP)."""
    if t.hand_len[other] == 0:
        return static
    last_turn = t.hand_len[other] - 1 + pile_left(t, other) < HAND_SIZE
    if t.forced_line >= 0:
        lines = 1 << t.forced_line
    else:
        lines, _ = line_masks(t)
    tl = ev["tl"]
    worst = static
    first = True
    for line in range(t.lines):
        if not lines & (1 << line):
            continue
        col = t.forced_col if t.forced_line >= 0 else t.gap[line]
        m, o, saved = tl[line, T_MINE], tl[line, T_THEIRS], tl[line, T_SAVED]
        left_of, right_of = tl[line, T_LEFT], tl[line, T_RIGHT]
        ends = last_turn or (line == t.lines - 1 and t.count[line] + 1 >= t.capacity)
        placed = 1 if left_of <= col <= right_of else 0
        v = reply_value(t, ev, line, m, o + placed, m - o, saved, mine, theirs, static, ends, w)
        if w[W_FLIP] > 0 and flippable(t, digit, line, col - 1, left_of, right_of):
            flip = reply_value(
                t, ev, line, m - 1, o + placed + 1, m - o, saved, mine, theirs, static, ends, w
            )
            v += w[W_FLIP] * (flip - v)
        if first or v < worst:
            worst = v
            first = False
    return worst


@inlined
def flippable(t, digit, line, col, left_of, right_of):
    """A counted, unsaved card of the mover's digit at (line, col)."""
    if col < 0 or col < left_of or col > right_of:
        return False
    cid = t.grid[line, col]
    return cid != NO_CARD and t.face[cid] == digit and not t.saved[cid]


@inlined
def reply_value(t, ev, line, m, o, lead, saved, mine, theirs, static, ends, w):
    """Value once a reply put one card into the line, leaving m and o counted cards there
    (the line's lead was lead); a result if it ends the game."""
    value = 10.0 * (line + 1)
    count = t.count[line]
    before = control_value(count, lead, value)
    after = control_value(count + 1, m - o, value)
    if ends:
        new_mine = mine - max(before, 0.0) + max(after, 0.0)
        new_theirs = theirs + min(before, 0.0) - min(after, 0.0)
        return result_value(t, ev, new_mine, new_theirs)
    was = line_value(count, lead, saved, value, w)
    now = line_value(count + 1, m - o, saved, value, w)
    return static + w[W_REPLY] * (after - before + w[W_REPLY_LINE] * (now - was))


@kernel
def heuristic_turn_w(s, w):
    """One whole turn of a heuristic player with evaluation weights w (N_WEIGHTS or more
    slots, the first N_WEIGHTS read): one ply, or with w[W_PLY2] > 1 the best of that many
    first-ply candidates after a second ply (second_ply)."""
    digit = s.mover
    forced = begin_turn(s, digit)
    if candidates(w) == 1:  # one ply: best_move, without ranked_moves's k-best arrays
        best_move(s, digit, forced, weights_box(w), scratch_state(), False)
        return
    move, path, n = searched_choice(s, digit, forced, w)
    if n > 0:
        play_move(s, digit, move[0], move[1], move[2], forced, path, POLICY_HEURISTIC)
    finish_turn(s, digit, n == 0, True)


@inlined
def candidates(w):
    """First-ply moves the weights give a second ply (1: one ply alone)."""
    return min(MAX_PLY2, max(1, int(w[W_PLY2])))


@kernel
def searched_choice(s, digit, forced, w):
    """The move heuristic_turn_w plays once the turn has begun: its (hand index, line,
    direction), decision path, and how many candidates there were (0: none, a pass)."""
    box = weights_box(w)
    k = candidates(w)
    scratch = scratch_state()
    moves, values, paths, n = ranked_moves(s, digit, forced, box, k, scratch, k > 1)
    if w[W_MARGIN] > 0:  # selective: only candidates close to the best are searched
        while n > 1 and values[n - 1] < values[0] - w[W_MARGIN]:
            n -= 1
    choice = 0
    if k > 1 and n > 1:
        deals = max(1, int(w[W_DEALS]))
        look = min(MAX_LOOK, max(1, int(w[W_LOOK])))
        choice = second_ply(s, digit, forced, box, moves, paths, n, deals, look, scratch)
    return moves[choice], paths[choice], n


@kernel
def one_ply_turn(s, box, scratch):
    """A whole turn of the one-ply heuristic with the weights in box[0] (the opponent's
    reply inside a second ply); scratch: a state record to try moves on."""
    digit = s.mover
    best_move(s, digit, begin_turn(s, digit), box, scratch, True)


@kernel
def best_move(s, digit, forced, box, scratch, distinct):
    """Play the one-ply heuristic's move (the first best in greedy's order) and end the
    turn: ranked_moves with k = 1 (distinct as there), without its arrays."""
    plain, cont = line_masks(s)
    best = -np.inf
    best_index, best_line, best_dir = -1, -1, 0
    best_path = np.zeros(MAX_DEPTH, dtype=np.int8)
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    for index in range(s.hand_len[digit]):
        if distinct and same_card_earlier(s, digit, index):
            continue
        cid = s.hand[digit, index]
        mask = card_lines(s, cid, forced, plain, cont)
        for line in range(s.lines):
            if not mask & (1 << line):
                continue
            for d in range(n_dirs(s, cid)):
                direction = nth_dir(s, cid, d)
                path[:] = 0
                while True:
                    depth, options = play_on_copy(
                        s, scratch[0], digit, index, line, direction, forced, path
                    )
                    value = evaluate(s, scratch[0], digit, box[0])
                    if value > best:
                        best = value
                        best_index, best_line, best_dir = index, line, direction
                        best_path[:] = path
                    if not advance(path, options, depth):
                        break
    if best_index >= 0:
        play_move(s, digit, best_index, best_line, best_dir, forced, best_path, POLICY_HEURISTIC)
    finish_turn(s, digit, best_index < 0, True)


@kernel
def weights_box(w):
    """The evaluation's record with the weights set (read as box[0]: keep box alive)."""
    box = np.zeros(1, dtype=EVAL_DTYPE)
    for i in range(N_WEIGHTS):
        box[0]["w"][i] = w[i]
    return box


@kernel
def ranked_moves(s, digit, forced, box, k, scratch, distinct):
    """The k best moves by the evaluation, best first, ties in greedy's order: (their hand
    index, line and direction; values; decision paths; how many were found, at most k).
    distinct: a card of the same kind and axis as one before it in hand is not tried (its
    moves are alike, but for the hand value of a stolen card: so not in the one-ply player)."""
    plain, cont = line_masks(s)
    values = np.full(k, -np.inf)
    moves = np.zeros((k, 3), dtype=np.int64)
    paths = np.zeros((k, MAX_DEPTH), dtype=np.int8)
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    n = 0
    for index in range(s.hand_len[digit]):
        if distinct and same_card_earlier(s, digit, index):
            continue
        cid = s.hand[digit, index]
        mask = card_lines(s, cid, forced, plain, cont)
        for line in range(s.lines):
            if not mask & (1 << line):
                continue
            for d in range(n_dirs(s, cid)):
                direction = nth_dir(s, cid, d)
                path[:] = 0
                while True:
                    depth, options = play_on_copy(
                        s, scratch[0], digit, index, line, direction, forced, path
                    )
                    value = evaluate(s, scratch[0], digit, box[0])
                    if n < k or value > values[k - 1]:
                        j = n if n < k else k - 1
                        n = min(n + 1, k)
                        while j > 0 and values[j - 1] < value:  # strict: ties keep order
                            values[j] = values[j - 1]
                            moves[j] = moves[j - 1]
                            paths[j] = paths[j - 1]
                            j -= 1
                        values[j] = value
                        moves[j, 0], moves[j, 1], moves[j, 2] = index, line, direction
                        paths[j] = path
                    if not advance(path, options, depth):
                        break
    return moves, values, paths, n


@kernel
def second_ply(s, digit, forced, box, moves, paths, n, deals, look, scratch):
    """Which of the n candidates does best once the opponent replies: each is played on
    `deals` determinisations of the hidden cards (the same deals for every candidate), then
    `look` turns of the one-ply heuristic of the same weights (the opponent's reply first),
    and the position after is valued (leaf_value); the best total wins, ties to the earlier
    candidate."""
    r = search_stream(s, digit)
    start = r[0]
    det = scratch_state()
    work = np.zeros(1, dtype=DEAL_DTYPE)  # used as work[0]: keep the array alive
    best = 0
    best_total = -np.inf
    for j in range(n):
        r[0] = start  # common deals: candidates differ by their move alone
        total = 0.0
        for _ in range(deals):
            t = determinise(s, det, digit, r, work[0])
            index, line, direction = moves[j, 0], moves[j, 1], moves[j, 2]
            play_move(t, digit, index, line, direction, forced, paths[j], POLICY_HEURISTIC)
            finish_turn(t, digit, False, True)
            for _ in range(look):
                if t.ended != ONGOING:
                    break
                one_ply_turn(t, box, scratch)
            total += leaf_value(s, t, digit, box[0])
        if total > best_total:
            best_total = total
            best = j
    return best


@kernel
def leaf_value(s, t, digit, ev):
    """Value for digit of t at the end of a second ply: after the opponent's turn (or the
    game's end) the static terms (settled_value); after digit's own, as a move's position is
    valued, with the opponent's worst reply (evaluate; every card in t is as good as known)."""
    if t.ended == ONGOING and t.mover != digit:
        return evaluate(t, t, digit, ev)
    return settled_value(s, t, digit, ev)


@kernel
def heuristic_turn(s):
    """One whole turn of a heuristic player, with the mover's weights from the state
    (every loop sets them per game: the shipped ones, or a weights file's)."""
    heuristic_turn_w(s, s.weights[s.mover])
