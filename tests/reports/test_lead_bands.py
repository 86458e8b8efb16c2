"""The report's lead by turn (reports/lead_bands.py): percentiles read off a histogram,
a cell's bands from tally rows set by hand, and the section in a report: a chart per
cell, none for a run from before the lead tallies, a note for one resumed across them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from reports.html import build_report, load_run
from reports.lead_bands import cell_bands, quantile
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store import layout
from sim.store.verify import check_folder

TITLE = "The lead by turn"


def test_a_percentile_is_the_smallest_lead_with_that_share_at_or_below_it():
    """Leads -20 (1 game), 0 (2), 10 (1): 1 of 4 games (25%) at or below -20, 3 (75%) at
    or below 0. The 5th and 25th percentiles need 1 game: -20; the 50th needs 2 and the
    75th 3: 0; the 95th needs 3.8, so 4: 10."""
    values, counts = np.array([-20, 0, 10]), np.array([1, 2, 1])
    got = [quantile(values, counts, p) for p in (5, 25, 50, 75, 95)]
    assert got == [-20, -20, 0, 0, 10]


def tally(rows: list[tuple[int, str | None, int, int]]) -> pl.DataFrame:
    return pl.DataFrame(
        [("base", "random,random", *r) for r in rows],
        schema=["config", "matchup", "turn", "ahead", "margin", "games"],
        orient="row",
    )


def test_a_cells_bands_are_read_off_its_summed_tally():
    """Turn 1 of 100 games: 10 level, 60 with the first seat 10 ahead (two chunks of 30),
    30 with the second 20 ahead: mean (600 - 600) / 100 = 0; 5th percentile -20 (30 at or
    below), 25th -20, 75th 10 (40 at or below 0, 100 at or below 10), 95th 10. Turn 2, 5
    games (5%: shown), all second 10 ahead: -10 throughout. Turn 3, 4 games: left out."""
    frame = tally(
        [(1, None, 0, 10), (1, "first", 10, 30), (1, "first", 10, 30), (1, "second", 20, 30),
         (2, "second", 10, 5), (3, "first", 40, 4)]
    )  # fmt: skip
    [b] = cell_bands(frame)
    assert (b.config, b.matchup) == ("base", "random,random")
    assert b.turns.tolist() == [1, 2] and b.games.tolist() == [100, 5]
    assert b.mean.tolist() == [0.0, -10.0]
    assert {p: v.tolist() for p, v in b.quantiles.items()} == {
        5: [-20, -10],
        25: [-20, -10],
        75: [10, -10],
        95: [10, -10],
    }


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    plan = make_plan(["base", "101"], ["random,random"], 2000, 1, True, 500)
    return execute(plan, tmp_path_factory.mktemp("run") / "r", RunOptions(workers=1)).out


def section(page: str) -> str | None:
    match = re.search(rf"<h2>{TITLE}</h2>(.*?)</section>", page, re.S)
    return match.group(1) if match else None


def test_the_report_draws_a_chart_per_cell_with_its_definition(run_dir):
    html = section(build_report(load_run(run_dir)))
    assert html is not None
    for cell in ("base · random,random", "101 · random,random"):
        assert f"aria-label='{cell}'" in html
    assert html.count("<svg") == 2
    assert html.count("The first seat's lead after each turn") == 2
    assert "fewer than 5% of the 2,000 games reach" in html


def without_leads(run_dir: Path, tmp_path: Path, chunks: slice) -> Path:
    """A copy of the run whose chunks[...] have no lead tally, as a sim from before them
    wrote (no part, none in the manifest's records)."""
    out = tmp_path / "old"
    shutil.copytree(run_dir, out, ignore=shutil.ignore_patterns(".lock"))
    manifest = json.loads((out / layout.MANIFEST).read_text())
    for name in sorted(manifest["chunks"])[chunks]:
        record = manifest["chunks"][name]["parts"].pop(layout.LEADS)
        (out / layout.LEADS / record["file"]).unlink()
    (out / layout.MANIFEST).write_text(json.dumps(manifest))
    (out / layout.BACKUP).unlink(missing_ok=True)
    return out


def test_a_run_from_before_the_lead_tallies_reports_without_the_chart(run_dir, tmp_path):
    old = without_leads(run_dir, tmp_path, slice(None))
    assert check_folder(old, layout.read_manifest(old)).clean
    page = build_report(load_run(old))
    assert section(page) is None and "The game's arc" in page


def test_a_run_resumed_across_the_change_says_why_it_has_no_chart(run_dir, tmp_path):
    old = without_leads(run_dir, tmp_path, slice(0, 3))
    html = section(build_report(load_run(old)))
    assert html is not None and "<svg" not in html
    assert "3 of the 8 chunks were played before sim kept lead tallies" in html
