"""Deterministic self-play: the runner records a pair's replayed game instead of playing it,
and its tables are exactly those of playing every game."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from sim.api import open_run
from sim.engine import game as eg
from sim.model.config import load
from sim.play.batch import play_matchup
from sim.players.specs import matchup
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.seeds import cell_key, game_seeds


def test_only_deterministic_built_ins_against_themselves_skip_the_replay():
    assert matchup("greedy", "greedy").replays and matchup("heuristic", "heuristic").replays
    assert not matchup("random", "random").replays
    assert not matchup("greedy", "heuristic").replays
    assert not matchup("mc(rollouts=8)", "mc(rollouts=8)").replays


@pytest.mark.parametrize("strategy", ["greedy", "heuristic"])
def test_recorded_replays_equal_played_games(tmp_path, strategy):
    label = f"{strategy},{strategy}"
    plan = make_plan(["base"], [label], 600, 5, True, 200, per_game_cards=True)
    out = execute(plan, tmp_path / "r", RunOptions(workers=1)).out
    games = open_run(out).games.collect().sort("game")  # seeds derived from the manifest
    seeds = game_seeds(cell_key(5, label), 0, 300).repeat(2)
    swapped = np.tile(np.array([0, 1], dtype=np.uint8), 300)
    played, cards = play_matchup(load("base"), matchup(strategy, strategy), seeds, swapped)
    assert (games["seed"].to_numpy() == seeds).all()
    assert (games["turns"].to_numpy() == played[:, eg.R_TURNS]).all()
    assert (games["score_first"].to_numpy() == played[:, eg.R_SCORE_FIRST]).all()
    names = {eg.WIN_FIRST: "first", eg.WIN_SECOND: "second", eg.DRAW: "draw"}
    assert games["winner"].cast(pl.String).to_list() == [names[w] for w in played[:, eg.R_WINNER]]
    stored = pl.read_parquet(out / "cards" / "*.parquet")
    drawn = stored.group_by("game").agg(
        pl.sum_horizontal(pl.col("^.*_drawn$").cast(pl.Int64)).sum().alias("drawn")
    )
    drawn = drawn.sort("game")
    assert (drawn["drawn"].to_numpy() == cards[:, :, :, eg.C_DRAWN].sum(axis=(1, 2))).all()
