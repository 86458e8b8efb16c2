"""Units and tallies of games frames, the card tallies' sums, and reading parts in turn.

Every summary figure comes from the tallies the workers write (sim/store/tallies.py). What
is here serves what those cannot: the unit of a row (its seat-swapped pair, or the game
itself when seats were not swapped) for per-unit comparisons, the card tallies summed over
chunks, and the parts read one at a time for paired differences.
"""

from __future__ import annotations

import polars as pl

from sim.stats import Tally
from sim.store.categories import MOMENTS


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


def from_row(row: dict, name: str) -> Tally:
    """Quantity name's Tally from a row of `name:field` keys (CellTally.row)."""
    return Tally(*(row[f"{name}:{f}"] for f in MOMENTS))


# --- card tallies: the runner's per-chunk sums (sim.store.tables.card_tally_columns) -------


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
    return Tally(*(row[f"{rate}_{m}"] for m in MOMENTS))


# --- reading a run's parts one at a time ------------------------------------------------


def read_parts(parts: list, columns: list[str]):
    """(path, frame of the columns) for each part in order, the next part read in a thread
    while the caller works on this one (polars and numpy release the GIL): two cores busy,
    two parts in memory at most."""
    from concurrent.futures import ThreadPoolExecutor

    def read(path) -> pl.DataFrame:
        frame = pl.read_parquet(path, columns=columns)
        if "pair" not in frame.columns:  # games played without seat swapping
            frame = frame.with_columns(pl.lit(None, pl.Int64).alias("pair"))
        return frame

    if not parts:
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        ahead = pool.submit(read, parts[0])
        for i, path in enumerate(parts):
            frame = ahead.result()
            if i + 1 < len(parts):
                ahead = pool.submit(read, parts[i + 1])
            yield path, frame


def part_shape(frame: pl.DataFrame, keys: list[str]) -> str | None:
    """'pairs' when a part is one cell whose rows come two by two (pairs in order, as the
    runner writes them), 'games' when it is one cell of unpaired games, else None."""
    cell = [c for c in dict.fromkeys([*keys, "config", "matchup"]) if c in frame.columns]
    if frame.height == 0 or any(not _constant(frame[c]) for c in cell):
        return None
    pair = frame["pair"]
    if pair.null_count() == frame.height:
        return "games"
    if pair.null_count() or frame.height % 2:
        return None
    p = pair.to_numpy()
    first = p[0::2]
    if (first == p[1::2]).all() and (first[1:] > first[:-1]).all():
        return "pairs"
    return None


def _constant(column: pl.Series) -> bool:
    """Whether every value of a column is the same, and none is null."""
    if column.null_count():
        return False
    if isinstance(column.dtype, pl.Categorical | pl.Enum):  # compare codes, not text
        column = column.to_physical()
    return column.min() == column.max()
