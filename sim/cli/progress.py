"""The progress display of every command that plays a run: a bar with games/s and, under
it, each cell's answer so far (first seat's advantage, A's score) with its 95% confidence
sequence, refreshed as chunks land. --quiet shows nothing."""

from __future__ import annotations

import math
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from sim.runner.live import Live, LiveTally

MAX_CELLS = 8  # lines of cells under the bar; more would push the bar off a small terminal
LEGEND = "so far, with 95% confidence sequences (valid whenever you stop):"


def run_with_progress(plan, out: Path, options, quiet: bool):
    """execute, with the bar and the live estimates on stderr unless quiet."""
    from sim.runner.run import execute

    if quiet:
        return execute(plan, out, options, note=_compiling(quiet))
    tally = LiveTally(plan)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} games/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    stderr = Console(stderr=True)  # stdout is for the command's output (--json, tables)
    with _LiveProgress(*columns, tally=tally, console=stderr, transient=False) as bar:
        task = bar.add_task("games", total=plan.total_games, rate="-")
        start = {"t": None, "done": 0}

        def update(done: int, total: int) -> None:
            now = time.perf_counter()
            if start["t"] is None:
                start["t"], start["done"] = now, done
            elapsed = now - start["t"]
            rate = f"{(done - start['done']) / elapsed:,.0f}" if elapsed > 0 else "-"
            bar.update(task, completed=done, rate=rate)

        return execute(plan, out, options, progress=update, note=_compiling(quiet), watch=tally.add)


class _LiveProgress(Progress):
    """rich's progress bar with the cells' lines under it (rich's documented extension)."""

    def __init__(self, *columns, tally: LiveTally, **options):
        self._tally = tally  # before rich's own set-up, which renders once
        super().__init__(*columns, **options)

    def get_renderables(self):
        yield self.make_tasks_table(self.tasks)
        lines = live_lines(self._tally.cells())
        for line in lines:
            yield Text(line, no_wrap=True, overflow="ellipsis")


def live_lines(cells: list[Live]) -> list[str]:
    """The legend and a line per cell (the first MAX_CELLS), or nothing before a chunk."""
    if not cells:
        return []
    lines = [LEGEND, *(cell_line(c) for c in cells[:MAX_CELLS])]
    if len(cells) > MAX_CELLS:
        lines.append(f"  and {len(cells) - MAX_CELLS} more cells: sim summary when done")
    return lines


def cell_line(c: Live) -> str:
    """'  base random,greedy: first seat +1.5 [+1.0, +2.0] pts, A 12.3% [11.0, 13.6]
    (4,000 pairs)'; A's score is left out in self-play, where it is 50% by symmetry."""
    first = _interval(c.first, "{:+.1f}") + " pts"
    score = "" if c.self_play else ", A " + _interval(c.a_score, "{:.1f}", "%")
    units = f"{c.units:,} {c.unit}{'' if c.units == 1 else 's'}"
    return f"  {c.config} {c.matchup}: first seat {first}{score} ({units})"


def _interval(v: tuple[float, float, float], form: str, suffix: str = "") -> str:
    value, low, high = (100 * x for x in v)
    if math.isnan(low):
        return form.format(value) + suffix
    return f"{form.format(value)}{suffix} [{form.format(low)}, {form.format(high)}]"


def _compiling(quiet: bool):
    """The runner's note before a compile: a line on stderr unless quiet."""

    def note(what: str) -> None:
        if not quiet:
            typer.echo(f"compiling {what}, first run only", err=True)

    return note
