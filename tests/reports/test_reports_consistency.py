"""Every command prints the same interval for the same quantity: the Parquet tables (tallied
by the workers), sim summary, sim report and sim compare, on runs with and without swaps."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from reports.compare import _side_text, compare_runs
from reports.html import build_report, load_run
from reports.summary import summarize
from reports.text import rate_text
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.folder import open_run

MATCHUPS = ["greedy,random", "greedy,greedy", "random,random"]


@pytest.fixture(scope="module", params=[True, False], ids=["pairs", "games"])
def run(request, tmp_path_factory) -> Path:
    """A run of three match-ups in chunks of 300 (many chunks per cell), swapped or not."""
    folder = tmp_path_factory.mktemp("agree") / "r"
    plan = make_plan(["base"], MATCHUPS, 1200, 21, request.param, 300)
    return execute(plan, folder, RunOptions(workers=1)).out


def summaries(run: Path) -> dict:
    return {cell.matchup: cell for cell in summarize(open_run(run))}


def test_winrates_parquet_and_summary_give_the_same_intervals(run: Path) -> None:
    cells = summaries(run)
    stored = pl.read_parquet(run / "winrates.parquet")
    for row in stored.iter_rows(named=True):
        cell = cells[row["matchup"]]
        a = row["a"]
        pairs = {
            "first": cell.wins["first seat"],
            "second": cell.wins["second seat"],
            "draw": cell.wins["draw"],
            "a_score": cell.wins[f"A ({a}) score"],
        }
        for name, mine in pairs.items():
            low, high = row[f"{name}_low"], row[f"{name}_high"]
            assert (low, high) == pytest.approx(mine.interval, abs=1e-12), (row["matchup"], name)
            assert mine.estimate.unit == row["unit"] and mine.estimate.units == row["units"]


def test_tiebreaks_parquet_and_summary_give_the_same_intervals(run: Path) -> None:
    cells = summaries(run)
    stored = pl.read_parquet(run / "tiebreaks.parquet")
    for row in stored.filter(pl.col("category") != "tiebreak_line").iter_rows(named=True):
        cell = cells[row["matchup"]]
        shown = cell.outcomes if row["category"] == "outcome" else cell.end_reasons
        mine = shown[row["value"]]
        assert mine.k == row["count"]
        assert (row["share_low"], row["share_high"]) == pytest.approx(mine.interval, abs=1e-12)


def test_report_and_compare_print_the_summary_text(run: Path) -> None:
    cells = summaries(run)
    page = build_report(load_run(run))
    compared = {c.matchup: c for c in compare_runs(open_run(run), open_run(run)).cells}
    for matchup, cell in cells.items():
        a = matchup.partition(",")[0]
        rows = {r.metric: r for r in compared[matchup].rows}
        for summary_name, compare_name in (
            ("first seat", "first-seat win rate"),
            (f"A ({a}) score", f"A ({a}) score"),
            ("draw", "draw rate"),
        ):
            text = rate_text(cell.wins[summary_name])
            assert _side_text(rows[compare_name].a, True) == text, (matchup, summary_name)
            if summary_name != "draw" or cell.wins["draw"].k:
                assert f"<td>{text}</td>" in page, (matchup, summary_name)
        tie = cell.outcomes["tiebreak"]
        assert _side_text(rows["tie-break rate"].a, True) == rate_text(tie)
        low, high = rows["mean turns"].a.low, rows["mean turns"].a.high
        assert (low, high) == pytest.approx(cell.turns.interval, abs=1e-12)


def test_the_unit_is_the_pair_exactly_when_seats_swap(run: Path) -> None:
    swapped = pl.read_parquet(run / "games" / "*.parquet")["swapped"].any()
    for cell in summaries(run).values():
        first = cell.wins["first seat"].estimate
        assert first.unit == ("pair" if swapped else "game")
        assert first.units == (600 if swapped else 1200)
