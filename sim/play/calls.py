"""The engine and the built-in players as the Python loop (stepped.py) calls them: entry
points that take the one-record state array and index it inside, never a record.

numba's dispatcher fingerprints a state record (a 74-field structured scalar) in about
70-110 µs per call; the same call with the 1-element array costs about 2 µs (with a plain
ndarray, not a recarray). A Python seat's turn makes half a dozen such calls, so calling
with records was most of a Python decision's time. Explicit entries, one per callee:
numba caches neither closures nor functions made by a factory (see sim/play/compiled.py).
Their cache folder is keyed by every source they compile (sim/engine/jit.py); numba itself
watches this file.
"""

from __future__ import annotations

import numpy as np

from sim.engine.board import can_enter
from sim.engine.clone import clone
from sim.engine.cpu import cpu_turn
from sim.engine.decide import gosub_line_ok, n_dirs, nth_dir
from sim.engine.game import track
from sim.engine.jit import DISABLED, entry, kernel
from sim.engine.state import (
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_MC,
    POLICY_PATH,
    STATE_DTYPE,
)
from sim.engine.turn import begin_turn, finish_turn, legal_plays, put_card, random_turn
from strategies.greedy import greedy_turn
from strategies.heuristic import heuristic_turn
from strategies.ismcts import ismcts_turn
from strategies.mc import mc_turn


def array_of(s) -> np.ndarray:
    """The one-record array behind s (a state record or such an array), as the entries
    take it: compiled, a plain ndarray of the plain dtype (a recarray's, or a record
    dtype's, is typed by numba the slow way); without numba, the recarray the engine reads."""
    if type(s) is np.ndarray and s.dtype is STATE_DTYPE and s.shape == (1,):
        return s  # already the plain array (the loop passes it on)
    arr = s.base if isinstance(s, np.void) else s
    if arr is None or arr.shape != (1,):
        raise ValueError("a state must live in a one-record array (stepped.fresh_state)")
    return arr if DISABLED else arr.view(STATE_DTYPE, np.ndarray)


@entry
def turn_fields(a):
    """What the loop reads around each turn, in one call: (ended, mover, cpu, error, the
    mover's policy)."""
    s = a[0]
    return s.ended, s.mover, s.cpu, s.error, s.policy[s.mover]


@entry
def tracked(a):
    """After a turn: the game's arc brought up to date (game.track); the engine's error."""
    track(a[0])
    return a[0].error


@entry
def begin(a, digit):
    return begin_turn(a[0], digit)


@entry
def plays(a, digit, forced, out):
    return legal_plays(a[0], digit, forced, out)


@entry
def put(a, digit, index, line, direction, forced):
    put_card(a[0], digit, index, line, direction, forced)


@entry
def finish(a, digit, passed):
    finish_turn(a[0], digit, passed, True)


@entry
def follow(a, digit, path, n, ask_at):
    """Make digit's next card follow path[:n] (and stop at decision ask_at - 1 if ask_at)."""
    follow_record(a[0], digit, path, n, ask_at)


@entry
def probe(scratch, a, digit, index, line, direction, forced, path, n):
    """Play the card on a copy of a[0] in scratch following path[:n], stopping (with
    paths.DecisionPending) at the decision after them, if one comes."""
    t = clone(scratch, a[0])
    follow_record(t, digit, path, n, n + 1)
    put_card(t, digit, index, line, direction, forced)


@kernel
def follow_record(s, digit, path, n, ask_at):
    s.policy[digit] = POLICY_PATH
    s.path[:] = 0
    s.path[:n] = path[:n]
    s.path_pos = 0
    s.path_ask = ask_at


def directions(a, cid: int) -> list[int]:
    """The directions card cid may point, in the engine's order."""
    out = np.zeros(4, dtype=np.int64)
    return out[: dirs_into(a, cid, out)].tolist()


@entry
def dirs_into(a, cid, out):
    s = a[0]
    n = n_dirs(s, cid)
    for k in range(n):
        out[k] = nth_dir(s, cid, k)
    return n


@entry
def enterable(a, line, col, cid):
    return can_enter(a[0], line, col, cid)


@entry
def gosub_ok(a, line, cid):
    return gosub_line_ok(a[0], line, cid)


@entry
def cpu(a):
    cpu_turn(a[0])


@entry
def random_seat(a):
    s = a[0]
    s.last[0] = -1
    random_turn(s)


@entry
def greedy_seat(a):
    s = a[0]
    s.last[0] = -1
    greedy_turn(s)


@entry
def heuristic_seat(a):
    s = a[0]
    s.last[0] = -1
    heuristic_turn(s)


@entry
def mc_seat(a):
    s = a[0]
    s.last[0] = -1
    mc_turn(s)


@entry
def ismcts_seat(a):
    s = a[0]
    s.last[0] = -1
    ismcts_turn(s)


_SEATS = {
    POLICY_GREEDY: greedy_seat,
    POLICY_HEURISTIC: heuristic_seat,
    POLICY_MC: mc_seat,
    POLICY_ISMCTS: ismcts_seat,
}


def seat_turn(policy: int):
    """The compiled turn of one built-in policy on the state array (as strategies.seats.
    turn_for, which it mirrors: calling it compiles that player alone)."""
    return _SEATS.get(int(policy), random_seat)
