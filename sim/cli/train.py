"""`sim strategies train --out DIR --trials N`: optimise a weights file for strength against a
pool (optionally subject to a style target), confirm the best on fresh seeds, write it.

Only typer at import: optuna, polars and the runner load inside the command.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import Backend, Config, Scheduler, Seed, Workers

STATE = "train.json"  # the training folder's own record: what decides its results


def train(
    out: Annotated[Path, typer.Option(help="The training folder (rerun to continue it)")],
    trials: Annotated[
        int, typer.Option(help="Trials the study should hold in all", min=1, max=100_000)
    ],  # fmt: skip
    config: Config = "base",
    start: Annotated[
        str, typer.Option(help="Weights to start from: heuristic, a persona or a .toml")
    ] = "heuristic",
    pool: Annotated[
        list[str] | None,
        typer.Option(help="An opponent, repeatable; self is the start weights \\[default: self]"),
    ] = None,
    pairs: Annotated[
        int, typer.Option(help="Seat-swapped pairs against each opponent a trial", min=1)
    ] = 200,
    confirm_pairs: Annotated[
        int, typer.Option(help="Fresh pairs against each opponent for the best", min=1)
    ] = 2000,
    sampler: Annotated[str, typer.Option(help="cmaes or tpe")] = "cmaes",
    sigma: Annotated[
        float,
        typer.Option(
            help="CMA-ES's first step, a share of each weight's range", min=0.001, max=1.0
        ),  # fmt: skip
    ] = 0.1,
    style: Annotated[
        str | None,
        typer.Option(
            help="A style target, e.g. run_end>=30 (metrics: run_end, deck_out in %, turns)"
        ),  # fmt: skip
    ] = None,
    vary: Annotated[
        str | None,
        typer.Option(
            help="Weights to train, comma-separated \\[default: every feature and "
            "the hand value of each kind in the deck]"
        ),  # fmt: skip
    ] = None,
    write: Annotated[
        Path | None, typer.Option(help="The weights file to write \\[default: DIR/trained.toml]")
    ] = None,
    seed: Seed = 0,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
) -> None:
    """Train heuristic weights against a pool on seat-swapped pairs; confirm on fresh seeds.

    Rerun the same command to continue an interrupted training.
    """
    from sim.cli.common import check_backend, checked_seed
    from sim.runner.run import RunOptions

    checked_seed(seed)
    check_backend(backend, scheduler)
    training = _training(config, start, pool or ["self"], pairs, seed, sampler, style, vary)
    training = replace(training, sigma=sigma)
    _check_state(out, training)
    target = write or out / "trained.toml"
    _train(training, out, trials, confirm_pairs, target, RunOptions(workers, backend, scheduler))


def _training(config, start, pool, pairs, seed, sampler, style, vary):
    """The options checked into a Training, or a usage error naming the option."""
    from sim.cli.common import load_config, usage
    from sim.players.specs import PlayerError, parse_player
    from sim.players.weights import WeightsError
    from sim.tune import train

    load_config(config)
    if sampler not in train.SAMPLERS:
        usage(f"--sampler {sampler!r}: expected {' or '.join(train.SAMPLERS)}")
    for spec in pool:
        try:
            player = parse_player(start if spec == train.SELF else spec)
        except PlayerError as exc:
            usage(f"--pool {spec}: {exc}")
        if player.name == "cpu":
            usage(f"--pool {spec}: the CPU plays no seat-swapped pairs; choose another opponent")
    resolved = [start if spec == train.SELF else spec for spec in pool]
    if len(set(resolved)) != len(resolved):
        usage(f"--pool: {', '.join(pool)} names an opponent twice (self is --start {start})")
    try:
        train.start_weights(start)
        target = train.parse_style(style) if style is not None else None
        names = train.check_vary(tuple(vary.split(","))) if vary else train.default_vary(config)
    except (train.TrainError, WeightsError) as exc:
        usage(str(exc) if not isinstance(exc, WeightsError) else f"--start: {exc}")
    return train.Training(config, start, tuple(pool), pairs, seed, sampler, target, names)


def _check_state(out: Path, training) -> None:
    """The folder holds this training or none: other options are refused."""
    from sim.cli.common import claim_folder

    claim_folder(out, STATE, training.record(), "training", "train")


def _train(training, out: Path, trials: int, confirm_pairs: int, target: Path, options) -> None:
    from sim.cli.common import fail
    from sim.model.config import ConfigError
    from sim.runner.plan import PlanError
    from sim.runner.run import RunError, execute
    from sim.store import lock
    from sim.tune import train
    from sim.tune.study import StudyError

    def runner(plan, folder: Path) -> None:
        execute(plan, folder, options)

    started = time.perf_counter()
    try:
        with lock.hold(out):
            study = train.run(training, out, trials, runner, _reporter(training, trials))
            _finish(training, out, study, confirm_pairs, target, runner)
    except KeyboardInterrupt:
        typer.echo(f"interrupted; rerun the same command to continue training in {out}", err=True)
        raise typer.Exit(130) from None
    except (lock.LockError, RunError, PlanError, StudyError, ConfigError) as exc:
        fail(str(exc))
    typer.echo(f"{trials} trials; {time.perf_counter() - started:.0f} s this run", err=True)


def _reporter(training, trials: int):
    """A line per trial on stderr: its score against the pool, and the best so far."""
    best = [float("-inf")]

    def said(number: int, measure, value: float) -> None:
        from sim.tune.train import interval

        best[0] = max(best[0], value)
        text = f"trial {number + 1}/{trials}: {interval(measure.score_estimate())}"
        if training.style is not None:
            e = measure.style_estimate(training.style)
            text += f", {training.style.metric} {e.value:.1f}"
        typer.echo(f"{text}; objective {value:.1f}, best {best[0]:.1f}", err=True)

    return said


def _finish(training, out: Path, study, pairs: int, target: Path, runner) -> None:
    """Confirm the best trial on fresh seeds and write its weights file with the interval."""
    from sim.cli.common import fail
    from sim.tune import train

    best = train.best_trial(training, study)
    if best is None:
        fail(f"no trial's estimate met --style {training.style.text}; train longer or relax it")
    result = train.confirm(training, out, best, pairs, runner)
    notes = train.result_notes(training, result)
    for line in notes[2:]:
        typer.echo(line)
    if training.style is not None:
        e = result.measure.style_estimate(training.style)
        if training.style.verdict(e.low, e.high) == "missed":
            fail(f"trial {best.number} missed --style {training.style.text} on fresh seeds")
    weights = train.trial_weights(training, best)
    text = train.toml_text(weights, f"trained from {training.start}", notes)
    train.write_weights(target, text)
    typer.echo(f"wrote {target}")
