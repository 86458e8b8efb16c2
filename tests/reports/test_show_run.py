"""`sim show --run RUN --game N`: a run's game replayed from the run's own seed and seats
(derived: the parts store no seed), checked against what the run recorded."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from arc_reference import arc
from cli_failures import assert_clean_failure, assert_exit_1
from run_folders import splitmix64, store_seeds
from typer.testing import CliRunner

from sim.cli import app
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.seeds import cell_key

WIDE = {"COLUMNS": "200"}


def run(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env=WIDE)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("show")
    config = root / "mine.toml"
    config.write_text('description = "base, for editing"\nextends = "base"\n')
    plan = make_plan([str(config)], ["greedy,random", "random,random"], 40, 5, True, 20)
    return execute(plan, root / "run", RunOptions(workers=1)).out


def _recorded(folder: Path, matchup: str, game: int) -> dict:
    games = pl.read_parquet(folder / "games" / "*.parquet").with_columns(
        pl.col(pl.Categorical).cast(pl.String)
    )
    return games.filter(matchup=matchup, game=game).row(0, named=True)


@pytest.mark.parametrize("game", [6, 7])
def test_a_runs_game_is_replayed_with_its_seed_and_seats(folder, game):
    args = ("--run", str(folder), "--game", str(game), "--players", "greedy,random")
    result = run("show", *args, "--no-legend")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"game {game} of {folder} (mine · greedy,random)"
    seed = splitmix64(cell_key(5, "greedy,random"), game // 2 + 1)[game // 2]  # a pair's seed
    assert f", seed {seed}, players greedy,random" in lines[1]
    assert ("(seats swapped: B first)" in lines[1]) == (game % 2 == 1)
    row = _recorded(folder, "greedy,random", game)
    ended = re.match(r"ended: \w+ after (\d+) turns", lines[-1])
    assert int(ended.group(1)) == row["turns"]
    plain = ["--seed", str(seed), "--players", "greedy,random", "--no-legend"]
    alone = run("show", "--config", "base", *plain, *(["--swapped"] * (game % 2)))
    assert alone.output.splitlines()[1:] == lines[2:]  # the same game as --seed plays


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--game", "3"), "holds 2 such cells; choose one: --config mine --players greedy,random"),
        (("--game", "40", "--players", "random,random"), "--game 40: out of range"),
        (("--game", "1", "--players", "random,greedy"), "holds no such config and match-up"),
        (("--game", "1", "--players", "random,random", "--seed", "3"), "come from the run"),
        (("--players", "random,random"), "--run needs --game N"),
    ],
)
def test_mistakes_are_usage_errors(folder, args, says):
    result = run("show", "--run", str(folder), *args)
    assert result.exit_code == 2
    assert says in assert_clean_failure(result)


def test_a_folder_that_is_no_run_is_a_usage_error(tmp_path):
    result = run("show", "--run", str(tmp_path), "--game", "0")
    assert result.exit_code == 2
    assert "not a run folder" in assert_clean_failure(result)
    assert run("show", "--game", "0").exit_code == 2  # --game without --run


def test_a_changed_config_or_record_is_refused(folder, tmp_path):
    """The replay must be the game the run played: a config edited since, or a record the
    replay does not match, fails (exit 1) rather than showing another game."""
    copy = tmp_path / "run"
    shutil.copytree(folder, copy)
    store_seeds(copy, lambda f: pl.Series([123] * f.height, dtype=pl.UInt64))  # wrong seeds
    args = ("show", "--run", str(copy), "--game", "2", "--players", "random,random")
    assert "differs from the run's record" in assert_exit_1(run(*args))
    config = folder.parent / "mine.toml"
    text = config.read_text()
    try:
        config.write_text(text + "[rules]\nrun_capacity = 4\n")
        args = ("show", "--run", str(folder), "--game", "2", "--players", "random,random")
        assert "has changed since the run played it" in assert_exit_1(run(*args))
    finally:
        config.write_text(text)


def test_show_json_recomputes_the_stored_arc_of_sampled_games_in_every_cell(folder):
    """The scores after every turn of `sim show --run RUN --game N --json` give, by the
    definitions (tests/arc_reference.py), the arc columns the run stored for that game."""
    columns = ("lead_changes", "decided_turn", "max_deficit", "half_leader")
    for matchup in ("greedy,random", "random,random"):
        for game in (0, 5, 12, 31):
            args = ("--run", str(folder), "--game", str(game), "--players", matchup, "--json")
            result = run("show", *args)
            assert result.exit_code == 0, result.output
            shown = json.loads(result.output)
            assert (shown["run"], shown["game"], shown["players"]) == (str(folder), game, matchup)
            turns, end = shown["turns"], shown["result"]
            assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1))
            assert len(turns) == end["turns"] and turns[-1]["scores"] == end["scores"]
            row = _recorded(folder, matchup, game)
            by_seat = [end["scores"][shown["first"]], end["scores"][1 - shown["first"]]]
            assert by_seat == [row["score_first"], row["score_second"]]
            scores = [tuple(t["scores"]) for t in turns]
            want = arc(scores, end["winner"], shown["first"])
            assert {c: row[c] for c in columns} == want, (matchup, game)


def test_show_json_without_a_run_names_each_turns_mover_and_move():
    result = run("show", "--seed", "3", "--players", "greedy,random", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert set(shown["turns"][0]) == {"turn", "mover", "seat", "move", "scores"}
    assert shown["turns"][0]["mover"] == shown["first"] and shown["turns"][0]["seat"] == "first"
    movers = [t["mover"] for t in shown["turns"]]
    assert movers[::2] == [shown["first"]] * len(movers[::2])  # no CPU: turns alternate
    assert movers[1::2] == [1 - shown["first"]] * len(movers[1::2])
    assert set(shown["result"]) == {"winner", "outcome", "scores", "end_reason", "turns"}
    assert shown["result"]["outcome"] in ("points", "tiebreak", "draw")
