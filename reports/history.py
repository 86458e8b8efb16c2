"""`sim history`: runs side by side in date order, each flagged when its primary figures
(first-seat rate, A's score) moved beyond chance from the run before it.

"Moved" is `sim compare`'s gate, not a new test: compare_runs(previous, this) with Holm
over the primary rows of every cell the two share, as `compare --fail-on-change` counts.
Cells are matched as compare matches them: by config and match-up, or by match-up alone
when each run holds one config (a nightly run whose config changed is compared with the
last, and the table says the config changed). A cell with no partner is listed as not
comparable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from reports import board, present
from reports.compare import Comparison, compare_runs, match_cells
from reports.summary import summarize
from sim.store.folder import RunFolder

SHAPE_VERSION = 1
MARGIN = 1.0  # points: the board's verdicts are not shown here, only its numbers


@dataclass
class Step:
    """One run in the history, and what changed from the run before it."""

    folder: RunFolder
    date: datetime
    dated_by: str  # "manifest" (its start time) or "folder" (no start time recorded)
    cells: list[board.BoardRow]
    previous: RunFolder | None = None
    comparison: Comparison | None = None
    matched: list[tuple[str, str, str]] = field(default_factory=list)  # (prev, this, match-up)
    not_comparable: list[str] = field(default_factory=list)

    @property
    def moved(self) -> bool:
        """Whether a primary row changed significantly (Holm) from the previous run."""
        return self.comparison is not None and self.comparison.changes > 0

    def moved_cells(self) -> set[tuple[str, str]]:
        """(config, match-up) of this run whose primary rows moved."""
        if self.comparison is None:
            return set()
        return {
            (cell.config_b, cell.matchup)
            for cell in self.comparison.cells
            if any(r.significant for r in cell.rows if r.family == "primary")
        }

    def changes(self) -> list[dict]:
        """The primary rows that moved: where, which, by how much (B - A: this - previous)."""
        if self.comparison is None:
            return []
        return [
            {
                "config": cell.config_b,
                "matchup": cell.matchup,
                "metric": row.metric,
                "difference": {
                    "estimate": row.diff.estimate,
                    "low": row.diff.low,
                    "high": row.diff.high,
                },
                "holm_p": row.holm_p,
            }
            for cell in self.comparison.cells
            for row in cell.rows
            if row.family == "primary" and row.significant
        ]


def start_time(folder: RunFolder) -> tuple[datetime, str]:
    """When the run started (its manifest's `created`), else the manifest file's time."""
    created = folder.manifest.get("created")
    if isinstance(created, str):
        try:
            return datetime.strptime(created, "%Y-%m-%dT%H:%M:%S%z"), "manifest"
        except ValueError:
            pass
    when = (folder.path / "manifest.json").stat().st_mtime
    return datetime.fromtimestamp(when, UTC), "folder"


def history(folders: list[RunFolder]) -> list[Step]:
    """The runs in date order (path order among equal dates), each compared with the one
    before it."""
    dated = sorted(((*start_time(f), f) for f in folders), key=lambda t: (t[0], str(t[2].path)))
    steps: list[Step] = []
    for date, dated_by, folder in dated:
        step = Step(folder, date, dated_by, board.rows(summarize(folder), MARGIN))
        if steps:
            step.previous = steps[-1].folder
            step.matched, _ = match_cells(step.previous, folder)
            step.not_comparable = _unmatched(step.previous, folder, step.matched)
            if step.matched:
                step.comparison = compare_runs(step.previous, folder)
        steps.append(step)
    return steps


def _unmatched(previous: RunFolder, folder: RunFolder, matched) -> list[str]:
    """The cells of either run that have no partner in the other."""
    _, notes = match_cells(previous, folder)
    return [
        note.replace("only in A:", "only in the previous run:").replace(
            "only in B:", "only in this run:"
        )
        for note in notes
    ]


def to_json(steps: list[Step]) -> dict:
    """Every run with its figures, its flag and what it was compared on."""
    return {
        "shape": SHAPE_VERSION,
        "test": "sim compare's primary family (first-seat rate, A's score), Holm, alpha 0.05",
        "runs": [
            {
                "run": str(s.folder.path),
                "date": s.date.isoformat(),
                "date_from": s.dated_by,
                "previous": None if s.previous is None else str(s.previous.path),
                "moved": s.moved,
                "changes": s.changes(),
                "compared_on": [
                    {"config_previous": p, "config": c, "matchup": m} for p, c, m in s.matched
                ],
                "not_comparable": s.not_comparable,
                "warnings": s.folder.warnings(),
                "cells": [_cell_json(r) for r in s.cells],
            }
            for s in steps
        ],
    }


def _cell_json(r: board.BoardRow) -> dict:
    """A cell's key figures (the board's numbers, without its verdicts)."""
    shape = board.to_json(r)
    return {k: v for k, v in shape.items() if not k.endswith("_verdict")}


def records(steps: list[Step]) -> list[dict]:
    """One record per run and cell, for --csv: the run's flag, the cell's figures and
    whether the cell itself moved or had nothing to be compared with."""
    out = []
    for s in steps:
        moved = s.moved_cells()
        compared = {(c, m) for _, c, m in s.matched}
        for r in s.cells:
            key = (r.cell.config, r.cell.matchup)
            out.append(
                {
                    "run": str(s.folder.path),
                    "date": s.date.isoformat(),
                    "moved": s.moved,
                    **_cell_json(r),
                    "cell_compared": key in compared,
                    "cell_moved": key in moved,
                }
            )
    return out


def table(steps: list[Step]):
    """The history as one rich table: a row per run and cell, oldest first."""
    t = present.table(
        "date\nrun",
        "config\nmatch-up",
        "units",
        "1st seat\npts",
        "A score\n%",
        "moved",
        title="History: key figures per run, oldest first, 95% intervals",
    )
    for s in steps:
        for i, r in enumerate(s.cells):
            key = (r.cell.config, r.cell.matchup)
            first, score = r.first.estimate, r.a_score.estimate
            t.add_row(
                f"{s.date:%Y-%m-%d %H:%M}\n{s.folder.path.name}" if i == 0 else "",
                f"{present.config(r.cell.config)}\n{r.cell.matchup}",
                f"{present.count(first.units)} {r.cell.unit}s",
                f"{100 * (first.value - 0.5):+.1f}\n"
                + present.interval(first.low - 0.5, first.high - 0.5, True),
                f"{present.pct(score.value)}\n{present.interval(score.low, score.high)}",
                flag(s, key),
            )
    present.fit(t, whole=(2, 3, 4))
    return t


def flag(step: Step, key: tuple[str, str]) -> str:
    """A cell's word in the moved column: first run, not comparable, MOVED or no."""
    if step.previous is None:
        return "first run"
    if key not in {(c, m) for _, c, m in step.matched}:
        return "not comparable"
    return "MOVED" if key in step.moved_cells() else "no"


def notes(steps: list[Step]) -> list[str]:
    """The runs' own warnings (an unfinished run), then what each run was compared on,
    what was not comparable, and what moved."""
    out = [f"{s.folder.path.name}: {w}" for s in steps for w in s.folder.warnings()]
    for s in steps[1:]:
        name = s.folder.path.name
        renamed = [f"{p} → {c}" for p, c, _ in s.matched if p != c]
        if renamed:
            out.append(f"{name}: compared by match-up, the config changed ({', '.join(renamed)})")
        out += [f"{name}: not comparable: {n}" for n in s.not_comparable]
        for change in s.changes():
            d = change["difference"]
            out.append(
                f"{name}: {change['config']} · {change['matchup']}: {change['metric']} "
                f"{present.pts(d['estimate'], d['low'], d['high'])}, Holm p "
                f"{present.p_value(change['holm_p'])}"
            )
        if s.dated_by == "folder":
            out.append(f"{name}: no start time in its manifest; dated by the folder")
    return out


def legend() -> str:
    """How to read the moved column."""
    return (
        "moved: the first-seat rate or A's score changed from the run above beyond chance "
        "(sim compare's primary rows, Holm, α = 0.05)."
    )
