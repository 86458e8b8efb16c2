"""reports/history.py and `sim history`: runs in date order, a flag where compare's primary
family moved, cells that cannot be compared named, JSON and CSV of the same figures."""

from __future__ import annotations

import csv
import io
import json

import polars as pl
import pytest
from cli_failures import assert_clean_failure
from hand_runs import manifest, planted, write_run
from typer.testing import CliRunner

from sim.cli import app

PAIRS = 20_000


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env={"COLUMNS": "80"})


def nightly(folder, config: str, p_first: float, seed: int, created: str, extra=None):
    """A hand-made run of one config, the first seat winning with chance p_first."""
    games = planted(config, "random,random", PAIRS, p_first, seed)
    if extra is not None:
        games = pl.concat([games, extra])
    configs = sorted(set(games["config"]))
    shape = {**manifest(configs, games.height), "created": created}
    return write_run(folder, games, None, shape)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Four nightly runs, their folder names out of date order: two even runs of base on
    different seeds, a run of 'tilted' whose first seat wins 56%, and a later base run that
    also plays a second match-up."""
    root = tmp_path_factory.mktemp("nightly")
    extra = planted("base", "greedy,random", 500, 0.5, 9)
    nightly(root / "a", "tilted", 0.56, 3, "2026-12-03T02:00:00+0000")
    nightly(root / "b", "base", 0.50, 1, "2026-12-01T02:00:00+0000")
    nightly(root / "c", "base", 0.50, 2, "2026-12-02T02:00:00+0000")
    nightly(root / "d", "base", 0.50, 4, "2026-12-04T02:00:00+0000", extra)
    return root


def test_runs_come_in_date_order_and_only_the_real_move_is_flagged(runs):
    result = invoke("history", str(runs), "--json")
    assert result.exit_code == 0, result.output
    shape = json.loads(result.stdout)["runs"]
    assert [r["run"].rsplit("/", 1)[1] for r in shape] == ["b", "c", "a", "d"]
    assert [r["date"][:10] for r in shape] == ["2026-12-01", "2026-12-02", "2026-12-03",
                                               "2026-12-04"]  # fmt: skip
    # planted: 50% -> 50% (chance only), 50% -> 56% (+6 pts), 56% -> 50% (-6 pts)
    assert [r["moved"] for r in shape] == [False, False, True, True]
    assert shape[0]["previous"] is None and shape[2]["previous"].endswith("/c")
    (change,) = [c for c in shape[2]["changes"] if c["metric"].startswith("first-seat")]
    assert change["difference"]["estimate"] == pytest.approx(0.06, abs=0.015)


def test_the_figures_are_the_runs_own_counted_by_hand(runs):
    shape = json.loads(invoke("history", str(runs), "--json").stdout)["runs"]
    games = pl.read_parquet(runs / "a" / "games" / "*.parquet")
    first_won = (games["winner"] == "first").sum() / games.height  # no draws planted
    (cell,) = shape[2]["cells"]
    assert cell["config"] == "tilted" and cell["games"] == 2 * PAIRS
    assert cell["first_seat_score"]["value"] == pytest.approx(first_won)


def test_moved_is_compares_fail_on_change_gate(runs):
    for before, after, moved in (("b", "c", False), ("c", "a", True)):
        gate = invoke("compare", str(runs / before), str(runs / after), "--fail-on-change")
        assert gate.exit_code == (3 if moved else 0), gate.output


def test_a_config_change_and_a_cell_without_partner_are_said(runs):
    shape = json.loads(invoke("history", str(runs), "--json").stdout)["runs"]
    assert shape[2]["compared_on"] == [
        {"config_previous": "base", "config": "tilted", "matchup": "random,random"}
    ]
    assert shape[3]["not_comparable"] == ["only in this run: base · greedy,random"]
    text = invoke("history", str(runs)).stdout
    assert "compared by match-up, the config changed (base → tilted)" in text
    assert "not comparable" in text and "MOVED" in text and "first run" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_csv_has_a_row_per_run_and_cell(runs):
    rows = list(csv.DictReader(io.StringIO(invoke("history", str(runs), "--csv").stdout)))
    assert [(r["run"][-1], r["matchup"]) for r in rows] == [
        ("b", "random,random"),
        ("c", "random,random"),
        ("a", "random,random"),
        ("d", "random,random"),
        ("d", "greedy,random"),
    ]
    assert [r["moved"] for r in rows] == ["false", "false", "true", "true", "true"]
    assert [r["cell_compared"] for r in rows][-2:] == ["true", "false"]
    shape = json.loads(invoke("history", str(runs), "--json").stdout)["runs"]
    assert float(rows[2]["first_seat_score_lo"]) == shape[2]["cells"][0]["first_seat_score"]["low"]


def test_runs_given_one_by_one_are_put_in_date_order(runs):
    shape = json.loads(invoke("history", str(runs / "a"), str(runs / "b"), "--json").stdout)
    assert [r["run"][-1] for r in shape["runs"]] == ["b", "a"]


@pytest.mark.parametrize(
    ("args", "said", "code"),
    [
        (("history", "nowhere"), "nowhere: no such folder", 1),
        (("history", "RUNS", "--json", "--csv"), "choose one of --json and --csv", 2),
    ],
)
def test_mistakes_are_one_line(runs, args, said, code):
    result = invoke(*(str(runs) if a == "RUNS" else a for a in args))
    assert result.exit_code == code
    assert said in assert_clean_failure(result)


def test_a_folder_without_runs_is_refused(tmp_path):
    result = invoke("history", str(tmp_path))
    assert "holds none" in assert_clean_failure(result)


def test_real_nightly_runs_base_base_then_variants(tmp_path):
    """The issue's example: two runs of base on different seeds, then one of variants."""
    for name, config, seed in (("n1", "base", "1"), ("n2", "base", "2"), ("n3", "variants", "2")):
        done = invoke("run", "--config", config, "--seed", seed, "--games", "20000",
                      "--workers", "1", "--quiet", "--out", str(tmp_path / name))  # fmt: skip
        assert done.exit_code == 0, done.output
    shape = json.loads(invoke("history", str(tmp_path), "--json").stdout)["runs"]
    assert [r["run"][-2:] for r in shape] == ["n1", "n2", "n3"]
    assert [r["moved"] for r in shape] == [False, False, True]


