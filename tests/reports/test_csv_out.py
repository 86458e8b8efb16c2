"""reports/csv_out.py and `--csv` on summary and compare: the main table as CSV, the same
values as --json, and values counted by hand from a hand-made run."""

from __future__ import annotations

import csv
import io
import json

import polars as pl
import pytest
from cli_failures import assert_clean_failure
from hand_runs import tiny_games, write_run
from typer.testing import CliRunner

from reports.csv_out import flat, to_csv
from sim.cli import app


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim")


def parsed(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny hand-made run (tests/hand_runs.py) and a copy in which the first seat wins
    every game, on the same seeds."""
    where = tmp_path_factory.mktemp("csv")
    games = tiny_games()
    sweep = games.with_columns(pl.lit("first").alias("winner"), pl.lit("points").alias("outcome"))
    return write_run(where / "tiny", games), write_run(where / "sweep", sweep)


def test_intervals_become_lo_and_hi_columns_and_objects_flatten():
    record = {
        "config": "base",
        "score": {"value": 0.5, "low": 0.4, "high": 0.6},
        "difference": {"estimate": -1.0, "low": -2.0, "high": 0.0},
        "verdict": {"kind": "balanced", "low": 0.1},
        "notes": ["a list is a table of its own"],
    }
    assert flat(record) == {
        "config": "base",
        "score": 0.5,
        "score_lo": 0.4,
        "score_hi": 0.6,
        "difference": -1.0,
        "difference_lo": -2.0,
        "difference_hi": 0.0,
        "verdict_kind": "balanced",
        "verdict_lo": 0.1,
    }


def test_one_header_row_plain_values_and_commas_quoted():
    text = to_csv([{"m": "a,b", "x": 0.1, "ok": True}, {"m": "c", "x": None, "y": float("nan")}])
    assert text.splitlines() == ["m,x,ok,y", '"a,b",0.1,true,', "c,,,"]


def test_summary_csv_holds_the_hand_counted_board(tiny):
    result = invoke("summary", str(tiny[0]), "--csv")
    assert result.exit_code == 0, result.output
    (row,) = parsed(result.stdout)
    # tests/hand_runs.py: first seat wins games 0, 1, 4, 6 and draws game 3 -> 4.5 of 8;
    # A (greedy, first in even games) wins 0, 4, 5, 6, 7 and draws 3 -> 5.5 of 8
    assert row["config"] == "tiny" and row["matchup"] == "greedy,random"
    assert (row["games"], row["units"], row["unit"]) == ("8", "4", "pair")
    assert float(row["first_seat_score"]) == pytest.approx(4.5 / 8)
    assert float(row["a_score"]) == pytest.approx(5.5 / 8)
    assert float(row["draw_rate"]) == pytest.approx(1 / 8)
    assert float(row["tiebreak_share"]) == pytest.approx(3 / 8)
    assert float(row["mean_turns"]) == pytest.approx(188 / 8)
    assert float(row["first_seat_score_lo"]) < 4.5 / 8 < float(row["first_seat_score_hi"])


def test_summary_csv_and_json_agree(tiny):
    board = json.loads(invoke("summary", str(tiny[0]), "--json").stdout)["board"]
    (row,) = parsed(invoke("summary", str(tiny[0]), "--csv").stdout)
    for name in ("first_seat_score", "a_score"):
        for end, key in (("", "value"), ("_lo", "low"), ("_hi", "high")):
            assert float(row[name + end]) == board[0][name][key]
    assert row["seat_verdict_kind"] == board[0]["seat_verdict"]["kind"]
    assert "\x1b" not in invoke("summary", str(tiny[0]), "--csv").stdout


def test_compare_csv_has_a_row_per_metric_with_hand_counted_values(tiny):
    result = invoke("compare", str(tiny[0]), str(tiny[1]), "--csv")
    assert result.exit_code == 0, result.output
    rows = parsed(result.stdout)
    shape = json.loads(invoke("compare", str(tiny[0]), str(tiny[1]), "--json").stdout)
    assert len(rows) == sum(len(cell["rows"]) for cell in shape["cells"])
    first = next(r for r in rows if r["metric"].startswith("first-seat"))
    # the first seat wins 4 of 8 games in the tiny run, 8 of 8 in the sweep, same seeds
    assert float(first["a"]) == pytest.approx(4 / 8) and float(first["b"]) == 1.0
    assert float(first["difference"]) == pytest.approx(0.5)
    assert first["a_games"] == "8" and first["paired"] == "true"
    json_first = shape["cells"][0]["rows"][0]
    assert float(first["p_value"]) == json_first["p_value"]
    assert float(first["difference_lo"]) == json_first["difference"]["low"]


@pytest.mark.parametrize(
    "args",
    [
        ("summary", "RUN", "--csv", "--json"),
        ("summary", "RUN", "--csv", "--detail"),
        ("compare", "RUN", "RUN", "--csv", "--json"),
        ("compare", "RUN", "RUN", "--csv", "--markdown"),
    ],
)
def test_two_formats_at_once_are_a_usage_error(tiny, args):
    result = invoke(*(str(tiny[0]) if a == "RUN" else a for a in args))
    assert result.exit_code == 2
    assert "--csv" in assert_clean_failure(result)
