"""Statistics for comparing runs: differences, Holm, Elo and SPRT.

Pure functions over numpy/scipy, no I/O. Every confidence level defaults to 0.95. The
estimate of one quantity, and its interval, comes from sim.stats; this module compares them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special  # scipy.stats (a second to import) only for two tests, below

from sim.stats import Estimate, Tally, events, p_text, rate, wilson  # noqa: F401 - one source

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Logistic Elo: elo = ELO_PER_NAT * logit(score)."""

REGULARIZE = 1e-3
"""Stand-in for an empty pentanomial cell in the SPRT, as fishtest's regularize() does."""


def _z(confidence: float) -> float:
    """Two-sided standard-normal quantile for a confidence level; shared by every interval."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(special.ndtri(0.5 + confidence / 2.0))  # = scipy.stats.norm.ppf


@dataclass(frozen=True)
class Difference:
    """A difference b - a between two runs, with its interval and two-sided p-value."""

    estimate: float
    low: float
    high: float
    p_value: float
    paired: bool
    n_a: int
    n_b: int


def _pooled_p(p_a: float, n_a: float, p_b: float, n_b: float) -> float:
    """Two-proportion z-test p-value with the pooled rate, on (effective) sample sizes."""
    if math.isinf(n_a) and math.isinf(n_b):
        return 1.0 if p_a == p_b else 0.0
    weights = (0.5, 0.5) if math.isinf(n_a + n_b) else (n_a / (n_a + n_b), n_b / (n_a + n_b))
    pooled = weights[0] * p_a + weights[1] * p_b
    var = pooled * (1 - pooled) * (1 / n_a + 1 / n_b)
    if var <= 0:
        return 1.0 if p_a == p_b else 0.0
    return float(2.0 * special.ndtr(-abs(p_b - p_a) / math.sqrt(var)))  # = norm.sf


def _newcombe(a: Estimate, b: Estimate) -> tuple[float, float]:
    """Newcombe's (1998, method 10) hybrid interval for b - a from the two Wilson intervals."""
    d = b.value - a.value
    low = max(-1.0, d - math.hypot(b.value - b.low, a.high - a.value))
    high = min(1.0, d + math.hypot(b.high - b.value, a.value - a.low))
    return low, high


def rate_difference(a: Estimate, b: Estimate) -> Difference:
    """p_b - p_a of two independent rates: Newcombe's interval on the Wilson intervals of
    their effective sizes, and the pooled z-test on those sizes."""
    if not (a.n_eff > 0 and b.n_eff > 0):
        raise ValueError("both runs need at least one game")
    p = _pooled_p(a.value, a.n_eff, b.value, b.n_eff)
    low, high = _newcombe(a, b)
    return Difference(b.value - a.value, low, high, p, paired=False, n_a=a.units, n_b=b.units)


def mean_difference(a: Tally, b: Tally, confidence: float = 0.95) -> Difference:
    """mean(b) - mean(a) of independent runs: Welch's t on the cluster-robust variances, with
    Welch-Satterthwaite degrees of freedom over units."""
    if a.units < 2 or b.units < 2:
        raise ValueError("each run needs at least two units")
    va, vb = (t.variance() * t.units / (t.units - 1) for t in (a, b))
    d = b.ratio - a.ratio
    if va + vb == 0:
        return Difference(d, d, d, 1.0 if d == 0 else 0.0, False, a.units, b.units)
    df = (va + vb) ** 2 / (va**2 / (a.units - 1) + vb**2 / (b.units - 1))
    se = math.sqrt(va + vb)
    half = float(special.stdtrit(df, 0.5 + confidence / 2.0)) * se  # = scipy.stats.t.ppf
    p = float(2.0 * special.stdtr(df, -abs(d) / se))  # = t.sf
    return Difference(d, d - half, d + half, p, False, a.units, b.units)


