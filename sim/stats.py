"""Every estimate of one quantity, from additive per-unit tallies (free of scipy and polars).

The unit is the independent observation: a seat-swapped pair when the run swaps seats (its
two games share their deal, and with a deterministic strategy in both seats they are the
same game twice), else a game. A quantity is a ratio of two per-game sums, y over z
(a rate: y the games with the event, z the games; a mean: y the values, z the games; a
conditional rate: z the games in the condition). Its Tally holds the sums and the sums of
squares and products of the per-unit totals, which add over chunks, so a run's estimate is
exact on resume and on any backend. The variance is the cluster-robust (linearised ratio)
one, sum over units of (y_u - r z_u)^2 / z^2; a rate's interval is Wilson's on the
effective sample size p(1-p)/variance, which is the plain Wilson interval over games when
every unit is one game. A confidence sequence (confidence_sequence) is the interval to
watch while a run grows: it holds at every stopping time at once, so a run may stop when
it looks precise enough. Runner, winrates.parquet, summary, report, compare, card-impact and
solo all take their intervals from here, so the same quantity prints the same interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

P_FLOOR = 1e-16
"""p-values below this are printed as '<1e-16': double precision cannot tell them apart."""


def z_score(confidence: float) -> float:
    """Two-sided standard-normal quantile for a confidence level (1.96 for 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion successes/n; (0, 1) when n is 0.

    n may be an effective sample size (not a whole number).
    Unlike the Wald interval it stays inside [0, 1] and keeps its coverage near 0 and 1.
    """
    if n < 0 or not 0 <= successes <= max(n, 0) * (1 + 1e-12):
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    z = z_score(confidence)
    if n == 0:
        return 0.0, 1.0
    p = min(successes / n, 1.0)
    shrink = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z / shrink * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def p_text(p: float) -> str:
    """A p-value in two significant digits, floored at P_FLOOR; every command prints these."""
    if math.isnan(p):
        return "—"
    return f"<{P_FLOOR:.0e}" if p < P_FLOOR else f"{p:.2g}"


def unit_text(units: int, unit: str) -> str:
    """'50,000 pairs' or '1 game': what an interval counts as its independent observations."""
    return f"{units:,} {unit}{'' if units == 1 else 's'}"


@dataclass(frozen=True)
class Tally:
    """Additive sums over units of a ratio quantity y/z: units, y, z, and the sums of y_u^2,
    z_u^2 and y_u*z_u over units (y_u, z_u a unit's totals)."""

    units: int
    y: float
    z: float
    yy: float
    zz: float
    yz: float

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(self.fields(), other.fields(), strict=True)))

    def fields(self) -> tuple:
        return self.units, self.y, self.z, self.yy, self.zz, self.yz

    @property
    def ratio(self) -> float:
        """y / z (NaN when z is 0)."""
        return self.y / self.z if self.z else math.nan

    def variance(self) -> float:
        """Cluster-robust variance of y/z: sum over units of (y_u - r z_u)^2, over z^2."""
        if not self.z:
            return math.nan
        r = self.ratio
        spread = self.yy - 2 * r * self.yz + r * r * self.zz
        return max(spread, 0.0) / (self.z * self.z)


def events(k: int, both: int, units: int, games: int) -> Tally:
    """A rate's tally from counts: k games with the event of `games`, in `units` units of
    games/units games each (1 or 2), `both` of them with the event in both games."""
    if units and games == 2 * units:
        return Tally(units, k, games, k + 2 * both, 4 * units, 2 * k)
    if games != units or both:
        raise ValueError(f"units of one or two games only: {units} units, {games} games")
    return Tally(units, k, games, k, games, k)


def points(counts: list[int] | tuple[int, ...], games: int) -> Tally:
    """A's score tally from units by A's half-points (counts[h]: units where A took h half
    points; 0..4 for pairs, 0..2 for single games): score = (wins + draws/2) / games."""
    units = int(sum(counts))
    per_unit = games // units if units else 1
    y = sum(h * c for h, c in enumerate(counts)) / 2
    yy = sum(h * h * c for h, c in enumerate(counts)) / 4
    return Tally(units, y, games, yy, per_unit * per_unit * units, per_unit * y)


@dataclass(frozen=True)
class Estimate:
    """A quantity with its interval and what it counts: value, low, high, the units (pairs
    or games) the interval treats as independent, the games, and the effective size."""

    value: float
    low: float
    high: float
    units: int
    games: int
    unit: str
    n_eff: float

    @property
    def sample(self) -> str:
        """'50,000 pairs' (what the interval counts)."""
        return unit_text(self.units, self.unit)

    def text(self, percent: bool = True) -> str:
        """'51.2% [50.5, 51.9]' for a rate, '34.10 [33.90, 34.30]' for a mean."""
        if math.isnan(self.value):
            return "—"
        if percent:
            return f"{100 * self.value:.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}]"
        if math.isnan(self.low):
            return f"{self.value:.2f}"
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


