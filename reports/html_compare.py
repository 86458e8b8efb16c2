"""`sim report A B`: one self-contained HTML page comparing two runs for a designer: which
is closer to balanced per cell, both first-seat advantages on one scale with the margin
band, and every compared row (reports/compare.py supplies the numbers)."""

from __future__ import annotations

from pathlib import Path

from reports import plots, present
from reports.compare import Comparison, _diff_text, _side_text, balance_lines, compare_runs
from reports.html import FIRST_COLOUR, SECOND_COLOUR, ReportError, write_page
from reports.render import render
from sim.store.folder import RunFolderError, open_run


def write_comparison(a: Path, b: Path, out: Path, margin: float) -> Path:
    """Compare the runs in folders a and b and write the page to out."""
    try:
        comparison = compare_runs(open_run(a), open_run(b))
    except RunFolderError as exc:
        raise ReportError(str(exc)) from None
    if not comparison.cells:
        raise ReportError(f"{a} and {b} have no config and match-up in common to compare")
    return write_page(build_comparison(comparison, margin), out)


def _points(c: Comparison) -> tuple[list[plots.Point], list[str]]:
    """Both runs' first-seat advantage per cell, A's row above B's, in points."""
    points, colours = [], []
    for cell in c.cells:
        if cell.balance is None:
            continue
        for side, e, colour in (
            ("A", cell.balance.a, FIRST_COLOUR),
            ("B", cell.balance.b, SECOND_COLOUR),
        ):
            tag = f"{side}: {cell.configs} · {cell.matchup}"
            points.append((tag, 100 * (e.value - 0.5), 100 * (e.low - 0.5), 100 * (e.high - 0.5)))
            colours.append(colour)
    return points, colours


def build_comparison(c: Comparison, margin: float) -> str:
    """The whole page."""
    points, colours = _points(c)
    units = ", ".join(f"{cell.configs} · {cell.matchup}: {cell.pairing}" for cell in c.cells)
    chart = plots.advantage_forest(points, "First-seat advantage in A and in B", margin, colours)
    rows = [
        {"cell": f"{cell.configs} · {cell.matchup}", "metric": row.metric, "verdict": row.verdict}
        | {"a": _side_text(row.a, row.rate), "b": _side_text(row.b, row.rate)}
        | {"diff": _diff_text(row.diff, row.rate), "p": present.p_value(row.holm_p)}
        for cell in c.cells
        for row in cell.rows
    ]
    return render(
        "compare.html.j2",
        title="One Zero One: two runs compared",
        names=c.names,
        units=units,
        answers=balance_lines(c),
        chart=chart,
        rows=rows,
        notes=c.notes,
    )
