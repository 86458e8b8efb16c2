"""The games table's arc columns (lead_changes, decided_turn, max_deficit, half_leader):
kept by the game loops as each game is played (game.track), checked against scores set
by hand, and against a turn-by-turn replay for sampled games of every cell of a run."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from arc_reference import arc
from hand_displays import recorded

from sim.engine.game import (
    R_DECIDED_TURN,
    R_HALF_LEADER,
    R_LEAD_CHANGES,
    R_MAX_DEFICIT,
    R_OUTCOME,
    R_WINNER,
    lead_buffer,
    record,
)
from sim.engine.score import scores
from sim.model.config import load
from sim.play.batch import result_buffers
from sim.play.stepped import Context, drive, fresh_state, seated_game, seats
from sim.players.specs import parse_matchup
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute

ARC = (R_LEAD_CHANGES, R_DECIDED_TURN, R_MAX_DEFICIT, R_HALF_LEADER)


def played(sequence: list[dict[int, int]], first: int = 0) -> np.ndarray:
    """The result row of a base game whose display after turn t is sequence[t - 1]."""
    arr = fresh_state()
    return recorded(arr[0], sequence, first, lead_buffer())


def test_a_lead_that_flips_four_times():
    """Scores by hand (RULES.md 6): 10-0, 10-20, 40-20, 40-60, 90-60. The lead's sign goes
    +, -, +, -, +: four flips. Digit 0 wins on points, last not ahead at turn 4, so decided
    at turn 5; its worst deficit 20 (turns 2 and 4). Half of 5 turns is turn 2: digit 1
    led, the second seat when digit 0 sits first."""
    sequence = [{10: 0}, {10: 0, 20: 1}, {10: 0, 20: 1, 30: 0}]
    sequence += [{10: 0, 20: 1, 30: 0, 40: 1}, {10: 0, 20: 1, 30: 0, 40: 1, 50: 0}]
    row = played(sequence)
    assert row[R_WINNER] == 0 and row[R_OUTCOME] == 0
    assert [int(row[c]) for c in ARC] == [4, 5, 20, 1]
    # digit 1 first: the same game from the other seat; the half-time leader now sits first
    row = played(sequence, first=1)
    assert row[R_WINNER] == 1 and [int(row[c]) for c in ARC] == [4, 5, 20, 0]


def test_level_turns_are_skipped_and_a_leader_from_the_start_decides_turn_one():
    """0-20, 0-0, 0-20, 0-20 (scores): the lead is -, level, -, -: no flip (the level turn
    is skipped). Digit 1 was level at turn 2, so decided at turn 3; never behind, deficit
    0; half of 4 is turn 2: level, no leader. Ahead from the first turn's end to the last
    of 3: decided at turn 1, and half of 3 is turn 1, led by digit 1 (second seat)."""
    sequence = [{20: 1}, {}, {20: 1}, {20: 1}]
    row = played(sequence)
    assert row[R_WINNER] == 1
    assert [int(row[c]) for c in ARC] == [0, 3, 0, -1]
    row = played([{20: 1}, {20: 1}, {20: 1}])
    assert [int(row[c]) for c in ARC] == [0, 1, 0, 1]


def test_a_tiebreak_win_is_decided_on_the_last_turn_and_a_draw_has_no_winner_figures():
    """30-0, 30-30 (30 against 10 + 20): level at the end, digit 0 wins the tie-break with
    the 30 line; never ahead at the last turn's end, so decided at the last turn (2), its
    deficit 0. 0-0 to the end: a draw, null decided turn and deficit (-1 in the row)."""
    row = played([{30: 0}, {30: 0, 10: 1, 20: 1}])
    assert row[R_WINNER] == 0 and row[R_OUTCOME] == 1
    assert [int(row[c]) for c in ARC] == [0, 2, 0, 0]
    row = played([{10: 1}, {}, {}])
    assert row[R_OUTCOME] == 2 and [int(row[c]) for c in ARC] == [0, -1, -1, 1]


@pytest.mark.parametrize("config_name", ["base", "101", "variants", "large"])
def test_the_kept_lead_is_the_score_difference_after_every_turn(config_name):
    """board.keep_lead moves a line's points only where cards enter, leave or turn over:
    after every turn of 30 games (REM in variants and large: controllers by the walk) the
    lead game.track notes equals score(0) - score(1) summed from the lines anew
    (score.scores), and it moves at all."""
    config, players = load(config_name), parse_matchup("greedy,random")
    leads = set()
    for seed in range(30):
        context = Context(config_name, seed, False, "greedy,random")
        first, second = seats(config, players, seed, False)
        arr, strategies = seated_game(config, first, second, 0, context)
        s = arr[0]
        for _ in drive(s, strategies, context, records=False):
            zero, one = scores(s)
            lead = int(s.arc_leads[s.turns])
            assert lead == zero - one, (config_name, seed, int(s.turns))
            leads.add(lead)
    assert len(leads) > 5


# --- the stored columns against a replay ----------------------------------------------------

CELLS = (["base", "101"], ["random,random", "greedy,random"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    plan = make_plan(*CELLS, 40, 11, True, 20)
    return execute(plan, tmp_path_factory.mktemp("arc") / "run", RunOptions(workers=1)).out


def replayed(config_name: str, matchup: str, seed: int, swapped: bool) -> dict:
    """The arc recomputed in Python from the scores after every turn of a replay."""
    config, players = load(config_name), parse_matchup(matchup)
    context = Context(config_name, seed, swapped, matchup)
    a, b = seats(config, players, seed, swapped)
    first, second = (b, a) if swapped else (a, b)
    arr, strategies = seated_game(config, first, second, 0, context)
    s = arr[0]
    after = []
    for _ in drive(s, strategies, context, records=False):
        after.append(tuple(int(v) for v in scores(s)))
    zero, one = after[-1]
    out, cards = result_buffers(1)
    # the winner (a tie-break needs the engine's top line)
    record(s, out[0], cards[0], lead_buffer())
    winner = None if out[0, R_WINNER] == 2 else int(s.first) ^ int(out[0, R_WINNER])
    assert (zero > one and winner == 0) or (one > zero and winner == 1) or zero == one
    return arc(after, winner, int(s.first))


def test_stored_arc_columns_equal_a_replay_in_every_cell(folder):
    from sim.store.folder import open_run

    games = open_run(folder).seeded().collect().with_columns(pl.col(pl.Categorical).cast(pl.String))
    assert games.height == 4 * 40
    columns = ["lead_changes", "decided_turn", "max_deficit", "half_leader"]
    for (config, matchup), cell in games.group_by("config", "matchup"):
        sample = cell.sample(8, seed=3)
        # a cell's arc is not trivially constant (the check would be empty otherwise)
        assert cell["lead_changes"].n_unique() > 1 and cell["decided_turn"].n_unique() > 1
        for row in sample.iter_rows(named=True):
            want = replayed(config, matchup, int(row["seed"]), bool(row["swapped"]))
            assert {c: row[c] for c in columns} == want, (config, matchup, row["game"])
        draws = cell.filter(pl.col("winner") == "draw")
        assert draws["decided_turn"].is_null().all() and draws["max_deficit"].is_null().all()
