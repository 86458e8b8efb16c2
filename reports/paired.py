"""Two runs' cells compared part by part, in bounded memory: the per-unit differences a
paired test needs, summed as they are read (n, sum of d, sum of d squared), never held.

The runner writes a cell's games in chunks of fixed game ranges, so two runs of the same
plan shape have parts holding the same games: each pair of parts is checked for the same
games, seeds and seats, and its units' means compared. Runs whose parts do not line up
(other chunk sizes, hand-made folders) are read whole by the caller instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as sps

from reports.stats import Difference
from reports.tally import PARTS_AT_ONCE, unit

KEYS = ["game", "seed"]
SEATS = ["first", "second", "swapped"]


def part_cells(parts: tuple[Path, ...]) -> dict[Path, tuple[str, str, int] | None]:
    """Each part's (config, matchup, games), or None when a part holds several cells."""
    queries = [
        pl.scan_parquet(p).select(
            pl.col("config").first().cast(pl.String),
            pl.col("matchup").first().cast(pl.String),
            pl.len().alias("games"),
            (pl.col("config").n_unique() + pl.col("matchup").n_unique()).alias("distinct"),
        )
        for p in parts
    ]
    rows = []
    for start in range(0, len(queries), PARTS_AT_ONCE):  # a few parts' columns at a time
        rows += pl.collect_all(queries[start : start + PARTS_AT_ONCE])
    out: dict[Path, tuple[str, str, int] | None] = {}
    for path, row in zip(parts, rows, strict=True):
        r = row.row(0, named=True)
        out[path] = (r["config"], r["matchup"], r["games"]) if r["distinct"] == 2 else None
    return out


@dataclass
class DiffSums:
    """A paired difference's running sums over units."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    low: float = math.inf
    high: float = -math.inf

    def add(self, d: np.ndarray) -> None:
        self.n += len(d)
        self.total += float(d.sum())
        self.squares += float((d * d).sum())
        if len(d):
            self.low, self.high = min(self.low, float(d.min())), max(self.high, float(d.max()))

    def difference(self, confidence: float = 0.95) -> Difference:
        """As reports.stats.paired_difference over the same d: t interval, paired t-test."""
        n = self.n
        if n < 2:
            raise ValueError("a paired difference needs at least 2 units")
        mean = self.total / n
        if self.low == self.high:  # every d the same: t is 0/0 or infinite
            c = self.low
            return Difference(c, c, c, 1.0 if c == 0 else 0.0, paired=True, n_a=n, n_b=n)
        sd = math.sqrt(max(self.squares - n * mean * mean, 0.0) / (n - 1))
        half = float(sps.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
        t = mean / (sd / math.sqrt(n)) if sd > 0 else math.inf
        p = float(2 * sps.t.sf(abs(t), n - 1))
        return Difference(mean, mean - half, mean + half, p, paired=True, n_a=n, n_b=n)


@dataclass
class Paired:
    """What pairing two cells' parts found: whether they pair, why not, the sums."""

    paired: bool
    why: str = ""
    sums: dict[str, DiffSums] = field(default_factory=dict)


def line_up(parts_a: list[Path], parts_b: list[Path], games_of) -> bool:
    """Whether the two cells' parts hold the same numbers of games in the same order."""
    return len(parts_a) == len(parts_b) and all(
        games_of(a) == games_of(b) for a, b in zip(parts_a, parts_b, strict=True)
    )


def pair_parts(parts_a: list[Path], parts_b: list[Path], metrics: dict[str, pl.Expr]) -> Paired:
    """Walk the lined-up parts two at a time: same games and seeds, same seats, then each
    unit's mean of every metric in both runs and their differences summed."""
    sums = {name: DiffSums() for name in metrics}
    for path_a, path_b in zip(parts_a, parts_b, strict=True):
        fa, fb = _units(path_a, metrics), _units(path_b, metrics)
        if not fa.select(KEYS).equals(fb.select(KEYS)):
            return Paired(False, "unpaired: the runs played different seeds")
        if not fa.select(SEATS).equals(fb.select(SEATS)):
            return Paired(False, "unpaired: same seeds but different seats")
        ua, ub = _means(fa, metrics), _means(fb, metrics)
        for name in metrics:
            sums[name].add(ub[name] - ua[name])
    return Paired(True, "", sums)


def _units(path: Path, metrics: dict[str, pl.Expr]) -> pl.DataFrame:
    """A part's games in game order: keys, seats, unit, and every metric's value."""
    scan = pl.scan_parquet(path)
    if "pair" not in scan.collect_schema().names():
        scan = scan.with_columns(pl.lit(None, pl.Int64).alias("pair"))
    return (
        scan.select(
            *KEYS,
            *(pl.col(s).cast(pl.String) if s != "swapped" else pl.col(s) for s in SEATS),
            unit().alias("_unit"),
            *(expr.alias(name) for name, expr in metrics.items()),
        )
        .collect()
        .sort("game")
    )


def _means(frame: pl.DataFrame, metrics: dict[str, pl.Expr]) -> dict[str, np.ndarray]:
    """Per unit, in unit order, the mean of each metric over the unit's games."""
    per = frame.group_by("_unit").agg(pl.col(list(metrics)).mean()).sort("_unit")
    return {name: per[name].to_numpy() for name in metrics}
