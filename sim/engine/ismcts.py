"""The `ismcts` strategy: single-observer information-set MCTS (Cowling, Powley, Whitehouse 2012).

One tree over the mover's information set: every iteration deals the hidden cards again
(search.determinise), descends by UCB among the children whose moves are legal in that
deal (both players' moves are nodes; a move is card kind and axis, line, direction and
sub-decision path), adds one node, rolls out at random and backs the result up. A child's
exploration term counts how often it was available, not its parent's visits. The move
played is the root child visited most. Nodes live in preallocated arrays.
"""

from __future__ import annotations

import numpy as np

from sim.engine.cpu import cpu_turn
from sim.engine.jit import kernel
from sim.engine.paths import scratch_state
from sim.engine.rng import mix
from sim.engine.search import (
    M_DIR,
    M_INDEX,
    M_LINE,
    M_PATH,
    ROLL_RANDOM,
    determinise,
    list_moves,
    new_moves,
    outcome,
    pass_turn,
    play_move,
    rand,
    rollout_to_end,
    search_stream,
)
from sim.engine.state import MAX_DEPTH, ONGOING, POLICY_ISMCTS, POLICY_PATH
from sim.engine.turn import begin_turn, finish_turn, put_card

EXPLORE = 0.7  # UCB exploration constant for values in [0, 1]
MARGIN_WEIGHT = 0.002  # as in mc: a point of margin breaks ties between equal outcomes
ROLLOUT = ROLL_RANDOM
PASS_KEY = -1
MAX_TRAIL = 256  # nodes on one descent (a game has far fewer turns)

# node fields, one array each (struct of arrays)
N_PARENT, N_CHILD, N_SIBLING, N_PLAYER = 0, 1, 2, 3


@kernel
def move_key(t, digit, moves, m):
    """What identifies a move across deals: player, card kind and axis, line, direction, path."""
    cid = t.hand[digit, moves[m, M_INDEX]]
    key = np.int64(t.kind[cid])
    key = key * 4 + t.axis[cid]
    key = key * 8 + moves[m, M_LINE]
    key = key * 8 + moves[m, M_DIR]
    key = key * 2 + digit
    for d in range(MAX_DEPTH):
        key = key * 32 + min(moves[m, M_PATH + d], 31)
    return key


@kernel
def new_tree(size):
    """Node links (parent, first child, next sibling, player), keys, statistics, and a hash
    table from (parent, key) to child, so a node's children are found without a scan."""
    links = np.full((size, 4), -1, dtype=np.int32)
    keys = np.zeros(size, dtype=np.int64)
    stats = np.zeros((size, 3))  # visits, availability, total reward for the node's player
    slots = 1
    while slots < 2 * size:
        slots *= 2
    table = np.full(slots, -1, dtype=np.int32)
    return links, keys, stats, table


@kernel
def slot_of(table, parent, key):
    """Start of the probe sequence for (parent, key)."""
    h = mix(np.uint64(key) ^ (np.uint64(parent) * np.uint64(0x9E3779B97F4A7C15)))
    return np.int64(h & np.uint64(table.shape[0] - 1))


@kernel
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


@kernel
def find_child(links, keys, table, node, key):
    """The child of node reached by the move key, or -1."""
    i = slot_of(table, node, key)
    while table[i] >= 0:
        child = table[i]
        if keys[child] == key and links[child, N_PARENT] == node:
            return child
        i = (i + 1) & (table.shape[0] - 1)
    return -1


@kernel
def ucb(stats, child, explore):
    visits = stats[child, 0]
    return stats[child, 2] / visits + explore * np.sqrt(np.log(stats[child, 1]) / visits)


@kernel
def legal_keys(t, mover, moves, n, keys_out):
    for m in range(n):
        keys_out[m] = move_key(t, mover, moves, m)


@kernel
def legal(t, work, moves, move_keys):
    """Begin the mover's turn in t and list its moves and their keys (a pass when none);
    (moves, whether the NEXT-forced slot binds)."""
    mover = t.mover
    forced = begin_turn(t, mover)
    n = list_moves(t, work, mover, forced, moves)
    if n == 0:
        move_keys[0] = PASS_KEY - mover
    else:
        legal_keys(t, mover, moves, n, move_keys)
    return n, forced


