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
    flat = cards.reshape(len(cards), -1)  # reshaped in numba, the kernel compiled 0.5 s longer
    _card_tally(cards, flat, kinds, winner, swapped, 2 if swap else 1, one, acc)
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


SUM_BLOCK = 1 << 22  # rows of uint8 counts an int32 sum holds: 255 * 2**22 < 2**31


@numba.njit(cache=True)
def _card_tally(cards, rows, kinds, winner, swapped, step, both_only, acc):
    """acc[side, kind, field] += what card_tally_columns promises over units of `step`
    games (rows: cards as [game, seat * kind * count]): a seat is B's when it is the
    second and the game is not swapped, or the first of a swapped one; with both_only the
    per-side rates, never written, are skipped. The counts are summed over whole game rows,
    A's and B's apart by the swapped flag; each unit and kind is counted once by a code of
    its seat-games' played, won and swapped bits, and the rates' (y, z) histograms are made
    from the codes at the end (one count a unit and kind instead of one a side and rate)."""
    k, seat_games = len(kinds), 2 * step
    codes = np.zeros((k, 1 << (2 * seat_games + step)), np.int64)
    for u in range(0, len(winner), step):
        context = 0
        for i in range(step):
            g = u + i
            won = np.int64(winner[g] == 0) | (np.int64(winner[g] == 1) << 1)
            context |= won << (seat_games + 2 * i)
            context |= np.int64(swapped[g]) << (2 * seat_games + i)
        for j in range(k):
            played = 0
            for i in range(step):
                played |= np.int64(cards[u + i, 0, kinds[j], 1] > 0) << (2 * i)
                played |= np.int64(cards[u + i, 1, kinds[j], 1] > 0) << (2 * i + 1)
            codes[j, context | played] += 1
    hist = _rate_histograms(codes, step, both_only)
    every = _summed_counts(rows, cards.shape[2], cards.shape[3], swapped, SUM_BLOCK)
    sums = np.zeros((2, k, 3), np.int64)
    for j in range(k):
        for f in range(3):
            sums[0, j, f], sums[1, j, f] = every[0, kinds[j], f], every[1, kinds[j], f]
    seats = np.full(2, len(winner) // step * step, np.int64)
    _moments(acc, hist, sums, seats, 2 * step + 1)


@numba.njit(cache=True)
def _summed_counts(rows, kinds, counts, swapped, rows_per_block):
    """[side, kind, count] summed over every game's row (the [game, seat, kind, count]
    array as [game, seat * kind * count], reshaped by the caller): side 0 (A's) is the
    first seat of an unswapped game and the second of a swapped one. Each row is added
    whole to the sums of its kind of game, in int32 over blocks of rows too few to overflow
    it (twice as fast as int64 sums; SUM_BLOCK rows at most). Plain loops: array
    expressions and a reshape here made the writer take seconds longer to compile."""
    n, width = rows.shape
    totals = np.zeros((2, width), np.int64)
    block = np.zeros((2, width), np.int32)
    for start in range(0, n, rows_per_block):
        block[:] = 0
        for g in range(start, min(start + rows_per_block, n)):
            flag = 1 if swapped[g] else 0
            for x in range(width):
                block[flag, x] += rows[g, x]
        for flag in range(2):
            for x in range(width):
                totals[flag, x] += block[flag, x]
    sums = np.zeros((2, kinds, counts), np.int64)
    second = kinds * counts  # where the second seat's counts start in a row
    for kind in range(kinds):
        for f in range(counts):
            x = kind * counts + f
            sums[0, kind, f] = totals[0, x] + totals[1, second + x]
            sums[1, kind, f] = totals[0, second + x] + totals[1, x]
    return sums


@numba.njit(cache=True)
def _rate_histograms(codes, step, both_only):
    """[side, kind, rate, z * top + y]: how many units had each (y, z) of each rate, from
    the units' codes (_card_tally) split by side into played, won having played and won
    without."""
    k, seat_games, top = codes.shape[0], 2 * step, 2 * step + 1
    hist = np.zeros((3, k, 3, top * top), np.int64)
    for j in range(k):
        for code in range(codes.shape[1]):
            n = codes[j, code]
            if n == 0:
                continue
            p0 = p1 = w0 = w1 = v0 = v1 = 0
            for b in range(seat_games):
                b_side = (b % 2 == 1) != ((code >> (2 * seat_games + b // 2)) & 1 == 1)
                played = (code >> b) & 1
                won = (code >> (seat_games + b)) & 1
                if b_side:
                    p1, w1, v1 = p1 + played, w1 + won * played, v1 + won * (1 - played)
                else:
                    p0, w0, v0 = p0 + played, w0 + won * played, v0 + won * (1 - played)
            if not both_only:
                _count(hist[0, j], top, p0, w0, v0, step, n)
                _count(hist[1, j], top, p1, w1, v1, step, n)
            _count(hist[2, j], top, p0 + p1, w0 + w1, v0 + v1, 2 * step, n)
    return hist


@numba.njit(cache=True, inline="always")
def _count(hist, top, played, won_played, won_unplayed, seats, n):
    """n units' (y, z) of each rate of a side and kind: any_played (played, seats),
    won_played (won having played, played), won_unplayed (won without, seats - played)."""
    hist[0, seats * top + played] += n
    hist[1, played * top + won_played] += n
    hist[2, (seats - played) * top + won_unplayed] += n


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
