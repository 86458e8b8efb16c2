"""The greedy strategy: the best immediate score margin, ties in the fixed order, and
clearly stronger than random."""

from __future__ import annotations

import numpy as np
from scipy.stats import binomtest

from sim.engine.game import R_WINNER
from sim.engine.state import POLICY_GREEDY
from sim.model import config as cfg
from sim.model.notation import normalise_display, parse_display, parse_hand_card, render_display
from sim.model.position import Position, build_state, display_rows
from sim.model.rules import RuleOptions
from sim.play.batch import play_batch
from sim.players.specs import matchup, parse_matchup
from strategies.greedy import greedy_turn

RULES = RuleOptions()


def greedy_move(before: str, hand: list[str], mover: int = 1) -> str:
    """The display after one greedy turn from a position (no pile: LOAD ends the game)."""
    pos = Position(
        rules=RULES,
        rows=parse_display(before, RULES.lines),
        mover=mover,
        hands=tuple([parse_hand_card(c) for c in hand] if d == mover else [] for d in (0, 1)),
    )
    s = build_state(pos)
    s.policy[mover] = POLICY_GREEDY
    greedy_turn(s)
    return render_display(display_rows(s))


def test_greedy_takes_the_move_with_the_best_margin():
    # 0 holds the 10 line; DELETE pointing left at its last 0 makes the line 1's (+10).
    after = greedy_move("10: 1 0 0\n20: 0", ["1DELH"])
    assert after == normalise_display("10: 1 0 . 1DEL<\n20: 0", 5)


def test_ties_go_to_the_first_line_then_the_first_direction():
    # A BLANK changes no control anywhere: the 10 line comes first.
    assert greedy_move("10: 0\n20: 1", ["1"]) == normalise_display("10: 0 1\n20: 1", 5)
    # A SAVE with nothing to gain either way points left (L before R).
    after = greedy_move("10: 0\n20: 1", ["1SAVH"])
    assert after == normalise_display("10: 0* 1SAV<*\n20: 1", 5)


def test_greedy_chooses_its_sub_decisions_too():
    # Only PRINT pointing right, printing the DELETE pointing right (at nothing), gives the
    # 1s a 3-2 majority in the 10 line (+10); the DELETE pointing left would delete the
    # PRINT and leave the line level, and every other move leaves it level or worse.
    after = greedy_move("10: 0 0 1\n20: 0 0", ["1PRTH", "1DELH"])
    assert after == normalise_display("10: 0 0 1 1PRT> 1DEL>\n20: 0 0", 5)


def test_greedy_beats_random_over_seat_swapped_pairs():
    base = cfg.load("base")
    pairs = 2000
    seeds = np.repeat(np.arange(pairs, dtype=np.uint64) + np.uint64(10**6), 2)
    swapped = np.tile([0, 1], pairs)
    out, _ = play_batch(
        base, seeds, swapped=swapped, policies=matchup("greedy", "random").policy_codes()
    )
    winner = out[:, R_WINNER]
    greedy_won = ((winner == 0) & (swapped == 0)) | ((winner == 1) & (swapped == 1))
    ci = binomtest(int(greedy_won.sum()), len(winner)).proportion_ci(method="wilson")
    assert ci.low > 0.5


def test_greedy_is_deterministic_for_a_seed():
    base = cfg.load("101")
    seeds = np.arange(200, dtype=np.uint64)
    first, _ = play_batch(base, seeds, policies=(3, 3))
    again, _ = play_batch(base, seeds, policies=(3, 3))
    assert (first == again).all()


def test_greedy_is_a_registered_player():
    assert parse_matchup("greedy,random").specs == ("greedy", "random")
    assert matchup("greedy", "random").policy_codes() == (POLICY_GREEDY, 0)