@kernel
def step(t, node, tree, n_nodes, moves, move_keys, n, forced, children, r, explore):
    """One tree step at node among the mover's n legal moves: select or expand, and play.

    Returns (next node, nodes in use, whether a node was added).
    """
    links, keys, stats, table = tree
    mover = t.mover
    n_legal = max(n, 1)
    best = -1
    best_value = -1.0
    untried = 0
    for m in range(n_legal):
        child = find_child(links, keys, table, node, move_keys[m])
        children[m] = child
        if child < 0:
            untried += 1
            continue
        stats[child, 1] += 1.0
        value = ucb(stats, child, explore)
        if value > best_value:
            best_value = value
            best = m
    added = False
    if untried > 0 and n_nodes < keys.shape[0]:
        k = rand(r, untried)
        for m in range(n_legal):
            if children[m] < 0:
                if k == 0:
                    best = m
                    break
                k -= 1
        children[best] = add_child(links, keys, stats, table, n_nodes, node, move_keys[best], mover)
        stats[children[best], 1] = 1.0
        n_nodes += 1
        added = True
    elif best < 0:  # tree full and nothing known here: leave the tree
        best = rand(r, n_legal)
    if n == 0:
        pass_turn(t, mover)
    else:
        play_move(t, mover, moves, best, forced)
    return children[best], n_nodes, added


@kernel
def iterate(s, det, work, digit, tree, n_nodes, root, bufs, r, style, explore):
    """One ISMCTS iteration from the root; returns the nodes in use.

    root holds the root's moves, their keys and count (the same in every deal); bufs the
    reused arrays: moves, their keys, their children, and the nodes of this descent."""
    root_moves, root_keys, n_root = root
    moves, move_keys, children, trail = bufs
    t = determinise(s, det, digit, r)
    node = 0
    depth = 0
    while t.ended == ONGOING and t.error == 0 and node >= 0:
        if t.mover == t.cpu:  # the CPU card decides by its own rules
            cpu_turn(t)
            continue
        if depth == 0:
            forced = begin_turn(t, digit)
            node, n_nodes, added = step(
                t, node, tree, n_nodes, root_moves, root_keys, n_root, forced, children, r, explore
            )
        else:
            n, forced = legal(t, work, moves, move_keys)
            node, n_nodes, added = step(
                t, node, tree, n_nodes, moves, move_keys, n, forced, children, r, explore
            )
        if node >= 0 and depth < MAX_TRAIL:
            trail[depth] = node
            depth += 1
        if added:
            break
    rollout_to_end(t, style)
    value, margin = outcome(t, digit)
    links, _, stats, _ = tree
    for i in range(depth):
        node = trail[i]
        stats[node, 0] += 1.0
        if links[node, N_PLAYER] == digit:
            stats[node, 2] += value + MARGIN_WEIGHT * margin
        else:
            stats[node, 2] += 1.0 - value - MARGIN_WEIGHT * margin
    return n_nodes


@kernel
def most_visited(tree, root_keys, n):
    """Index of the root move whose child was visited most (ties: first in move order)."""
    links, keys, stats, table = tree
    best = 0
    best_visits = -1.0
    for m in range(n):
        child = find_child(links, keys, table, 0, root_keys[m])
        if child >= 0 and stats[child, 0] > best_visits:
            best_visits = stats[child, 0]
            best = m
    return best


@kernel
def ismcts_turn(s):
    """One whole turn of an ismcts player, with s.budget[mover] iterations."""
    digit = s.mover
    forced = begin_turn(s, digit)
    r = search_stream(s, digit)
    det = scratch_state()
    work = scratch_state()
    moves = new_moves()
    t = determinise(s, det, digit, r)  # legal moves do not depend on the hidden cards
    n = list_moves(t, work, digit, forced, moves)
    if n == 0:
        pass_turn(s, digit)
        return
    best = 0
    if n > 1:
        root_keys = np.zeros(n, dtype=np.int64)
        legal_keys(t, digit, moves, n, root_keys)
        root_moves = moves.copy()
        iterations = s.budget[digit]
        style = ROLLOUT
        explore = EXPLORE
        if iterations >= 10_000_000:  # EXPERIMENT
            explore = (iterations // 10_000_000) / 10
            iterations = iterations % 10_000_000
        if iterations >= 1_000_000:  # EXPERIMENT
            style = 1
            iterations -= 1_000_000
        tree = new_tree(iterations + 1)
        n_nodes = 1
        trail = np.zeros(MAX_TRAIL, dtype=np.int64)
        children = np.zeros(moves.shape[0], dtype=np.int64)
        root = (root_moves, root_keys, n)
        bufs = (moves, np.zeros(moves.shape[0], dtype=np.int64), children, trail)
        for _ in range(iterations):
            n_nodes = iterate(s, det, work, digit, tree, n_nodes, root, bufs, r, style, explore)
        best = most_visited(tree, root_keys, n)
        moves = root_moves
    s.policy[digit] = POLICY_PATH
    for d in range(MAX_DEPTH):
        s.path[d] = moves[best, M_PATH + d]
    s.path_pos = 0
    put_card(s, digit, moves[best, M_INDEX], moves[best, M_LINE], moves[best, M_DIR], forced)
    s.policy[digit] = POLICY_ISMCTS
    finish_turn(s, digit, False, True)
