"""The run's summary tables, winrates.parquet and tiebreaks.parquet, summed from every
chunk's counts (quantities.win_counts). Only polars, sim.stats and the column names: the
parent writes these at the end of a run, where every import is time the whole run waits for.

Every interval counts the cell's units (seat-swapped pairs, or games when seats were not
swapped) as sim.stats does for summary, report and compare, so all of them agree.
"""

from __future__ import annotations

import polars as pl

from sim.store.categories import FIRST_POINTS, POINTS

WIN_KEYS = ["config", "config_hash", "matchup"]
WIN_COUNTS = [
    "games", "units", "first_wins", "second_wins", "draws", "a_wins", "b_wins",
    "first_both", "second_both", "draw_both", *POINTS, *FIRST_POINTS,
]  # fmt: skip
TIE_KEYS = ["config", "matchup", "category", "value", "seat"]


def unit_name(games: int, units: int) -> str:
    """'pair' when a cell's units are seat-swapped pairs, else 'game'."""
    return "pair" if units and games == 2 * units else "game"


def winrates(counts: list[dict]) -> pl.DataFrame:
    """Summed win counts with rates and 95% intervals over the cell's units: seats and draws
    (Wilson on the effective size), A's score (wins + draws / 2, pentanomial over pairs)."""
    from sim.players.specs import split_top_level

    schema = {key: pl.String for key in WIN_KEYS} | dict.fromkeys(WIN_COUNTS, pl.UInt32)
    rows = pl.DataFrame([c["wins"] for c in counts], schema=schema, orient="row")
    table = rows.group_by(WIN_KEYS).agg(pl.all().sum()).sort("config", "matchup")
    a, b = (
        zip(*(split_top_level(m) for m in table["matchup"]), strict=True)
        if len(table)
        else ((), ())
    )
    units = [unit_name(g, u) for g, u in zip(table["games"], table["units"], strict=True)]
    table = table.with_columns(
        pl.Series("a", a, pl.String),
        pl.Series("b", b, pl.String),
        pl.Series("unit", units, pl.String),
    )
    for name, k, both in (
        ("first", "first_wins", "first_both"),
        ("second", "second_wins", "second_both"),
        ("draw", "draws", "draw_both"),
    ):
        table = _with(table, name, [seat_estimate(r, k, both) for r in table.iter_rows(named=True)])
    return _with(table, "a_score", [score_estimate(r) for r in table.iter_rows(named=True)])


def seat_estimate(row: dict, count: str, both: str):
    """The estimate of a rate from a winrates row's count and both-games count."""
    from sim.stats import events, rate

    tally = events(row[count], row[both], row["units"], row["games"])
    return rate(tally, unit_name(row["games"], row["units"]))


def score_estimate(row: dict):
    """A's score from a winrates row's units by A's half points."""
    from sim.stats import points, rate

    tally = points([row[c] for c in POINTS], row["games"])
    return rate(tally, unit_name(row["games"], row["units"]))


def _with(table: pl.DataFrame, name: str, estimates: list) -> pl.DataFrame:
    """Add name_rate (name itself for the score), name_low and name_high."""
    value = name if name == "a_score" else f"{name}_rate"
    return table.with_columns(
        pl.Series(value, [e.value for e in estimates], dtype=pl.Float64),
        pl.Series(f"{name}_low", [e.low for e in estimates], dtype=pl.Float64),
        pl.Series(f"{name}_high", [e.high for e in estimates], dtype=pl.Float64),
    )


def tiebreaks(counts: list[dict]) -> pl.DataFrame:
    """Summed long counts of outcomes, deciding lines by winning seat, and end reasons, with
    each one's share of its config and match-up's games and its 95% interval over units
    (`both`: units with that row in both of their games)."""
    from sim.stats import events, rate

    schema = {key: pl.String for key in TIE_KEYS} | {"count": pl.UInt32, "both": pl.UInt32}
    rows = pl.DataFrame([r for c in counts for r in c["ties"]], schema=schema, orient="row")
    summed = rows.group_by(TIE_KEYS).agg(pl.col("count", "both").sum())
    sizes = pl.DataFrame(
        [(c["wins"]["config"], c["wins"]["matchup"], c["wins"]["games"], c["wins"]["units"])
         for c in counts],
        schema={"config": pl.String, "matchup": pl.String, "games": pl.Int64, "units": pl.Int64},
        orient="row",
    ).group_by("config", "matchup").agg(pl.all().sum())  # fmt: skip
    table = summed.join(sizes, on=["config", "matchup"]).sort(*TIE_KEYS, nulls_last=True)
    estimates = [
        rate(
            events(r["count"], r["both"], r["units"], r["games"]), unit_name(r["games"], r["units"])
        )
        for r in table.iter_rows(named=True)
    ]
    return table.with_columns(
        pl.Series("share", [e.value for e in estimates], dtype=pl.Float64),
        pl.Series("share_low", [e.low for e in estimates], dtype=pl.Float64),
        pl.Series("share_high", [e.high for e in estimates], dtype=pl.Float64),
        pl.Series("unit", [e.unit for e in estimates], dtype=pl.String),
    ).drop("games")
