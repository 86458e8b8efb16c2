"""EXECUTE (RULES.md 4.2 and 5): every command's effect.

A PRINTed or PASTEd card is the last thing its command does, so a chain is a
loop that moves on to the placed card instead of a recursion.
"""

from __future__ import annotations

from sim.engine.board import (
    can_enter,
    in_bounds,
    lift,
    move_to_line,
    neighbour,
    place,
    place_inline,
    turn_over,
)
from sim.engine.cards import (
    BLANK,
    CUT,
    DELETE,
    DOWN,
    ENTER,
    GET,
    GOSUB,
    GOTO10,
    IFELSE,
    IFTHEN,
    LEFT,
    NEXT,
    PASTE,
    PRINT,
    SAVE,
    SYNTAX,
    UP,
)
from sim.engine.decide import (
    ASK_CUT,
    ASK_HAND,
    choose_card,
    choose_dir,
    choose_gosub_line,
    n_dirs,
    nth_dir,
)
from sim.engine.hands import draw, hand_add, hand_remove
from sim.engine.jit import inlined, kernel
from sim.engine.paths import note_placed
from sim.engine.rng import chance_int, strategy_int
from sim.engine.state import NO_CARD, POLICY_PATH


@inlined  # LLVM kept it a call from each command (asm), on the path of every command card
def movable(s, line, col):
    """In bounds, holding a card, and that card not saved."""
    if not in_bounds(s, line, col):
        return False
    cid = s.grid[line, col]
    return cid != NO_CARD and not s.saved[cid]


@inlined  # as movable: on the path of every PRINT
def empty_slot(s, line, col):
    return in_bounds(s, line, col) and s.grid[line, col] == NO_CARD


@kernel
def delete_at(s, line, col):
    cid = lift(s, line, col)
    s.removed[s.removed_len] = cid
    s.removed_len += 1


@inlined
def execute(s, digit, line, col):
    """Resolve the command of the card at (line, col) played by digit, and any chain it starts.

    Each command that changed something is counted in s.effect for the cards table.
    """
    execute_card(s, digit, s.grid[line, col], line, col, False)


@inlined
def execute_card(s, digit, cid, line, col, canonical):
    """execute with the card at (line, col) given: the caller just put it there, and its
    kind decides the next branch sooner than a reload of the slot it was stored in.
    canonical: digit is known to be a random seat, not the CPU (random play, rollouts)."""
    while True:
        kind = s.kind[cid]
        if kind == BLANK:  # most cards played: skip the target and the command chain
            return
        t_line, t_col = neighbour(line, col, s.dirn[cid])
        placed = False
        if kind == PRINT or kind == PASTE:
            if empty_slot(s, t_line, t_col):
                if kind == PRINT and canonical:
                    placed = print_random(s, digit, t_line, t_col)
                elif kind == PRINT:
                    placed = print_card(s, digit, t_line, t_col)
                else:
                    placed = paste_card(s, digit, t_line, t_col)
            took_effect = placed
        else:
            took_effect = one_shot(s, digit, cid, kind, line, col, t_line, t_col)
        if took_effect:
            s.effect[digit, kind] += 1
        if not placed:
            return
        line, col = t_line, t_col
        cid = s.grid[line, col]


@inlined
def one_shot(s, digit, cid, kind, line, col, t_line, t_col):
    """Every command but PRINT and PASTE; True if it changed anything."""
    if kind == DELETE or kind == CUT:
        if not movable(s, t_line, t_col):
            return False
        if kind == DELETE:
            delete_at(s, t_line, t_col)
        else:
            s.cut[s.cut_len] = lift(s, t_line, t_col)
            s.cut_len += 1
        return True
    if kind == ENTER or kind == GOTO10:
        if not movable(s, t_line, t_col):
            return False
        dest = 0 if kind == GOTO10 or t_line + 1 >= s.lines else t_line + 1
        return move_to_line(s, t_line, t_col, dest)
    if kind == GOSUB:
        if not movable(s, t_line, t_col):
            return False
        dest = choose_gosub_line(s, digit, s.grid[t_line, t_col])
        return dest >= 0 and move_to_line(s, t_line, t_col, dest)
    if kind == IFTHEN:
        if not movable(s, t_line, t_col) or s.face[s.grid[t_line, t_col]] == s.face[cid]:
            return False
        turn_over(s, t_line, s.grid[t_line, t_col])  # to the IF...THEN's digit
        return True
    if kind == SAVE:
        return save(s, cid, t_line, t_col)
    if kind == IFELSE:
        return if_then_else(s, cid, line, col)
    if kind == SYNTAX:
        return syntax_error(s, cid, line, col, t_line, t_col)
    if kind == GET:
        return get(s, digit)
    if kind == NEXT and empty_slot(s, t_line, t_col):
        s.forced_line = t_line
        s.forced_col = t_col
        return True
    return False  # BLANK; REM, END and CONT act by lying in the display (counted at the end)


@kernel
def save(s, cid, line, col):
    """RULES.md 5.5: save target and SAVE card, or mark an empty in-bounds slot."""
    if not in_bounds(s, line, col):
        return False
    target = s.grid[line, col]
    if target != NO_CARD:
        s.saved[target] = 1
    else:
        s.mark[line, col] = 1
        s.span = max(s.span, col + 1)
    s.saved[cid] = 1
    return True


