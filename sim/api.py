"""The Python API for notebooks and scripts: `sim.run(...)` plays a plan as `sim run` does
(progress off by default) and `sim.open_run(path)` reads a run folder lazily.

Runs use worker processes started by spawning, which import the calling script again: a
script must call sim.run under `if __name__ == "__main__":`, and sim.run says so before
any worker starts rather than letting every worker die importing it.
"""

from __future__ import annotations

import ast
import multiprocessing
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from sim.store.folder import RunFolder

GUARD = 'if __name__ == "__main__":'


class MainGuardError(RuntimeError):
    """sim.run called at a script's top level without the __main__ guard."""


def run(
    configs: Sequence[str] = ("base",),
    players: Sequence[str] = ("random,random",),
    games: int = 10_000,
    seed: int = 0,
    out: str | Path = "runs/latest",
    *,
    swap: bool = True,
    chunk_size: int | None = None,
    workers: int | None = None,
    overwrite: bool = False,
    per_game_cards: bool = False,
    progress: bool = False,
    overlay: Sequence[str] = (),
) -> RunView:
    """Play every config x match-up as `sim run` does into `out` and open the result.
    overlay: `--set` items (["rules.run_capacity=5"]) applied to every config.
    Rerunning the same call continues an interrupted run. PlanError / RunError on mistakes."""
    from sim.runner.plan import make_plan
    from sim.runner.run import RunOptions, execute

    _check_main_guard()
    plan = make_plan(
        list(configs), list(players), games, seed, swap, chunk_size, overlay=tuple(overlay)
    )
    if per_game_cards:
        plan = replace(plan, per_game_cards=True)
    report = _print_progress if progress else None
    note = _print_compiling if progress else None
    execute(plan, Path(out), RunOptions(workers, overwrite=overwrite), report, note=note)
    return open_run(out)


def _print_compiling(what: str) -> None:
    print(f"compiling {what}, first run only", file=sys.stderr)


def _print_progress(done: int, total: int) -> None:
    print(f"\r{done:,} of {total:,} games", end="\n" if done == total else "", file=sys.stderr)


def _check_main_guard() -> None:
    """MainGuardError when called from a script's top-level code outside the guard (or
    inside a worker process importing such a script)."""
    if multiprocessing.parent_process() is not None and _importing_main():
        raise MainGuardError(_guard_message("a worker process imported it again"))
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not Path(path).is_file():  # a notebook or the interactive prompt
        return
    frame = sys._getframe(2)
    while frame is not None and not (
        frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__main__"
    ):
        frame = frame.f_back
    if frame is not None and not _inside_guard(Path(path), frame.f_lineno):
        raise MainGuardError(_guard_message(f"{path}, line {frame.f_lineno}"))


def _importing_main() -> bool:
    return getattr(sys.modules.get("__main__"), "__name__", "") == "__mp_main__"


def _guard_message(where: str) -> str:
    return (
        f"sim.run() was called at the top level of a script ({where}) without {GUARD!r}: "
        "its worker processes import the script again, so put the call under that guard"
    )


def _inside_guard(path: Path, line: int) -> bool:
    """Whether a line of a script lies in a top-level `if __name__ == "__main__":` block."""
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return True  # cannot tell: let the run go ahead
    return any(
        isinstance(node, ast.If)
        and _is_guard(node.test)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
        for node in tree.body
    )


def _is_guard(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.comparators) == 1):
        return False
    sides = [test.left, test.comparators[0]]
    names = any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
    main = any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
    return names and main and isinstance(test.ops[0], ast.Eq)


def open_run(path: str | Path) -> RunView:
    """A run folder for reading: lazy tables and the summaries the commands print.
    RunFolderError when the folder holds no readable run."""
    from sim.store.folder import open_run as open_folder

    return RunView(open_folder(Path(path)))


