"""`sim league` and `sim skill` from the command line: they play through the runner into a
run folder, read it back the same way as `RUN`, print their JSON shapes, and refuse bad
input with one line. Few pairs of the compiled players keep each call to seconds."""

from __future__ import annotations

import json

import pytest
from cli_failures import assert_clean_failure
from typer.testing import CliRunner

from sim.cli import app


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env={"COLUMNS": "80"})


def as_json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def league_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("league") / "run"
    result = invoke("league", "--players", "random,greedy,heuristic", "--pairs", "60",
                    "--out", str(out), "--json", "-q", "--workers", "1")  # fmt: skip
    return out, as_json(result)


def test_league_json_shape(league_run):
    _, doc = league_run
    assert doc["command"] == "league"
    (cfg,) = doc["configs"]
    assert cfg["config"] == "base"
    assert [r["player"] for r in cfg["ratings"]][-1] == "random" or cfg["rating_problem"]
    assert {"player", "elo", "lo", "hi"} <= set(cfg["ratings"][0])
    assert len(cfg["crosstable"]) == 6  # three pairings, both ways round
    assert all(row["pairs"] == 60 for row in cfg["crosstable"])
    assert cfg["verdict"]["kind"] in ("dominates", "cycle", "unclear")
    assert sum(cfg["nash"].values()) == pytest.approx(1.0)


def test_league_reads_its_run_back_the_same(league_run):
    out, doc = league_run
    assert as_json(invoke("league", str(out), "--json")) == doc


def test_league_prints_a_crosstable_ratings_and_a_verdict_in_80_columns(league_run):
    out, _ = league_run
    result = invoke("league", str(out))
    assert result.exit_code == 0, result.output
    assert "verdict:" in result.stdout and "Nash equilibrium:" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


@pytest.fixture(scope="module")
def skill_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("skill") / "run"
    result = invoke("skill", "--players", "random,greedy", "--pairs", "60", "--out",
                    str(out), "--json", "-q", "--workers", "1")  # fmt: skip
    return out, as_json(result)


def test_skill_json_shape(skill_run):
    _, doc = skill_run
    assert doc["command"] == "skill"
    (cfg,) = doc["configs"]
    assert [lv["player"] for lv in cfg["levels"]] == ["random", "greedy"]
    for lv in cfg["levels"]:
        fs = lv["first_seat"]
        assert fs["lo"] <= fs["pts"] <= fs["hi"] and lv["pairs"] == 60
        assert lv["verdict"]["kind"] in ("balanced", "favours", "inconclusive")
        assert lv["arc"]["units"] == 60  # the level's self-play pairs (the rung's are not)
    (rung,) = cfg["rungs"]
    assert (rung["strong"], rung["weak"]) == ("greedy", "random")
    assert rung["score"]["lo"] <= rung["score"]["pct"] <= rung["score"]["hi"]
    assert cfg["elo"]["random"]["elo"] == 0
    assert cfg["elo_span"]["elo"] == cfg["elo"]["greedy"]["elo"]
    assert 0 <= cfg["luck_share"]["share"] <= 1


def test_skill_reads_its_run_back_the_same_and_fits_80_columns(skill_run):
    out, doc = skill_run
    assert as_json(invoke("skill", str(out), "--json")) == doc
    result = invoke("skill", str(out))
    assert "as skill rises" in result.stdout and "luck share" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


@pytest.mark.parametrize(
    "args, words",
    [
        (("league", "--players", "random,nosuch"), "nosuch"),
        (("league", "--players", "random"), "two or more"),
        (("league", "--players", "random,random"), "given twice"),
        (("league", "--players", "random,cpu(level=1)"), "second seat only"),
        (("skill", "--players", "random,greedy", "--pairs", "0"), "--pairs"),
        (("skill", "--players", "random,greedy", "--margin", "0"), "--margin"),
        (("skill", "RUN", "--players", "random,greedy"), "RUN reads"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, words):
    result = invoke(*args)
    line = assert_clean_failure(result)
    assert result.exit_code == 2, result.output
    assert words in line


def test_a_folder_that_is_no_run_is_one_line_and_exit_1(tmp_path):
    result = invoke("league", str(tmp_path))
    assert result.exit_code == 1
    assert "not a run folder" in assert_clean_failure(result)


def test_league_and_skill_write_their_main_table_as_csv(league_run, skill_run):
    """--csv: the ratings (league) and the levels (skill), one row per config and player,
    the same numbers as --json, intervals as _lo/_hi columns."""
    import csv
    import io

    for (out, doc), command, table in ((league_run, "league", "ratings"),
                                       (skill_run, "skill", "levels")):  # fmt: skip
        result = invoke(command, str(out), "--csv")
        assert result.exit_code == 0, result.output
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        expected = doc["configs"][0][table]
        assert [r["player"] for r in rows] == [e["player"] for e in expected]
        assert all(r["config"] == doc["configs"][0]["config"] for r in rows)
    first = rows[0]  # skill's weakest level
    level = doc["configs"][0]["levels"][0]
    assert float(first["first_seat_pts"]) == pytest.approx(level["first_seat"]["pts"])
    assert float(first["first_seat_lo"]) == pytest.approx(level["first_seat"]["lo"])
    failed = invoke("skill", str(skill_run[0]), "--csv", "--json")
    assert failed.exit_code == 2 and "choose one of --json and --csv" in failed.stderr
