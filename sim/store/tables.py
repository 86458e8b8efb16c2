"""The part tables' columns, built from the engine's arrays.

Part columns come straight from the engine's numpy arrays and are written by the runner's
own Parquet writer (parquet.py): at millions of games the writing must cost a small
fraction of the playing. Compact types keep a games row small: enums for every categorical
column, the smallest integer that fits, and strings only for values constant within a part
(dictionary-encoded to almost nothing). The tables' types are in schema.py; this module
needs only numpy and numba (the writer adds zstandard), so a worker never loads polars or
pyarrow.

Cards are tallied per chunk (card_tally_columns: a few dozen rows, whatever the per-card
statistics need); the per-game cards table, one row per game and seat, is opt-in.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numba
import numpy as np

from sim.engine import game as eg
from sim.model.rules import RULES_VERSION
from sim.store.categories import (
    CARD_CODES,
    CARD_RATES,
    CARD_SUMS,
    ENDS,
    KINDS,
    LINE_COLUMNS,
    MOMENTS,
    OUTCOMES,
    SEATS,
    SIDES,
    WINNERS,
)
from sim.store.parquet import Column

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
    thread's reused array (valid until its next call): what games_columns and the tallies
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


def games_columns(run_id, cell, start: int, swap: bool, fields) -> list[Column]:
    """One row per game of a chunk (columns named as the games table promises), from its
    result_fields. No seed: it follows from the manifest and the pair or game index
    (seeds.played_seeds), and 64 random bits a pair were two thirds of the table's bytes."""
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
    return columns + arc_columns(fields)


def arc_columns(fields) -> list[Column]:
    """The game's arc (docs/statistics.md): null where the engine wrote -1 (a draw has no
    decided turn or winner's deficit; a level half-time has no leader)."""
    decided, deficit = fields[eg.R_DECIDED_TURN], fields[eg.R_MAX_DEFICIT]
    leader = fields[eg.R_HALF_LEADER]
    return [
        Column("lead_changes", fields[eg.R_LEAD_CHANGES].astype(np.uint16), bits=16),
        Column("decided_turn", decided.astype(np.uint16), bits=16, valid=decided >= 0),
        Column("max_deficit", deficit.astype(np.uint16), bits=16, valid=deficit >= 0),
        _enum("half_leader", leader, SEATS, valid=leader >= 0),
    ]


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
    """The opt-in per-game cards table (--per-game-cards): one row per game and seat, with
    `CODE_drawn`, `CODE_played`, `CODE_took_effect` columns for every kind of card (0 for
    kinds outside the deck), from the engine's [game, seat, kind, count] array."""
    n = len(cards)
    game = np.arange(start, start + n, dtype=np.uint32)
    config, matchup, seat, strategy = _seat_keys(
        cell.config.name, cell.matchup, cell.a, cell.b, n, swap, start % 2
    )
    flat = cards.reshape(2 * n, cards.shape[2], cards.shape[3])
    columns = [config, matchup, Column("game", game, bits=32, repeat=2), seat, strategy]
    for kind, code in enumerate(CARD_CODES):
        for name, index in COUNTS.items():
            values = np.ascontiguousarray(flat[:, kind, index], dtype=np.uint8)
            columns.append(Column(f"{code}_{name}", values, bits=8))
    return columns


@lru_cache(maxsize=16)
def _seat_keys(config, matchup, a, b, n, swap, odd) -> tuple[Column, ...]:
    """The per-game cards columns every full chunk of a cell shares (built and encoded once)."""
    swapped = (np.arange(n) % 2 != odd) if swap else np.zeros(n, dtype=bool)
    seat = np.tile(np.arange(2, dtype=np.uint8), n)
    b_seated = np.repeat(swapped, 2) != (seat == 1)  # strategy B sits in this row's seat
    return (
        _constant("config", config, 2 * n),
        _constant("matchup", matchup, 2 * n),
        _enum("seat", seat, SEATS),
        _either("strategy", b_seated, (a, b)),
    )


# --- card tallies: per chunk, kind and strategy, additive over chunks ----------------------


