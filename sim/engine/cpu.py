"""Solo mode (RULES.md 8): the CPU card as an opponent.

The CPU plays the top card of its pile into lines its card names. Each card's
direction, and every choice in the chain it starts, is found by trying every
decision path on a copy of the game and ranking where it leads; the chosen path is
then replayed on the real game.
"""

from __future__ import annotations

import numpy as np

from sim.engine.board import can_enter, is_shut
from sim.engine.cards import CONT
from sim.engine.clone import clone
from sim.engine.commands import execute, put_down
from sim.engine.decide import n_dirs, nth_dir
from sim.engine.jit import kernel
from sim.engine.paths import next_change, path_choice, scratch_state, set_path
from sim.engine.score import controller, scores
from sim.engine.state import (
    END_CPU_OUT,
    END_RUN,
    END_STALLED,
    MAX_CARDS,
    MAX_DEPTH,
    NO_CARD,
    POLICY_PATH,
)
from sim.engine.turn import line_masks

WINNING, NOT_WINNING = 1, 0
N_FEATURES = 5  # winning, human not ahead, net good moves, no own card lost, margin


@kernel
def cpu_scores(s):
    """(CPU's score, human's score)."""
    zero, one = scores(s)
    return (one, zero) if s.cpu == 1 else (zero, one)


@kernel
def active_lines(s, cid):
    """Bitmask of the lines open (4.1) to the CPU's top card; with an empty pile (NO_CARD),
    the lines open to a BLANK (RULES.md 8)."""
    plain, cont = line_masks(s)
    return plain | cont if cid != NO_CARD and s.kind[cid] == CONT else plain


@kernel
def cpu_controls(s):
    mask = 0
    for line in range(s.lines):
        if controller(s, line) == s.cpu:
            mask |= 1 << line
    return mask


@kernel
def human_controls(s):
    mask = 0
    for line in range(s.lines):
        who = controller(s, line)
        if who >= 0 and who != s.cpu:
            mask |= 1 << line
    return mask


@kernel
def nth_line(mask, rank, from_bottom):
    """The rank-th (0 = first) line set in mask, counting from the bottom or the top; -1."""
    for i in range(8):
        line = 7 - i if from_bottom else i
        if mask & (1 << line):
            if rank == 0:
                return line
            rank -= 1
    return -1


@kernel
def lowest(s, mask, rank):
    """RULES.md 8: 'lowest' is the bottom line (glossary) or the top one (numeric)."""
    return nth_line(mask, rank, not s.cpu_numeric)


@kernel
def highest(s, mask, rank):
    return nth_line(mask, rank, bool(s.cpu_numeric))


@kernel
def top_card(s):
    """The CPU's top card, or NO_CARD when its pile is empty."""
    digit = s.cpu
    if s.pile_top[digit] >= s.pile_len[digit]:
        return NO_CARD
    return s.pile[digit, s.pile_top[digit]]


@kernel
def update_card(s):
    """RULES.md 8: flip to the right side at the level's first step, or advance one step."""
    if s.cpu_first:
        s.cpu_first = 0
        return
    cpu, human = cpu_scores(s)
    side = WINNING if cpu > human else NOT_WINNING
    if side != s.cpu_side:
        s.cpu_side = side
        s.cpu_step = s.cpu_level
    elif s.cpu_step < 4:
        s.cpu_step += 1


@kernel
def cpu_turn(s):
    """One whole CPU turn: update the card, follow its instruction, then the fallback."""
    update_card(s)
    s.cpu_log_len = 0
    if s.cpu_side == WINNING:
        follow_winning(s, s.cpu_step)
    else:
        follow_not_winning(s, s.cpu_step)
    if s.ended == 0 and s.cpu_log_len == 0:
        fallback(s)
    if s.cpu_log_len == 0:
        s.forced_line = -1  # a forced slot the CPU could not use lapses with its turn
    s.passed[s.cpu] = s.cpu_log_len == 0
    s.turns += 1
    if s.ended == 0:
        if s.passed[0] and s.passed[1]:
            s.ended = END_STALLED
        else:
            s.mover = 1 - s.cpu