def effective_size(t: Tally) -> float:
    """p(1-p) / variance: the independent games a rate is worth. With no spread at all (every
    unit alike) it is the number of units when p is 0 or 1, and infinite otherwise."""
    p = t.ratio
    v = t.variance()
    if p <= 0 or p >= 1:
        return float(t.units)
    return p * (1 - p) / v if v > 0 else math.inf


def rate(t: Tally, unit: str, confidence: float = 0.95) -> Estimate:
    """A rate (a share in [0, 1], or A's score) with Wilson's interval on its effective size."""
    if not t.z:
        return Estimate(math.nan, 0.0, 1.0, t.units, 0, unit, 0.0)
    p = min(max(t.ratio, 0.0), 1.0)
    n = effective_size(t)
    low, high = wilson(p * n, n, confidence) if math.isfinite(n) else (p, p)
    return Estimate(p, low, high, t.units, int(t.z), unit, n)


def mean(t: Tally, unit: str, confidence: float = 0.95) -> Estimate:
    """A mean with a t interval on units - 1 degrees of freedom, its variance cluster-robust
    with the small-sample factor units / (units - 1); NaN bounds under two units."""
    value = t.ratio
    if t.units < 2 or math.isnan(value):
        return Estimate(value, math.nan, math.nan, t.units, int(t.z), unit, t.units)
    from scipy import special  # reports only; special.stdtrit is scipy.stats.t.ppf, lighter

    se = math.sqrt(t.variance() * t.units / (t.units - 1))
    half = float(special.stdtrit(t.units - 1, 0.5 + confidence / 2.0)) * se
    return Estimate(value, value - half, value + half, t.units, int(t.z), unit, t.units)


def sequence_tuning(plan: int, confidence: float = 0.95) -> float:
    """rho^2 that makes the confidence sequence narrowest at `plan` units (the closed-form
    approximation of Waudby-Smith et al. 2021, their appendix on tuning)."""
    if plan < 1:
        raise ValueError(f"the planned units must be at least 1, got {plan}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    log_a = math.log(1.0 / (1.0 - confidence))
    return (2 * log_a + math.log(1 + 2 * log_a)) / plan


def sequence_margin(units: int, plan: int, confidence: float = 0.95) -> float:
    """The confidence sequence's half width for units of unit variance at `units` units:
    sqrt(2(t rho^2 + 1) / (t^2 rho^2) * log(sqrt(t rho^2 + 1) / alpha)), rho tuned for plan."""
    rho2 = sequence_tuning(plan, confidence)
    log_term = math.log(math.sqrt(units * rho2 + 1) / (1.0 - confidence))
    return math.sqrt(2 * (units * rho2 + 1) / (units * units * rho2) * log_term)


def unit_variance(t: Tally) -> float:
    """The per-unit variance of y/z on units - 1 (Tally.variance is that of the ratio)."""
    n = t.units
    return t.variance() * n * n / (n - 1)


def confidence_sequence(t: Tally, plan: int, confidence: float = 0.95) -> tuple[float, float]:
    """An anytime-valid interval for y/z: with probability `confidence` it covers the truth
    at every number of units at once, so it may be watched as units arrive and a run stopped
    when it is narrow enough. The asymptotic confidence sequence of Waudby-Smith, Arbour,
    Sinha, Kennedy & Ramdas (2021, "Time-uniform central limit theory"): ratio ± sigma *
    sequence_margin, sigma the per-unit standard deviation (cluster-robust, as in
    Tally.variance), rho tuned for `plan` units (narrowest there, valid at every t). NaN
    bounds under two units."""
    sequence_tuning(plan, confidence)  # checks plan and confidence
    n, r = t.units, t.ratio
    if n < 2 or math.isnan(r):
        return math.nan, math.nan
    half = math.sqrt(unit_variance(t)) * sequence_margin(n, plan, confidence)
    return r - half, r + half


def sequential_rate(t: Tally, unit: str, plan: int, confidence: float = 0.95) -> Estimate:
    """A rate with its confidence sequence (clipped to [0, 1]) in place of Wilson's
    interval: the estimate to stop on. Its n_eff is the units."""
    low, high = confidence_sequence(t, plan, confidence)
    if math.isnan(low):
        low, high = 0.0, 1.0
    p = min(max(t.ratio, 0.0), 1.0) if t.z else math.nan
    return Estimate(p, max(low, 0.0), min(high, 1.0), t.units, int(t.z), unit, t.units)
