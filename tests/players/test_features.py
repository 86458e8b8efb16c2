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


def state(display: str, pile_mine=5, pile_theirs=5, hand=("1", "1"), theirs=("0", "0", "0")):
    """Mover 1 with a hand (two BLANKs), the opponent with theirs; piles of BLANKs."""
    hands = ([parse_hand_card(c) for c in theirs], [parse_hand_card(c) for c in hand])
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


# --- the second ply ----------------------------------------------------------------------------


def ply_weights(second_ply: int, deals: int, lookahead: int = 1) -> np.ndarray:
    w = np.array(default_weights())
    w[FEATURES["second_ply"]], w[FEATURES["deals"]] = second_ply, deals
    w[FEATURES["lookahead"]] = lookahead
    return w


def test_one_candidate_is_the_one_ply_heuristic():
    """second_ply 1: the first ply's best is the only candidate, so the move is heuristic's
    whatever the deals (and no random number is drawn)."""
    from sim.model.position import display_rows
    from strategies.heuristic import heuristic_turn_w

    for before, hand in CASES:
        a, b = state(before, hand=hand), state(before, hand=hand)
        heuristic_turn_w(a, np.array(default_weights()))
        heuristic_turn_w(b, ply_weights(1, 7))
        assert display_rows(a) == display_rows(b)
        assert a.srng[1] == b.srng[1]


def test_the_second_ply_is_not_informed_by_the_hidden_cards():
    """Two states alike but for which of the opponent's cards sit in their hand and which in
    their pile (the cards themselves the same): a search that read the hidden places instead
    of dealing them afresh from what the mover sees would choose differently."""
    from conftest import copy_state

    from sim.model.position import display_rows
    from strategies.heuristic import heuristic_turn_w

    for before, hand in CASES:
        a = state(before, hand=hand, theirs=("0IFTH", "0DELH", "0SAVH"))
        b = copy_state(a)
        for i in range(3):  # the hand's cards into the pile (below its top card, which
            j = b.pile_top[0] + 1 + i  # shows), and those pile cards into the hand
            b.hand[0, i], b.pile[0, j] = a.pile[0, j], a.hand[0, i]
        for lookahead in (1, 3):
            a2, b2 = copy_state(a), copy_state(b)
            heuristic_turn_w(a2, ply_weights(4, 3, lookahead))
            heuristic_turn_w(b2, ply_weights(4, 3, lookahead))
            assert display_rows(a2) == display_rows(b2)


def test_a_lookahead_s_leaf_after_the_mover_s_own_turn_fears_the_opponent_s_reply():
    """leaf_value: with the opponent to move (the mover's own turn was the lookahead's last)
    the position is valued as a move's is, with the opponent's worst reply; with the mover to
    move, statically. In "10: 1 1 0 / 20: 1 1", with the shipped weights (reply 0.8,
    reply_line 1, flip 0.15, pot 0.6), the opponent's worst reply costs 8 points: a 0 at the
    end of the 10 line levels it (its 10 points lost: 0.8 x -10), and a 0 on the 20 line
    gives the mover that line (+20) but ends its two-card lead (pot 0.6 x 20 x 2 = 24):
    0.8 x (20 - 24) = -3.2, and its IF...THEN version, the 20 line's 1 turned (-20 and the
    24), 0.8 x -44 = -35.2, mixed in at 0.15: -3.2 - 0.15 x 32 = -8."""
    from strategies.heuristic import leaf_value, settled_value

    box = np.zeros(1, dtype=EVAL_DTYPE)
    box[0]["w"][:] = default_weights()[:N_WEIGHTS]
    t = state("10: 1 1 0\n20: 1 1")
    assert t.mover == 1
    assert leaf_value(t, t, 1, box[0]) == settled_value(t, t, 1, box[0])
    t.mover = 0  # the mover (1) has just played: the opponent replies next
    assert leaf_value(t, t, 1, box[0]) == evaluate(t, t, 1, box[0])
    assert evaluate(t, t, 1, box[0]) == pytest.approx(settled_value(t, t, 1, box[0]) - 8.0)


def test_a_longer_lookahead_changes_some_choice():
    """The knob is read: with the mover's own answer looked at too (lookahead 2), some
    position of CASES gets a different move than after the opponent's reply alone."""
    from conftest import copy_state

    from sim.model.position import display_rows
    from strategies.heuristic import heuristic_turn_w

    differ = 0
    for before, hand in CASES:
        a = state(before, hand=hand, theirs=("0IFTH", "0DELH", "0SAVH"))
        b = copy_state(a)
        heuristic_turn_w(a, ply_weights(4, 2, 1))
        heuristic_turn_w(b, ply_weights(4, 2, 2))
        differ += display_rows(a) != display_rows(b)
    assert differ > 0


CASES = [
    ("10: 0 1\n20: 1", ["1GET", "1", "1DELH"]),
    ("10: 0 0 1\n20: 1 1 0\n30: 1 0 0\n40: 0 0 1 1\n50: 1 0", ["1IFTH", "1GET", "1"]),
    ("10: 0 0 0 1\n20: 1 1 1 0\n30: 0 0 1\n40: 1 0 1", ["1", "1SAVH", "1DELH"]),
]
