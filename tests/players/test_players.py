"""Player specs, and the CPU as a player in runs (RULES.md 8: it always plays second)."""

from __future__ import annotations

import polars as pl
import pytest

from sim.players.specs import PlayerError, parse_matchup, parse_player, split_top_level
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute


def test_specs_with_parameters_split_at_top_level_commas():
    assert split_top_level("random,cpu(level=3)") == ["random", "cpu(level=3)"]
    assert parse_matchup("random, cpu( level = 3 )").specs == ("random", "cpu(level=3)")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cpu,random", "always plays second"),
        ("cpu,cpu", "always plays second"),
        ("random,cpu(level=5)", "level must be between 1 and 4, got 5"),
        ("random,mc(rollouts=0)", "rollouts must be between 1 and"),
        ("random,cpu(speed=2)", "unknown parameter 'speed'"),
        ("random,cpu(level=x)", "whole number"),
        ("random,clever", "unknown strategy 'clever'; available: canonical-random, controller, "),
        ("random", "expected two strategies"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(PlayerError, match=message):
        parse_matchup(spec)


def test_cpu_level_comes_from_the_spec_or_the_config():
    assert parse_player("cpu(level=3)").cpu_level(1) == 3
    assert parse_player("cpu").cpu_level(2) == 2
    assert parse_player("random").cpu_level(2) == 0


def test_runs_against_the_cpu_are_unswapped_and_the_cpu_sits_second(tmp_path):
    plan = make_plan(["base"], ["random,cpu(level=2)", "random,random"], 200, 5, True, 100)
    out = execute(plan, tmp_path / "solo", RunOptions(workers=1)).out
    games = pl.read_parquet(out / "games" / "*.parquet").with_columns(
        pl.col(pl.Categorical).cast(pl.String)
    )
    solo = games.filter(pl.col("matchup") == "random,cpu(level=2)")
    assert solo.height == 200 and solo["pair"].null_count() == 200
    assert (solo["second"] == "cpu(level=2)").all() and not solo["swapped"].any()
    assert solo.filter(pl.col("outcome") == "draw").height == 0  # ties lose for the CPU
    duo = games.filter(pl.col("matchup") == "random,random")
    assert duo["pair"].null_count() == 0


def test_strategies_list_shows_every_registered_strategy():
    from typer.testing import CliRunner

    from sim.cli import app
    from sim.players.specs import BUILT_IN

    result = CliRunner().invoke(app, ["strategies", "list"])
    assert result.exit_code == 0, result.output
    for name in [*BUILT_IN, "rusher", "controller", "saboteur"]:
        assert name in result.output
    assert "level=1..4" in result.output
    assert "rollouts=1..100000 (default 200)" in result.output
    assert "guide=0..100 (default 70)" in result.output


def test_a_match_up_value_knows_its_engine_seats():
    """Parsed once, the value answers what the loops need: codes, budgets (a search's
    default when not given: mc 200 rollouts), the CPU level, and whether a pair replays."""
    from sim.engine.state import POLICY_ISMCTS, POLICY_MC, POLICY_RANDOM

    seats = parse_matchup("mc,ismcts(iterations=7)")
    assert seats.policy_codes() == (POLICY_MC, POLICY_ISMCTS)
    assert seats.budgets() == (200, 7)
    assert seats.compiled and not seats.replays
    solo = parse_matchup("greedy,cpu(level=4)")
    assert solo.cpu_level(1) == 4 and solo.second.code == POLICY_RANDOM
    assert parse_matchup("heuristic,heuristic").replays


def test_a_plan_holds_match_up_values_not_strings():
    from sim.runner.plan import make_plan

    plan = make_plan(["base"], ["mc(rollouts=50),greedy"], 4, 1)
    (cell,) = plan.cells()
    assert cell.players.first.name == "mc" and cell.players.first.params == {"rollouts": 50}
    assert cell.matchup == "mc(rollouts=50),greedy" and cell.b == "greedy"
