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


# --- bounded reading: a run's tallies one part at a time -----------------------------------

PARTS_AT_ONCE = 2  # parts read at once (each ~100,000 games; polars runs them in parallel)


def part_tallies(
    parts: list, keys: list[str], quantities: dict[str, Quantity], columns: list[str]
) -> pl.DataFrame:
    """tallies() of the games parts, one small query a part, summed: a part holds whole
    units (a chunk never splits a pair), so the sums of the parts' moments are the run's,
    and memory stays that of a few parts whatever the run's size. Only `columns` (those the
    quantities may need) are read; keys come back as strings."""
    have = pl.scan_parquet(parts[:1]).collect_schema().names() if parts else []
    need = [c for c in dict.fromkeys([*keys, "config", "matchup", "game", "pair", *columns])]
    need = [c for c in need if c in have]
    rows = []
    for start in range(0, len(parts), PARTS_AT_ONCE):
        batch = [pl.scan_parquet(p).select(need) for p in parts[start : start + PARTS_AT_ONCE]]
        if "pair" not in need:  # every game its own unit
            batch = [scan.with_columns(pl.lit(None, pl.Int64).alias("pair")) for scan in batch]
        shapes = pl.collect_all([_shape(scan, keys) for scan in batch])
        fast = [
            _part_moments(scan, keys, quantities, bool(shape["paired"][0]))
            for scan, shape in zip(batch, shapes, strict=True)
            if shape["fast"][0]
        ]
        slow = [scan for scan, shape in zip(batch, shapes, strict=True) if not shape["fast"][0]]
        rows += pl.collect_all(fast)
        rows += [tallies(scan, keys, quantities) for scan in slow]
    if not rows:
        return pl.DataFrame()
    summed = pl.concat(
        [r.with_columns(pl.col(keys).cast(pl.String)) for r in rows], how="diagonal_relaxed"
    )
    return summed.group_by(keys, maintain_order=True).agg(pl.exclude(keys).sum())


def _shape(scan: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Whether a part is one cell whose units are its games (no pairs) or its rows two by
    two (pairs in order, as the runner writes them): then a query without a group-by."""
    if "pair" not in scan.collect_schema().names():
        scan = scan.with_columns(pl.lit(None, pl.Int64).alias("pair"))
    pair = pl.col("pair")
    names = scan.collect_schema().names()
    cell = [c for c in dict.fromkeys([*keys, "config", "matchup"]) if c in names]
    one_cell = pl.all_horizontal(*(pl.col(k).n_unique() == 1 for k in cell))
    unpaired = pair.null_count() == pl.len()
    in_twos = (
        (pair.null_count() == 0)
        & (pl.len() % 2 == 0)
        & (pair == pair.shift(-1)).gather_every(2).all()
        & (pair.gather_every(2).diff().fill_null(1) > 0).all()
    )
    return scan.select((one_cell & (unpaired | in_twos)).alias("fast"), in_twos.alias("paired"))


def _part_moments(scan: pl.LazyFrame, keys: list[str], quantities: dict, paired: bool):
    """One row: the part's keys and every quantity's Tally moments, a unit's sums taken
    as a row plus the next (paired) or the row itself."""
    step = 2 if paired else 1
    values = [_value(y).alias(f"{n}:y") for n, (y, _) in quantities.items()]
    values += [_value(z).alias(f"{n}:z") for n, (_, z) in quantities.items() if z is not None]
    names = [e.meta.output_name() for e in values]
    per_game = scan.select(*keys, *values)
    if paired:
        per_unit = per_game.select(
            *(pl.col(k).gather_every(2) for k in keys),
            *((pl.col(c) + pl.col(c).shift(-1)).gather_every(2) for c in names),
        )
    else:
        per_unit = per_game
    out = [pl.col(k).first() for k in keys]
    for name, (_, z) in quantities.items():
        y_u = pl.col(f"{name}:y")
        z_u = pl.lit(float(step)) if z is None else pl.col(f"{name}:z")
        z_sum = pl.len().cast(pl.Float64) * step if z is None else z_u.sum()
        zz = pl.len().cast(pl.Float64) * step * step if z is None else (z_u * z_u).sum()
        units = pl.len() if z is None else (z_u > 0).sum()
        out += [
            y_u.sum().alias(f"{name}:y"),
            z_sum.alias(f"{name}:z"),
            (y_u * y_u).sum().alias(f"{name}:yy"),
            zz.alias(f"{name}:zz"),
            (y_u * z_u).sum().alias(f"{name}:yz"),
            units.cast(pl.Int64).alias(f"{name}:units"),
        ]
    return per_unit.select(out)
