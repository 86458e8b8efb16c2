"""The optuna study behind `sim tune`: stored in DIR/study.db (or --storage), one trial at a
time, so an interrupted study continues where it stopped and `--trials N` is the total.

Each target is minimised as its excess (how far the metric lies outside it, <= 0 inside) or,
for a constraint, handed to the sampler as a constraint (feasible when <= 0). The sampler is
optuna's TPE, seeded anew before every trial from the study's seed and the trial's number:
its choice then depends only on the trials before it, so a resumed study asks exactly what
an uninterrupted one would. The start config is trial 0 when it lies in the space.
"""

from __future__ import annotations

import os
import socket
import warnings
from collections.abc import Callable
from pathlib import Path

from sim.tune import objective
from sim.tune.objective import Evaluation, Runner
from sim.tune.space import Param, Space

STUDY_FILE = "study.db"


class StudyError(RuntimeError):
    """A study that cannot be opened or continued; the message says why."""


def _optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def stamped(study, what: str, advice: str) -> bool:
    """Refuse a study that other sim code measured (StudyError naming `what`, then advice);
    mark a new one (no trials yet) as this code's and say it is new."""
    from sim.runner.provenance import source_hash

    made_by = study.user_attrs.get("sim_source")
    if made_by is not None and made_by != source_hash():
        raise StudyError(
            f"{what} was measured by other sim code (source {made_by}, now "
            f"{source_hash()}); {advice}"
        )
    if study.trials:
        return False
    study.set_user_attr("sim_source", source_hash())
    return True


def study_name(space: Space, seed: int) -> str:
    return f"{space.path.stem}-{space.hash}-seed{seed}"


def open_study(space: Space, out: Path, seed: int, storage: str | None):
    """Create or reopen the study; refuse a folder whose database holds another space/seed."""
    optuna = _optuna()
    url = storage or f"sqlite:///{(out / STUDY_FILE).resolve()}"
    name = study_name(space, seed)
    if storage is None and (out / STUDY_FILE).exists():
        try:
            names = [s.study_name for s in optuna.get_all_study_summaries(url)]
        except Exception as exc:  # not an optuna database
            raise StudyError(f"{out / STUDY_FILE}: not a readable study: {exc}") from None
        others = [n for n in names if n != name]
        if others:
            raise StudyError(
                f"{out / STUDY_FILE} holds study {others[0]} (another space file, space or "
                f"seed than {name}); tune into another --out DIR"
            )
    study = _create(optuna, url, name, ["minimize"] * len(space.objectives))
    if stamped(study, f"study {name}", "its trials cannot be trusted: tune into another --out DIR"):
        study.set_user_attr("space_hash", space.hash)
        study.set_user_attr("seed", seed)
        start = space.start_params()
        if start is not None:
            study.enqueue_trial(start, user_attrs={"start": True})
    return study


CREATE_TRIES = 5
"""Opening attempts: two machines starting on a new shared database race to create its tables
and stamp its schema version; the loser finds them made on a later try."""

RACES = ("already exists", "UNIQUE constraint failed", "database is locked")
"""What losing that race says (sqlite through SQLAlchemy: a table, the alembic version row)."""


def _create(optuna, url: str, name: str, directions: list[str]):
    import time

    for attempt in range(CREATE_TRIES):
        try:
            return optuna.create_study(
                storage=url, study_name=name, directions=directions, load_if_exists=True
            )
        except Exception as exc:  # a bad URL, an unreachable or foreign database
            if not any(r in str(exc) for r in RACES) or attempt + 1 == CREATE_TRIES:
                raise StudyError(f"--storage {url}: cannot open the study: {exc}") from None
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def sampler(space: Space, seed: int, number: int, explore: bool = False):
    """TPE seeded for this trial number; the constraints are the constraint targets' excess.
    explore: right after TPE repeated a measured point, a seeded random draw instead, so a
    sampler stuck on one point moves on."""
    optuna = _optuna()
    if explore:
        return optuna.samplers.RandomSampler(seed=objective.derived_seed(seed, 3, number) % 2**32)
    constraints = (lambda t: t.user_attrs["constraints"]) if space.constraints else None
    with warnings.catch_warnings():  # constraints_func is marked experimental
        warnings.simplefilter("ignore")
        return optuna.samplers.TPESampler(
            seed=objective.derived_seed(seed, 2, number) % 2**32,  # RandomState takes 32 bits
            n_startup_trials=space.search["startup"],
            constraints_func=constraints,
        )


def suggest(trial, param: Param):
    if param.choices:
        return trial.suggest_categorical(param.name, list(param.choices))
    return trial.suggest_int(param.name, param.low, param.high)


def owner(out: Path) -> str:
    """Who plays a trial: this machine and output folder (the folder's lock is ours)."""
    return f"{socket.gethostname()}:{out.resolve()}"