@kernel
def follow_winning(s, step):
    cid = top_card(s)
    active = active_lines(s, cid)
    if step == 1:
        play_into(s, lowest(s, active, 0))
    elif step == 2:
        first, second = lowest(s, active, 1), lowest(s, active, 0)
        if first >= 0:
            play_into(s, first)
        play_into(s, second)
    elif step == 3:
        walk_down(s, True)
    else:
        line = lowest(s, active, 0)
        play_into(s, line)
        play_into(s, line)


@kernel
def follow_not_winning(s, step):
    cid = top_card(s)
    losing = active_lines(s, cid) & ~cpu_controls(s)
    if step == 1:
        play_into(s, highest(s, losing, 0))
    elif step == 2:
        first, second = highest(s, losing, 0), highest(s, losing, 1)
        play_into(s, first)
        if second >= 0:
            play_into(s, second)
    elif step == 3:
        walk_down(s, False)
    else:
        line = lowest(s, losing, 0)
        while line >= 0 and s.ended == 0 and controller(s, line) != s.cpu:
            if not play_into(s, line):
                return


@kernel
def walk_down(s, winning):
    """Step 3: every line from top to bottom, tested as it is reached (so a line opened
    earlier in the turn counts): open to the top card and not held by the other side. A
    line owed a card when the pile is empty ends the game there (play_into)."""
    for line in range(s.lines):
        if s.ended:
            break
        cid = top_card(s)
        held = human_controls(s) if winning else cpu_controls(s)
        if active_lines(s, cid) & ~held & (1 << line):
            play_into(s, line)


@kernel
def fallback(s):
    """RULES.md 8: one card in the first legal line of the instruction's order."""
    cid = top_card(s)
    active = active_lines(s, cid)
    if s.cpu_side == WINNING:
        play_into(s, lowest(s, active, 0))
    else:
        play_into(s, highest(s, active, 0))


@kernel
def play_into(s, line):
    """Place the top card in a named line (or the pending forced slot); False if it cannot."""
    if s.ended:
        return False
    cid = top_card(s)
    if cid == NO_CARD:
        return run_out(s, line)
    if s.cpu_log_len == 0 and s.forced_line >= 0:
        f_line, f_col = s.forced_line, s.forced_col
        s.forced_line = -1
        if can_enter(s, f_line, f_col, cid):
            return place_ranked(s, cid, f_line, f_col)
    if line < 0 or not active_lines(s, cid) & (1 << line):
        return False
    col = s.width[line] if is_shut(s, line) else s.gap[line]
    return place_ranked(s, cid, line, col)


@kernel
def run_out(s, line):
    """RULES.md 8: the pile is empty. If the named line is open to a BLANK, a card was
    needed: the game ends `cpu_out` (a pending forced slot is spent all the same). If not,
    no card was needed here. Either way nothing is placed: False."""
    if line >= 0 and active_lines(s, NO_CARD) & (1 << line):
        s.forced_line = -1
        s.ended = END_CPU_OUT
    return False


@kernel
def place_ranked(s, cid, line, col):
    """Place the top card at (line, col) with the best-ranked decision path, and resolve it."""
    best = best_path(s, cid, line, col)
    if s.error:
        return False
    set_path(s, best, MAX_DEPTH)
    lay_card(s, cid, line, col)
    s.cpu_log[s.cpu_log_len, 0] = cid
    s.cpu_log[s.cpu_log_len, 1] = line
    s.cpu_log_len += 1
    if s.count[s.lines - 1] >= s.capacity:
        s.ended = END_RUN
    return True


@kernel
def lay_card(s, cid, line, col):
    """Draw the top card and play it along s.path: its direction is the path's first step."""
    digit = s.cpu
    s.policy[digit] = POLICY_PATH
    s.path_pos = 0
    direction = path_direction(s, cid)
    s.pile_top[digit] += 1
    put_down(s, digit, cid, direction, line, col)
    execute(s, digit, line, col)


@kernel
def path_direction(s, cid):
    return nth_dir(s, cid, path_choice(s, n_dirs(s, cid)))


