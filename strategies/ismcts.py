"""The `ismcts` strategy: single-observer information-set MCTS (Cowling, Powley, Whitehouse 2012).

One tree over the mover's information set: every iteration deals the hidden cards again
(search.determinise), descends by UCB among the children whose moves are legal in that
deal (both players' moves are nodes; a move is card kind and axis, line, direction and
sub-decision path), adds one node, rolls out (guided.guided_rollout) and backs the result
up. A child's exploration term counts how often it was available, not its parent's visits.

At the root the iterations are spread by sequential halving, as mc spreads its rollouts
(each round's moves share deals), not by UCB: with UCB at the root (c = 0.3-1.0) ISMCTS
did no better than mc with the same budget while costing twice as much per iteration.
The move played is the survivor. Nodes live in preallocated arrays.
"""

from __future__ import annotations

import numpy as np

from sim.engine.clone import clone
from sim.engine.cpu import cpu_turn
from sim.engine.jit import inlined, kernel
from sim.engine.paths import scratch_state
from sim.engine.rng import mix
from sim.engine.state import MAX_DEPTH, ONGOING, POLICY_ISMCTS, POLICY_RANDOM
from sim.engine.turn import begin_turn
from strategies.guided import guided_rollout, knobs
from strategies.mc import rounds_for
from strategies.search import (
    M_DIR,
    M_INDEX,
    M_LEN,
    M_LINE,
    M_PATH,
    blank_wins,
    determinise,
    list_moves,
    may_end,
    outcome,
    pass_turn,
    play_move,
    rand,
    scored_in_place,
    search_start,
)

EXPLORE = 0.4  # UCB exploration constant for values in [0, 1] (0.3-0.5 measured best)
MARGIN_WEIGHT = 0.002  # as in mc: a point of margin breaks ties between equal outcomes
PASS_KEY = -1
MAX_TRAIL = 256  # nodes on one descent (a game has far fewer turns)

# node fields, one array each (struct of arrays)
N_PARENT, N_CHILD, N_SIBLING, N_PLAYER = 0, 1, 2, 3

# The tree's helpers are inlined (jit.inlined) into the descent, and the descent into
# halving: as calls, each passing the tree's arrays cost a reference count up and down per
# array (NRT_incref/decref 8.8% of an ismcts game, perf). Inlined, an array parameter still
# costs a count up and down per call where numba cannot pair them off (loops, calls), so
# the tree step is written out in iterate rather than passed the tree and buffers


@inlined
def move_key(t, digit, moves, m):
    """What identifies a move across deals: player, card kind and axis, line, direction, path."""
    cid = t.hand[digit, moves[m, M_INDEX]]
    key = np.int64(t.kind[cid])
    key = key * 4 + t.axis[cid]
    key = key * 8 + moves[m, M_LINE]
    key = key * 8 + moves[m, M_DIR]
    key = key * 2 + digit
    key = key * 64 + moves[m, M_LEN]
    # past about 8 decisions the key wraps into a hash; a collision (deep chains only) would
    # merge two moves' statistics, never make a move illegal
    for d in range(moves[m, M_LEN]):
        key = key * 32 + min(moves[m, M_PATH + d], 31)
    return key


@kernel
def new_tree(size):
    """Node links (parent, first child, next sibling, player), keys, statistics, a hash
    table from (parent, key) to child, so a node's children are found without a scan, and
    the logarithms of availability counts met so far (log_of)."""
    links = np.full((size, 4), -1, dtype=np.int32)
    keys = np.zeros(size, dtype=np.int64)
    stats = np.zeros((size, 3))  # visits, availability, total reward for the node's player
    slots = 1
    while slots < 2 * size:
        slots *= 2
    table = np.full(slots, -1, dtype=np.int32)
    logs = np.full(size, -1.0)  # a count is at most the iterations, fewer than the nodes
    return links, keys, stats, table, logs


@inlined
def slot_of(table, parent, key):
    """Start of the probe sequence for (parent, key). The parent is mixed, not multiplied by
    a constant: uncompiled, NumPy warns on that multiply's wrap-around (an error in the
    tests); only where a node sits in the table changes, never which node a key finds."""
    h = mix(np.uint64(key) ^ mix(np.uint64(parent)))
    return np.int64(h & np.uint64(table.shape[0] - 1))


