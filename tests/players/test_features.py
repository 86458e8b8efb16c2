"""The evaluation's features that the shipped weights leave at 0 (run_pressure, pile_left,
threat): each one's worth in a position, derived by hand from its one-line definition in
docs/strategies.md, as the change it makes to the evaluation of that position."""

from __future__ import annotations

import numpy as np
import pytest

from sim.model.notation import parse_display, parse_hand_card
from sim.model.position import Position, build_state
from sim.model.rules import RuleOptions
from sim.players.weights import default_weights
from strategies.heuristic import EVAL_DTYPE, FEATURES, N_WEIGHTS, evaluate

RULES = RuleOptions()  # base: five lines, a RUN line of three


def state(display: str, pile_mine: int = 5, pile_theirs: int = 5):
    """Mover 1 with two BLANKs in hand, the opponent with three; piles of BLANKs."""
    hands = ([parse_hand_card("0")] * 3, [parse_hand_card("1")] * 2)
    piles = ([parse_hand_card("0")] * pile_theirs, [parse_hand_card("1")] * pile_mine)
    rows = parse_display(display, RULES.lines)
    return build_state(Position(rules=RULES, rows=rows, mover=1, hands=hands, piles=piles))


def value(s, feature: str, weight: float) -> float:
    """The evaluation of the position as it stands, for the mover, with one weight set."""
    box = np.zeros(1, dtype=EVAL_DTYPE)
    w = list(default_weights())
    w[FEATURES[feature]] = weight
    box[0]["w"][:] = w[:N_WEIGHTS]
    return float(evaluate(s, s, 1, box[0]))


def worth(s, feature: str, weight: float = 5.0) -> float:
    """What the feature adds to the position's value at this weight."""
    return value(s, feature, weight) - value(s, feature, 0.0)


@pytest.mark.parametrize(
    ("display", "expected"),
    [
        ("10: 1 1 0\n50: 1", 5.0),  # 1 holds the 10 line (leads 10-0); one card in RUN: +5 x 1
        ("10: 0 0 1\n50: 1", -5.0),  # 0 holds it: 1 trails, the RUN card counts against
        ("10: 1 1 0\n20: 1 1 0\n50: 1", 5.0),  # leads 30-0: the sign, not the margin
        ("10: 1 0\n50: 1", 0.0),  # nobody scores: level, no pressure either way
    ],
)
def test_run_pressure_is_per_run_card_signed_by_who_leads(display: str, expected: float):
    assert worth(state(display), "run_pressure") == pytest.approx(expected)


def test_pile_left_counts_the_mover_s_pile_beyond_the_opponent_s():
    assert worth(state("10: 1 0", pile_mine=6, pile_theirs=4), "pile_left") == pytest.approx(10.0)
    assert worth(state("10: 1 0", pile_mine=4, pile_theirs=6), "pile_left") == pytest.approx(-10.0)
    assert worth(state("10: 1 0", pile_mine=5, pile_theirs=5), "pile_left") == 0.0


@pytest.mark.parametrize(
    ("display", "expected"),
    [
        ("10: 1 1 0", -0.5 * 10),  # the 10 line led 2-1: half its value (10) against
        ("20: 1 1 0", -0.5 * 20),  # the 20 line: half of 20
        ("10: 1 1 1 0", 0.0),  # a lead of two: one card cannot take it back
        ("10: 1* 1 0", 0.0),  # one of the mover's cards saved there
        ("10: 0 0 1", 0.0),  # the opponent's line: a threat to theirs, not the mover's
        ("10: 1 0", 0.0),  # not scoring yet
    ],
)
def test_threat_counts_a_scoring_line_led_by_one_unsaved_card(display: str, expected: float):
    assert worth(state(display), "threat", 0.5) == pytest.approx(expected)
