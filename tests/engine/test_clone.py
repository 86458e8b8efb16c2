"""clone: a copy of a state to play on must play on exactly as the original would.

clone copies the used part of the display and of the arrays with a length, not the
whole record, so each test copies into a scratch state left dirty by a bigger game.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from sim.engine.board import place
from sim.engine.clone import clone
from sim.engine.game import lead_buffer, record, setup
from sim.engine.paths import scratch_state
from sim.engine.state import ONGOING, POLICY_PATH, POLICY_RANDOM, STATE_DTYPE
from sim.engine.turn import canonical_turn
from sim.model.config import load
from sim.play.batch import result_buffers

# the arrays clone copies only up to their length; every other field is copied whole
LENGTHS = {
    "cut": "cut_len",
    "removed": "removed_len",
    "cpu_log": "cpu_log_len",
    "script": "script_len",
    "path_options": "path_pos",
}


@numba.njit(cache=True)
def _play(scratch, rules, seed, turns):
    """setup then up to turns random turns in scratch[0]."""
    s = scratch[0]
    setup(s, *rules, seed, 0)
    for _ in range(turns):
        if s.ended == ONGOING:
            canonical_turn(s)


@numba.njit(cache=True)
def _litter(scratch):
    """A card and a SAVE mark far right, past any chunk the source's columns round up to."""
    s = scratch[0]
    place(s, 0, 0, 100)
    s.mark[1, 200] = 1
    s.span = 201


@numba.njit(cache=True)
def _finish(scratch, out, cards, leads):
    s = scratch[0]
    while s.ended == ONGOING and s.error == 0:
        canonical_turn(s)
    record(s, out, cards, leads)


@numba.njit(cache=True)
def _clone(scratch, source):
    clone(scratch, source[0])


def _same_for_play(a, b) -> list[str]:
    """The fields where b differs from a in a part a game can read: the path only when a
    seat follows one, the snapshot only once one is asked for (clone.py)."""
    differ = []
    follows = any(int(p) != POLICY_RANDOM for p in a["policy"])
    for name in STATE_DTYPE.names:
        x, y = a[name], b[name]
        if name in LENGTHS:
            x, y = x[: int(a[LENGTHS[name]])], y[: int(a[LENGTHS[name]])]
        elif name == "lasting_at":  # read only in decks with REM, END or CONT
            used = 0 if a["no_lasting"] else int(a["n_cards"])
            x, y = x[:used], y[:used]
        elif (name == "path" and not follows) or (name.startswith("snap_") and a["snap_at"] < 0):
            continue
        if not np.array_equal(x, y):
            differ.append(name)
    return differ


@pytest.mark.parametrize("config", ["base", "variants", "101"])
def test_clone_copies_what_a_game_reads_and_plays_on_the_same(config):
    rules = load(config).engine_args(0)
    # a dirty target: a longer game with another deck (more cards, other kinds and axes)
    dirt = load("large").engine_args(0)
    source, copy = scratch_state(), scratch_state()
    for seed in range(60):
        _play(copy, dirt, np.uint64(1000 + seed), 40)
        _litter(copy)
        _play(source, rules, np.uint64(seed), seed % 25)
        _clone(copy, source)
        assert _same_for_play(source[0], copy[0]) == [], seed
        (out, cards) = result_buffers(2)
        leads = lead_buffer(), lead_buffer()
        _finish(source, out[0], cards[0], leads[0])
        _finish(copy, out[1], cards[1], leads[1])
        assert np.array_equal(out[0], out[1]) and np.array_equal(cards[0], cards[1]), seed
        assert np.array_equal(*leads), seed


def test_clone_into_a_fresh_scratch_copies_the_whole_display():
    """A zeroed scratch state's display is not empty (card 0 everywhere), so nothing of it
    may be trusted: every column is copied."""
    rules = load("base").engine_args(0)
    source, copy = scratch_state(), scratch_state()
    _play(source, rules, np.uint64(3), 10)
    _clone(copy, source)
    assert np.array_equal(copy[0]["grid"], source[0]["grid"])
    assert np.array_equal(copy[0]["mark"], source[0]["mark"])


def test_clone_copies_a_followed_path_and_an_asked_snapshot():
    """The path of a seat that follows one and a snapshot once asked for are read: copied
    whole, into a target whose own are different (as _litter leaves the display)."""
    rules = load("variants").engine_args(0)
    source, copy = scratch_state(), scratch_state()
    rng = np.random.default_rng(5)
    _play(copy, rules, np.uint64(77), 30)
    copy[0]["path"] = rng.integers(0, 100, copy[0]["path"].shape)
    copy[0]["snap_line"] = rng.integers(-1, 6, copy[0]["snap_line"].shape)
    copy[0]["snap_own"] = rng.integers(0, 2, copy[0]["snap_own"].shape)
    _play(source, rules, np.uint64(8), 12)
    source[0]["policy"][1] = POLICY_PATH
    source[0]["path"] = rng.integers(0, 100, source[0]["path"].shape)
    source[0]["path_pos"] = 40
    source[0]["path_options"] = rng.integers(1, 9, source[0]["path_options"].shape)
    source[0]["snap_at"] = 2
    source[0]["snap_line"] = rng.integers(-1, 6, source[0]["snap_line"].shape)
    source[0]["snap_own"] = rng.integers(0, 2, source[0]["snap_own"].shape)
    _clone(copy, source)
    assert _same_for_play(source[0], copy[0]) == []
    for name in ("path", "snap_line", "snap_own"):
        assert np.array_equal(copy[0][name], source[0][name]), name
    assert np.array_equal(copy[0]["path_options"][:40], source[0]["path_options"][:40])
