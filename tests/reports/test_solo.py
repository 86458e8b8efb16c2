"""Solo mode end to end: whole games against the CPU, `sim show` and `sim solo`."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import SHIPPED
from game_checks import locations
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim.cli import app
from sim.engine import game as eg
from sim.model import config as cfg
from sim.play import batch as game
from sim.play.batch import play_batch

CONFIGS = {name: cfg.load(name) for name in SHIPPED}


@pytest.mark.parametrize("name", SHIPPED)
@given(seed=st.integers(0, 2**64 - 1), level=st.integers(1, 4))
def test_cards_stay_in_one_place_and_games_end_against_the_cpu(name, seed, level):
    s = game.start(CONFIGS[name], seed, level)
    every_card = Counter(range(int(s.n_cards)))
    for turn in game.turns(s, seed):
        assert locations(s) == every_card
        assert turn.number <= 2 * int(s.n_cards) + 2
    assert game.end_reason(s) in ("run", "deck_out", "stalled", "cpu_out")
    assert int(s.hand_len[s.cpu]) == 0  # the CPU never holds a hand


def test_the_cpu_never_draws_and_ties_go_to_the_human():
    out, _ = play_batch(CONFIGS["base"], np.arange(2000, dtype=np.uint64), cpu_level=1)
    assert not (out[:, eg.R_OUTCOME] == eg.OUTCOME_DRAW).any()
    ties = out[out[:, eg.R_SCORE_FIRST] == out[:, eg.R_SCORE_SECOND]]
    assert len(ties) and (ties[:, eg.R_WINNER] == eg.WIN_FIRST).all()
    assert (ties[:, eg.R_TIEBREAK_LINE] == 0).all()


def test_same_seed_same_solo_game():
    config = CONFIGS["101"]
    runs = [[(t.placed, t.card, t.line) for t in game.turns(game.start(config, 9, 3))]
            for _ in range(2)]  # fmt: skip
    assert runs[0] == runs[1]


def test_show_prints_the_cpu_card_and_its_cards():
    result = CliRunner().invoke(app, ["show", "--seed", "3", "--players", "random,cpu(level=1)"])
    assert result.exit_code == 0, result.output
    assert "CPU card on NOT WINNING 1:" in result.output  # its first turn: level 1's first step
    assert result.output.strip().splitlines()[-1].startswith("ended:")


def test_solo_prints_every_level():
    result = CliRunner().invoke(app, ["solo", "--games", "300"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "random" in line and "300" in line]
    assert len(rows) == 4
    assert "too few" in result.output


def test_solo_takes_the_humans_asked_for():
    asked = ["solo", "--games", "40", "--human", "mc(rollouts=4)", "--human", "canonical-random"]
    result = CliRunner().invoke(app, asked, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert sum("mc(rollouts=4)" in line for line in result.output.splitlines()) == 4
    assert sum("canonical-random" in line for line in result.output.splitlines()) == 4
    refused = CliRunner().invoke(app, ["solo", "--human", "cpu"])
    assert refused.exit_code == 2  # a usage error: the option's value cannot be a human