def paired_difference(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> Difference:
    """mean(b - a) over units (pair means, or games) with the same seeds and seats: t
    interval and paired t-test. Pairing cancels the deal's luck, so it needs far fewer games.
    """
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a_arr.shape != b_arr.shape or a_arr.ndim != 1 or a_arr.size < 2:
        raise ValueError("a and b must be 1-d arrays of the same length, at least 2")
    if not (np.isfinite(a_arr).all() and np.isfinite(b_arr).all()):
        raise ValueError("outcomes must be finite")
    d = b_arr - a_arr
    n, mean = d.size, float(d.mean())
    if (d == d[0]).all():  # t is 0/0 or infinite, and scipy would warn
        c = float(d[0])
        return Difference(c, c, c, 1.0 if c == 0 else 0.0, paired=True, n_a=n, n_b=n)
    sd = float(d.std(ddof=1))
    half = float(special.stdtrit(n - 1, 0.5 + confidence / 2.0)) * sd / math.sqrt(n)
    from scipy import stats as sps

    p = float(sps.ttest_rel(b_arr, a_arr).pvalue)
    return Difference(mean, mean - half, mean + half, p, paired=True, n_a=n, n_b=n)


def holm(p_values: Sequence[float], alpha: float = 0.05) -> list[tuple[float, bool]]:
    """Holm-Bonferroni adjusted p-values (input order) and whether each is rejected at alpha.

    Controls the family-wise error over many comparisons, uniformly more powerful than Bonferroni.
    """
    p = np.asarray(p_values, dtype=float)
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return [(float(q), bool(q <= alpha)) for q in adjusted]


def elo_from_score(score: float) -> float:
    """Logistic Elo difference 400*log10(s/(1-s)) for an expected score s; -inf/+inf at 0/1."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be in [0, 1], got {score}")
    return float(ELO_PER_NAT * special.logit(score))


def score_from_elo(elo: float) -> float:
    """Expected score 1/(1+10^(-elo/400)) for a logistic Elo difference; inverse of the above."""
    return float(special.expit(elo / ELO_PER_NAT))


@dataclass(frozen=True)
class Pentanomial:
    """Counts of seat-swapped game pairs by player A's points over the pair (win 1, draw 0.5).

    Order as fishtest: 0 (LL), 0.5 (LD, DL), 1 (LW, WL, DD), 1.5 (DW, WD), 2 (WW) points.
    """

    zero: int
    half: int
    one: int
    one_and_half: int
    two: int

    def __post_init__(self) -> None:
        """Reject negative counts, which no tally can produce."""
        if min(self.counts()) < 0:
            raise ValueError(f"pentanomial counts must be >= 0, got {self.counts()}")

    def counts(self) -> tuple[int, int, int, int, int]:
        """The five counts from 0 to 2 points."""
        return self.zero, self.half, self.one, self.one_and_half, self.two

    @classmethod
    def from_pair_scores(cls, scores: Sequence[float] | np.ndarray) -> Pentanomial:
        """Tally pair scores (each 0, 0.5, 1, 1.5 or 2) into a pentanomial."""
        halves = np.asarray(scores, dtype=float) * 2.0
        if not np.isin(halves, np.arange(5)).all():
            raise ValueError("pair scores must be 0, 0.5, 1, 1.5 or 2")
        return cls(*(int(c) for c in np.bincount(halves.astype(int), minlength=5)))


PentanomialLike = Pentanomial | Sequence[float] | np.ndarray


def _pdf_stats(counts: PentanomialLike, regularize: bool) -> tuple[float, float, float]:
    """Number of pairs, mean and (population) variance of the per-game pair score in [0, 1]."""
    c = np.asarray(counts.counts() if isinstance(counts, Pentanomial) else counts, dtype=float)
    if c.shape != (5,) or (c < 0).any():
        raise ValueError("need five non-negative pentanomial counts")
    if regularize:
        c = np.where(c == 0, REGULARIZE, c)
    n = float(c.sum())
    if n == 0:
        raise ValueError("no game pairs")
    quarters = np.arange(5.0)  # pair score / 2 in quarters: exact sums for integer counts
    mu = float(c @ quarters) / (4.0 * n)
    return n, mu, float(c @ (quarters / 4.0 - mu) ** 2) / n


# The SPRT statistic is fishtest's LLR_alt2 (server/fishtest/stats/LLRcalc.py) applied to the
# pentanomial distribution built as its results_to_pdf does (empty cells regularized to 1e-3):
#     LLR = N * (s1 - s0) * (2*mu - s0 - s1) / (2*var)
# with N the number of pairs, s_i = score_from_elo(elo_i) (logistic Elo, per-game score),
# mu and var the mean and population variance of x = pair points / 2 in {0, 1/4, 1/2, 3/4, 1}.
# It is the log-likelihood ratio of two normal means, N/(2 var) * ((mu-s0)^2 - (mu-s1)^2),
# approximating the generalized LLR: M. Van den Bergh, "GSPRT approximation",
# https://www.cantate.be/Fishtest/GSPRT_approximation.pdf. Zero exactly when mu = (s0 + s1)/2.


def sprt_llr(counts: PentanomialLike, elo0: float, elo1: float) -> float:
    """Approximate generalized log-likelihood ratio of elo1 against elo0 (logistic Elo).

    N * (s1 - s0) * (2*mu - s0 - s1) / (2*var) over N pairs; see the comment above for terms.
    """
    n, mu, var = _pdf_stats(counts, regularize=True)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds (log(beta/(1-alpha)), log((1-beta)/alpha)) for the LLR."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise ValueError("alpha and beta must be in (0, 1)")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_decision(
    counts: PentanomialLike, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05
) -> str:
    """Wald's decision on the LLR: 'H1' (accept elo1), 'H0' (accept elo0) or 'continue'."""
    if not elo0 < elo1:
        raise ValueError(f"need elo0 < elo1, got {elo0}, {elo1}")
    lower, upper = sprt_bounds(alpha, beta)
    llr = sprt_llr(counts, elo0, elo1)
    if llr >= upper:
        return "H1"
    return "H0" if llr <= lower else "continue"


def elo_estimate(counts: PentanomialLike, confidence: float = 0.95) -> tuple[float, float, float]:
    """Elo of A with its interval: mean pair score ± z * sqrt(var / pairs), mapped to Elo.

    The score interval is clipped to [0, 1]; a bound at 0 or 1 maps to -inf or +inf.
    """
    z = _z(confidence)
    n, mu, var = _pdf_stats(counts, regularize=False)
    half = z * math.sqrt(var / n)
    low, high = max(0.0, mu - half), min(1.0, mu + half)
    return elo_from_score(mu), elo_from_score(low), elo_from_score(high)
