"""`sim tune SPACE.toml --out DIR --trials N --seed S`, and `sim tune DIR --show`.

Only typer at import: optuna, polars and the runner load inside the command.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import Backend, Scheduler, Workers

STATE = "tune.json"  # the tuning folder's own record: space file, its hash, seed, storage


def tune(
    space: Annotated[Path, typer.Argument(help="The search space .toml (or, with --show, DIR)")],
    out: Annotated[Path | None, typer.Option(help="The tuning folder")] = None,
    trials: Annotated[
        int | None,
        typer.Option(help="Distinct points the study should hold in all", min=1, max=100_000),
    ] = None,
    seed: Annotated[int, typer.Option(help="The study's seed, 0..2**64-1")] = 0,
    storage: Annotated[
        str | None, typer.Option(help="A shared optuna database URL \\[default: DIR/study.db]")
    ] = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    show: Annotated[
        bool, typer.Option("--show", help="Print the front of tuning folder SPACE")
    ] = False,
) -> None:
    """Search decks and rules for configs that meet balance targets, confirmed on fresh seeds.

    Rerun the same command to continue an interrupted study.
    `sim tune DIR --show` prints its front again, playing nothing.
    """
    from sim.cli.common import check_backend, checked_seed, fail, usage
    from sim.runner.run import RunOptions

    if importlib.util.find_spec("optuna") is None:
        fail("sim tune needs optuna, which `pip install -e .` installs; reinstall sim")
    if show:
        return _show(space)
    if out is None or trials is None:
        usage("sim tune SPACE.toml needs --out DIR and --trials N (or: sim tune DIR --show)")
    checked_seed(seed)
    check_backend(backend, scheduler)
    loaded = _space(space)
    _check_state(out, loaded, seed, storage)
    _tune(loaded, out, trials, seed, storage, RunOptions(workers, backend, scheduler))


def _space(path: Path):
    from sim.cli.common import fail
    from sim.tune.space import SpaceError, load

    try:
        return load(path)
    except SpaceError as exc:
        fail(str(exc))


def _check_state(out: Path, space, seed: int, storage: str | None) -> None:
    """The folder holds this study or none: another space, seed or storage is refused."""
    from sim.cli.common import claim_folder

    state = {"space": str(space.path.resolve()), "hash": space.hash, "seed": seed,
             "storage": storage}  # fmt: skip
    claim_folder(out, STATE, state, "study", "tune")


def _tune(space, out: Path, trials, seed: int, storage, options) -> None:
    from sim.cli.common import fail
    from sim.model.config import ConfigError
    from sim.runner.plan import PlanError
    from sim.runner.run import RunError
    from sim.store import lock
    from sim.tune import objective
    from sim.tune.study import StudyError

    runner = objective.runner_for(options)
    started = time.perf_counter()
    try:
        with lock.hold(out):
            study = _search(space, out, trials, seed, runner, storage)
            _finish(space, out, seed, runner, study, trials, started)
    except KeyboardInterrupt:
        typer.echo(f"interrupted; rerun the same command to continue the study in {out}", err=True)
        raise typer.Exit(130) from None
    except (lock.LockError, RunError, PlanError, StudyError, ConfigError) as exc:
        fail(str(exc))
    except Exception as exc:  # a worker's failure, already phrased for the user
        from sim.runner.dask_backend import ClusterError
        from sim.runner.local import WorkerFailed

        if isinstance(exc, WorkerFailed | ClusterError):
            fail(str(exc))
        raise


def _search(space, out, trials, seed, runner, storage):
    from sim.tune import progress, study

    typer.echo(f"tuning {space.path} into {out}: {trials} trials, seed {seed}", err=True)
    return study.run(space, out, trials, seed, runner, storage, progress.reporter(space, trials))


def _finish(space, out: Path, seed: int, runner, study, trials: int, started: float) -> None:
    from reports.present import console
    from sim.tune import confirm, table

    results = confirm.confirm(space, out, seed, runner, study)
    by_name = {c.name: c for c in results}
    done = _finished(study)
    table.write_parquet(table.rows(space, done, by_name), out / "trials.parquet")
    front = table.front(space, done)
    table.write_parquet(table.rows(space, front, by_name), out / "front.parquet")
    written = table.write_candidates(out, results)
    table.render(space, front, by_name, console())
    for path in written:
        typer.echo(f"candidate meeting every target on fresh seeds: {path}")
    if not written:
        typer.echo("no candidate met every target on fresh seeds")
    points = sum("same_as" not in t.user_attrs for t in done)
    if points < trials:
        typer.echo(
            f"note: {points} distinct points of {trials} asked: the sampler kept repeating "
            "measured ones (a small space, or one it has converged in)"
        )
    seconds = time.perf_counter() - started
    typer.echo(f"{points} points measured in {len(done)} trials; {seconds:.0f} s this run")


def _finished(study) -> list:
    from optuna.trial import TrialState

    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))


def _show(folder: Path) -> None:
    """Print the front of a tuning folder from its study, playing nothing."""
    from reports.present import console
    from sim.cli.common import fail
    from sim.model.documents import parse_json
    from sim.tune import study, table
    from sim.tune.confirm import Confirmation

    path = folder / STATE
    try:
        state = parse_json(path.read_text())
    except (OSError, ValueError):
        fail(f"{folder} is not a tuning folder (no readable {STATE}); make one with sim tune")
    if state.get("storage") is None and not (folder / study.STUDY_FILE).exists():
        fail(f"{folder} holds no {study.STUDY_FILE} yet; run the sim tune command first")
    space = _space(Path(state["space"]))
    if space.hash != state["hash"]:
        fail(f"{state['space']} has changed since {folder} was tuned; its study is of the old one")
    s = study.open_study(space, folder, state["seed"], state["storage"])
    confirmations = {
        Confirmation.from_json(v).name: Confirmation.from_json(v)
        for k, v in s.user_attrs.items()
        if k.startswith("confirm:")
    }
    done = _finished(s)
    table.render(space, table.front(space, done), confirmations, console())
