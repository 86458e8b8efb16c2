"""Confirmation: the trials whose estimates meet every target are played again on fresh
seeds (one confirmation seed, the same for every candidate and the start config), with as
many pairs as the sample-size estimate says the verdicts need (pairs_needed of
reports/verdict.py, capped at search.confirm_max_pairs). Only a candidate whose every target
is then met, its whole interval inside, is confirmed. Results are kept in the study (user
attrs confirm:N).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from reports.verdict import pairs_needed
from sim.tune import candidate, metrics, objective
from sim.tune.objective import Evaluation, Runner
from sim.tune.space import Space

START = "start"


def evaluation(trial) -> Evaluation:
    """A finished trial's measurements, as the study stored them."""
    a = trial.user_attrs
    return Evaluation(a["values"], a["pairs"], a["rungs"], a["stopped_early"])


def needed(space: Space, e: Evaluation) -> float:
    """Pairs the least certain target needs to be decided (inf when one is missed)."""
    return max(pairs_needed(-e.excess(t), e.spread(t)) for t in space.targets)


def candidates(space: Space, trials: list) -> list:
    """Finished trials whose estimates meet every target, fewest pairs needed first, at most
    search.confirm_candidates of them."""
    distinct = [t for t in trials if "same_as" not in t.user_attrs]  # each point once
    meeting = [t for t in distinct if all(evaluation(t).excess(g) <= 0 for g in space.targets)]
    meeting.sort(key=lambda t: (needed(space, evaluation(t)), t.number))
    return meeting[: space.search["confirm_candidates"]]


def size(space: Space, e: Evaluation) -> int:
    """Confirmation pairs: the estimate of what is needed, at least the search's first rung,
    at most confirm_max_pairs."""
    n = needed(space, e)
    cap = space.search["confirm_max_pairs"]
    return cap if not math.isfinite(n) else int(min(cap, max(space.search["pairs"], math.ceil(n))))


@dataclass(frozen=True)
class Confirmation:
    """A config replayed on the confirmation seed: its pairs, measurements and verdicts."""

    name: str
    pairs: int
    needed: float
    values: dict[str, list[float]]
    verdicts: dict[str, str]

    @property
    def confirmed(self) -> bool:
        return all(v == "met" for v in self.verdicts.values())

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "pairs": self.pairs,
            "needed": self.needed if math.isfinite(self.needed) else None,
            "values": self.values,
            "verdicts": self.verdicts,
        }

    @classmethod
    def from_json(cls, d: dict) -> Confirmation:
        needed = math.inf if d["needed"] is None else d["needed"]
        return cls(d["name"], d["pairs"], needed, d["values"], d["verdicts"])


def replay(space: Space, config: Path, name: str, pairs: int, need: float, out: Path, seed: int,
           runner: Runner) -> Confirmation:  # fmt: skip
    """Play config for pairs pairs on the confirmation seed and decide every target."""
    run = out / "confirm" / f"{name}-p{pairs}"
    runner(config, space.matchups, pairs, objective.derived_seed(seed, 1), run)
    values = objective.measured(metrics.tallies(run), space.targets)
    e = Evaluation(values, pairs, 1, False)
    verdicts = {t.name: t.verdict(e.value(t)) for t in space.targets}
    return Confirmation(name, pairs, need, values, verdicts)


def confirm(space: Space, out: Path, seed: int, runner: Runner, study) -> list[Confirmation]:
    """Confirm the candidates (and replay the start config beside them); record each in the
    study; the start config's replay comes last in the list."""
    from optuna.trial import TrialState

    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    chosen = candidates(space, done)
    results = []
    for t in chosen:
        e = evaluation(t)
        name = f"t{t.number:04d}"
        config = out / "trials" / name / f"{name}.toml"
        if not config.exists():  # played by another machine of a shared study
            candidate.write(space, dict(t.params), config, f"trial {t.number}")
        result = replay(space, config, name, size(space, e), needed(space, e), out, seed, runner)
        study.set_user_attr(f"confirm:{t.number}", result.to_json())
        results.append(result)
    if results:
        most = max(r.pairs for r in results)
        start = replay(space, space.start.path, START, most, math.nan, out, seed, runner)
        study.set_user_attr(f"confirm:{START}", start.to_json())
        results.append(start)
    return results