REPEATS = 10
"""Asks in a row that only repeat measured points before the space counts as exhausted."""


def run(
    space: Space,
    out: Path,
    trials: int,
    seed: int,
    runner: Runner,
    storage: str | None = None,
    said: Callable[[int, object, Evaluation, float], None] | None = None,
):
    """Play trials until the study holds `trials` distinct points (finished, or running
    elsewhere). A sampled point measured before costs nothing and does not count; after
    REPEATS such asks in a row the space is taken as exhausted."""
    import time

    study = open_study(space, out, seed, storage)
    while True:
        trial, done = _next(study, space, seed, owner(out), storage, trials)
        if trial is None:
            return study
        started = time.perf_counter()
        evaluation = _play(space, out, seed, runner, trial, study)
        _tell(study, space, trial, evaluation)
        frozen = study.trials[trial.number]
        if said and "same_as" not in frozen.user_attrs:
            said(done + 1, frozen, evaluation, time.perf_counter() - started)


def _next(study, space: Space, seed: int, me: str, storage: str | None, trials: int):
    """(the trial to play next, or None when the study holds enough; distinct points done).
    An interrupted trial of ours comes first: the same point again, its runs resumed. All is
    read from the study, so a resumed study goes on exactly as an uninterrupted one."""
    optuna = _optuna()
    all_trials = study.get_trials(deepcopy=False)
    states = optuna.trial.TrialState
    running = [t for t in all_trials if t.state == states.RUNNING]
    # ours: left by an interruption here (a local study's trial may have died unnamed)
    mine = [t for t in running if t.user_attrs.get("owner", None if storage else me) == me]
    busy = len(running) - len(mine)
    done = [t for t in all_trials if t.state == states.COMPLETE]
    distinct = sum("same_as" not in t.user_attrs for t in done)
    repeats = _trailing_repeats(done)
    if distinct + busy >= trials or repeats >= REPEATS:
        return None, distinct
    if mine:
        return optuna.trial.Trial(study, mine[0]._trial_id), distinct
    study.sampler = sampler(space, seed, len(all_trials), explore=repeats > 0)
    trial = study.ask()
    if _taken(study, trial.number, trials):
        study.tell(trial, state=states.FAIL)  # given back unplayed: the study is full
        return None, distinct
    if _second_start(study, trial):
        study.tell(trial, state=states.FAIL)  # given back unplayed: another plays the start
        return _next(study, space, seed, me, storage, trials)
    trial.set_user_attr("owner", me)
    trial.set_user_attr("pid", os.getpid())
    return trial, distinct


def _taken(study, number: int, trials: int) -> bool:
    """Another machine asked for the last place between our count and our ask: the points
    finished and the trials running with a lower number fill the study, so this one (the
    later ask) gives way."""
    from optuna.trial import TrialState

    now = study.get_trials(deepcopy=False)
    done = sum(t.state == TrialState.COMPLETE and "same_as" not in t.user_attrs for t in now)
    return done + sum(t.state == TrialState.RUNNING and t.number < number for t in now) >= trials


def _second_start(study, trial) -> bool:
    """The start config enqueued twice: two machines opened a new shared study at once."""
    if not trial.user_attrs.get("start"):
        return False
    return any(t.user_attrs.get("start") and t.number < trial.number
               for t in study.get_trials(deepcopy=False))  # fmt: skip


def _trailing_repeats(done: list) -> int:
    """How many of the latest finished trials, in a row, only repeated a measured point."""
    count = 0
    for t in sorted(done, key=lambda t: t.number, reverse=True):
        if "same_as" not in t.user_attrs:
            break
        count += 1
    return count


def _play(space: Space, out: Path, seed: int, runner: Runner, trial, study) -> Evaluation:
    """Measure the trial's point; a point measured before is not played again: on the common
    seeds its games would be the very same."""
    from optuna.trial import TrialState

    from sim.tune.confirm import evaluation

    values = {p.name: suggest(trial, p) for p in space.params}
    for other in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if other.params == values and "same_as" not in other.user_attrs:
            trial.set_user_attr("same_as", other.number)
            return evaluation(other)
    folder = out / "trials" / f"t{trial.number:04d}"
    shown = ", ".join(f"{k}={v}" for k, v in values.items())
    return objective.evaluate(space, values, folder, seed, runner, f"trial {trial.number}: {shown}")


def _tell(study, space: Space, trial, evaluation: Evaluation) -> None:
    trial.set_user_attr("values", evaluation.values)
    trial.set_user_attr("pairs", evaluation.pairs)
    trial.set_user_attr("rungs", evaluation.rungs)
    trial.set_user_attr("stopped_early", evaluation.stopped_early)
    trial.set_user_attr("constraints", [evaluation.excess(t) for t in space.constraints])
    study.tell(trial, [evaluation.excess(t) for t in space.objectives])
