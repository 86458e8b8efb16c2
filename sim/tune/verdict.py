"""Whether a target is met, from a metric's 95% interval, and how many pairs would tell.

met: the whole interval lies inside the target (for a range this is TOST: two one-sided
tests, each at 2.5%); missed: the whole interval lies outside it; open: neither. The pairs
needed are the usual sample-size formula at 80% power, ((z + z_power) s / d)^2 for a
per-pair spread s and an estimate d inside the nearest bound. The same logic as the board's
reports/verdict.py (branch board), kept here until that lands; they should become one.
"""

from __future__ import annotations

import math

from sim.stats import z_score
from sim.tune.metrics import Value
from sim.tune.space import Target

POWER = 0.80
CONFIDENCE = 0.95


def decide(target: Target, v: Value) -> str:
    """'met', 'missed' or 'open' for the metric's interval against the target."""
    if math.isnan(v.low) or math.isnan(v.high):
        return "open"
    if max(target.excess(v.low), target.excess(v.high)) < 0:
        return "met"  # excess is convex: inside at both ends is inside throughout
    if target.excess(_closest(target, v.low, v.high)) > 0:
        return "missed"
    return "open"


def _closest(target: Target, low: float, high: float) -> float:
    """The point of [low, high] closest to the inside of the target."""
    if target.low is not None and target.high is not None:
        return min(max((target.low + target.high) / 2, low), high)
    return low if target.high is not None else high


def pairs_needed(target: Target, v: Value, spread: float) -> float:
    """Pairs in all for an interval around this estimate to clear the nearest bound with 80%
    power; infinite when the estimate is not inside the target."""
    inside = -target.excess(v.value)
    if not inside > 0 or not math.isfinite(spread):
        return math.inf
    z = z_score(CONFIDENCE) + z_score(2 * POWER - 1)
    return max(2.0, (z * spread / inside) ** 2)
