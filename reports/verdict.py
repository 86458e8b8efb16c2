"""Equivalence verdicts: is a rate balanced at 50% within a designer's margin, and if not,
by how much and for whom, or how many more pairs would tell.

The margin m (in points) says what "balanced" means. With the rate's 95% interval from
sim.stats (the pair as the unit), the verdict is:
  balanced     the interval lies inside 50% ± m: two one-sided tests (TOST), each at 2.5%;
  favours X    the interval lies wholly beyond the margin on X's side;
  inconclusive otherwise, with about how many more units (pairs) would decide it: the size
               at which the interval clears the margin with 80% predictive chance, allowing
               for today's estimate (and per-unit variance) being off by its own error; 50%
               chance when today's evidence cannot promise 80% at any size.
The same logic serves the first seat against the second, strategy A against B, and a solo
level's human against the CPU.

`against` is that rule for any target, a range or one bound: met when the interval lies
inside (for a range, TOST), missed when it lies wholly outside, open otherwise; `decide` is
`against` on the band 50% ± m, and `sim tune` decides its targets with it, so the tuner and
the board give the same verdict on the same interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from reports import present
from sim.stats import Tally, rate, z_score

DEFAULT_MARGIN = 1.0
"""Points either side of 50% that still count as balanced (the `--margin` default)."""

POWER = 0.80
"""The chance that the suggested number of more pairs decides, if the estimate is right."""

MORE_CAP = 10**9
"""Beyond this many more units a verdict is called out of reach."""


@dataclass(frozen=True)
class Verdict:
    """One verdict on a rate centred at 50%: kind ('balanced', 'favours', 'inconclusive'),
    the advantage (rate - 50%) with its interval, the margin (all as fractions), the side the
    advantage favours, the units behind it, and for an inconclusive one how many more units."""

    kind: str
    advantage: float
    low: float
    high: float
    margin: float
    favoured: str
    units: int
    unit: str
    more: int | None = None

    def text(self) -> str:
        """'balanced within ±1.0 pts', 'favours first seat by +1.8 [+1.5, +2.1]' or
        'inconclusive: about 12,000 more pairs would decide'."""
        if self.kind == "balanced":
            return f"balanced within ±{100 * self.margin:.1f} pts"
        if self.kind == "favours":
            return f"favours {self.favoured} by {self._shift()}"
        return f"inconclusive: {self.more_text()}"

    def short(self) -> str:
        """The verdict in a few words, for the balance board."""
        if self.kind == "balanced":
            return f"balanced ±{100 * self.margin:.1f}"
        if self.kind == "favours":
            return f"favours {self.favoured}"
        return f"inconclusive: ~{self.more_text(short=True)}"

    def more_text(self, short: bool = False) -> str:
        """'about 12,000 more pairs would decide' (or '12,000 more pairs' when short)."""
        if self.more is None or self.more >= MORE_CAP:
            return "out of reach" if short else "no feasible sample decides (at the margin)"
        n = f"{present.about(self.more)} more {self.unit}{'' if self.more == 1 else 's'}"
        return n if short else f"about {n} would decide"

    def _shift(self) -> str:
        """The advantage as seen from the favoured side, '+1.8 [+1.5, +2.1]'."""
        sign = 1 if self.advantage >= 0 else -1
        lo, hi = sorted((sign * self.low, sign * self.high))
        return f"{100 * sign * self.advantage:+.1f} {present.interval(lo, hi, signed=True)}"

    def to_json(self) -> dict:
        """The verdict as plain JSON values (fractions, not points)."""
        return {
            "kind": self.kind,
            "text": self.text(),
            "advantage": self.advantage,
            "low": self.low,
            "high": self.high,
            "margin": self.margin,
            "favoured": self.favoured,
            "units": self.units,
            "unit": self.unit,
            "more_units": self.more,
        }


def decide(
    t: Tally, unit: str, margin_pts: float, sides: tuple[str, str], confidence: float = 0.95
) -> Verdict:
    """The verdict on the rate t holds against 50% within ± margin_pts points; sides names
    who a rate above and below 50% favours, e.g. ('first seat', 'second seat')."""
    if not margin_pts > 0:
        raise ValueError(f"the margin must be above 0 points, got {margin_pts}")
    m = margin_pts / 100
    e = rate(t, unit, confidence)
    adv, low, high = e.value - 0.5, e.low - 0.5, e.high - 0.5
    favoured = sides[0] if adv >= 0 else sides[1]
    kind = BAND_KINDS[against(low, high, -m, m)]
    more = more_units(t, adv, m, confidence) if kind == "inconclusive" else None
    return Verdict(kind, adv, low, high, m, favoured, t.units, unit, more)


BAND_KINDS = {"met": "balanced", "missed": "favours", "open": "inconclusive"}
"""A target's verdict in the board's words, for the band 50% ± margin."""


def against(low: float, high: float, lower: float | None, upper: float | None) -> str:
    """'met', 'missed' or 'open' for the interval [low, high] against the target
    lower < value < upper (either bound may be None: a one-sided target).

    met: the whole interval lies strictly inside (for a range, two one-sided tests);
    missed: the whole interval lies strictly beyond one bound; open: neither, which includes
    an interval touching a bound, one wider than the range, and a NaN end (no comparison
    holds)."""
    if (lower is None or low > lower) and (upper is None or high < upper):
        return "met"
    if (lower is not None and high < lower) or (upper is not None and low > upper):
        return "missed"
    return "open"


def pairs_needed(inside: float, spread: float, confidence: float = 0.95) -> float:
    """Units in all for a fresh sample's interval to clear a bound the estimate lies `inside`
    (> 0) with POWER chance, if the estimate is right: the textbook ((z + z_power) s / d)^2,
    at least 2; infinite when the estimate is not inside or the spread is unknown.

    Fresh, not more: `sim tune` confirms on new seeds, so today's units do not add to the
    new sample, unlike more_units."""
    if not inside > 0 or not math.isfinite(spread):
        return math.inf
    z = z_score(confidence) + z_score(2 * POWER - 1)
    return max(2.0, (z * spread / inside) ** 2)


def more_units(t: Tally, advantage: float, margin: float, confidence: float = 0.95) -> int:
    """About how many more units would put the interval clear of the margin with POWER
    chance (50% when the evidence so far cannot promise POWER at any size). The chance is
    predictive: it allows for today's estimate being off the truth by its own error, so a
    small first sample asks for more than the plain sample-size formula would."""
    spread = t.variance() * t.units  # the variance of the rate is spread / units
    distance = abs(abs(advantage) - margin)
    if not (distance > 0 and spread > 0 and math.isfinite(spread)):
        return MORE_CAP
    for target in (POWER, 0.5):
        m = _smallest(
            lambda more, aim=target: chance(more, t.units, spread, distance, confidence) >= aim
        )
        if m is not None:
            return m
    return MORE_CAP


def chance(more: int, units: int, spread: float, distance: float, confidence: float) -> float:
    """The predictive chance that with `more` units the interval clears the margin on the
    estimate's side: the final estimate is normal around today's with variance
    spread * more / (units * total); it must lie z * sqrt(spread / total) beyond the margin."""
    total = units + more
    z = z_score(confidence)
    sd = math.sqrt(spread * more / (units * total))
    return NormalDist().cdf((distance - z * math.sqrt(spread / total)) / sd)


def _smallest(ok) -> int | None:
    """The smallest m in 1..MORE_CAP with ok(m) (ok is monotone), None when there is none."""
    if not ok(MORE_CAP):
        return None
    low, high = 1, MORE_CAP
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if ok(mid) else (mid + 1, high)
    return low
