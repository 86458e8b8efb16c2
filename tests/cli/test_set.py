"""`--set` on the command line: a derived config plays as its file would, is named, is
recorded in the manifest so `sim show --run` replays it, and bad items exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from cli_failures import assert_clean_failure
from typer.testing import CliRunner

from sim.cli import app

# base (configs/base.toml) with RUN capacity 5 and no DELETE, written out by hand, cards in
# base's order: what `--config base --set rules.run_capacity=5 --set deck.DELETE=0` derives.
BY_HAND = """
[rules]
lines = 5
run_capacity = 5

[[deck]]
kind = "BLANK"
count = 7
"""
BY_HAND += "".join(
    f'\n[[deck]]\nkind = "{kind}"\naxis = "{axis}"\n'
    for kind in ("ENTER", "IF...THEN", "PRINT", "SAVE")
    for axis in ("H", "V")
)
SETS = ("--set", "deck.DELETE=0", "--set", "rules.run_capacity=5")
DERIVED = "base+run_capacity=5+DELETE=0"
PLAY = ("--games", "400", "--seed", "11", "--workers", "1", "--quiet")


def sim(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """The same games twice: once from --set, once from the file written by hand."""
    where = tmp_path_factory.mktemp("set")
    (where / "by-hand.toml").write_text(BY_HAND)
    derived, by_hand = where / "derived", where / "by-hand"
    first = sim("run", "--config", "base", *SETS, *PLAY, "--out", str(derived))
    assert first.exit_code == 0, first.output
    second = sim("run", "--config", str(where / "by-hand.toml"), *PLAY, "--out", str(by_hand))
    assert second.exit_code == 0, second.output
    return derived, by_hand


def games(folder: Path) -> pl.DataFrame:
    frame = pl.read_parquet(folder / "games" / "*.parquet")
    return frame.sort("game").drop("config", "run_id")  # the only two that name the run


def test_the_derived_config_plays_the_hand_written_files_games(runs):
    derived, by_hand = runs
    a, b = games(derived), games(by_hand)
    assert a.height == 400
    assert a.equals(b)  # config_hash included: the same content hashes the same


def test_the_derived_config_is_named_in_tables_and_reports(runs):
    derived, _ = runs
    names = pl.read_parquet(derived / "games" / "*.parquet")["config"].cast(pl.String)
    assert set(names) == {DERIVED}
    summary = sim("summary", str(derived), "--json")
    assert summary.exit_code == 0, summary.output
    assert DERIVED in summary.output and '"base"' not in summary.output


def test_the_manifest_records_the_overlay(runs):
    derived, _ = runs
    manifest = json.loads((derived / "manifest.json").read_text())
    record = manifest["configs"][DERIVED]
    assert record["overlay"] == ["rules.run_capacity=5", "deck.DELETE=0"]
    assert record["content"]["rules"]["run_capacity"] == 5
    assert Path(record["path"]).name == "base.toml"


def test_show_replays_a_derived_runs_game_as_the_file_run_does(runs):
    derived, by_hand = runs
    shown = [sim("show", "--run", str(f), "--game", "7", "--no-legend") for f in runs]
    for result in shown:
        assert result.exit_code == 0, result.output
    assert DERIVED in shown[0].output.splitlines()[0]
    # everything after the two header lines (which name the config) is the same game
    assert shown[0].output.splitlines()[2:] == shown[1].output.splitlines()[2:]
    assert len(shown[0].output.splitlines()) > 10


def test_show_refuses_a_run_whose_base_config_changed(runs, tmp_path):
    derived, _ = runs
    manifest = json.loads((derived / "manifest.json").read_text())
    manifest["configs"][DERIVED]["overlay"] = ["rules.run_capacity=4", "deck.DELETE=0"]
    copy = tmp_path / "edited"
    copy.mkdir()
    for item in derived.iterdir():
        if item.name != "manifest.json":
            (copy / item.name).symlink_to(item)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    result = sim("show", "--run", str(copy), "--game", "7")
    assert "has changed since the run played it" in assert_clean_failure(result)


def test_show_and_compare_take_set(tmp_path):
    shown = sim("show", "--config", "base", "--set", "rules.run_capacity=5", "--seed", "3")
    assert shown.exit_code == 0 and "config base+run_capacity=5 (" in shown.output
    out = tmp_path / "compare"
    compared = sim("compare", "--config", "base", "--set", "rules.run_capacity=5",
                   "--games", "200", "--workers", "1", "--out", str(out), "--json")  # fmt: skip
    assert compared.exit_code == 0, compared.output
    shape = json.loads(compared.stdout)
    assert shape["b"].endswith("b-base+run_capacity=5")
    assert (out / "a-base").is_dir() and (out / "b-base+run_capacity=5").is_dir()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("run", "--set", "rules.nope=1"), "--set rules.nope=1: unknown rule option; known: "),
        (("run", "--set", "rules.run_capacity=x"), "--set rules.run_capacity=x: 'x' is not"),
        (("run", "--set", "noequals"), "--set noequals: expected KEY=VALUE"),
        (("run", "--set", "colour.red=1"), "--set colour.red=1: no such key 'colour.red'"),
        (("run", "--set", "deck.BLANK=0"), "base+BLANK=0: deck: no BLANK card"),
        (("show", "--set", "rules.lines=7"), "--set rules.lines=7: 7 is not allowed"),
        (("compare", "--config", "base", "--set", "rules.lines=7"), "--set rules.lines=7"),
        (
            ("compare", "--config", "base", "--config", "variants", "--set", "rules.lines=6"),
            "--set goes with one --config",
        ),  # fmt: skip
        (("show", "--run", "somewhere", "--game", "1", "--set", "rules.lines=6"), "--set: a run"),
    ],
)
def test_bad_items_exit_2_with_one_line(tmp_path, args, said):
    result = sim(*args, *(("--out", str(tmp_path / "x")) if args[0] == "run" else ()))
    assert result.exit_code == 2, result.output
    assert said in assert_clean_failure(result)
    assert not (tmp_path / "x").exists()


def test_the_same_command_again_continues_the_same_run(runs):
    derived, _ = runs
    swapped = (*SETS[2:], *SETS[:2])  # the items in the other order
    again = sim("run", "--config", "base", *swapped, *PLAY, "--out", str(derived))
    assert again.exit_code == 0, again.output
    assert "400 already done" in again.output  # the same name, so the same run


def test_a_derived_name_wraps_at_its_changes_on_an_80_column_board(runs):
    derived, _ = runs
    text = CliRunner().invoke(app, ["summary", str(derived)], env={"COLUMNS": "80"}).stdout
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert [line.split()[0] for line in lines if line.startswith(("base", "+"))] == [
        "base",
        "+run_capacity=5",
        "+DELETE=0",
    ]
    board = json.loads(sim("summary", str(derived), "--json").stdout)["board"][0]
    assert f"{100 * (board['first_seat_score']['value'] - 0.5):+.1f}" in text  # not cut


def test_a_derived_name_is_a_config_name_so_one_run_holds_both(tmp_path):
    out = tmp_path / "both"
    done = sim("run", "--config", "base", "--config", "base+run_capacity=5", *PLAY,
               "--out", str(out))  # fmt: skip
    assert done.exit_code == 0, done.output
    compared = sim("compare", str(out), "--config", "base", "--config", "base+run_capacity=5",
                   "--json")  # fmt: skip
    assert compared.exit_code == 0, compared.output
    (cell,) = json.loads(compared.stdout)["cells"]
    assert cell["paired"] and cell["config_b"] == "base+run_capacity=5"
    shown = sim("show", "--run", str(out), "--config", "base+run_capacity=5", "--game", "2")
    assert shown.exit_code == 0 and "base+run_capacity=5 (" in shown.output
