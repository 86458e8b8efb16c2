"""`sim run` from the command line: plans, defaults, refusals and continuing."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from sim.cli import app

PLAN = Path(__file__).resolve().parents[2] / "configs" / "plans" / "nightly.toml"


def run(*args: str):
    return CliRunner().invoke(app, ["run", *args], prog_name="sim")


def test_the_shipped_plan_runs_every_config(tmp_path):
    out = tmp_path / "nightly"
    result = run("--plan", str(PLAN), "--games", "200", "--chunk-size", "200",
                 "--out", str(out), "--workers", "1", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games["config"].cast(pl.String).value_counts().height == 5
    assert games.height == 5 * 200


def test_defaults_play_base_random_against_random_and_rerun_continues(tmp_path):
    out = tmp_path / "default"
    first = run("--games", "300", "--out", str(out), "--workers", "1", "--quiet")
    assert first.exit_code == 0, first.output
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert set(games["config"].cast(pl.String)) == {"base"}
    assert games.height == 300 and games["matchup"].cast(pl.String)[0] == "random,random"
    again = run("--games", "300", "--out", str(out), "--workers", "1", "--quiet")
    assert again.exit_code == 0 and "300 already done" in again.output


def test_mistakes_get_one_error_line_and_a_non_zero_exit(tmp_path):
    bad_plan = tmp_path / "bad.toml"
    bad_plan.write_text('configs = ["base"]\nspeed = 3\n')
    cases = [  # 2: the command line's own values; 1: a named file that cannot be used
        (("--plan", str(bad_plan)), 1),
        (("--players", "random,nobody"), 2),
        (("--config", "nowhere"), 1),
        (("--games", "0"), 2),
        (("--backend", "carrier-pigeon"), 2),
    ]
    for args, code in cases:
        result = run(*args, "--out", str(tmp_path / "x"), "--quiet")
        assert result.exit_code == code, (args, result.output)
        assert result.stderr.startswith("error: ") and "Traceback" not in result.output
    assert "speed" in run("--plan", str(bad_plan), "--out", str(tmp_path / "y")).stderr


def test_dask_without_a_scheduler_is_refused(tmp_path):
    result = run("--backend", "dask", "--games", "10", "--out", str(tmp_path / "d"), "--quiet")
    assert result.exit_code == 2 and "--scheduler" in result.stderr
    assert not (tmp_path / "d").exists()  # refused before a manifest is written
