"""`sim report RUN RUN RUN...`: one self-contained HTML page of several runs over time (the
history of reports/history.py): each run's first-seat advantage on one scale with the
margin band, the table of key figures with the moved flag, and the notes."""

from __future__ import annotations

from pathlib import Path

from reports import history, plots, present
from reports.html import FIRST_COLOUR, SECOND_COLOUR, ReportError, write_page
from reports.render import render
from sim.store.folder import RunFolderError, open_run


def write_history(runs: list[Path], out: Path, margin: float) -> Path:
    """The history of the run folders (any order: they are dated) as a page at out."""
    try:
        steps = history.history([open_run(r) for r in runs])
    except RunFolderError as exc:
        raise ReportError(str(exc)) from None
    return write_page(build_history(steps, margin), out)


def _points(steps: list[history.Step]) -> tuple[list[plots.Point], list[str]]:
    """Each run's first-seat advantage per cell, oldest on top; a moved cell in the second
    colour."""
    points, colours = [], []
    for step in steps:
        moved = step.moved_cells()
        for r in step.cells:
            e = r.first.estimate
            tag = f"{step.folder.path.name}: {r.cell.config} · {r.cell.matchup}"
            points.append((tag, 100 * (e.value - 0.5), 100 * (e.low - 0.5), 100 * (e.high - 0.5)))
            key = (r.cell.config, r.cell.matchup)
            colours.append(SECOND_COLOUR if key in moved else FIRST_COLOUR)
    return points, colours


def _rows(steps: list[history.Step]) -> list[dict]:
    """The table's rows: what the terminal table shows, one run and cell a row."""
    out = []
    for step in steps:
        for r in step.cells:
            first, score = r.first.estimate, r.a_score.estimate
            flag = history.flag(step, (r.cell.config, r.cell.matchup))
            out.append(
                {
                    "date": f"{step.date:%Y-%m-%d %H:%M}",
                    "run": str(step.folder.path),
                    "cell": f"{r.cell.config} · {r.cell.matchup}",
                    "units": f"{present.count(first.units)} {r.cell.unit}s",
                    "first": present.pts(first.value - 0.5, first.low - 0.5, first.high - 0.5),
                    "score": present.rate(score.value, score.low, score.high),
                    "flag": flag,
                    "moved": flag == "MOVED",
                }
            )
    return out


def build_history(steps: list[history.Step], margin: float) -> str:
    """The whole page (reports/templates/history.html.j2)."""
    points, colours = _points(steps)
    title = "First-seat advantage, run by run (moved in the second colour)"
    chart = plots.advantage_forest(points, title, margin, colours)
    return render(
        "history.html.j2",
        title=f"One Zero One: {len(steps)} runs over time",
        chart=chart,
        rows=_rows(steps),
        notes=[history.legend(), *history.notes(steps)],
    )
