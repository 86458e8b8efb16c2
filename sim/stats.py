"""Interval arithmetic the simulator itself needs (the run summaries), free of scipy.

reports.stats re-exports wilson, so reports and runner give the same intervals.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def z_score(confidence: float) -> float:
    """Two-sided standard-normal quantile for a confidence level (1.96 for 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion successes/n; (0, 1) when n is 0.

    Unlike the Wald interval it stays inside [0, 1] and keeps its coverage near 0 and 1.
    """
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    z = z_score(confidence)
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    shrink = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z / shrink * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
