"""What a game feels like (#34): the arc figures of a cell from the games table's arc
columns (docs/statistics.md), each with a 95% interval over the run's units (pairs).

Mean lead changes (a t interval), the comeback rates and the half-time leader's win rate
(Wilson on the effective size, sim.stats) are ratio quantities like every other summary
figure. The median of decided_turn / turns is not: it is read from the share of decided
games at or below each point of a grid (GRID steps), and its interval is the grid points
whose share's interval holds one half (Woodruff's inversion, with the same cluster-robust
rates; tests/reports/test_arc_summary.py shows it covers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from reports import present
from reports.tally import from_row
from sim.stats import Estimate, Tally
from sim.stats import mean as mean_estimate
from sim.stats import rate as rate_estimate
from sim.store.quantities import COMEBACKS, GRID  # a line's worth and two; 2% steps

COLUMNS = ("lead_changes", "decided_turn", "max_deficit", "half_leader")
EARLY, LATE = 0.80, 0.65  # the half-time leader's win rate: decided early, decided late


def quantities() -> dict:
    """Every arc quantity by name, as (y, z) for reports.tally (z None: every game)."""
    decided = pl.col("decided_turn").is_not_null()  # a game with a winner
    share = pl.col("decided_turn").cast(pl.Float64) / pl.col("turns").cast(pl.Float64)
    half, winner = pl.col("half_leader").cast(pl.String), pl.col("winner").cast(pl.String)
    q = {
        "arc:lead_changes": (pl.col("lead_changes").cast(pl.Float64), None),
        "arc:half_wins": (half.is_not_null() & (half == winner), half.is_not_null()),
    }
    for points in COMEBACKS:
        q[f"arc:comeback:{points}"] = (decided & (pl.col("max_deficit") >= points), decided)
    for step in range(GRID + 1):  # a tiny slack: 3/6 must count at 0.5 in floating point
        q[f"arc:cdf:{step}"] = (decided & (share <= step / GRID + 1e-9), decided)
    return q


@dataclass(frozen=True)
class Arc:
    """A cell's arc figures, each with its 95% interval."""

    lead_changes: Estimate  # mean per game
    comebacks: dict[int, Estimate]  # won after trailing by >= points, of decided games
    half_wins: Estimate  # the half-time leader wins, of games with one
    decided_share: Estimate  # median decided_turn / turns over decided games

    def words(self) -> str:
        """'decided early: half-time leader wins 91.0% [90.2, 91.8]': early when the rate's
        interval lies above EARLY, late when below LATE, else midway."""
        e = self.half_wins
        if math.isnan(e.value):
            return "no half-time leader in any game"
        return f"decided {self.when()}: half-time leader wins {self.half_text()}"

    def when(self) -> str:
        """'early', 'midway' or 'late' (see words)."""
        e = self.half_wins
        return "early" if e.low >= EARLY else "late" if e.high < LATE else "midway"

    def half_text(self) -> str:
        """'91.0% [90.2, 91.8]': the half-time leader's win rate."""
        return present.rate(self.half_wins.value, self.half_wins.low, self.half_wins.high)


def from_tallies(row: dict, unit: str) -> Arc:
    """The arc of one cell from its row of tallies (reports.tally) over quantities()."""
    comebacks = {p: rate_estimate(from_row(row, f"arc:comeback:{p}"), unit) for p in COMEBACKS}
    cdf = [from_row(row, f"arc:cdf:{step}") for step in range(GRID + 1)]
    return Arc(
        mean_estimate(from_row(row, "arc:lead_changes"), unit),
        comebacks,
        rate_estimate(from_row(row, "arc:half_wins"), unit),
        median(cdf, unit),
    )


def median(cdf: list[Tally], unit: str, confidence: float = 0.95) -> Estimate:
    """The median of a value in [0, 1] from the tallies of its share at or below each of
    len(cdf) evenly spaced grid points: the first point whose share reaches one half, and
    as interval the points around it where the share's interval still holds one half
    (low: the last point whose share is surely below one half; high: the first point
    whose share is surely above it). Covers at least as often as the rates do; grid-coarse."""
    steps = len(cdf) - 1
    if not cdf[-1].z:
        return Estimate(math.nan, math.nan, math.nan, 0, 0, unit, 0.0)
    rates = [rate_estimate(t, unit, confidence) for t in cdf]
    value = next(i for i, e in enumerate(rates) if e.value >= 0.5)
    below = [i for i, e in enumerate(rates) if e.high < 0.5]
    above = [i for i, e in enumerate(rates) if e.low > 0.5]
    low = below[-1] if below else 0
    high = above[0] if above else steps
    last = cdf[-1]
    return Estimate(
        value / steps, low / steps, high / steps, last.units, int(last.z), unit, float(last.units)
    )


def rows(a: Arc) -> list[tuple[str, Estimate, bool]]:
    """The figures as (label, estimate, is a rate) in the order the tables show them."""
    out = [("lead changes per game", a.lead_changes, False)]
    out += [(f"won from {p}+ behind", e, True) for p, e in a.comebacks.items()]
    out += [("half-time leader wins", a.half_wins, True)]
    return out + [("median decided turn, share", a.decided_share, True)]


def to_json(a: Arc | None) -> dict | None:
    """The figures as plain JSON values (fractions; NaN as null), None without arc columns."""
    if a is None:
        return None

    def est(e: Estimate) -> dict:
        bounds = {"value": e.value, "low": e.low, "high": e.high}
        return {k: None if math.isnan(v) else v for k, v in bounds.items()}

    return {
        "lead_changes": est(a.lead_changes),
        "comebacks": {str(p): est(e) for p, e in a.comebacks.items()},
        "half_time_leader_wins": est(a.half_wins),
        "median_decided_share": est(a.decided_share),
        "units": a.lead_changes.units,
        "words": a.words(),
    }
