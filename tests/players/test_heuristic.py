"""The heuristic strategy: positional choices greedy does not make, determinism, and that
its choice is not informed by what the mover may not see (RULES.md 7)."""

from __future__ import annotations

import numpy as np
from conftest import copy_state
from scipy.stats import binomtest

from sim.engine.game import R_WINNER
from sim.engine.state import POLICY_GREEDY, POLICY_HEURISTIC
from sim.model import config as cfg
from sim.model.notation import normalise_display, parse_display, parse_hand_card, render_display
from sim.model.position import Position, build_state, display_rows, hand_cards
from sim.model.rules import RuleOptions
from sim.play.batch import play_batch
from sim.players.specs import matchup
from sim.players.weights import default_weights
from strategies.greedy import greedy_turn
from strategies.heuristic import heuristic_turn

RULES = RuleOptions()
PILE = ["1"] * 5  # enough for LOAD, so only the RUN line can end the game


def position(before: str, hand: list[str], mover: int = 1, theirs=("0", "0", "0")):
    """A state with the mover's hand, three cards in the opponent's hand, BLANK piles."""
    hands = [[], []]
    hands[mover] = [parse_hand_card(c) for c in hand]
    hands[1 - mover] = [parse_hand_card(c) for c in theirs]
    piles = tuple([parse_hand_card(f"{d}") for _ in PILE] for d in (0, 1))
    pos = Position(
        rules=RULES,
        rows=parse_display(before, RULES.lines),
        mover=mover,
        hands=tuple(hands),
        piles=piles,
    )
    return build_state(pos)


def play(s, turn, policy) -> str:
    """The display after one turn by a built-in strategy (with the shipped weights)."""
    s.policy[s.mover] = policy
    s.weights[s.mover, :] = default_weights()
    turn(s)
    return render_display(display_rows(s))


def both(before: str, hand: list[str]) -> tuple[str, str, object]:
    """(heuristic's display, greedy's display, heuristic's state after its turn)."""
    s = position(before, hand)
    greedy = play(position(before, hand), greedy_turn, POLICY_GREEDY)
    return play(s, heuristic_turn, POLICY_HEURISTIC), greedy, s


def run_cards(display: str) -> int:
    row = [r for r in display.splitlines() if r.startswith("50:")][0]
    return len([t for t in row.split(":")[1].split() if t != "."])


def test_ends_the_game_when_that_wins():
    # 1 trails 20-40 with the RUN line tied at 1-1. IF...THEN pointing left in the RUN line
    # turns its 0 and fills it: 70-40, a win. Turning the 30 line (+60, greedy's pick)
    # leaves the RUN line one short, and 0 filling it ends the game 50-90.
    before = "10: 0 0 1\n20: 1 1 0\n30: 1 0 0\n40: 0 0 1 1\n50: 1 0"
    heuristic, greedy, s = both(before, ["1IFTH"])
    assert heuristic == normalise_display(
        "10: 0 0 1\n20: 1 1 0\n30: 1 0 0\n40: 0 0 1 1\n50: 1 1 1IFT<", 5
    )
    assert greedy == normalise_display(
        "10: 0 0 1\n20: 1 1 0\n30: 1 0 1 1IFT<\n40: 0 0 1 1\n50: 1 0", 5
    )


def test_does_not_end_a_game_it_would_lose():
    # 1 trails 0-60. PRINT into the RUN line printing the BLANK fills it and wins the 50
    # line: the best margin (+50, greedy's pick; the 40 line gives +40 at most), but the
    # game ends 50-60. With the RUN line
    # left at one or two cards, 0 cannot end it with a single card in their digit.
    before = "10: 0 0 0 0 1\n20: 0 0 0 0 1\n30: 0 0 0 0 1\n40: 1 1 0 0\n50: 0"
    heuristic, greedy, s = both(before, ["1PRTH", "1"])
    assert run_cards(greedy) == 3
    assert run_cards(heuristic) < 3


def test_does_not_leave_the_run_line_one_short_when_that_loses():
    # 1 leads 50-10 before the move. IF...THEN pointing up from the RUN line turns the 40
    # line's second card and takes the 40 line (+80, greedy's pick), but leaves the RUN line
    # at two cards: 0 fills it with a 0, takes the 50 line and ends the game 100-50.
    before = "10: 1 1 0\n20: 0 0 1\n30: 0 1 0\n40: 1 0 0 1 0\n50: 0"
    heuristic, greedy, _ = both(before, ["1IFTV"])
    assert run_cards(greedy) == 2
    assert run_cards(heuristic) == 1