@inlined
def add_child(links, keys, stats, table, n_nodes, parent, key, player):
    """A new child of parent (the caller checks that the tree has room); its index."""
    node = n_nodes
    links[node, N_PARENT] = parent
    links[node, N_SIBLING] = links[parent, N_CHILD]
    links[node, N_CHILD] = -1
    links[node, N_PLAYER] = player
    links[parent, N_CHILD] = node
    keys[node] = key
    stats[node, :] = 0.0
    i = slot_of(table, parent, key)
    while table[i] >= 0:
        i = (i + 1) & (table.shape[0] - 1)
    table[i] = node
    return node


@inlined
def find_child(links, keys, table, node, key):
    """The child of node reached by the move key, or -1."""
    i = slot_of(table, node, key)
    while table[i] >= 0:
        child = table[i]
        if keys[child] == key and links[child, N_PARENT] == node:
            return child
        i = (i + 1) & (table.shape[0] - 1)
    return -1


@inlined
def log_of(logs, count):
    """np.log(count) of a whole count, remembered in logs (-1: not yet), the same value: the
    call was 3% of an ismcts game, and UCB's loop stalled on it (perf)."""
    k = np.int64(count)
    if k >= logs.shape[0]:
        return np.log(count)
    if logs[k] < 0.0:
        logs[k] = np.log(count)
    return logs[k]


@inlined
def ucb(stats, logs, child):
    """Mean value plus the exploration term over the child's availability."""
    visits = stats[child, 0]
    return stats[child, 2] / visits + EXPLORE * np.sqrt(log_of(logs, stats[child, 1]) / visits)


@inlined
def legal_keys(t, mover, moves, n, keys_out):
    for m in range(n):
        keys_out[m] = move_key(t, mover, moves, m)


@inlined
def untried_move(t, spare, mover, moves, n, forced, children, untried, r):
    """The move to add a node for: one that ends the game at once with the mover winning if
    there is one (as rollouts play), else one of the untried moves at random."""
    if n > 0 and may_end(t, mover):
        for m in range(n):
            if children[m] < 0:
                if scored_in_place(t, t.hand[mover, moves[m, M_INDEX]]):
                    if blank_wins(t, mover, moves[m, M_LINE]):
                        return m
                    continue
                w = clone(spare, t)
                play_move(w, mover, moves, m, forced, POLICY_RANDOM)
                if w.ended != ONGOING and outcome(w, mover)[0] == 1.0:
                    return m
    k = rand(r, untried)
    for m in range(max(n, 1)):
        if children[m] < 0:
            if k == 0:
                return m
            k -= 1
    return 0


@inlined
def iterate(t, spare, digit, tree, n_nodes, root, bufs, r, first, guidance):
    """One ISMCTS iteration on the dealt copy t; returns the nodes in use.

    root holds the root's moves, their keys and count (the same in every deal); first is
    the root move to take; bufs the reused arrays: moves, their keys, their children, the
    nodes of this descent and list_moves's path. Below the root each tree step begins the
    mover's turn, lists its moves and their keys (a pass when none), selects a child by UCB
    or adds a node, and plays. The step is written out here, not called: an inlined
    function's array parameters still cost a reference count up and down each, at every
    step (perf: NRT_incref/decref 8.2% of an ismcts game with the step a function, 5.8%
    without)."""
    links, keys, stats, table, logs = tree
    root_moves = root[0]
    moves, move_keys, children, trail, path = bufs
    node = 0
    depth = 0
    while t.ended == ONGOING and t.error == 0 and node >= 0:
        if t.mover == t.cpu:  # the CPU card decides by its own rules
            cpu_turn(t)
            continue
        added = False
        if depth == 0:
            forced = begin_turn(t, digit)
            node = 1 + first  # the root's children are made first, in move order
            play_move(t, digit, root_moves, first, forced, POLICY_RANDOM)
        else:
            mover = t.mover
            forced = begin_turn(t, mover)
            n = list_moves(t, spare[0], mover, forced, moves, path)
            if n == 0:
                move_keys[0] = PASS_KEY - mover
            else:
                legal_keys(t, mover, moves, n, move_keys)
            n_legal = max(n, 1)
            best = -1
            best_value = -1.0
            untried = 0
            for m in range(n_legal):  # select by UCB among the children available here
                child = find_child(links, keys, table, node, move_keys[m])
                children[m] = child
                if child < 0:
                    untried += 1
                    continue
                stats[child, 1] += 1.0
                value = ucb(stats, logs, child)
                if value > best_value:
                    best_value = value
                    best = m
            if untried > 0 and n_nodes < keys.shape[0]:
                best = untried_move(t, spare, mover, moves, n, forced, children, untried, r)
                child = add_child(links, keys, stats, table, n_nodes, node, move_keys[best], mover)
                children[best] = child
                stats[child, 1] = 1.0
                n_nodes += 1
                added = True
            elif best < 0:  # tree full and nothing known here: leave the tree
                best = rand(r, n_legal)
            if n == 0:
                pass_turn(t, mover)
            else:
                play_move(t, mover, moves, best, forced, POLICY_RANDOM)
            node = children[best]
        if node >= 0 and depth < MAX_TRAIL:
            trail[depth] = node
            depth += 1
        if added:
            break
    cut, guide, box = guidance
    value, margin = guided_rollout(t, digit, spare, box, cut, guide, r)
    for i in range(depth):
        node = trail[i]
        stats[node, 0] += 1.0
        if links[node, N_PLAYER] == digit:
            stats[node, 2] += value + MARGIN_WEIGHT * margin
        else:
            stats[node, 2] += 1.0 - value - MARGIN_WEIGHT * margin
    return n_nodes