@kernel
def best_path(s, cid, line, col):
    """Try every decision path of this card on copies; the path the ranking picks.

    Paths come in lexicographic order, so the options of one decision finish one after
    another and its pick is settled when its last option is done: only one kept path per
    depth is stored, so any number of paths fits (RULES.md 13 sets no limit)."""
    scratch = scratch_state()
    current = np.zeros(MAX_DEPTH, dtype=np.int8)
    options = np.zeros(MAX_DEPTH, dtype=np.int64)
    kept = new_kept(4)
    while True:
        depth = try_path(s, scratch, cid, line, col, current, 0)
        options[:depth] = scratch[0].path_options[:depth]
        if depth > kept[0].shape[0]:
            kept = grow_kept(kept, 2 * depth)
        leaf, kept_set, kept_len, kept_path, kept_feat = kept
        leaf_features(scratch[0], leaf[0])
        for d in range(1, depth):
            if options[d] > 1:  # a decision with one option is never ranked
                try_path(s, scratch, cid, line, col, current, d)
                leaf_features(scratch[0], leaf[d])
        j = next_change(current, options, depth)
        # the leaf is the pick of its deepest decision; settle every decision it completes
        src_feat, src_path, src_len = leaf, current, depth
        for d in range(depth - 1, max(j, 0) - 1, -1):
            if not kept_set[d] or better(src_feat, kept_feat[d], d):
                kept_feat[d, : d + 1] = src_feat[: d + 1]
                kept_path[d, :src_len] = src_path[:src_len]
                kept_path[d, src_len:] = 0
                kept_len[d] = src_len
                kept_set[d] = True
            if d > j:  # every option of decision d is done: its pick goes up a level
                src_feat, src_path, src_len = kept_feat[d], kept_path[d], kept_len[d]
                kept_set[d] = False
        if j < 0:
            return src_path.copy()
        current[j] += 1
        current[j + 1 :] = 0


@kernel
def try_path(s, scratch, cid, line, col, current, snap_at):
    """Lay the card along current on a copy in scratch[0], with the display snapshot taken
    at decision snap_at; the number of decisions taken."""
    t = clone(scratch, s)
    set_path(t, current, MAX_DEPTH)
    t.snap_at = snap_at
    lay_card(t, cid, line, col)
    return np.int64(t.path_pos)


@kernel
def new_kept(cap):
    """Per depth: the leaf's features, and the kept pick (set, length, path, features)."""
    return (
        np.zeros((cap, N_FEATURES), dtype=np.int64),
        np.zeros(cap, dtype=np.bool_),
        np.zeros(cap, dtype=np.int64),
        np.zeros((cap, MAX_DEPTH), dtype=np.int8),
        np.zeros((cap, cap, N_FEATURES), dtype=np.int64),
    )


@kernel
def grow_kept(kept, cap):
    """The same store with room for cap decisions (deep chains are rare: start small)."""
    leaf, kept_set, kept_len, kept_path, kept_feat = kept
    out = new_kept(cap)
    n = leaf.shape[0]
    out[1][:n] = kept_set
    out[2][:n] = kept_len
    out[3][:n] = kept_path
    out[4][:n, :n] = kept_feat
    return out


@kernel
def leaf_features(t, out):
    """The ranking features of a finished path, seen from the decision its snapshot holds."""
    cpu, human = cpu_scores(t)
    final_line = np.full(MAX_CARDS, -1, dtype=np.int64)
    for line in range(t.lines):
        for col in range(t.width[line]):
            cid = t.grid[line, col]
            if cid != NO_CARD:
                final_line[cid] = line
    net = 0
    lost = 0
    for cid in range(t.n_cards):
        before = t.snap_line[cid]
        if before < 0:
            continue
        own = t.snap_own[cid]
        after = final_line[cid]
        if own and (after < 0 or t.face[cid] != t.cpu):
            lost = 1
        if after >= 0 and after != before:
            down = after > before
            net += 1 if down == bool(own) else -1
    out[0] = cpu > human
    out[1] = human <= cpu
    out[2] = net
    out[3] = 1 - lost
    out[4] = cpu - human


@kernel
def better(a, b, depth):
    """Whether pick a ranks strictly above pick b at a decision depth (RULES.md 8, ranks
    1-5; rank 6, the fixed order, is the order paths are tried in)."""
    for k in range(N_FEATURES):
        if a[depth, k] != b[depth, k]:
            return a[depth, k] > b[depth, k]
    return False