def test_saves_a_line_it_controls():
    # The 30 line is 1's by a single card. With only a SAVE in hand, the heuristic plays it
    # at the end of that line pointing left: the line goes 3-1 and two of its 1s can never
    # be deleted or turned. Greedy, with no margin to gain, plays the first line.
    before = "10: 0 0 0 1\n20: 1 1 1 0\n30: 1 0 1\n40: 0 0"
    heuristic, greedy, _ = both(before, ["1SAVH"])
    assert heuristic == normalise_display("10: 0 0 0 1\n20: 1 1 1 0\n30: 1 0 1* 1SAV<*\n40: 0 0", 5)
    assert greedy == normalise_display("10: 0 0 0 1* 1SAV<*\n20: 1 1 1 0\n30: 1 0 1\n40: 0 0", 5)


def test_keeps_a_delete_that_would_gain_nothing_a_blank_does_not():
    # The DELETE pointing right into the 10 line takes it (+10), as the BLANK does: greedy
    # spends the DELETE (first in hand); the heuristic keeps it for a later target.
    before = "10: 0 1\n20: 1"
    heuristic, greedy, s = both(before, ["1DELH", "1"])
    assert "DEL" in greedy
    assert "DEL" not in heuristic
    assert [c.kind for c in hand_cards(s, 1)][:1] == [parse_hand_card("1DELH").kind]


def same_observation_pair(before: str, hand: list[str], theirs_a, theirs_b, pile_a, pile_b):
    """Two states alike but for the opponent's hand and their pile below its top card."""
    a = position(before, hand, theirs=theirs_a)
    b = copy_state(a)
    for i, card in enumerate(theirs_b):
        b.kind[b.hand[0, i]] = parse_hand_card(card).kind
    for i, (ka, kb) in enumerate(zip(pile_a, pile_b, strict=True)):
        a.kind[a.pile[0, i + 1]] = parse_hand_card(ka).kind
        b.kind[b.pile[0, i + 1]] = parse_hand_card(kb).kind
    return a, b


def test_not_informed_by_the_opponents_hand_or_pile():
    # A GET steals one of the opponent's hidden cards: a strategy valuing the stolen card by
    # its kind would choose differently against a hand of BLANKs and a hand of IF...THENs.
    cases = [
        ("10: 0 1\n20: 1", ["1GET", "1"]),
        ("10: 0 0 1\n20: 1 1 0\n30: 1 0 0\n40: 0 0 1 1\n50: 1 0", ["1IFTH", "1GET"]),
        ("10: 0 0 0 1\n20: 1 1 1 0\n30: 0 0 1\n40: 1 0 1", ["1", "1SAVH", "1DELH"]),
    ]
    for before, hand in cases:
        a, b = same_observation_pair(
            before, hand, ["0", "0", "0"], ["0IFT", "0DEL", "0SAV"], ["0"] * 4, ["0DEL"] * 4
        )
        a.policy[1] = b.policy[1] = POLICY_HEURISTIC
        a.weights[1, :] = b.weights[1, :] = default_weights()
        heuristic_turn(a)
        heuristic_turn(b)
        assert render_display(display_rows(a)) == render_display(display_rows(b))
        assert a.hand_len[1] == b.hand_len[1] and a.ended == b.ended


def test_heuristic_is_deterministic_for_a_seed():
    base = cfg.load("base")
    seeds = np.arange(200, dtype=np.uint64)
    first, _ = play_batch(base, seeds, policies=(4, 3))
    again, _ = play_batch(base, seeds, policies=(4, 3))
    assert (first == again).all()
    first, _ = play_batch(base, seeds, policies=(4, 4))
    again, _ = play_batch(base, seeds, policies=(4, 4))
    assert (first == again).all()


def test_heuristic_beats_greedy_over_seat_swapped_pairs():
    base = cfg.load("base")
    pairs = 1000
    seeds = np.repeat(np.arange(pairs, dtype=np.uint64) + np.uint64(3 * 10**6), 2)
    swapped = np.tile([0, 1], pairs)
    codes = matchup("heuristic", "greedy").policy_codes()
    out, _ = play_batch(base, seeds, swapped=swapped, policies=codes)
    winner = out[:, R_WINNER]
    won = ((winner == 0) & (swapped == 0)) | ((winner == 1) & (swapped == 1))
    ci = binomtest(int(won.sum()), len(winner)).proportion_ci(method="wilson")
    assert ci.low > 0.6