@kernel
def rank(alive, m, stats):
    """Sort alive[:m] by their root children's mean value, best first; ties keep move order."""
    for a in range(1, m):
        mv = alive[a]
        mean = stats[1 + mv, 2] / stats[1 + mv, 0]
        b = a
        while b > 0:
            prev = alive[b - 1]
            if stats[1 + prev, 2] / stats[1 + prev, 0] >= mean:
                break
            alive[b] = prev
            b -= 1
        alive[b] = mv


@kernel
def halving(s, det, work, deals, spare, digit, tree, root, bufs, budget, r):
    """Sequential halving over the root moves, each iteration an ISMCTS descent below the
    move; every move of a round gets the same deals. The best move's index."""
    links, keys, stats, table, _ = tree
    guidance = knobs(s, digit)
    n = root[2]
    for m in range(n):  # root children in move order: node 1 + m
        add_child(links, keys, stats, table, 1 + m, 0, root[1][m], digit)
    n_nodes = 1 + n
    alive = np.arange(n)
    m = n
    rounds = rounds_for(n)
    for _ in range(rounds):
        per = max(1, budget // rounds // m)
        for _ in range(per):
            determinise(s, det, digit, r, deals[0])
            for a in range(m):
                t = clone(work, det[0])
                n_nodes = iterate(t, spare, digit, tree, n_nodes, root, bufs, r, alive[a], guidance)
        rank(alive, m, stats)
        m = (m + 1) // 2
    return alive[0]


@kernel
def ismcts_turn(s):
    """One whole turn of an ismcts player, with s.budget[mover] iterations."""
    digit = s.mover
    forced, r, det, work, deals, moves, n = search_start(s, digit)
    if n == 0:
        pass_turn(s, digit)
        return
    best = 0
    if n > 1:
        best, moves, _ = root_search(s, digit, r, det, work, deals, moves, n)
    play_move(s, digit, moves, best, forced, POLICY_ISMCTS)


@kernel
def root_search(s, digit, r, det, work, deals, moves, n):
    """The search over the n > 1 root moves (moves as search_start listed them: the descent
    lists its own moves there): the best move's index, the root moves, and every node's
    statistics, root move m's at row 1 + m (visits, availability, total value)."""
    root_keys = np.zeros(n, dtype=np.int64)
    legal_keys(det[0], digit, moves, n, root_keys)
    root_moves = moves.copy()
    iterations = s.budget[digit]
    tree = new_tree(iterations + n * (rounds_for(n) + 2) + 1)  # halving may overspend
    trail = np.zeros(MAX_TRAIL, dtype=np.int64)
    children = np.zeros(moves.shape[0], dtype=np.int64)
    root = (root_moves, root_keys, n)
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    bufs = (moves, np.zeros(moves.shape[0], dtype=np.int64), children, trail, path)
    spare = scratch_state()
    best = halving(s, det, work, deals, spare, digit, tree, root, bufs, iterations, r)
    return best, root_moves, tree[2]
