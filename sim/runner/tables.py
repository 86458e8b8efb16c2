"""The part tables' columns, built from the engine's arrays, and each chunk's summary counts.

Part columns come straight from the engine's numpy arrays and are written by the runner's
own Parquet writer (parquet.py): at millions of games the writing must cost a small
fraction of the playing. Compact types keep a games row small: enums for every categorical
column, the smallest integer that fits, and strings only for values constant within a part
(dictionary-encoded to almost nothing). The tables' types are in schema.py; this module
needs only numpy and numba, so a worker never loads polars or pyarrow.

The cards table is one row per game, seat and kind of the deck, plain uint8 counts.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numba
import numpy as np

from sim.engine import game as eg
from sim.rules import RULES_VERSION
from sim.runner.categories import ENDS, KINDS, LINE_COLUMNS, OUTCOMES, SEATS, WINNERS
from sim.runner.parquet import Column

COUNTS = {"drawn": eg.C_DRAWN, "played": eg.C_PLAYED, "took_effect": eg.C_EFFECT}


def _constant(name: str, value: str, n: int) -> Column:
    return Column(name, np.zeros(n, dtype=np.uint8), dictionary=(value,))


def _either(name: str, second: np.ndarray, values: tuple[str, str]) -> Column:
    """values[0] where second is false, values[1] where it is true (one entry if they match)."""
    if values[0] == values[1]:
        return _constant(name, values[0], len(second))
    return Column(name, second.view(np.uint8), dictionary=values)


def _enum(name: str, codes: np.ndarray, categories: tuple[str, ...], valid=None) -> Column:
    return Column(name, codes, dictionary=categories, valid=valid)


def result_fields(out: np.ndarray) -> np.ndarray:
    """The engine's [game, field] result rows as contiguous [field, game] columns, in this
    thread's reused array (valid until its next call): what games_columns and count_games
    read, each column in one sweep."""
    shape = out.shape[::-1]
    fields = reused("fields", (shape, out.dtype), lambda: np.empty(shape, dtype=out.dtype))
    _transpose(out, fields)
    return fields


_OWN = threading.local()  # Dask may run several chunks at once in one process


def reused(name: str, key, make):
    """This thread's chunk array(s) `name`, made by make() at first and again whenever key
    (their shape) changes, else reused from chunk to chunk: a fresh array costs a page
    fault every 4 KiB, as much as the work that fills it."""
    held = _OWN.__dict__.setdefault("held", {})
    if name not in held or held[name][0] != key:
        held[name] = (key, make())
    return held[name][1]


def games_columns(run_id, cell, start: int, swap: bool, seeds, fields) -> list[Column]:
    """One row per game of a chunk (columns named as the games table promises), from its
    result_fields."""
    n = fields.shape[1]
    game = np.arange(start, start + n, dtype=np.uint32)
    tiebreak = fields[eg.R_TIEBREAK_LINE].astype(np.uint8)
    end = fields[eg.R_END]
    config = cell.config
    columns = [
        *_game_keys(
            run_id, config.name, config.hash, cell.matchup, cell.a, cell.b, n, swap, start % 2
        ),
        Column("pair", game // 2, 32, valid=None if swap else np.zeros(n, bool), ascending=True),
        Column("game", game, bits=32, ascending=True),
        Column("seed", np.asarray(seeds, dtype=np.uint64), bits=64),
        Column("first_digit", fields[eg.R_FIRST].astype(np.uint8), bits=8),
        _enum("winner", fields[eg.R_WINNER], WINNERS),
        _enum("outcome", fields[eg.R_OUTCOME], OUTCOMES),
        Column("tiebreak_line", tiebreak, bits=8, valid=tiebreak != 0),
        _enum("end_reason", end - 1, ENDS, valid=end > 0),
        Column("turns", fields[eg.R_TURNS].astype(np.uint16), bits=16),
        Column("score_first", fields[eg.R_SCORE_FIRST].astype(np.uint16), bits=16),
        Column("score_second", fields[eg.R_SCORE_SECOND].astype(np.uint16), bits=16),
    ]
    for i, name in enumerate(LINE_COLUMNS):
        line = fields[eg.R_LINE0 + i]
        columns.append(_enum(name, line, SEATS, valid=line >= 0))
    return columns


@numba.njit(cache=True)
def _transpose(out, fields):
    """fields[f, g] = out[g, f] (numpy's own transposing copy takes ten times as long)."""
    for game in range(out.shape[0]):
        for field in range(out.shape[1]):
            fields[field, game] = out[game, field]


@lru_cache(maxsize=16)
def _game_keys(run_id, config, config_hash, matchup, a, b, n, swap, odd) -> tuple[Column, ...]:
    """The games columns that every full chunk of a cell shares (built and encoded once)."""
    swapped = (np.arange(n) % 2 != odd) if swap else np.zeros(n, dtype=bool)
    return (
        _constant("run_id", run_id, n),
        _constant("config", config, n),
        _constant("config_hash", config_hash, n),
        _constant("rules_version", RULES_VERSION, n),
        _constant("matchup", matchup, n),
        _either("first", swapped, (a, b)),
        _either("second", swapped, (b, a)),
        Column("swapped", swapped, bits=1),
    )


def cards_columns(cell, start: int, swap: bool, cards: np.ndarray) -> list[Column]:
    """One row per game, seat and kind of the deck: how many were drawn, played, took effect,
    in the order of the engine's [game, seat, kind, count] array."""
    kinds = np.unique(cell.config.kinds())
    n, k = len(cards), len(kinds)
    game = np.arange(start, start + n, dtype=np.uint32)
    config, matchup, seat, strategy, kind = _card_keys(
        cell.config.name, cell.matchup, cell.a, cell.b, tuple(kinds.tolist()), n, swap, start % 2
    )
    rows = n * 2 * k
    counts = reused("counts", rows, lambda: np.empty((3, rows), dtype=np.uint8))
    _counts(cards, kinds, counts)
    return [
        config,
        matchup,
        Column("game", game, bits=32, repeat=2 * k),
        seat,
        strategy,
        kind,
        *(Column(name, counts[index], bits=8) for name, index in COUNTS.items()),
    ]


@lru_cache(maxsize=16)
def _card_keys(config, matchup, a, b, kinds, n, swap, odd) -> tuple[Column, ...]:
    """The cards columns that every full chunk of a cell shares (built and encoded once)."""
    k = len(kinds)
    rows = n * 2 * k
    swapped = (np.arange(n) % 2 != odd) if swap else np.zeros(n, dtype=bool)
    seat = np.tile(np.repeat(np.arange(2, dtype=np.uint8), k), n)
    b_seated = np.repeat(swapped, 2 * k) != (seat == 1)  # strategy B sits in this row's seat
    return (
        _constant("config", config, rows),
        _constant("matchup", matchup, rows),
        _enum("seat", seat, SEATS),
        _either("strategy", b_seated, (a, b)),
        _enum("kind", np.tile(np.array(kinds, dtype=np.uint8), 2 * n), KINDS),
    )


@numba.njit(cache=True)
def _counts(cards, kinds, out):
    """out[count, row]: the counts of the deck's kinds, rows in game, seat, kind order."""
    k = len(kinds)
    for game in range(cards.shape[0]):
        for seat in range(2):
            block, row = cards[game, seat], (game * 2 + seat) * k
            for j in range(k):  # the three counts written out: 2.7x faster than a loop
                out[0, row + j] = block[kinds[j], 0]
                out[1, row + j] = block[kinds[j], 1]
                out[2, row + j] = block[kinds[j], 2]


# --- summaries: additive counts per chunk, summed over the run -----------------------------


def count_games(cell, winner, outcome, tiebreak_line, end, swapped) -> dict:
    """A chunk's win counts (one row of summaries.WIN_KEYS and WIN_COUNTS) and tie-break
    counts (long rows of summaries.TIE_KEYS, a count, and the units with it in both games),
    from its engine codes: winner and outcome as the engine writes them, tiebreak_line 0 for
    none, end reason code (0 for none), swapped flags. The unit is the seat-swapped pair when
    the cell swaps (a chunk holds whole pairs), else the game. Additive: a run's counts are
    the sums of its chunks'."""
    pairs = bool(cell.swap)
    if pairs and len(winner) % 2:
        raise ValueError(f"a chunk of {cell.matchup} holds half a pair ({len(winner)} games)")
    seats, points, outcomes, lines, ends = _tally(
        winner, outcome, tiebreak_line, end, swapped, len(ENDS) + 1, pairs
    )
    by_seat, both_seat, swapped_wins = seats
    first, second = by_seat[eg.WIN_FIRST], by_seat[eg.WIN_SECOND]
    first_swapped, second_swapped = swapped_wins[eg.WIN_FIRST], swapped_wins[eg.WIN_SECOND]
    wins = {
        "config": cell.config.name,
        "config_hash": cell.config.hash,
        "matchup": cell.matchup,
        "games": len(winner),
        "units": len(winner) // 2 if pairs else len(winner),
        "first_wins": int(first),
        "second_wins": int(second),
        "draws": int(by_seat[eg.DRAW]),
        "a_wins": int(first - first_swapped + second_swapped),
        "b_wins": int(second - second_swapped + first_swapped),
        "first_both": int(both_seat[eg.WIN_FIRST]),
        "second_both": int(both_seat[eg.WIN_SECOND]),
        "draw_both": int(both_seat[eg.DRAW]),
        **{f"a_points_{h}": int(points[h]) for h in range(5)},
    }
    return {"wins": wins, "ties": _tie_rows(cell, *outcomes, *lines, *ends)}


def _tie_rows(cell, outcomes, outcomes_both, lines, lines_both, ends, ends_both) -> list:
    """Long tie-break rows (config, matchup, category, value, seat, count, both)."""
    key = (cell.config.name, cell.matchup)
    ties = []
    for code in np.flatnonzero(outcomes):
        count, both = int(outcomes[code]), int(outcomes_both[code])
        ties.append((*key, "outcome", OUTCOMES[code], None, count, both))
    for pair in np.flatnonzero(lines):
        line, seat = divmod(int(pair), 4)
        count, both = int(lines[pair]), int(lines_both[pair])
        ties.append(
            (*key, "tiebreak_line", str(line) if line else None, WINNERS[seat], count, both)
        )
    for code in np.flatnonzero(ends):
        reason = ENDS[code - 1] if code else None
        ties.append((*key, "end_reason", reason, None, int(ends[code]), int(ends_both[code])))
    return ties


@numba.njit(cache=True)
def _tally(winner, outcome, tiebreak_line, end, swapped, reasons, pairs):
    """count_games' counts in one pass. Row 0 of each array counts games, row 1 units with
    the value in both games: wins by seat code (row 2: swapped games), outcomes, (deciding
    line * 4 + winner) of tie-breaks, end reason codes; and units by A's half points.
    A unit is games 2i, 2i+1 when pairs, else one game."""
    seats, points = np.zeros((3, 3), np.int64), np.zeros(5, np.int64)
    outcomes, lines = np.zeros((2, 3), np.int64), np.zeros((2, 256 * 4), np.int64)
    ends = np.zeros((2, reasons), np.int64)
    step = 2 if pairs else 1
    for u in range(0, len(winner), step):
        half = 0
        for g in range(u, u + step):
            w = winner[g]
            seats[0, w] += 1
            seats[2, w] += swapped[g]
            if w == eg.DRAW:
                half += 1
            elif w == (eg.WIN_SECOND if swapped[g] else eg.WIN_FIRST):
                half += 2
            outcomes[0, outcome[g]] += 1
            if outcome[g] == eg.OUTCOME_TIEBREAK:
                lines[0, tiebreak_line[g] * 4 + w] += 1
            ends[0, end[g]] += 1
        points[half] += 1
        v = u + 1
        if pairs and winner[u] == winner[v]:
            seats[1, winner[u]] += 1
        if pairs and outcome[u] == outcome[v]:
            outcomes[1, outcome[u]] += 1
            same = winner[u] == winner[v] and tiebreak_line[u] == tiebreak_line[v]
            if outcome[u] == eg.OUTCOME_TIEBREAK and same:
                lines[1, tiebreak_line[u] * 4 + winner[u]] += 1
        if pairs and end[u] == end[v]:
            ends[1, end[u]] += 1
    return seats, points, outcomes, lines, ends


def count_part(cell, path) -> dict:
    """count_games for a games part already on disk (a chunk finished by an earlier run)."""
    import polars as pl

    games = pl.read_parquet(
        path, columns=["winner", "outcome", "tiebreak_line", "end_reason", "swapped"]
    )
    return count_games(
        cell,
        games["winner"].to_physical().to_numpy(),
        games["outcome"].to_physical().to_numpy(),
        games["tiebreak_line"].fill_null(0).to_numpy(),
        (games["end_reason"].to_physical().cast(pl.Int64) + 1).fill_null(0).to_numpy(),
        games["swapped"].to_numpy(),
    )
