"""`sim report A B`: a comparison page of two runs; `sim report --json`; its usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hand_runs import manifest, planted, write_run
from typer.testing import CliRunner

from sim.cli import app


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("two")
    a = planted("base", "random,random", 5_000, 0.54, 1)  # first seat +4 points
    b = planted("base", "random,random", 5_000, 0.50, 1)
    return (
        write_run(tmp / "a", a, None, manifest(["base"], a.height)),
        write_run(tmp / "b", b, None, manifest(["base"], b.height)),
    )


def test_two_runs_give_one_comparison_page(runs, tmp_path):
    out = tmp_path / "cmp.html"
    result = cli("report", str(runs[0]), str(runs[1]), "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["command"] == "report" and data["bytes"] == out.stat().st_size
    page = out.read_text()
    assert data["figures"] == page.count("<svg") >= 1
    assert "<h2>Closer to balanced?</h2>" in page
    assert "base · random,random: B is closer to balanced" in page
    assert "A: base · random,random" in page and "B: base · random,random" in page
    assert "balanced: ±1 pts" in page  # the margin band's legend


def test_a_run_twice_or_a_bad_margin_are_usage_errors(runs, tmp_path):
    three = cli("report", str(runs[0]), str(runs[1]), str(runs[0]), "--out", str(tmp_path / "x"))
    assert three.exit_code == 2 and "a run folder is given twice" in three.output
    margin = cli("report", str(runs[0]), "--margin", "0", "--out", str(tmp_path / "y"))
    assert margin.exit_code == 2 and "--margin" in margin.output


def cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