@kernel
def if_then_else(s, cid, line, col):
    """RULES.md 5.9: decide all four neighbours first, then turn mismatches and delete matches."""
    match = 0
    seen = 0
    for k in range(4):
        n_line, n_col = neighbour(line, col, LEFT + k)
        if movable(s, n_line, n_col):
            seen |= 1 << k
            if s.face[s.grid[n_line, n_col]] == s.face[cid]:
                match |= 1 << k
    for k in range(4):
        if seen & (1 << k):
            n_line, n_col = neighbour(line, col, LEFT + k)
            if match & (1 << k):
                delete_at(s, n_line, n_col)
            else:
                turn_over(s, n_line, s.grid[n_line, n_col])
    return seen != 0


@kernel
def syntax_error(s, cid, line, col, t_line, t_col):
    """RULES.md 5.11: turn the column in the text's direction, then the card itself."""
    if not in_bounds(s, t_line, t_col):
        return False
    turned = False
    direction = s.dirn[cid]
    if direction == UP or direction == DOWN:
        step = -1 if direction == UP else 1
        other_line = line + step
        while 0 <= other_line < s.lines:
            if movable(s, other_line, col):
                turn_over(s, other_line, s.grid[other_line, col])
                turned = True
            other_line += step
    if not s.saved[cid]:
        turn_over(s, line, cid)
        turned = True
    return turned


@kernel
def get(s, digit):
    """RULES.md 5.12: take a random opponent hand card, turn it to our digit; they redraw one."""
    other = 1 - digit
    if s.hand_len[other] == 0:
        return False
    cid = hand_remove(s, other, chance_int(s, s.hand_len[other]))
    s.face[cid] = digit
    if digit == s.cpu:  # RULES.md 8: on top of the CPU's pile
        s.pile_top[digit] -= 1
        s.pile[digit, s.pile_top[digit]] = cid
    else:
        hand_add(s, digit, cid)
    draw(s, other)
    return True


@kernel
def print_card(s, digit, line, col):
    """RULES.md 5.4: put a hand card that may enter the empty target there; True if placed."""
    if digit == s.cpu:
        return cpu_print(s, digit, line, col)
    index, row = choose_card(s, digit, s.hand[digit], s.hand_len[digit], line, col, ASK_HAND)
    if index < 0:
        return False
    cid = s.hand[digit, index]
    direction = choose_dir(s, digit, cid, row)
    if s.error:
        return False
    hand_remove(s, digit, index)
    put_down(s, digit, cid, direction, line, col)
    return True


@kernel  # a call, not inlined: inlined it made the random loop's compile seconds longer
def print_random(s, digit, line, col):
    """print_card for a random seat that is not the CPU: the same two draws (RULES.md 9),
    without the calls that ask about scripts, paths and the CPU (8% of a random game, perf)."""
    n = s.hand_len[digit]
    options = 0
    may = 0  # bit per hand card that may enter: each card is asked once
    for i in range(n):
        if can_enter(s, line, col, s.hand[digit, i]):
            may |= 1 << i
            options += 1
    if options == 0:
        return False
    k = strategy_int(s, digit, options)
    index = 0
    for i in range(n):  # the k-th card that may enter, by selects (no exit at a random i)
        ok = (may >> i) & 1
        index = i if ok and k == 0 else index
        k -= ok
    cid = s.hand[digit, index]
    direction = nth_dir(s, cid, strategy_int(s, digit, n_dirs(s, cid)))
    hand_remove(s, digit, index)
    turn_up(s, digit, cid, direction)
    place(s, cid, line, col)
    return True


@kernel
def cpu_print(s, digit, line, col):
    """RULES.md 8: a CPU PRINT prints the next card of its pile, if that card may enter."""
    if s.pile_top[digit] >= s.pile_len[digit]:
        return False
    cid = s.pile[digit, s.pile_top[digit]]
    if not can_enter(s, line, col, cid):
        return False
    direction = choose_dir(s, digit, cid, -1)
    s.pile_top[digit] += 1
    put_down(s, digit, cid, direction, line, col)
    return True


@inlined  # on every turn's path; LLVM kept it a call (~5% of a random game, perf)
def put_down(s, digit, cid, direction, line, col):
    """A card from a hand (or the CPU's pile) into the display with the player's digit up."""
    turn_up(s, digit, cid, direction)
    place(s, cid, line, col)
    if s.policy[digit] == POLICY_PATH:
        note_placed(s, cid, line)


@inlined
def put_from_hand(s, digit, cid, direction, line, col):
    """put_down for a seat known not to follow a path (a random seat's turn): place inlined
    only here, since inlined at put_down's callers too it added 6 s to the random loop's
    compile (its only other site is the searches' rollouts)."""
    turn_up(s, digit, cid, direction)
    place_inline(s, cid, line, col)


@inlined
def turn_up(s, digit, cid, direction):
    """A hand card about to enter the display: the player's digit up, pointing direction."""
    s.face[cid] = digit
    s.dirn[cid] = direction
    s.by[cid] = digit
    s.played[digit, s.kind[cid]] += 1


@kernel
def paste_card(s, digit, line, col):
    """RULES.md 5.7: put a cut card (keeping its face) into the empty target; True if placed."""
    index, row = choose_card(s, digit, s.cut, s.cut_len, line, col, ASK_CUT)
    if index < 0:
        return False
    cid = s.cut[index]
    direction = choose_dir(s, digit, cid, row)
    if s.error:
        return False
    for i in range(index, s.cut_len - 1):
        s.cut[i] = s.cut[i + 1]
    s.cut_len -= 1
    s.dirn[cid] = direction
    s.by[cid] = digit
    place(s, cid, line, col)
    if s.policy[digit] == POLICY_PATH:
        note_placed(s, cid, line)
    return True
