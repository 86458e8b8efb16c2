"""The per-turn lead histogram (engine game.record_arc into a lead_buffer the game loops
take, which play.batch passes on): games by turn and first seat's lead, checked against leads set by
hand and against the scores of a turn-by-turn replay (stepped.drive, score.scores), which
never reads the histogram."""

from __future__ import annotations

import numpy as np
import pytest
from hand_displays import recorded

from sim.engine.score import scores
from sim.engine.state import LEAD_BINS, LEAD_MAX, LEAD_TURNS
from sim.model.config import load
from sim.play.batch import lead_buffer, play_matchup
from sim.play.stepped import Context, drive, fresh_state, seated_game, seats
from sim.players.specs import parse_matchup


def test_the_histogram_covers_six_lines_and_128_turns():
    """Six lines hold 10 + 20 + ... + 60 = 210 points: leads -210 to 210 in steps of 10 are
    43 bins."""
    assert (LEAD_MAX, LEAD_BINS, LEAD_TURNS) == (210, 43, 128)
    assert lead_buffer().shape == (128, 43) and not lead_buffer().any()


def bin_of(lead: int) -> int:
    return (lead + 210) // 10


def test_a_game_adds_one_count_per_turn_at_the_first_seats_lead():
    """Scores by hand (digit 0 - digit 1): 0-0, 10-0, 0-40 (10 and 30 to digit 1), 50-10.
    With digit 1 first its lead is 0, -10, +40, -40; with digit 0 first the signs turn.
    Two games add up (record never clears the batch's histogram)."""
    sequence = [{}, {10: 0}, {10: 1, 30: 1}, {50: 0, 10: 1}]
    arr, leads = fresh_state(), lead_buffer()
    s = arr[0]
    recorded(s, sequence, 1, leads)
    expected = np.zeros((LEAD_TURNS, LEAD_BINS), np.int64)
    for row, lead in enumerate([0, -10, 40, -40]):
        expected[row, bin_of(lead)] = 1
    assert np.array_equal(leads, expected)
    recorded(s, sequence, 0, leads)
    for row, lead in enumerate([0, 10, -40, 40]):
        expected[row, bin_of(lead)] += 1
    assert np.array_equal(leads, expected)


def test_the_largest_leads_land_in_the_end_bins():
    """On six lines (base-60) digit 0 holds all of them, 10 + ... + 60 = 210 points, then
    digit 1 does: with digit 0 first, turn 1 counts in the last bin and turn 2 in the first
    (record_arc takes the bin unclamped, so no lead may pass LEAD_MAX)."""
    arr, leads = fresh_state(), lead_buffer()
    every = [10, 20, 30, 40, 50, 60]
    recorded(arr[0], [dict.fromkeys(every, 0), dict.fromkeys(every, 1)], 0, leads, "base-60")
    assert (bin_of(210), bin_of(-210)) == (LEAD_BINS - 1, 0)
    assert int(leads[0, LEAD_BINS - 1]) == 1 and int(leads[1, 0]) == 1
    assert int(leads.sum()) == 2


def test_turns_past_the_histogram_are_cut():
    """A game of 130 turns counts its first 128: digit 0 holds the 50 line from turn 1."""
    arr, leads = fresh_state(), lead_buffer()
    recorded(arr[0], [{50: 0}] * 130, 0, leads)
    assert int(leads.sum()) == 128
    assert int(leads[:, bin_of(50)].sum()) == 128


def replayed_histogram(config_name: str, matchup: str, seeds, swapped) -> np.ndarray:
    """The histogram built in Python from each game's scores after every turn of a replay."""
    config, players = load(config_name), parse_matchup(matchup)
    hist = np.zeros((LEAD_TURNS, LEAD_BINS), np.int64)
    for seed, swap in zip(seeds, swapped, strict=True):
        context = Context(config_name, int(seed), bool(swap), matchup)
        a, b = seats(config, players, int(seed), bool(swap))
        first, second = (b, a) if swap else (a, b)
        arr, strategies = seated_game(config, first, second, 0, context)
        s = arr[0]
        for turn, _ in enumerate(drive(s, strategies, context, records=False), start=1):
            zero, one = scores(s)
            lead = zero - one if int(s.first) == 0 else one - zero
            if turn <= LEAD_TURNS:
                hist[turn - 1, bin_of(lead)] += 1
    return hist


@pytest.mark.parametrize(
    ("config_name", "matchup"),
    [("base", "random,random"), ("variants", "greedy,random"), ("101", "heuristic,random")],
)
def test_a_batch_histogram_is_the_replayed_games_scores(config_name, matchup):
    """The compiled loop's histogram for 60 games (REM in variants: settled by the walk)
    equals the one built from the replayed scores, and counts every game at turn 1."""
    seeds = np.arange(1000, 1060, dtype=np.uint64)
    swapped = np.arange(60) % 2 == 1
    leads = lead_buffer()
    play_matchup(load(config_name), parse_matchup(matchup), seeds, swapped, leads=leads)
    assert leads[0].sum() == 60
    assert np.array_equal(leads, replayed_histogram(config_name, matchup, seeds, swapped))


def test_the_python_loop_adds_its_games_too():
    """A Python strategy's games (stepped.play_games) add to the buffer as the compiled
    loop's do, each from its own fresh state."""
    seeds = np.arange(30, dtype=np.uint64)
    swapped = np.zeros(30, bool)
    stepped = lead_buffer()
    python = parse_matchup("strategies/examples/high_lines.py:HighLines,random")
    play_matchup(load("base"), python, seeds, swapped, leads=stepped)
    assert stepped[0].sum() == 30
    assert np.array_equal(stepped, replayed_histogram("base", python.text, seeds, swapped))
