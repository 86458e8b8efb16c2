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