def card_tally_columns(cell, swap: bool, cards: np.ndarray, winner, swapped) -> list[Column]:
    """A chunk's card tallies: per side (strategy A's seats, B's, or both) and kind of the
    deck, its seat-games, summed counts, and for each of CARD_RATES the moments of a Tally
    over the chunk's units (pairs when swap, else games): any_played = seat-games that
    played the kind over all; won_played / won_unplayed = won over those that did / did
    not play it. When A and B are one strategy only the `both` row is written."""
    kinds = np.unique(cell.config.kinds())
    acc = np.zeros((3, len(kinds), len(CARD_SUMS) + len(CARD_RATES) * len(MOMENTS)), np.int64)
    one = cell.a == cell.b  # one strategy: only the `both` rows are written
    _card_tally(cards, kinds, winner, swapped, 2 if swap else 1, one, acc)
    sides = [2] if one else [0, 1, 2]
    rows = acc[sides].reshape(-1, acc.shape[2])
    side = np.repeat(np.array(sides, dtype=np.uint8), len(kinds))
    if cell.a == cell.b:
        strategy = _constant("strategy", cell.a, len(rows))
    else:  # null on the rows of both strategies' seats
        codes = np.minimum(side, 1)
        strategy = Column("strategy", codes, dictionary=(cell.a, cell.b), valid=side < 2)
    columns = [
        _constant("config", cell.config.name, len(rows)),
        _constant("matchup", cell.matchup, len(rows)),
        _enum("seats", side, SIDES),
        strategy,
        _enum("kind", np.tile(kinds, len(sides)), KINDS),
    ]
    fields = [*CARD_SUMS, *(f"{q}_{m}" for q in CARD_RATES for m in MOMENTS)]
    columns += [
        Column(name, rows[:, i].astype(np.uint64), bits=64) for i, name in enumerate(fields)
    ]
    return columns


@numba.njit(cache=True)
def _card_tally(cards, kinds, winner, swapped, step, both_only, acc):
    """acc[side, kind, field] += what card_tally_columns promises, one unit of `step` games
    at a time: a seat is B's when it is the second and the game is not swapped, or the
    first of a swapped one; with both_only the per-side rates, never written, are skipped.
    A unit's (y, z) of each side, kind and rate is counted in a histogram (z <= 2 * step)
    whose moments are taken once at the end, not summed after every unit: the per-unit
    sums cost the runner about 10% of random play."""
    k, top = len(kinds), 2 * step + 1
    hist = np.zeros((3, k, 3, top * top), np.int64)
    sums = np.zeros((2, k, 3), np.int64)
    units_seats = np.zeros(2, np.int64)
    for u in range(0, len(winner), step):
        n0 = n1 = step  # one seat of each game is A's, the other B's
        units_seats[0] += n0
        units_seats[1] += n1
        for j in range(k):
            kind = kinds[j]
            p0 = p1 = w0 = w1 = v0 = v1 = 0  # played; won having played; won without
            for g in range(u, u + step):
                for seat in range(2):
                    counts = cards[g, seat, kind]
                    played = counts[1] > 0
                    won = winner[g] == seat  # WIN_FIRST 0, WIN_SECOND 1
                    side = 1 if (seat == 1) != swapped[g] else 0
                    for f in range(3):
                        sums[side, j, f] += counts[f]
                    if side:
                        p1 += played
                        w1 += won and played
                        v1 += won and not played
                    else:
                        p0 += played
                        w0 += won and played
                        v0 += won and not played
            if not both_only:
                _count(hist[0, j], top, p0, w0, v0, n0)
                _count(hist[1, j], top, p1, w1, v1, n1)
            _count(hist[2, j], top, p0 + p1, w0 + w1, v0 + v1, n0 + n1)
    _moments(acc, hist, sums, units_seats, top)


@numba.njit(cache=True, inline="always")
def _count(hist, top, played, won_played, won_unplayed, seats):
    """One unit's (y, z) of each rate of a side and kind: any_played (played, seats),
    won_played (won having played, played), won_unplayed (won without, seats - played)."""
    hist[0, seats * top + played] += 1
    hist[1, played * top + won_played] += 1
    hist[2, (seats - played) * top + won_unplayed] += 1


@numba.njit(cache=True)
def _moments(acc, hist, sums, seats, top):
    """acc's seat-games, summed counts and each rate's Tally moments (units with z > 0, y,
    z, y², z², yz) from the units' histograms."""
    for j in range(hist.shape[1]):
        for f in range(3):
            acc[0, j, 1 + f] += sums[0, j, f]
            acc[1, j, 1 + f] += sums[1, j, f]
            acc[2, j, 1 + f] += sums[0, j, f] + sums[1, j, f]
        for s in range(3):
            acc[s, j, 0] += seats[s] if s < 2 else seats[0] + seats[1]
            for r in range(3):
                base = 4 + 6 * r
                for code in range(top * top):
                    n = hist[s, j, r, code]
                    zv, yv = divmod(code, top)
                    acc[s, j, base] += n * (zv > 0)
                    acc[s, j, base + 1] += n * yv
                    acc[s, j, base + 2] += n * zv
                    acc[s, j, base + 3] += n * yv * yv
                    acc[s, j, base + 4] += n * zv * zv
                    acc[s, j, base + 5] += n * yv * zv
