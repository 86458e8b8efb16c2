"""The run's summary tables, winrates.parquet and tiebreaks.parquet, summed from every
chunk's counts (tables.count_games). Only polars: the parent writes these at the end of a
run, where every import is time the whole run waits for."""

from __future__ import annotations

import polars as pl

WIN_KEYS = ["config", "config_hash", "matchup"]
WIN_COUNTS = ["games", "first_wins", "second_wins", "draws", "a_wins", "b_wins"]
TIE_KEYS = ["config", "matchup", "category", "value", "seat"]


def winrates(counts: list[dict]) -> pl.DataFrame:
    """Summed win counts with rates and Wilson 95% intervals, by seat and by strategy."""
    from sim.players import split_top_level
    from sim.stats import wilson

    schema = {key: pl.String for key in WIN_KEYS} | dict.fromkeys(WIN_COUNTS, pl.UInt32)
    rows = pl.DataFrame([c["wins"] for c in counts], schema=schema, orient="row")
    table = rows.group_by(WIN_KEYS).agg(pl.all().sum()).sort("config", "matchup")
    a, b = (
        zip(*(split_top_level(m) for m in table["matchup"]), strict=True)
        if len(table)
        else ((), ())
    )
    table = table.with_columns(pl.Series("a", a, pl.String), pl.Series("b", b, pl.String))
    for who in ("first", "second", "a", "b"):
        table = _with_rate(table, who, f"{who}_wins", wilson)
    return _with_rate(table, "draw", "draws", wilson)


def _with_rate(table: pl.DataFrame, name: str, count: str, wilson) -> pl.DataFrame:
    intervals = [wilson(int(k), int(n)) for k, n in zip(table[count], table["games"], strict=True)]
    return table.with_columns(
        (pl.col(count) / pl.col("games")).alias(f"{name}_rate"),
        pl.Series(f"{name}_low", [lo for lo, _ in intervals], dtype=pl.Float64),
        pl.Series(f"{name}_high", [hi for _, hi in intervals], dtype=pl.Float64),
    )


def tiebreaks(counts: list[dict]) -> pl.DataFrame:
    """Summed long counts of outcomes, deciding lines by winning seat, and end reasons, with
    each one's share of its config and match-up's games."""
    schema = {key: pl.String for key in TIE_KEYS} | {"count": pl.UInt32}
    rows = pl.DataFrame([r for c in counts for r in c["ties"]], schema=schema, orient="row")
    summed = rows.group_by(TIE_KEYS).agg(pl.col("count").sum())
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
