"""The one tally of a run's games, counted by the workers as they record a chunk: each unit
(a seat-swapped pair, or a game when seats are not swapped) adds 1 to each group's
histogram at its games' codes (sim/store/quantities.py says which), and the numbers of
turns and lead changes, too many values for a histogram, are summed per unit (DIRECT).
Each chunk's counts are a part of the `tallies` table (tally_columns); readers sum the
parts of a cell and take every quantity's moments from the sums (quantities.moments). A
games part written before the table existed is counted by the same kernel
(count_frame).
"""

from __future__ import annotations

import numba
import numpy as np

from sim.engine import game as eg
from sim.engine.state import MAX_LINES
from sim.store.categories import ENDS, OUTCOMES, SEATS, WINNERS
from sim.store.parquet import Column
from sim.store.quantities import (
    COMEBACKS,
    DECIDED_NAN,
    DIRECT,
    GRID,
    GROUPS,
    LINES,
    NO_LINE,
    OFFSETS,
    SIZES,
    TIE,
)
from sim.store.tables import reused

_SIZES = np.array([SIZES[g] for g in GROUPS], dtype=np.int64)
_N_DIRECT = len(DIRECT)
_HALF = GROUPS.index("half")  # then comeback and decided
TALLIES = (*GROUPS, *DIRECT)  # the part's `tally` values


def count_chunk(fields: np.ndarray, swapped: np.ndarray, paired: bool) -> tuple:
    """A chunk's counts from its result_fields (tables.result_fields): the groups'
    histograms of its units (flat, each SIZES[g]² long) and DIRECT's per-unit sums and
    sums of squares. Additive: a run's counts are the sums of its chunks'."""
    lines = fields[eg.R_LINE0 : eg.R_LINE0 + MAX_LINES]
    return _count(
        fields[eg.R_WINNER], swapped, fields[eg.R_OUTCOME], fields[eg.R_TIEBREAK_LINE],
        fields[eg.R_END], fields[eg.R_TURNS], lines, fields[eg.R_LEAD_CHANGES],
        fields[eg.R_DECIDED_TURN], fields[eg.R_MAX_DEFICIT], fields[eg.R_HALF_LEADER], paired,
    )  # fmt: skip


def count_frame(games) -> tuple:
    """count_chunk for a polars frame of one cell's games in the order the runner writes
    them (a pair's two games side by side), with the columns of PART_COLUMNS it has: the
    games table's values back to the engine's codes."""
    import polars as pl

    def codes(name: str, categories: tuple[str, ...], null: int = -1) -> np.ndarray:
        """The engine's codes back: polars reads the text as Categorical, whose own codes
        are not the categories' order."""
        if name not in games.columns:  # a line the config lacks, or a run from before arcs
            return np.full(games.height, null, dtype=np.int64)
        column = games[name].cast(pl.String).cast(pl.Enum(categories)).to_physical()
        return column.cast(pl.Int64).fill_null(null).to_numpy()

    def numbers(name: str, null: int = -1) -> np.ndarray:
        if name not in games.columns:
            return np.full(games.height, null, dtype=np.int64)
        return games[name].cast(pl.Int64).fill_null(null).to_numpy()

    paired = bool(games.height) and games["pair"].null_count() == 0
    lines = np.stack([codes(f"line_{v}", SEATS) for v in LINES])
    counted = _count(
        codes("winner", WINNERS), games["swapped"].to_numpy(), codes("outcome", OUTCOMES),
        numbers("tiebreak_line", 0), codes("end_reason", ENDS) + 1, numbers("turns"), lines,
        numbers("lead_changes", 0), numbers("decided_turn"), numbers("max_deficit"),
        codes("half_leader", SEATS), paired,
    )  # fmt: skip
    return *counted, paired


PART_COLUMNS = (
    "pair", "winner", "swapped", "outcome", "tiebreak_line", "end_reason", "turns",
    *(f"line_{v}" for v in LINES), "lead_changes", "decided_turn", "max_deficit", "half_leader",
)  # fmt: skip


def _count(winner, swapped, outcome, tie_line, end, turns, lines, changes, decided, deficit,
           half, paired):  # fmt: skip
    """count_chunk's histograms and direct sums: every game's codes, then the units'
    counts group by group (two passes: faster than counting every group unit by unit)."""
    n = len(winner)
    codes = reused("tally codes", n, lambda: np.empty((len(GROUPS), n), dtype=np.uint8))
    _codes(winner, swapped, outcome, tie_line, end, turns, lines, decided, deficit, half, codes)
    hist = np.zeros(OFFSETS[-1], dtype=np.int64)
    _scatter(codes, paired, hist)
    return hist, _direct(turns, changes, paired)


