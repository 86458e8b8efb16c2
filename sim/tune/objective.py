"""One trial: write the point's config, play it through the runner in rungs, measure it.

Successive halving in two lines: rung 0 plays `pairs` pairs per match-up, and each later
rung as many more as have been played (so 1x, 2x, 4x ... in all); a trial stops before the
next rung as soon as some target's interval lies wholly outside it (a clear miss needs no
more precision), so only candidates that still may meet every target get the full budget.

Every rung k has one master seed for all trials (common random numbers: configs are
compared on the same deals), and each rung is its own run folder DIR/trials/NNNN/rK, so it is
verified and resumed like any run; its tallies add to the trial's estimates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sim.tune import candidate, metrics
from sim.tune.space import Space, Target

if TYPE_CHECKING:
    from sim.runner.run import RunOptions

Runner = Callable[[Path, tuple[str, ...], int, int, Path], None]
"""runner(config_path, matchups, pairs, master_seed, out): play a run folder to completion."""


def derived_seed(seed: int, *key: int) -> int:
    """A 64-bit master seed for one use of the study's seed (a rung, the confirmation)."""
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1, np.uint64)[0])


def rung_seed(seed: int, rung: int) -> int:
    return derived_seed(seed, 0, rung)


def rung_pairs(pairs: int, rung: int) -> int:
    """Pairs rung k adds: pairs, then as many as played so far (totals double)."""
    return pairs if rung == 0 else pairs * 2 ** (rung - 1)


@dataclass(frozen=True)
class Evaluation:
    """A trial's measurements: every metric of every match-up as [value, low, high, units,
    per-pair spread], the pairs per match-up and rungs played, and whether it stopped early."""

    values: dict[str, list[float]]
    pairs: int
    rungs: int
    stopped_early: bool

    def value(self, target: Target) -> metrics.Value:
        return metrics.Value(*self.values[target.name][:4])

    def spread(self, target: Target) -> float:
        return self.values[target.name][4]

    def excess(self, target: Target) -> float:
        return target.excess(self.value(target).value)


def measured(tallies: dict, targets: tuple[Target, ...] = ()) -> dict[str, list[float]]:
    """'metric[matchup]' -> [value, low, high, units, spread] from summed tallies, and each
    skill target's entry (its deciding level's, with_levels)."""
    out = {}
    for matchup, by_metric in tallies.items():
        for name, tally in by_metric.items():
            v = metrics.value(name, tally)
            out[f"{name}[{matchup}]"] = [
                v.value,
                v.low,
                v.high,
                v.units,
                metrics.spread(name, tally),
            ]
    return with_levels(out, targets)


SEVERITY = {"missed": 0, "open": 1, "met": 2}


def with_levels(values: dict[str, list[float]], targets: tuple[Target, ...]) -> dict:
    """values plus, under each skill target's name, the entry of the level that decides it:
    a missed level before an open one before a met one, the furthest outside first. So the
    target is met only when every level is, missed when any is, and its objective is the
    worst level's excess."""
    out = dict(values)
    for t in targets:
        if t.levels:
            rows = [values[f"{t.metric}[{p},{p}]"] for p in t.levels]
            verdict = {id(r): t.verdict(metrics.Value(*r[:4])) for r in rows}
            out[t.name] = min(rows, key=lambda r: (SEVERITY[verdict[id(r)]], -t.excess(r[0])))
    return out


def evaluate(
    space: Space, values: dict, folder: Path, seed: int, runner: Runner, description: str
) -> Evaluation:
    """Play the point in rungs into folder (early stop on a clear miss) and measure it."""
    config = folder / f"{folder.name}.toml"
    candidate.write(space, values, config, description)
    total: dict = {}
    rungs = space.search["rungs"]
    pairs = 0
    for k in range(rungs):
        run = folder / f"r{k}"
        runner(
            config, space.matchups, rung_pairs(space.search["pairs"], k), rung_seed(seed, k), run
        )
        total = metrics.add(total, metrics.tallies(run))
        pairs += rung_pairs(space.search["pairs"], k)
        evaluation = Evaluation(measured(total, space.targets), pairs, k + 1, k + 1 < rungs)
        if k + 1 < rungs and clear_miss(space, evaluation):
            return evaluation
    return Evaluation(evaluation.values, pairs, rungs, False)


def clear_miss(space: Space, evaluation: Evaluation) -> bool:
    """Some target's interval lies wholly outside it."""
    return any(t.verdict(evaluation.value(t)) == "missed" for t in space.targets)


CHUNKS_PER_CELL = 4  # from the games alone, so a rerun on another machine continues the run


def runner_for(options: RunOptions) -> Runner:
    """A Runner that plays through sim's batch runner (all cores, or a Dask cluster)."""
    from sim.runner.plan import make_plan
    from sim.runner.run import execute

    def run(config: Path, matchups: tuple[str, ...], pairs: int, seed: int, out: Path) -> None:
        games = 2 * pairs
        chunk = max(2, -(-games // CHUNKS_PER_CELL))
        plan = make_plan([str(config)], list(matchups), games, seed, chunk_size=chunk)
        execute(plan, out, options)

    return run