def test_report_of_several_runs_is_their_history_page(runs, tmp_path):
    out = tmp_path / "history.html"
    paths = [str(runs / name) for name in ("a", "b", "c", "d")]
    result = invoke("report", *paths, "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["figures"] == 1
    page = out.read_text(encoding="utf-8")
    assert "4 runs over time" in page
    # one table row per run and cell, in date order b, c, a, d; flags as the terminal's
    flags = [row.rsplit("<td class='l'>", 1)[1].split("</td>")[0] for row in page.split("<tr>")[2:]]
    assert flags == ["first run", "no", "<b>MOVED</b>", "<b>MOVED</b>", "not comparable"]
    assert "compared by match-up, the config changed (base → tilted)" in page


def test_an_unfinished_run_is_said(tmp_path):
    nightly(tmp_path / "a", "base", 0.5, 1, "2026-12-01T02:00:00+0000")
    late = nightly(tmp_path / "b", "base", 0.5, 2, "2026-12-02T02:00:00+0000")
    shape = json.loads((late / "manifest.json").read_text())
    (late / "manifest.json").write_text(json.dumps({**shape, "status": "running"}))
    runs = json.loads(invoke("history", str(tmp_path), "--json").stdout)["runs"]
    unfinished = [[w for w in r["warnings"] if "run is running" in w] for r in runs]
    assert unfinished[0] == [] and len(unfinished[1]) == 1
    assert "run is running" in " ".join(invoke("history", str(tmp_path)).stdout.split())