@dataclass(frozen=True)
class RunView:
    """A run folder's tables as polars LazyFrames (text as strings; only verified parts),
    and the summaries `sim summary` prints as DataFrames."""

    folder: RunFolder

    @property
    def path(self) -> Path:
        return self.folder.path

    @property
    def manifest(self) -> dict:
        return self.folder.manifest

    @property
    def games(self) -> pl.LazyFrame:
        """One row per game, with the `seed` it was dealt (UInt64): the parts do not store
        it, so it is derived from the manifest (sim.store.seeding), as the workers derived it."""
        from sim.store.folder import plain

        return plain(self.folder.seeded())

    @property
    def winrates(self) -> pl.LazyFrame:
        """Win counts, rates and intervals per config and match-up (winrates.parquet)."""
        return pl.scan_parquet(self.path / "winrates.parquet")

    @property
    def tiebreaks(self) -> pl.LazyFrame:
        """Outcomes, deciding lines and end reasons per cell (tiebreaks.parquet)."""
        return pl.scan_parquet(self.path / "tiebreaks.parquet")

    @property
    def cards(self) -> pl.LazyFrame:
        """The card tallies, a few rows per chunk, side and kind (docs/scale.md, The run folder)."""
        return self.folder.table("card_tallies")

    @property
    def per_game_cards(self) -> pl.LazyFrame | None:
        """One row per game and seat, when the run was played with per_game_cards."""
        return self.folder.table("cards")

    @cached_property
    def _summaries(self) -> list:
        from reports.summary import read_cards, summarize

        return summarize(self.folder, read_cards(self.folder))

    def summary(self) -> pl.DataFrame:
        """Every rate `sim summary` prints, one row each: config, matchup, table, name,
        count, of, rate, low, high, unit."""
        rows = []
        for s in self._summaries:
            groups = {"wins": s.wins, "outcomes": s.outcomes, "end reasons": s.end_reasons}
            for table, values in groups.items():
                rows += [_rate_row(s, table, name, p) for name, p in values.items()]
            for t in s.tiebreaks:
                rows.append(_rate_row(s, "tie-breaks", f"decided on line {t.line}", t.decided))
                rows.append(_rate_row(s, "tie-breaks", f"first won on line {t.line}", t.first_won))
            for c in s.control:
                for seat in ("first", "second", "nobody"):
                    rows.append(
                        _rate_row(s, "line control", f"line {c.line}: {seat}", getattr(c, seat))
                    )
        return pl.DataFrame(rows, schema=SUMMARY_SCHEMA, orient="row")

    def turns(self) -> pl.DataFrame:
        """Mean turns per cell with its interval, as `sim summary` prints it."""
        rows = []
        for s in self._summaries:
            low, high = s.turns.interval
            rows.append(
                (s.config, s.matchup, s.turns.n, s.turns.mean, s.turns.sd, low, high, s.unit)
            )
        schema = ["config", "matchup", "games", "mean", "sd", "low", "high", "unit"]
        return pl.DataFrame(rows, schema=schema, orient="row")

    def card_summary(self) -> pl.DataFrame:
        """The per-card table of `sim summary`: one row per cell, strategy and kind."""
        rows = []
        for s in self._summaries:
            for c in s.cards:
                rows.append((
                    s.config, s.matchup, c.strategy, c.kind, c.seat_games, c.drawn, c.played,
                    c.played_any.rate, c.won_played.rate, c.won_played.n, c.won_not.rate,
                    c.won_not.n,
                ))  # fmt: skip
        return pl.DataFrame(rows, schema=CARD_SCHEMA, orient="row")


SUMMARY_SCHEMA = {
    "config": pl.String, "matchup": pl.String, "table": pl.String, "name": pl.String,
    "count": pl.Float64, "of": pl.Int64, "rate": pl.Float64, "low": pl.Float64,
    "high": pl.Float64, "unit": pl.String,
}  # fmt: skip
CARD_SCHEMA = {
    "config": pl.String, "matchup": pl.String, "strategy": pl.String, "kind": pl.String,
    "seat_games": pl.Int64, "drawn": pl.Float64, "played": pl.Float64,
    "played_any": pl.Float64, "won_played": pl.Float64, "won_played_n": pl.Int64,
    "won_unplayed": pl.Float64, "won_unplayed_n": pl.Int64,
}  # fmt: skip


def _rate_row(s, table: str, name: str, p) -> tuple:
    low, high = p.interval
    return (s.config, s.matchup, table, name, float(p.k), p.n, p.rate, low, high, s.unit)
