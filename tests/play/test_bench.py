"""Whole-game results: the winner, outcome and card counts the engine records."""

from __future__ import annotations

import numpy as np

from sim.engine.cards import BLANK, N_KINDS
from sim.engine.game import (
    C_DRAWN,
    C_EFFECT,
    C_PLAYED,
    DRAW,
    OUTCOME_DRAW,
    OUTCOME_POINTS,
    OUTCOME_TIEBREAK,
    R_LINE0,
    R_OUTCOME,
    R_SCORE_FIRST,
    R_SCORE_SECOND,
    R_TIEBREAK_LINE,
    R_WINNER,
)
from sim.model import config
from sim.play.batch import play_batch
from sim.play.bench import bench

BASE = config.load("base")


def test_winner_follows_scores_then_the_highest_controlled_line():
    out, _ = play_batch(BASE, np.arange(3000, dtype=np.uint64))
    for row in out:
        first, second = row[R_SCORE_FIRST], row[R_SCORE_SECOND]
        lines = [seat for seat in row[R_LINE0 : R_LINE0 + 5]]
        if first != second:
            assert row[R_OUTCOME] == OUTCOME_POINTS
            assert row[R_WINNER] == (0 if first > second else 1)
        elif first == 0:
            assert (row[R_OUTCOME], row[R_WINNER]) == (OUTCOME_DRAW, DRAW)
        else:
            top = max(i for i, seat in enumerate(lines) if seat >= 0)
            assert row[R_OUTCOME] == OUTCOME_TIEBREAK
            assert row[R_WINNER] == lines[top]
            assert row[R_TIEBREAK_LINE] == 10 * (top + 1)
    assert (out[:, R_OUTCOME] == OUTCOME_TIEBREAK).any()


def test_card_counts_add_up():
    out, cards = play_batch(BASE, np.arange(500, dtype=np.uint64))
    deck = np.bincount(BASE.kinds(), minlength=N_KINDS)
    drawn, played, effect = cards[..., C_DRAWN], cards[..., C_PLAYED], cards[..., C_EFFECT]
    assert (drawn <= deck).all()  # the start BLANK is never drawn; GET is not in base
    assert (drawn[:, :, BLANK] <= deck[BLANK] - 1).all()
    assert (played <= drawn).all()
    assert (effect[:, :, BLANK] == 0).all()
    assert (drawn.sum(axis=2) >= 3).all()


def test_bench_reports_a_complete_sample():
    result = bench(BASE, 2000)
    assert result.games == 2000 and result.errors == 0
    assert abs(sum(result.end_shares.values()) - 1) < 1e-9
    assert 0.3 < result.first_wins < 0.7


def test_bench_times_any_match_up_and_plays_the_run_games():
    from sim.play.bench import bench
    from sim.players.specs import parse_matchup

    for players in ("greedy,random", "canonical-random,random"):
        result = bench(BASE, 60, seed=5, players=parse_matchup(players))
        assert result.games == 60 and result.errors == 0
    # the canonical random written in Python plays the compiled games: same first-seat share
    python = bench(BASE, 60, seed=5, players=parse_matchup("canonical-random,canonical-random"))
    assert python.first_wins == bench(BASE, 60, seed=5).first_wins


def test_bench_of_a_weights_file_plays_its_own_weights():
    """bench seeds games seed..seed+games-1, unswapped: the same games play_matchup plays
    for the file's match-up, and not heuristic's (its shipped weights)."""
    from sim.engine.game import R_TURNS, WIN_FIRST
    from sim.play.batch import play_matchup
    from sim.players.specs import parse_matchup

    seeds = np.arange(5, 5 + 200, dtype=np.uint64)
    players = parse_matchup("rusher,rusher")
    out, _ = play_matchup(BASE, players, seeds)
    result = bench(BASE, 200, seed=5, players=players)
    assert result.mean_turns == out[:, R_TURNS].mean()
    assert result.first_wins == (out[:, R_WINNER] == WIN_FIRST).mean()
    shipped = bench(BASE, 200, seed=5, players=parse_matchup("heuristic,heuristic"))
    assert (shipped.mean_turns, shipped.first_wins) != (result.mean_turns, result.first_wins)
