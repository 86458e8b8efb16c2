"""`sim history`: several runs of a plan (nightly runs) in date order, flagged when their
primary figures moved from the run before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import Csv, Json, fail, one_format


def history(
    runs: Annotated[
        list[Path],
        typer.Argument(
            metavar="RUN...",
            help="Run folders, or a folder whose subfolders are runs (nightly/2026-12-01, ...)",
            show_default=False,
        ),
    ],
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Runs in date order, each flagged where its primary figures moved from the run before.

    One row per run, config and match-up: first-seat advantage and A's score, 95% intervals.
    Moved: sim compare's primary rows against the run above, after Holm.
    """
    from reports import history as h
    from reports import present
    from reports.csv_out import to_csv
    from sim.store.folder import RunFolderError, open_run

    one_format(as_json=as_json, csv=as_csv)
    paths = _run_paths(runs)
    try:
        steps = h.history([open_run(p) for p in paths])
    except RunFolderError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(h.to_json(steps), indent=2))
        return
    if as_csv:
        typer.echo(to_csv(h.records(steps)), nl=False)
        return
    console = present.console()
    console.print(h.table(steps))
    for line in [h.legend(), *h.notes(steps)]:
        console.print(line, highlight=False)


def _run_paths(given: list[Path]) -> list[Path]:
    """Each run folder once: a folder with a manifest is a run, else its subfolders that
    are runs are."""
    found: list[Path] = []
    for path in given:
        if (path / "manifest.json").is_file():
            found.append(path)
        elif path.is_dir():
            runs = sorted(p for p in path.iterdir() if (p / "manifest.json").is_file())
            if not runs:
                fail(f"{path}: not a run folder and holds none (no manifest.json); see `sim run`")
            found += runs
        else:
            fail(f"{path}: no such folder")
    unique = {p.resolve(): p for p in found}
    return list(unique.values())
