"""`sim compare`: which is closer to balanced, two configs of one run, exit code 3."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hand_runs import manifest, planted, write_run
from typer.testing import CliRunner

from reports.balance import closer
from sim.cli import app
from sim.stats import Tally, rate


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """One run, two configs on the same seeds: 'tilted' favours the first seat by 4 points,
    'even' does not; 'twin' plays the same games as 'even'."""
    even = planted("even", "random,random", 20_000, 0.50, 7)
    frames = [planted("tilted", "random,random", 20_000, 0.54, 8), even]
    frames.append(even.with_columns(pl.lit("twin").alias("config")))
    frame = pl.concat(frames)
    folder = tmp_path_factory.mktemp("cmp") / "r"
    return write_run(folder, frame, None, manifest(["tilted", "even", "twin"], frame.height))


def invoke(*args: str):
    return CliRunner().invoke(app, ["compare", *args], env={"COLUMNS": "120"})


def test_two_configs_of_one_run_are_compared_paired_and_the_closer_is_named(run):
    result = invoke(str(run), "--config", "tilted", "--config", "even")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    answer = next(i for i, line in enumerate(lines) if "closer to balanced" in line)
    changed = next(i for i, line in enumerate(lines) if "paired on 20,000 pairs" in line)
    assert answer < changed  # the designer's answer comes first
    assert "B is closer to balanced" in result.stdout
    assert f"{run} [config tilted]" in result.stdout


def test_json_says_which_is_closer_with_the_interval_of_the_distance_change(run):
    result = invoke(str(run), "--config", "even", "--config", "tilted", "--json")
    assert result.exit_code == 0, result.output
    (cell,) = json.loads(result.stdout)["cells"]
    balance = cell["balance"]
    assert balance["closer"] == "A" and cell["paired"]
    d = balance["distance_change"]
    assert d["paired"] and 0.02 < d["low"] < d["estimate"] < d["high"] < 0.06


def test_fail_on_change_exits_3_and_no_change_exits_0(run):
    changed = invoke(str(run), "--config", "tilted", "--config", "even", "--fail-on-change")
    assert changed.exit_code == 3, changed.output
    same = invoke(str(run), "--config", "even", "--config", "twin", "--fail-on-change")
    assert same.exit_code == 0, same.output
    assert "neither is detectably closer to balanced" in same.stdout


def test_an_unknown_config_of_the_run_is_one_error(run):
    result = invoke(str(run), "--config", "even", "--config", "nope")
    assert result.exit_code == 1
    assert result.output.count("error:") == 1 and "no config nope" in result.output


def test_play_options_with_one_run_are_usage_errors(run):
    result = invoke(str(run), "--config", "even", "--config", "tilted", "--games", "10")
    assert result.exit_code == 2 and "--games" in result.output


def test_unpaired_distance_change_agrees_with_its_paired_one_in_sign():
    a = planted("a", "random,random", 5_000, 0.46, 1)  # favours the second seat by 4
    b = planted("b", "random,random", 5_000, 0.51, 2)
    scores = [rate(Tally(*counted(f)), "pair") for f in (a, b)]
    result = closer(*scores)
    assert result.answer == "B"
    assert result.diff.high < 0 and not result.diff.paired
    assert np.isclose(result.a.value, a["winner"].eq("first").mean())
    paired = closer(*scores, (a, b))  # as if the same seeds: the same answer, pair by pair
    assert paired.answer == "B" and paired.diff.paired and paired.diff.high < 0


def counted(games: pl.DataFrame) -> tuple:
    """The first seat's score's Tally fields over seat-swapped pairs, counted here."""
    per_pair = (
        games.group_by("pair")
        .agg(((pl.col("winner") == "first") + 0.5 * (pl.col("winner") == "draw")).sum())["winner"]
        .to_numpy()
    )
    n = len(per_pair)
    return n, per_pair.sum(), 2.0 * n, (per_pair**2).sum(), 4.0 * n, 2.0 * per_pair.sum()


@pytest.mark.parametrize("columns", [80, 120])
def test_compare_tables_fit_and_cut_no_number(run, columns):
    args = (str(run), "--config", "tilted", "--config", "even")
    result = CliRunner().invoke(app, ["compare", *args], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= columns
    words = set(result.stdout.split())
    (cell,) = json.loads(invoke(*args, "--json").stdout)["cells"]
    for row in cell["rows"]:
        d = row["difference"]
        if row["kind"] == "rate":
            assert f"[{100 * d['low']:+.1f}," in words, row["metric"]
            assert f"{100 * d['high']:+.1f}]" in words, row["metric"]
            assert f"{100 * row['a']['value']:.1f}%" in words, row["metric"]