@numba.njit(cache=True)
def _codes(winner, swapped, outcome, tie_line, end, turns, lines, decided, deficit, half, codes):
    """Each game's code in each group (quantities.SIZES' order), branch-free where it can:
    a chunk's outcomes are as good as random, so branches would mispredict."""
    for i in range(len(winner)):
        w, o, tl, dt = np.int64(winner[i]), np.int64(outcome[i]), np.int64(tie_line[i]), decided[i]
        codes[0, i] = w * 2 + np.int64(swapped[i])
        tie = np.int64(o == eg.OUTCOME_TIEBREAK)
        tie_code = TIE + 2 * (tl // 10 - 1) if tl > 0 else NO_LINE
        codes[1, i] = np.int64(o == eg.OUTCOME_DRAW) + tie * (
            tie_code + np.int64(w == eg.WIN_SECOND)
        )
        codes[2, i] = end[i]
        leader = np.int64(half[i])
        codes[_HALF, i] = np.int64(leader >= 0) * (1 + np.int64(leader == w))
        won = np.int64(dt >= 0)
        band = np.int64(1)
        for points in COMEBACKS:
            band += np.int64(deficit[i] >= points)
        codes[_HALF + 1, i] = won * band
        t = np.int64(turns[i])
        # the first grid step s with decided / turns <= s / GRID: an exact ceiling (a ratio
        # of small integers is never within rounding of an integer it is not)
        steps = np.int64(np.ceil(GRID * np.float64(max(dt, 0)) / max(t, 1)))
        codes[_HALF + 2, i] = won * (1 + steps if t > 0 else DECIDED_NAN)
    for line in range(lines.shape[0]):
        for i in range(len(winner)):
            who = np.int64(lines[line, i])
            codes[3 + line, i] = who + 3 * np.int64(who < 0)  # -1 (nobody) -> 2


@numba.njit(cache=True)
def _scatter(codes, paired, hist):
    """Count each unit at its games' codes, group by group."""
    n = codes.shape[1]
    for g in range(codes.shape[0]):
        room, size = OFFSETS[g], _SIZES[g]
        if paired:
            for u in range(0, n - 1, 2):
                hist[room + codes[g, u] * size + codes[g, u + 1]] += 1
        else:
            for i in range(n):
                hist[room + codes[g, i]] += 1


@numba.njit(cache=True)
def _direct(turns, changes, paired):
    """DIRECT's per-unit sums and sums of squares: turns, turns squared, lead changes."""
    direct = np.zeros((_N_DIRECT, 2), dtype=np.int64)
    step = 2 if paired else 1
    for u in range(0, len(turns) - step + 1, step):
        t = t2 = lc = np.int64(0)
        for i in range(u, u + step):
            t += turns[i]
            t2 += np.int64(turns[i]) * np.int64(turns[i])
            lc += changes[i]
        direct[0, 0] += t
        direct[0, 1] += t * t
        direct[1, 0] += t2
        direct[1, 1] += t2 * t2
        direct[2, 0] += lc
        direct[2, 1] += lc * lc
    return direct


def tally_columns(cell, counts: tuple) -> list[Column]:
    """A chunk's counts as rows of the tallies table: per group, each (code, units) whose
    count is not 0, the code of a pair first game's code * SIZES[group] + second's; per
    DIRECT value, code 0 its units' summed values and code 1 their summed squares."""
    hist, direct = counts
    at = np.flatnonzero(hist)
    group = np.searchsorted(OFFSETS, at, side="right") - 1
    tally = np.concatenate([group, np.repeat(np.arange(len(GROUPS), len(TALLIES)), 2)])
    code = np.concatenate([at - OFFSETS[group], np.tile([0, 1], len(DIRECT))])
    value = np.concatenate([hist[at], direct.ravel()])
    n = len(tally)
    return [
        Column("config", np.zeros(n, np.uint8), dictionary=(cell.config.name,)),
        Column("matchup", np.zeros(n, np.uint8), dictionary=(cell.matchup,)),
        Column("paired", np.full(n, bool(cell.swap)), bits=1),
        Column("tally", tally.astype(np.uint8), dictionary=TALLIES),
        Column("code", code.astype(np.uint16), bits=16),
        Column("count", value.astype(np.uint64), bits=64),
    ]
