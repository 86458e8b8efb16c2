"""The Parquet tables: per-game and per-card rows from engine arrays, and the run's summaries.

Compact types keep a games row small: enums for every categorical column, the
smallest integer that fits, and strings only for values constant within a part
(Parquet dictionary-encodes those to almost nothing).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.cards import NAMES
from sim.engine import game as eg
from sim.engine.state import END_REASONS, MAX_LINES
from sim.rules import RULES_VERSION

SEAT = pl.Enum(["first", "second"])
WINNER = pl.Enum(["first", "second", "draw"])
OUTCOME = pl.Enum(["points", "tiebreak", "draw"])
END_REASON = pl.Enum([r for r in END_REASONS if r])
KIND = pl.Enum(list(NAMES))
LINE_COLUMNS = [f"line_{10 * (i + 1)}" for i in range(MAX_LINES)]


def _enum(codes: np.ndarray, dtype: pl.Enum, offset: int = 0) -> pl.Series:
    """Codes offset.. as an enum column (gathered from its categories: the fast way); any
    code below offset (e.g. -1) becomes null."""
    index = np.asarray(codes, dtype=np.int64) - offset
    missing = np.flatnonzero(index < 0)
    labels = pl.Series(dtype.categories.to_list(), dtype=dtype)
    column = labels.gather(pl.Series(np.maximum(index, 0).astype(np.uint32)))
    return column.scatter(missing, None) if len(missing) else column


def _constants(**values: str) -> list[pl.Expr]:
    """Columns constant within a part: categorical, so they cost next to nothing on disk."""
    return [pl.lit(value).cast(pl.Categorical).alias(name) for name, value in values.items()]


def _seat_strategy(cell, swapped: pl.Expr, seat_is_first: bool) -> pl.Expr:
    """The strategy in a seat: A is first unless the game is the swapped one of its pair."""
    plays_a = ~swapped if seat_is_first else swapped
    return pl.when(plays_a).then(pl.lit(cell.a)).otherwise(pl.lit(cell.b))


def games_frame(run_id, cell, start: int, swap: bool, seeds, out) -> pl.DataFrame:
    """One row per game of a chunk (columns named as the games table promises)."""
    n = len(out)
    game = np.arange(start, start + n, dtype=np.uint32)
    swapped = (game % 2 == 1) if swap else np.zeros(n, dtype=bool)
    columns = {
        "swapped": pl.Series(swapped, dtype=pl.Boolean),
        "pair": pl.Series(game // 2, dtype=pl.UInt32)
        if swap
        else pl.repeat(None, n, dtype=pl.UInt32, eager=True),
        "game": pl.Series(game, dtype=pl.UInt32),
        "seed": pl.Series(seeds, dtype=pl.UInt64),
        "first_digit": pl.Series(out[:, eg.R_FIRST], dtype=pl.UInt8),
        "winner": _enum(out[:, eg.R_WINNER], WINNER),
        "outcome": _enum(out[:, eg.R_OUTCOME], OUTCOME),
        "tiebreak_line": pl.Series(out[:, eg.R_TIEBREAK_LINE], dtype=pl.UInt8).replace(0, None),
        "end_reason": _enum(out[:, eg.R_END], END_REASON, offset=1),
        "turns": pl.Series(out[:, eg.R_TURNS], dtype=pl.UInt16),
        "score_first": pl.Series(out[:, eg.R_SCORE_FIRST], dtype=pl.UInt16),
        "score_second": pl.Series(out[:, eg.R_SCORE_SECOND], dtype=pl.UInt16),
    }
    for i, name in enumerate(LINE_COLUMNS):
        columns[name] = _enum(out[:, eg.R_LINE0 + i], SEAT)
    frame = pl.DataFrame(columns).with_columns(
        *_constants(
            run_id=run_id,
            config=cell.config.name,
            config_hash=cell.config.hash,
            rules_version=RULES_VERSION,
            matchup=cell.matchup,
        ),
        _seat_strategy(cell, pl.col("swapped"), True).cast(pl.Categorical).alias("first"),
        _seat_strategy(cell, pl.col("swapped"), False).cast(pl.Categorical).alias("second"),
    )
    return frame.select(GAMES_COLUMNS)


GAMES_COLUMNS = [
    "run_id",
    "config",
    "config_hash",
    "rules_version",
    "matchup",
    "first",
    "second",
    "swapped",
    "pair",
    "game",
    "seed",
    "first_digit",
    "winner",
    "outcome",
    "tiebreak_line",
    "end_reason",
    "turns",
    "score_first",
    "score_second",
    *LINE_COLUMNS,
]


def cards_frame(cell, start: int, swap: bool, cards: np.ndarray) -> pl.DataFrame:
    """Per game, seat and card kind of the deck: drawn, played and took-effect counts."""
    kinds = np.unique(cell.config.kinds())
    n = len(cards)
    picked = cards[:, :, kinds, :]  # game, seat, kind, count
    g, seat, k = np.meshgrid(
        np.arange(start, start + n, dtype=np.uint32),
        np.arange(2, dtype=np.uint8),
        kinds,
        indexing="ij",
    )
    seat_first = pl.col("seat") == "first"
    swapped = (pl.col("game") % 2 == 1) if swap else pl.lit(False)
    plays_a = seat_first != swapped
    frame = pl.DataFrame(
        {
            "game": pl.Series(g.ravel(), dtype=pl.UInt32),
            "seat": _enum(seat.ravel(), SEAT),
            "kind": _enum(k.ravel(), KIND),
            "drawn": pl.Series(picked[..., eg.C_DRAWN].ravel(), dtype=pl.UInt8),
            "played": pl.Series(picked[..., eg.C_PLAYED].ravel(), dtype=pl.UInt8),
            "took_effect": pl.Series(picked[..., eg.C_EFFECT].ravel(), dtype=pl.UInt8),
        }
    )
    return frame.with_columns(
        *_constants(config=cell.config.name, matchup=cell.matchup),
        pl.when(plays_a)
        .then(pl.lit(cell.a))
        .otherwise(pl.lit(cell.b))
        .cast(pl.Categorical)
        .alias("strategy"),
    ).select(
        "config", "matchup", "game", "seat", "strategy", "kind", "drawn", "played", "took_effect"
    )


def win_counts(games: pl.LazyFrame) -> pl.DataFrame:
    """Per config and match-up: games, wins by seat and by strategy, draws (additive counts,
    so each part can be counted alone and memory stays flat however large the run)."""
    first_won = pl.col("winner") == "first"
    second_won = pl.col("winner") == "second"
    a_won = (first_won & ~pl.col("swapped")) | (second_won & pl.col("swapped"))
    b_won = (second_won & ~pl.col("swapped")) | (first_won & pl.col("swapped"))
    return (
        _plain(games)
        .group_by(*WIN_KEYS)
        .agg(
            pl.len().alias("games"),
            first_won.sum().alias("first_wins"),
            second_won.sum().alias("second_wins"),
            (pl.col("winner") == "draw").sum().alias("draws"),
            a_won.sum().alias("a_wins"),
            b_won.sum().alias("b_wins"),
        )
        .collect()
    )


WIN_KEYS = ["config", "config_hash", "matchup"]


def winrates(counts: pl.DataFrame) -> pl.DataFrame:
    """Summed win counts with rates and Wilson 95% intervals, by seat and by strategy."""
    from reports.stats import wilson

    table = counts.group_by(WIN_KEYS).agg(pl.all().sum()).sort("config", "matchup")
    parts = table["matchup"].str.split_exact(",", 1).struct.rename_fields(["a", "b"])
    table = table.with_columns(parts.struct.field("a"), parts.struct.field("b"))
    for who in ("first", "second", "a", "b"):
        table = _with_rate(table, who, f"{who}_wins", wilson)
    return _with_rate(table, "draw", "draws", wilson)


def _plain(games: pl.LazyFrame) -> pl.LazyFrame:
    """Categorical text columns as plain strings, for summaries that split or join them."""
    return games.with_columns(pl.col(pl.Categorical).cast(pl.String))


def _with_rate(table: pl.DataFrame, name: str, count: str, wilson) -> pl.DataFrame:
    intervals = [wilson(int(k), int(n)) for k, n in zip(table[count], table["games"], strict=True)]
    return table.with_columns(
        (pl.col(count) / pl.col("games")).alias(f"{name}_rate"),
        pl.Series(f"{name}_low", [lo for lo, _ in intervals], dtype=pl.Float64),
        pl.Series(f"{name}_high", [hi for _, hi in intervals], dtype=pl.Float64),
    )


TIE_KEYS = ["config", "matchup", "category", "value", "seat"]


def tiebreak_counts(games: pl.LazyFrame) -> pl.DataFrame:
    """Counts of outcomes, deciding lines by winning seat, and end reasons, as long rows
    (config, matchup, category, value, seat, count); additive like win_counts."""
    keys = ["config", "matchup"]
    games = _plain(games)
    no_seat = pl.lit(None, pl.String).alias("seat")
    parts = [
        games.group_by(*keys, pl.col("outcome").cast(pl.String).alias("value"))
        .agg(pl.len().alias("count"))
        .with_columns(pl.lit("outcome").alias("category"), no_seat),
        games.filter(pl.col("outcome") == "tiebreak")
        .group_by(
            *keys,
            pl.col("tiebreak_line").cast(pl.String).alias("value"),
            pl.col("winner").cast(pl.String).alias("seat"),
        )
        .agg(pl.len().alias("count"))
        .with_columns(pl.lit("tiebreak_line").alias("category")),
        games.group_by(*keys, pl.col("end_reason").cast(pl.String).alias("value"))
        .agg(pl.len().alias("count"))
        .with_columns(pl.lit("end_reason").alias("category"), no_seat),
    ]
    return pl.concat([p.select(*TIE_KEYS, "count") for p in parts]).collect()


def tiebreaks(counts: pl.DataFrame) -> pl.DataFrame:
    """Summed long counts with each one's share of its config and match-up's games."""
    summed = counts.group_by(TIE_KEYS).agg(pl.col("count").sum())
    totals = (
        summed.filter(pl.col("category") == "outcome")
        .group_by("config", "matchup")
        .agg(pl.col("count").sum().alias("games"))
    )
    return (
        summed.join(totals, on=["config", "matchup"])
        .with_columns((pl.col("count") / pl.col("games")).alias("share"))
        .drop("games")
        .sort(*TIE_KEYS, nulls_last=True)
    )
