"""Copying a state to play on: the searches' and the CPU's copies, many per decision.

A whole record is 8 KB, and copying it was a third of an mc player's time (perf: libc's
memmove at 26% of the samples). A game uses a known part of its largest arrays: the display's
columns up to `span` (the rest stay empty, see game.clear), and the first `cut_len` cut
cards, `removed_len` removed ones, `cpu_log_len` CPU placements, the `n_cards` cards'
`lasting_at` and `script_len` script rows. The decision arrays are read only in part too:
the options met below `path_pos` (each is written as its decision is met), the path only
by a seat that follows one (every seat set to follow a path gets its whole path first), the
display snapshot only once one is asked for (`snap_at`; snapshot writes it whole). So clone
copies every other field in one block and of those arrays only that part (the decision
arrays were 1 KB of the 2.5 KB block, memmove 11% of an mc game, perf). The copy plays on
exactly as the original would: every byte a game can read is the same, but the seats'
evaluation weights, which only the heuristic's own turn reads, on the state a loop plays
(no search plays an evaluating seat on a copy: a copy that did would play other games,
and the determinism digests of the heuristic, mc and ismcts games would change).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from sim.engine.jit import DISABLED, kernel
from sim.engine.state import MAX_COLS, MAX_DEPTH, MAX_LINES, POLICY_RANDOM, STATE_DTYPE


def _offset(name: str) -> int:
    return STATE_DTYPE.fields[name][1]


def _row_bytes(name: str) -> int:
    """Bytes per entry (per row of a 2-d array) of an array field."""
    sub = STATE_DTYPE.fields[name][0]
    return sub.base.itemsize * (sub.shape[1] if len(sub.shape) > 1 else 1)


_OPTIONS, _PATH, _SNAP_LINE = _offset("path_options"), _offset("path"), _offset("snap_line")
_SNAP_OWN, _CUT, _REMOVED = _offset("snap_own"), _offset("cut"), _offset("removed")
_CPU_LOG, _GRID, _MARK, _SCRIPT = (_offset(n) for n in ("cpu_log", "grid", "mark", "script"))
_LASTING_AT = _offset("lasting_at")
_OPTIONS_ROW, _CUT_ROW, _REMOVED_ROW, _CPU_LOG_ROW, _SCRIPT_ROW, _LASTING_ROW = (
    _row_bytes(name)
    for name in ("path_options", "cut", "removed", "cpu_log", "script", "lasting_at")
)
_SNAP_BYTES = STATE_DTYPE.fields["snap_line"][0].itemsize
# one vector move: the parts of the last arrays are copied in these. A part rounded up to
# whole chunks may run into the next field: harmless, those are the source's bytes too
_CHUNK = 32
# the block is every field before path_options; these come last, in this order (state.py)
_LAST = ("path_options", "path", "snap_line", "snap_own", "cut", "removed", "cpu_log")
_LAST += ("lasting_at", "grid", "mark", "script")
assert [_offset(n) for n in _LAST] == sorted(_offset(n) for n in _LAST)
assert _SNAP_OWN == _SNAP_LINE + _SNAP_BYTES
assert MAX_COLS % _CHUNK == 0
# after script only fields no copy reads: the weights (no copy plays a seat that
# evaluates) and the lead at each turn's end (read by record only, game.track)
_UNCOPIED = ("weights", "arc_leads")
assert max(f[1] for n, f in STATE_DTYPE.fields.items() if n not in _UNCOPIED) == _SCRIPT
assert all(_offset(n) > _SCRIPT for n in _UNCOPIED)


@intrinsic
def _copy_bytes(typingctx, dst, src, start, size):
    """Copy size bytes at offset start from one state record to another (numba copies
    records only whole; a record is a pointer to its bytes)."""

    def codegen(context, builder, signature, args):
        to, frm, at, n = args
        byte = ir.IntType(8).as_pointer()
        to = builder.gep(builder.bitcast(to, byte), [at])
        frm = builder.gep(builder.bitcast(frm, byte), [at])
        cgutils.raw_memcpy(builder, to, frm, n, 1)
        return context.get_dummy_value()

    return types.void(dst, src, types.intp, types.intp), codegen


@kernel
def _copy_into_jit(t, s):
    # the columns either state may use; all of them unless both keep the rest empty
    cols = max(s.span, t.span) if s.tidy and t.tidy else MAX_COLS
    _copy_bytes(t, s, 0, _OPTIONS)
    # entries from each length on are never read
    _copy_chunks(t, s, _OPTIONS, s.path_pos * _OPTIONS_ROW)
    if s.policy[0] != POLICY_RANDOM or s.policy[1] != POLICY_RANDOM:
        _copy_chunks(t, s, _PATH, MAX_DEPTH)
    if s.snap_at >= 0:
        _copy_chunks(t, s, _SNAP_LINE, 2 * _SNAP_BYTES)
    _copy_chunks(t, s, _CUT, s.cut_len * _CUT_ROW)
    _copy_chunks(t, s, _REMOVED, s.removed_len * _REMOVED_ROW)
    _copy_chunks(t, s, _CPU_LOG, s.cpu_log_len * _CPU_LOG_ROW)
    if not s.no_lasting:  # else never read: every lasting_at stays -1 (game.clear)
        _copy_chunks(t, s, _LASTING_AT, s.n_cards * _LASTING_ROW)
    for line in range(MAX_LINES):
        _copy_chunks(t, s, _GRID + line * MAX_COLS, cols)
        _copy_chunks(t, s, _MARK + line * MAX_COLS, cols)
    if s.script_len > 0:  # rare (scenarios' scripted seats), and last: not in chunks
        _copy_bytes(t, s, _SCRIPT, s.script_len * _SCRIPT_ROW)
    return t


@kernel
def _copy_chunks(t, s, start, size):
    """size bytes at start, rounded up to whole chunks: a few fixed-size vector moves
    instead of a call to memcpy (a field's size is a whole number of chunks)."""
    for at in range(start, start + size, _CHUNK):
        _copy_bytes(t, s, at, _CHUNK)


@kernel
def _clone_jit(scratch, s):
    return _copy_into_jit(scratch[0], s)


def _clone_py(scratch, s):
    scratch[0] = s
    return scratch[0]


def _copy_into_py(t, s):
    for name in STATE_DTYPE.names:
        t[name] = s[name]
    return t


# clone(scratch, s): a copy of s to play on in the one-record array scratch, as scratch[0]
clone = _clone_py if DISABLED else _clone_jit
# copy_into(t, s): the same copy into the record t. For a scratch record handed down calls
# made per rollout: an array argument is a reference count up and down in each such call
# (NRT_incref/decref 5.5% of an mc game, perf), a record is a plain pointer. The array that
# holds t must outlive it (numba frees an array after its last use; a record keeps none).
copy_into = _copy_into_py if DISABLED else _copy_into_jit
