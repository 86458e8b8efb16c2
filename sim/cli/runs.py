"""`sim summary` and `sim compare`: the commands over run folders.

Polars, scipy and rich are imported inside the commands so `sim --help` stays instant.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import Csv, Json, Margin, fail, one_format, usage

_fail = fail


def _open(path: Path):
    """The run folder at path, or an `error:` line."""
    from sim.store.folder import RunFolderError, open_run

    try:
        return open_run(path)
    except RunFolderError as exc:
        _fail(str(exc))


_usage = usage


def checked_margin(margin: float) -> float:
    """A margin in points strictly between 0 and 50, or a usage error."""
    if not 0 < margin < 50:
        _usage(f"--margin must be between 0 and 50 points, got {margin:g}")
    return margin


def _sections(show: str | None, detail: bool) -> tuple[str, ...]:
    """The long sections to print after the board: --show names, or all with --detail."""
    from reports.board import SECTIONS

    if detail:
        return SECTIONS
    names = tuple(n.strip() for n in (show or "").split(",") if n.strip())
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        _usage(f"--show {','.join(unknown)}: no such section (choose from {', '.join(SECTIONS)})")
    return names


def summary(
    run: Annotated[Path, typer.Argument(help="A run folder written by `sim run`")],
    margin: Margin = 1.0,
    detail: Annotated[bool, typer.Option("--detail", help="Every section after the board")] = False,
    show: Annotated[
        str | None,
        typer.Option(
            metavar="SECTIONS",
            help="Sections after the board, comma-separated: wins, outcomes, lines (tie-break "
            "lines), ends (end reasons), turns, control (line control), cards",
        ),
    ] = None,
    no_cards: Annotated[
        bool, typer.Option("--no-cards", help="Skip reading the per-card statistics")
    ] = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """The balance board per config and match-up, with a verdict within --margin.

    With --detail or --show: win rates, tie-breaks, end reasons, turns, line control, cards.
    Every rate has its sample size and 95% interval.
    """
    from reports.summary import read_cards, summarize
    from reports.text import render
    from sim.store.folder import RunFolderError

    checked_margin(margin)
    one_format(as_json=as_json, csv=as_csv)
    sections = _sections(show, detail)
    if as_csv and sections:
        _usage("--csv writes the board only; --detail and --show go with the terminal or --json")
    folder = _open(run)
    try:
        table = read_cards(folder) if not no_cards and "cards" in sections else None
    except RunFolderError as exc:
        _fail(str(exc))
    summaries = summarize(folder, table)
    impact = _measured(folder)
    if as_json or as_csv:
        from reports.csv_out import to_csv
        from reports.summary_json import to_json

        shape = to_json(folder, summaries, margin, sections, impact)
        typer.echo(to_csv(shape["board"]) if as_csv else json.dumps(shape, indent=2), nl=not as_csv)
        return
    from reports.present import console

    render(folder, summaries, console(), margin, sections, impact)


def _measured(folder):
    """The card-impact comparisons a run shows (reports.card_impact.measured_all), none for
    most runs; a damaged swap note fails cleanly."""
    from reports.card_impact import measured_all
    from sim.store.folder import RunFolderError

    try:
        return measured_all(folder)
    except RunFolderError as exc:
        _fail(str(exc))


CHANGED = 3
"""The exit code of `compare --fail-on-change` when a primary row changed (1 is an error)."""


def compare(
    runs: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="RUN_A [RUN_B]",
            help="Two run folders A and B, or one run with --config A --config B",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME",
            help="Give it twice: with one RUN, compare two of its configs (paired on their "
            "shared seeds); with no RUN, play the two configs first, then compare them",
        ),
    ] = None,
    overlay: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            help="With one --config and no RUN: play the config against itself derived with "
            "these changes (rules.OPTION=VALUE, deck.KIND[.AXIS]=COUNT; repeatable)",
        ),
    ] = None,
    players: Annotated[
        list[str] | None,
        typer.Option(metavar="A,B", help="With --config: match-up A,B (repeatable)"),
    ] = None,
    games: Annotated[
        int | None, typer.Option(help="With --config: games per config and match-up")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="With --config: master seed")] = None,
    workers: Annotated[
        int | None, typer.Option(help="With --config: processes \\[default: all cores]", min=1)
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="With --config: keep both runs here, not in a temp folder")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="With --config: replace different runs in --out")
    ] = False,
    as_json: Json = False,
    as_csv: Csv = False,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="A Markdown table for pull requests")
    ] = False,
    fail_on_change: Annotated[
        bool,
        typer.Option(
            "--fail-on-change",
            help="Exit 3 when a primary row (first-seat rate, A's score) changed significantly "
            "after Holm; 1 stays an error, 2 a usage error",
        ),
    ] = False,
) -> None:
    """Which of two runs (or two configs of one run) is closer to balanced, then each row.

    Every row: values, difference, p-value and Holm correction.
    Same seeds and seats in both: paired pair by pair; otherwise unpaired.
    """
    one_format(as_json=as_json, csv=as_csv, markdown=markdown)
    output = "json" if as_json else "csv" if as_csv else "markdown" if markdown else "terminal"
    if overlay and (runs or not config or len(config) != 1):
        _usage("--set goes with one --config and no RUN: A is the config, B it with the changes")
    if config and len(config) != 2 and not overlay:
        _usage(f"--config must be given exactly twice (A and B), got {len(config)}")
    if config and runs and len(runs) == 1:
        _no_play_options(players, games, seed, workers, out, "with one RUN and --config")
        changes = _report_configs(runs[0], config, output)
    elif config:
        if runs:
            _usage("give two run folders, one run and two --config, or two --config; not both")
        with _folder(out) as where:
            folders = _play(config, players, games, seed, workers, where, overwrite, overlay)
            changes = _report(*folders, output)
    else:
        _no_play_options(players, games, seed, workers, out, "only used with --config X --config Y")
        if not runs or len(runs) != 2:
            _usage("give two run folders A B, or --config X --config Y to play them first")
        changes = _report(runs[0], runs[1], output)
    if fail_on_change and changes:
        raise typer.Exit(CHANGED)


def _no_play_options(players, games, seed, workers, out, why: str) -> None:
    """A usage error when options that only play new runs are given without playing."""
    named = {"--players": players, "--games": games, "--seed": seed, "--workers": workers}
    given = [k for k, v in {**named, "--out": out}.items() if v is not None and v != []]
    if given:
        _usage(f"{', '.join(given)}: {why}")


def parts_of(folder, config: str, scratch: Path) -> tuple[Path, ...]:
    """The verified parts of one config. The runner writes one cell to a part, so its
    parts are picked whole; a hand-made part of several configs is filtered into scratch."""
    import polars as pl

    cells = folder.part_cells
    if all(cell is not None for cell in cells.values()):
        return tuple(p for p in folder.parts if cells[p][0] == config)
    only = scratch / f"{len(list(scratch.iterdir()))}.parquet"
    folder.scan().filter(pl.col("config").cast(pl.String) == config).sink_parquet(only)
    return (only,)


def _report_configs(run: Path, configs: list[str], output: str) -> int:
    """Compare two configs of one run folder; the number of significant primary changes."""

    from sim.store.folder import RunFolder

    folder = _open(run)
    have = {config for config, _ in folder.cells}
    missing = [c for c in configs if c not in have]
    if missing:
        _fail(f"{run}: no config {', '.join(missing)} (it has {', '.join(sorted(have))})")
    if configs[0] == configs[1]:
        _usage(f"--config {configs[0]} twice: name two different configs of {run}")
    labels = (f"{run} [config {configs[0]}]", f"{run} [config {configs[1]}]")
    with tempfile.TemporaryDirectory(prefix="sim-compare-") as scratch:
        a, b = (
            RunFolder(
                folder.path, folder.manifest, parts_of(folder, c, Path(scratch)), folder.columns
            )
            for c in configs
        )
        return _print(a, b, output, labels)


@contextmanager
def _folder(out: Path | None) -> Iterator[Path]:
    """out itself, or a temporary folder removed afterwards."""
    if out is not None:
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="sim-compare-") as tmp:
        yield Path(tmp)


def _report(a: Path, b: Path, output: str) -> int:
    """Compare two folders, print in the chosen format; the number of significant changes."""
    return _print(_open(a), _open(b), output)


def _print(a, b, output: str, labels: tuple[str, str] | None = None) -> int:
    """Compare two run folders (or views of one), print as output says (terminal, json,
    csv, markdown); the significant primary changes."""
    from reports.compare import compare_runs, render, to_csv, to_json, to_markdown
    from reports.present import console

    comparison = compare_runs(a, b, labels=labels)
    if not comparison.cells:
        _fail(f"{a.path} and {b.path} have no config and match-up in common to compare")
    if output == "json":
        typer.echo(json.dumps(to_json(comparison), indent=2))
    elif output == "csv":
        typer.echo(to_csv(comparison), nl=False)
    elif output == "markdown":
        typer.echo(to_markdown(comparison), nl=False)
    else:
        render(comparison, console())
    return comparison.changes


def _play(
    configs: list[str],
    players: list[str] | None,
    games: int | None,
    seed: int | None,
    workers: int | None,
    out: Path,
    overwrite: bool,
    overlay: list[str] | None = None,
) -> tuple[Path, Path]:
    """Run each config into its own folder under out; progress goes to stderr. With overlay,
    the one config is A and B is it derived with the --set items."""
    from sim.runner.local import WorkerFailed
    from sim.runner.plan import PlanError, UsageError, make_plan
    from sim.runner.run import RunError, RunOptions, execute

    sides = (
        [(configs[0], ()), (configs[0], tuple(overlay))] if overlay else [(c, ()) for c in configs]
    )
    try:
        plans = [
            make_plan(
                [name],
                players or ["random,random"],
                10_000 if games is None else games,
                0 if seed is None else seed,
                overlay=items,
            )
            for name, items in sides
        ]
    except UsageError as exc:
        _usage(str(exc))
    except PlanError as exc:
        _fail(str(exc))
    folders = [
        out / f"{side}-{plan.configs[0].name}" for side, plan in zip("ab", plans, strict=True)
    ]
    for plan, folder in zip(plans, folders, strict=True):
        for warning in plan.configs[0].warnings:
            typer.echo(f"warning: {warning}", err=True)
        typer.echo(
            f"playing {plan.configs[0].name}: {plan.total_games:,} games into {folder}", err=True
        )
        try:
            execute(plan, folder, RunOptions(workers, overwrite=overwrite))
        except (RunError, WorkerFailed) as exc:
            _fail(str(exc))
    return folders[0], folders[1]
