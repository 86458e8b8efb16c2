"""Per-unit tallies (sim.stats.Tally) of a games or cards frame, for the reports.

The unit is a game's seat-swapped pair (the games table's `pair` column), or the game itself
when seats were not swapped (`pair` null). The runner's workers tally the same sums from the
engine's arrays (sim.runner.tables.count_games); a test holds the two to each other.
"""

from __future__ import annotations

import polars as pl

from sim.stats import Tally

Quantity = tuple[pl.Expr, pl.Expr | None]
"""A ratio y / z of per-row values: y (a condition or a number), z (None: every row counts 1)."""


def unit() -> pl.Expr:
    """A row's independent unit within its config and match-up: its pair, or its own game
    (negative) when it has no pair."""
    game = -1 - pl.col("game").cast(pl.Int64)
    return pl.when(pl.col("pair").is_null()).then(game).otherwise(pl.col("pair").cast(pl.Int64))


def unit_name(frame: pl.DataFrame) -> str:
    """'pair' when the rows belong to seat-swapped pairs, else 'game'."""
    if "pair" not in frame.columns or frame.height == 0:
        return "game"
    return "game" if frame["pair"].null_count() else "pair"


def _value(expr: pl.Expr) -> pl.Expr:
    return expr.fill_null(False).cast(pl.Float64)


def tallies(
    frame: pl.DataFrame | pl.LazyFrame, keys: list[str], quantities: dict[str, Quantity]
) -> pl.DataFrame:
    """One row per group of keys; for each quantity q the columns q:units, q:y, q:z, q:yy,
    q:zz, q:yz of its Tally over the group's units (those with z > 0). The frame needs
    `game`; without a `pair` column every game is its own unit. A lazy frame stays lazy
    until the small result, so a large run is never held in memory whole."""
    lazy = isinstance(frame, pl.LazyFrame)
    names = frame.collect_schema().names() if lazy else frame.columns
    if "pair" not in names:
        frame = frame.with_columns(pl.lit(None, pl.Int64).alias("pair"))
    per_row = []
    for name, (y, z) in quantities.items():
        per_row += [
            _value(y).sum().alias(f"{name}:y"),
            _value(pl.col("game").is_not_null() if z is None else z).sum().alias(f"{name}:z"),
        ]
    cell = [c for c in ("config", "matchup") if c in names and c not in keys]
    units = frame.with_columns(unit().alias("_unit")).group_by(*keys, *cell, "_unit").agg(per_row)
    sums = []
    for name in quantities:
        y, z = pl.col(f"{name}:y"), pl.col(f"{name}:z")
        sums += [
            y.sum().alias(f"{name}:y"),
            z.sum().alias(f"{name}:z"),
            (y * y).sum().alias(f"{name}:yy"),
            (z * z).sum().alias(f"{name}:zz"),
            (y * z).sum().alias(f"{name}:yz"),
            (z > 0).sum().alias(f"{name}:units"),  # the units a conditional rate sees
        ]
    result = units.group_by(keys).agg(sums) if keys else units.select(sums)
    return result.collect() if lazy else result


def from_row(row: dict, name: str) -> Tally:
    """Quantity name's Tally from a row of tallies()."""
    fields = ("units", "y", "z", "yy", "zz", "yz")
    return Tally(*(row[f"{name}:{f}"] for f in fields))


def tally(frame: pl.DataFrame, y: pl.Expr, z: pl.Expr | None = None) -> Tally:
    """The Tally of one quantity y / z over the whole frame's units."""
    return from_row(tallies(frame, [], {"q": (y, z)}).row(0, named=True), "q")


# --- card tallies: the runner's per-chunk sums (sim.runner.tables.card_tally_columns) -------

CARD_RATES = ("any_played", "won_played", "won_unplayed")
_MOMENTS = ("units", "y", "z", "yy", "zz", "yz")


def card_sums(tallies: pl.LazyFrame, by_strategy: bool) -> pl.DataFrame:
    """The card tallies summed over chunks per config, match-up, strategy (by_strategy: the
    rows of one strategy's seats; else those of every seat, strategy null) and kind, kind
    as text. Sums of chunks are the run's: a chunk holds whole units."""
    keep = pl.col("strategy").is_not_null() if by_strategy else pl.col("seats") == "both"
    keys = ["config", "matchup", "strategy", "kind"]
    return (
        tallies.filter(keep)
        .with_columns(pl.col("config", "matchup", "strategy", "kind").cast(pl.String))
        .group_by(keys)
        .agg(pl.exclude(*keys, "seats").sum())
        .sort(keys)
        .collect()
    )


def card_tally(row: dict, rate: str) -> Tally:
    """One of CARD_RATES' Tally from a row of card_sums."""
    return Tally(*(row[f"{rate}_{m}"] for m in _MOMENTS))
