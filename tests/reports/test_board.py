"""The balance board of `sim summary`: verdicts on planted runs, 80 and 120 columns, --json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from hand_runs import planted, write_run
from typer.testing import CliRunner

from sim.cli import app

LINES = (10, 20, 30, 40, 50)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """Three configs: one balanced (50.0%), one favouring the first seat (53%), one too small
    to tell (50.5% on 300 pairs)."""
    frames = [
        planted("even", "random,random", 100_000, 0.500, 1),
        planted("tilted", "random,random", 20_000, 0.530, 2),
        planted("small", "random,random", 300, 0.505, 3),
    ]
    manifest = {
        "status": "complete",
        "params": {"swap": True},
        "total_games": sum(f.height for f in frames),
        "configs": {c: {"content": {"rules": {"lines": 5}}} for c in ("even", "tilted", "small")},
    }
    return write_run(tmp_path_factory.mktemp("board") / "r", pl.concat(frames), None, manifest)


def invoke(columns: int, *args: str):
    return CliRunner().invoke(app, ["summary", *args], env={"COLUMNS": str(columns)})


def board_json(run: Path, *args: str) -> dict:
    result = invoke(200, str(run), "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_verdicts_on_planted_configs(run):
    verdicts = {r["config"]: r["seat_verdict"] for r in board_json(run)["board"]}
    assert verdicts["even"]["kind"] == "balanced"
    assert verdicts["tilted"]["kind"] == "favours"
    assert verdicts["tilted"]["favoured"] == "first seat"
    assert 0.02 < verdicts["tilted"]["advantage"] < 0.04
    assert verdicts["small"]["kind"] == "inconclusive"
    assert verdicts["small"]["more_units"] > 1_000


def test_a_wider_margin_turns_the_tilted_config_balanced(run):
    rows = board_json(run, "--margin", "5")["board"]
    verdicts = {r["config"]: r["seat_verdict"]["kind"] for r in rows}
    assert verdicts["tilted"] == "balanced"


@pytest.mark.parametrize("columns", [80, 120])
def test_board_fits_and_cuts_no_number(run, columns):
    result = invoke(columns, str(run))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    assert len(lines) <= 24
    words = set(result.stdout.split())
    for row in board_json(run)["board"]:
        first = row["first_seat_score"]
        for value in (first["low"], first["high"]):
            bound = f"{100 * (value - 0.5):+.1f}"
            assert any(re.fullmatch(rf"\[?{re.escape(bound)}[,\]]", w) for w in words), bound
        assert f"{100 * row['draw_rate']:.1f}%" in words
        assert f"{row['units']:,}" in words
    assert "…" not in result.stdout


def test_sections_follow_only_when_asked(run):
    plain = invoke(120, str(run)).stdout
    shown = invoke(120, str(run), "--show", "ends").stdout
    assert "End reasons" not in plain and "End reasons" in shown
    assert "Line control" not in shown
    assert "Line control" in invoke(120, str(run), "--detail").stdout


def test_unknown_section_and_bad_margin_are_usage_errors(run):
    bad = invoke(80, str(run), "--show", "nope")
    assert bad.exit_code == 2 and "--show nope" in bad.output
    assert invoke(80, str(run), "--margin", "-1").exit_code == 2


def test_json_rows_hold_the_terminal_numbers(run):
    data = board_json(run, "--show", "wins")
    assert data["shape"] == 1 and data["margin_pts"] == 1.0
    text = invoke(200, str(run)).stdout
    for row in data["board"]:
        assert f"{100 * row['a_score']['value']:.1f}%" in text
        assert row["seat_verdict"]["text"].split()[0] in text
    wins = data["cells"][0]["wins"]["first seat"]
    assert wins["games"] == 200_000 and wins["units"] == 100_000


def test_a_strategy_with_two_parameters_is_named_whole(tmp_path):
    """The comma between a match-up's seats is the one outside parentheses: a strategy
    with two parameters is not cut at its own comma (it was: "favours b=4),greedy")."""
    a, b = "my.py:Two(a=3,b=4)", "greedy"
    games = planted("base", f"{a},{b}", 2_000, 0.5, 4, seats=(a, b))
    # A wins every game it plays: B's seat loses whether first or second
    games = games.with_columns(
        winner=pl.when(pl.col("first") == a).then(pl.lit("first")).otherwise(pl.lit("second"))
    )
    manifest = {"status": "complete", "params": {"swap": True}, "total_games": games.height,
                "configs": {"base": {"content": {"rules": {"lines": 5}}}}}  # fmt: skip
    folder = write_run(tmp_path / "two", games, None, manifest)
    result = invoke(200, str(folder))
    assert result.exit_code == 0, result.output
    assert f"base · {a} vs {b}: favours {a} by +50.0" in result.stdout
    assert "b=4)," not in result.stdout.replace(f"{a},{b}", "")
