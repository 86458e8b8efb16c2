"""Which of two cells is closer to balanced: the distance of the first-seat advantage from
zero in B minus that in A, with its 95% interval (negative: B is closer).

Each advantage is the first seat's score (a draw half a win) minus 50%. Its distance from
zero is the advantage taken on the side of its estimate (|x| folded at 0), so the interval
is exact when both advantages are clearly away from zero and conservative near it. Runs on
the same seeds and seats are compared pair by pair (a paired t on the per-pair distances),
otherwise as independent rates (Newcombe on effective sizes), as reports/compare.py does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import polars as pl

from reports import present
from reports.stats import Difference, paired_difference, rate_difference
from reports.summary import first_score
from reports.tally import unit
from sim.stats import Estimate

NAME = "first-seat score"


@dataclass(frozen=True)
class Closer:
    """A's and B's first-seat score, and B's distance from balance minus A's."""

    a: Estimate
    b: Estimate
    diff: Difference

    @property
    def answer(self) -> str:
        """'B', 'A' or '' (neither detectably closer): where the interval lies."""
        if self.diff.high < 0:
            return "B"
        return "A" if self.diff.low > 0 else ""

    def text(self, name_a: str = "A", name_b: str = "B") -> str:
        """One sentence a designer can act on."""
        adv = (
            f"first-seat advantage {_adv(self.a)} in {name_a}, {_adv(self.b)} in {name_b}; "
            f"its distance from 50%, {name_b} - {name_a}: {present.pts(*_triple(self.diff))}"
        )
        if not self.answer:
            return f"neither is detectably closer to balanced: {adv}"
        closer = name_b if self.answer == "B" else name_a
        return f"{closer} is closer to balanced: {adv}"

    def to_json(self) -> dict:
        """Plain JSON values: fractions, not points."""

        def e(x: Estimate) -> dict:
            return {"value": x.value, "low": x.low, "high": x.high, "units": x.units}

        return {
            "closer": self.answer or None,
            "first_seat_score_a": e(self.a),
            "first_seat_score_b": e(self.b),
            "distance_change": {
                "estimate": self.diff.estimate,
                "low": self.diff.low,
                "high": self.diff.high,
                "paired": self.diff.paired,
                "p_value": self.diff.p_value,
            },
        }


def _triple(d: Difference) -> tuple[float, float, float]:
    return d.estimate, d.low, d.high


def _adv(e: Estimate) -> str:
    """'+1.8 pts [+1.5, +2.1]': the score's distance above 50%."""
    return present.pts(e.value - 0.5, e.low - 0.5, e.high - 0.5)


def _folded(e: Estimate) -> Estimate:
    """The estimate seen from the side it favours: a score below 50% mirrored above it."""
    if e.value >= 0.5:
        return e
    return replace(e, value=1 - e.value, low=1 - e.high, high=1 - e.low)


def closer(a: Estimate, b: Estimate, frames: tuple | None = None) -> Closer:
    """Compare two cells' first-seat scores; frames: both cells' games when they played the
    same seeds and seats (checked by the caller), compared pair by pair."""
    if frames is None:
        return Closer(a, b, rate_difference(_folded(a), _folded(b)))
    da, db = (_distances(f, e) for f, e in zip(frames, (a, b), strict=True))
    return Closer(a, b, paired_difference(da, db))


def closer_of(a: Estimate, b: Estimate, paired_sums: dict | None) -> Closer:
    """closer() from the two first-seat score estimates and, when paired, the running sums
    of the distances for each pair of signs (reports.paired.pair_parts)."""
    if paired_sums is None:
        return Closer(a, b, rate_difference(_folded(a), _folded(b)))
    signs = tuple(1.0 if e.value >= 0.5 or math.isnan(e.value) else -1.0 for e in (a, b))
    return Closer(a, b, paired_sums[("closer", *signs)].difference())


def _distances(frame: pl.DataFrame, e: Estimate):
    """Per unit (in unit order) its first-seat score minus 50%, on the estimate's side."""
    if "pair" not in frame.columns:
        frame = frame.with_columns(pl.lit(None, pl.Int64).alias("pair"))
    per = frame.group_by(unit().alias("_unit")).agg(first_score().mean().alias("s")).sort("_unit")
    sign = 1.0 if e.value >= 0.5 or math.isnan(e.value) else -1.0
    return sign * (per["s"].to_numpy() - 0.5)
