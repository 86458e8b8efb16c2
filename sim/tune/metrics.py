"""A trial's metrics from its run folders: per match-up Tallies (the pair as the unit) of the
board's quantities, read from each folder's tallies (sim/store/cell_tallies.py), and their
estimates with intervals from sim/stats.py, in the units targets are written in.

Tallies add, so the rungs a trial played (separate runs on their own common seeds) sum to
one estimate over all its pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sim.stats import Estimate, Tally, mean, rate

UNIT_SCALE = {"first_seat": 100.0, "a_score": 100.0, "tiebreak": 100.0, "draw": 100.0}
SHIFT = {"first_seat": 50.0}  # first seat's score 50% is an advantage of 0 points


QUANTITIES = {  # metric -> its quantity in the workers' tallies (sim/store/quantities.py)
    "first_seat": "seat:first score",
    "a_score": "win:A score",
    "tiebreak": "outcome:tiebreak",
    "draw": "win:draw",
    "turns": "turns",
}


def tallies(run: Path) -> dict[str, dict[str, Tally]]:
    """matchup -> metric -> Tally over one run folder's games (the workers' tallies, read
    through the one run-folder reader; a match-up's configs summed)."""
    from sim.store.cell_tallies import summed
    from sim.store.folder import open_run

    by_matchup = summed((matchup, t) for (_, matchup), t in open_run(run).tallies.items())
    return {
        matchup: {m: t.tally(q) for m, q in QUANTITIES.items()} for matchup, t in by_matchup.items()
    }


def add(a: dict[str, dict[str, Tally]], b: dict[str, dict[str, Tally]]) -> dict:
    """The two runs' tallies summed, match-up by match-up."""
    out = {m: dict(t) for m, t in a.items()}
    for matchup, metrics in b.items():
        mine = out.setdefault(matchup, {})
        for name, tally in metrics.items():
            mine[name] = mine[name] + tally if name in mine else tally
    return out


@dataclass(frozen=True)
class Value:
    """A metric in its target's units (points, %, turns) with its 95% interval and units."""

    value: float
    low: float
    high: float
    units: int

    def text(self) -> str:
        return f"{self.value:+.1f} [{self.low:+.1f}, {self.high:+.1f}]"

    def plain(self) -> str:
        return f"{self.value:.1f} [{self.low:.1f}, {self.high:.1f}]"


def value(metric: str, tally: Tally) -> Value:
    """The metric's estimate with its interval, in the units targets use."""
    estimate: Estimate = mean(tally, "pair") if metric == "turns" else rate(tally, "pair")
    scale, shift = UNIT_SCALE.get(metric, 1.0), SHIFT.get(metric, 0.0)
    return Value(
        estimate.value * scale - shift,
        estimate.low * scale - shift,
        estimate.high * scale - shift,
        estimate.units,
    )


def spread(metric: str, tally: Tally) -> float:
    """The per-unit standard deviation of the metric, in its units: sqrt(var * units)."""
    return (max(tally.variance(), 0.0) * tally.units) ** 0.5 * UNIT_SCALE.get(metric, 1.0)
