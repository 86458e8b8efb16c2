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
    GAME_SIZES,
    GRID,
    GROUPS,
    LINES,
    NO_LINE,
    OFFSETS,
    ROOMS,
    SIZES,
    TIE,
    TURN_CODES,
)
from sim.store.tables import reused

_ROOMS = np.array([{**SIZES, **GAME_SIZES}[g] for g in ROOMS])  # codes of each group
_N_DIRECT = len(DIRECT)
_HALF = GROUPS.index("half")  # then comeback and decided
_GAME = len(GROUPS)  # the first per-game group
TALLIES = (*ROOMS, *DIRECT)  # the part's `tally` values


def count_chunk(fields: np.ndarray, swapped: np.ndarray, paired: bool) -> tuple:
    """A chunk's counts from its result_fields (tables.result_fields: [field, game], the
    engine's R_* rows): the groups' histograms (flat, quantities.OFFSETS) and DIRECT's
    per-unit sums and sums of squares. Additive: a run's counts are the sums of its chunks'."""
    n = fields.shape[1]
    codes = reused("tally codes", n, lambda: np.empty((len(_ROOMS), n), dtype=np.uint16))
    _codes(fields, swapped, codes)
    hist = np.zeros(OFFSETS[-1], dtype=np.int64)
    _scatter(codes, paired, hist)
    return hist, _direct(fields, paired)


def count_frame(games) -> tuple:
    """count_chunk for a polars frame of one cell's games in the order the runner writes
    them (a pair's two games side by side), with the columns of PART_COLUMNS it has: the
    games table's values back to the engine's fields; and whether its units are pairs."""
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

    fields = np.zeros((eg.RESULT_WIDTH, games.height), dtype=np.int64)
    fields[eg.R_WINNER], fields[eg.R_OUTCOME] = codes("winner", WINNERS), codes("outcome", OUTCOMES)
    fields[eg.R_TIEBREAK_LINE] = numbers("tiebreak_line", 0)
    fields[eg.R_END] = codes("end_reason", ENDS) + 1  # 0: none
    for row, name in (
        (eg.R_TURNS, "turns"),
        (eg.R_SCORE_FIRST, "score_first"),
        (eg.R_SCORE_SECOND, "score_second"),
        (eg.R_LEAD_CHANGES, "lead_changes"),
    ):
        fields[row] = numbers(name, 0)  # fmt: skip
    for i, v in enumerate(LINES):
        fields[eg.R_LINE0 + i] = codes(f"line_{v}", SEATS)
    fields[eg.R_DECIDED_TURN], fields[eg.R_MAX_DEFICIT] = (
        numbers("decided_turn"),
        numbers("max_deficit"),
    )
    fields[eg.R_HALF_LEADER] = codes("half_leader", SEATS)
    paired = bool(games.height) and games["pair"].null_count() == 0
    return *count_chunk(fields, games["swapped"].to_numpy(), paired), paired


PART_COLUMNS = (
    "pair", "winner", "swapped", "outcome", "tiebreak_line", "end_reason", "turns", "score_first",
    "score_second", *(f"line_{v}" for v in LINES), "lead_changes", "decided_turn", "max_deficit",
    "half_leader",
)  # fmt: skip


@numba.njit(cache=True)
def _codes(fields, swapped, codes):
    """Each game's code in each group (quantities.SIZES', then GAME_SIZES' order),
    branch-free where it can: a chunk's outcomes are as good as random, so branches would
    mispredict."""
    winner, outcome, tie_line = (
        fields[eg.R_WINNER],
        fields[eg.R_OUTCOME],
        fields[eg.R_TIEBREAK_LINE],
    )
    decided, deficit, half = (
        fields[eg.R_DECIDED_TURN],
        fields[eg.R_MAX_DEFICIT],
        fields[eg.R_HALF_LEADER],
    )
    end, turns = fields[eg.R_END], fields[eg.R_TURNS]
    score_first, score_second = fields[eg.R_SCORE_FIRST], fields[eg.R_SCORE_SECOND]
    for i in range(fields.shape[1]):
        w, o = np.int64(winner[i]), np.int64(outcome[i])
        tl, dt = np.int64(tie_line[i]), np.int64(decided[i])
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
    for i in range(fields.shape[1]):  # apart: in the loop above they stop its vectorising
        codes[_GAME, i] = np.uint32(score_first[i]) // np.uint32(10)
        codes[_GAME + 1, i] = np.uint32(score_second[i]) // np.uint32(10)
        codes[_GAME + 2, i] = min(np.uint32(turns[i]), np.uint32(TURN_CODES - 1))
    for line in range(MAX_LINES):
        held = fields[eg.R_LINE0 + line]
        for i in range(fields.shape[1]):
            who = np.int64(held[i])
            codes[3 + line, i] = who + 3 * np.int64(who < 0)  # -1 (nobody) -> 2


@numba.njit(cache=True)
def _scatter(codes, paired, hist):
    """Count each unit at its games' codes, group by group; a per-game group each game."""
    n = codes.shape[1]
    for g in range(codes.shape[0]):
        room, size = OFFSETS[g], _ROOMS[g]
        if paired and g < _GAME:
            for u in range(0, n - 1, 2):
                hist[room + codes[g, u] * size + codes[g, u + 1]] += 1
        else:
            for i in range(n):
                hist[room + codes[g, i]] += 1


@numba.njit(cache=True)
def _direct(fields, paired):
    """DIRECT's per-unit sums and sums of squares: turns, turns squared, lead changes, and
    whether a pair's two games ended alike (winner, turns, first seat's score)."""
    turns, changes = fields[eg.R_TURNS], fields[eg.R_LEAD_CHANGES]
    winner, score = fields[eg.R_WINNER], fields[eg.R_SCORE_FIRST]
    step = 2 if paired else 1
    s_t = s_t2 = s_lc = q_t = q_t2 = q_lc = copies = np.int64(0)  # sums, sums of squares
    for u in range(0, fields.shape[1] - step + 1, step):
        v = u + step - 1  # the unit's last game: u itself when games are the units
        t_u, t_v = np.int64(turns[u]), np.int64(turns[v])
        t = t_u + t_v if paired else t_u
        t2 = t_u * t_u + t_v * t_v if paired else t_u * t_u
        lc = np.int64(changes[u]) + np.int64(changes[v]) if paired else np.int64(changes[u])
        copies += paired & (winner[u] == winner[v]) & (t_u == t_v) & (score[u] == score[v])
        s_t, s_t2, s_lc = s_t + t, s_t2 + t2, s_lc + lc
        q_t, q_t2, q_lc = q_t + t * t, q_t2 + t2 * t2, q_lc + lc * lc
    direct = np.empty((_N_DIRECT, 2), dtype=np.int64)
    direct[0, 0], direct[0, 1], direct[1, 0], direct[1, 1] = s_t, q_t, s_t2, q_t2
    direct[2, 0], direct[2, 1], direct[3, 0], direct[3, 1] = s_lc, q_lc, copies, copies
    return direct


def tally_columns(cell, counts: tuple) -> list[Column]:
    """A chunk's counts as rows of the tallies table: per group, each (code, count) whose
    count is not 0, a pair's code its first game's code * SIZES[group] + its second's (units
    counted), a per-game group's the game's code (games counted); per DIRECT value, code 0
    its units' summed values and code 1 their summed squares."""
    hist, direct = counts
    at = np.flatnonzero(hist)
    group = np.searchsorted(OFFSETS, at, side="right") - 1
    tally = np.concatenate(
        [group, np.repeat(np.arange(len(TALLIES) - len(DIRECT), len(TALLIES)), 2)]
    )
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
