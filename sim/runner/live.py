"""Each cell's answer while a run plays: the first seat's advantage and A's score from the
chunks finished so far, with 95% confidence sequences (sim.stats), which stay valid at
whatever moment the designer looks or stops; a fixed-sample interval watched this way
would miss far more often than 5%."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim.runner.plan import RunPlan
from sim.stats import Tally, confidence_sequence, points
from sim.store.categories import FIRST_POINTS, POINTS


@dataclass(frozen=True)
class Live:
    """One cell's running figures: units and games so far, the first seat's score above
    50% and A's score, each (value, low, high) as shares (NaN while under two units)."""

    config: str
    matchup: str
    self_play: bool
    units: int
    unit: str
    first: tuple[float, float, float]
    a_score: tuple[float, float, float]


class LiveTally:
    """The plan's cells' win counts, summed as chunks land (quantities.win_counts' dicts)."""

    def __init__(self, plan: RunPlan):
        self._cells = {(c.config.name, c.matchup): c for c in plan.cells()}
        self._games = plan.games
        self._sums: dict[tuple[str, str], dict[str, int]] = {}

    def add(self, counts: dict) -> None:
        wins = counts["wins"]
        key = (wins["config"], wins["matchup"])
        held = self._sums.setdefault(key, dict.fromkeys(["games", *POINTS, *FIRST_POINTS], 0))
        for name in held:
            held[name] += wins[name]

    def cells(self) -> list[Live]:
        """The cells with at least one chunk, in the plan's order."""
        return [self._live(key) for key in self._cells if key in self._sums]

    def _live(self, key: tuple[str, str]) -> Live:
        held, cell = self._sums[key], self._cells[key]
        first = points([held[c] for c in FIRST_POINTS], held["games"])
        score = points([held[c] for c in POINTS], held["games"])
        planned = self._games // 2 if cell.swap else self._games  # units the cell will hold
        unit = "pair" if cell.swap else "game"
        return Live(
            *key, cell.a == cell.b, first.units, unit,
            _shifted(first, planned), _shifted(score, planned, 0.0),
        )  # fmt: skip


def _shifted(t: Tally, plan: int, by: float = 0.5) -> tuple[float, float, float]:
    """(ratio - by, low - by, high - by) of a tally with its confidence sequence."""
    if not t.z:
        return math.nan, math.nan, math.nan
    low, high = confidence_sequence(t, max(plan, 1))
    return t.ratio - by, low - by, high - by
