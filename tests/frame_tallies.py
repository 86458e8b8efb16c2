"""A reference for the tests: the Tally of any per-game quantity over a frame of games,
by polars' group-by on each game's unit (its seat-swapped pair, or itself). The product's
figures come from the workers' tallies (sim/store/tallies.py); the tests hold them, and
the card tallies, to this count written apart from them."""

from __future__ import annotations

import polars as pl

from reports.tally import unit

Quantity = tuple[pl.Expr, pl.Expr | None]
"""A ratio y / z of per-row values: y (a condition or a number), z (None: every row counts 1)."""


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
