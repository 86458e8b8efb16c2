"""The lead tallies' parts (sim/store/leads.py): one per chunk beside the games and card
tallies, the same bytes whatever the workers and after a resume, and for a match-up whose
swapped games are replays (played once, counted twice) the histogram of every game."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.model.config import load
from sim.play.batch import lead_buffer, play_matchup
from sim.players.specs import parse_matchup
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.folder import plain
from sim.store.leads import lead_columns
from sim.store.seeds import cell_key, played_seeds


def plan(players: str = "random,random"):
    return make_plan(["base", "variants"], [players], 1200, 5, True, 300)


def parts(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "leads").glob("*.parquet"))}


def test_the_parts_are_the_same_bytes_for_one_or_two_workers_and_after_a_resume(tmp_path):
    one = execute(plan(), tmp_path / "one", RunOptions(workers=1)).out
    two = execute(plan(), tmp_path / "two", RunOptions(workers=2)).out
    assert len(parts(one)) == 8 and parts(one) == parts(two)
    for victim in sorted((two / "leads").glob("*.parquet"))[::3]:
        victim.unlink()  # as if those chunks never finished: replayed
    again = execute(plan(), two, RunOptions(workers=1))
    assert again.played == 3 * 300 and parts(one) == parts(two)


def test_a_replayed_swapped_game_counts_as_the_game_it_is(tmp_path):
    """heuristic playing itself plays each pair's first game once (the swapped game would
    replay it): the stored tally is still that of all 1,200 games of a cell, played one
    by one here."""
    out = execute(plan("heuristic,heuristic"), tmp_path / "r", RunOptions(workers=1)).out
    frame = plain(pl.scan_parquet(out / "leads" / "*.parquet")).collect()
    players = parse_matchup("heuristic,heuristic")
    for config_name in ("base", "variants"):
        seeds = played_seeds(cell_key(5, players.text), 0, 1200, True)
        leads = lead_buffer()
        swapped = np.arange(1200) % 2 == 1
        play_matchup(load(config_name), players, seeds, swapped, leads=leads)
        mine = frame.filter(pl.col("config") == config_name)
        stored = lead_buffer()
        for turn, ahead, margin, games in mine.select("turn", "ahead", "margin", "games").rows():
            lead = {"first": margin, "second": -margin, None: 0}[ahead]
            stored[turn - 1, (lead + 210) // 10] += games
        assert int(stored[0].sum()) == 1200 and np.array_equal(stored, leads)


class Cell:
    config = load("base")
    matchup = "random,random"


def test_a_part_holds_the_nonzero_counts_by_turn_and_lead():
    """Three counts set by hand: turn 1 level twice, turn 2 first seat 30 ahead, turn 5
    second seat 210 ahead (the histogram's last and first bins)."""
    leads = lead_buffer()
    leads[0, 21], leads[1, 24], leads[4, 0] = 2, 1, 7
    columns = {c.name: c for c in lead_columns(Cell, leads)}
    assert columns["turn"].values.tolist() == [1, 2, 5]
    assert columns["margin"].values.tolist() == [0, 30, 210]
    assert columns["ahead"].valid.tolist() == [False, True, True]
    assert [("first", "second")[v] for v in columns["ahead"].values[1:]] == ["first", "second"]
    assert columns["games"].values.tolist() == [2, 1, 7]
