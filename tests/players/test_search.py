"""The search strategies (mc, ismcts): deterministic per seed, find an obvious win, and
blind to what the mover cannot see."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import copy_state

from sim.engine.game import R_ERROR, setup
from sim.engine.paths import scratch_state
from sim.engine.score import scores
from sim.engine.state import END_RUN, POLICY_ISMCTS, POLICY_MC, new_state
from sim.engine.turn import random_turn
from sim.model import config as cfg
from sim.model.notation import parse_display, parse_hand_card
from sim.model.position import Position, build_state, display_rows
from sim.model.rules import RuleOptions
from sim.play.batch import play_batch
from strategies.ismcts import ismcts_turn
from strategies.mc import mc_turn
from strategies.search import DEAL_DTYPE, determinise, hidden_places, search_stream

RULES = RuleOptions()
SEARCHES = [(POLICY_MC, mc_turn), (POLICY_ISMCTS, ismcts_turn)]


def hand(text: str) -> list:
    return [parse_hand_card(c) for c in text.split()]


@pytest.mark.parametrize("config", ["base", "101", "large"])
@pytest.mark.parametrize("policy", [POLICY_MC, POLICY_ISMCTS])
def test_search_is_deterministic_for_a_seed(config, policy):
    conf = cfg.load(config)
    seeds = np.arange(6, dtype=np.uint64)
    first, _ = play_batch(conf, seeds, policies=(policy, 0), budgets=(40, 0))
    again, _ = play_batch(conf, seeds, policies=(policy, 0), budgets=(40, 0))
    assert (first == again).all()
    assert (first[:, R_ERROR] == 0).all()


def test_two_searchers_are_deterministic_too():
    conf = cfg.load("base")
    seeds = np.arange(4, dtype=np.uint64)
    first, _ = play_batch(conf, seeds, policies=(5, 6), budgets=(50, 50))
    again, _ = play_batch(conf, seeds, policies=(5, 6), budgets=(50, 50))
    assert (first == again).all()


@pytest.mark.parametrize(("policy", "turn"), SEARCHES)
def test_search_finds_the_winning_move(policy, turn):
    # 0 leads 60-40. A card in the RUN line (0 1 .) fills it: 1 takes the 50 line and wins
    # 90-60 (a SAVE there does no harm). Anything else lets 0 fill it and win 110-40.
    before = "10: 1 1 0\n20: 0 0 1\n30: 1 1 1\n40: 0 0 0\n50: 0 1"
    pos = Position(
        rules=RULES,
        rows=parse_display(before, RULES.lines),
        mover=1,
        hands=(hand("0 0"), hand("1SAVH 1")),
        piles=(hand("0 0 0 0"), hand("1 1 1 1")),
    )
    s = build_state(pos)
    s.policy[1] = policy
    s.budget[1] = 60
    turn(s)
    assert s.ended == END_RUN
    assert scores(s) == (60, 90)


def mid_game(seed: int, turns: int):
    """A base game after some random turns."""
    s = new_state()
    setup(s, *cfg.load("base").engine_args(0), np.uint64(seed), 0)
    for _ in range(turns):
        random_turn(s)
    return s


def rearranged(s, seed: int):
    """A copy of s with the hidden cards moved: the opponent's hand swapped with cards of its
    pile below the top, and each pile below the top shuffled."""
    t = copy_state(s)
    rng = np.random.default_rng(seed)
    opp = 1 - int(s.mover)
    for d in (0, 1):
        start = int(t.pile_top[d]) + 1
        rest = t.pile[d, start : t.pile_len[d]].copy()
        t.pile[d, start : t.pile_len[d]] = rng.permutation(rest)
    start = int(t.pile_top[opp]) + 1
    for i in range(int(t.hand_len[opp])):
        j = start + i
        if j < t.pile_len[opp] and t.owner[t.hand[opp, i]] == opp:
            t.hand[opp, i], t.pile[opp, j] = t.pile[opp, j], t.hand[opp, i]
    return t


def same_observation(a, b) -> bool:
    mover = int(a.mover)
    return (
        (a.grid == b.grid).all()
        and (a.hand[mover] == b.hand[mover]).all()
        and (a.hand_len == b.hand_len).all()
        and (a.pile_len - a.pile_top == b.pile_len - b.pile_top).all()
        and all(a.pile[d, a.pile_top[d]] == b.pile[d, b.pile_top[d]] for d in (0, 1))
    )


@pytest.mark.parametrize(("policy", "turn"), SEARCHES)
def test_search_does_not_see_hidden_cards(policy, turn):
    differed = 0
    for seed in range(8):
        a = mid_game(seed, 6)
        b = rearranged(a, seed)
        assert same_observation(a, b)
        differed += not (a.hand == b.hand).all() or not (a.pile == b.pile).all()
        for s in (a, b):
            s.policy[s.mover] = policy
            s.budget[s.mover] = 40
        turn(a)
        turn(b)
        assert display_rows(a) == display_rows(b)
        assert (a.srng == b.srng).all()
    assert differed >= 6  # the positions really differed in what was hidden


def test_determinise_keeps_what_the_mover_sees_and_deals_the_rest():
    s = mid_game(3, 7)
    mover = int(s.mover)
    before = copy_state(s)
    det = scratch_state()
    r = search_stream(s, mover)
    spans = np.full((3, 2), -1, dtype=np.int64)
    hidden_places(s, mover, spans)
    deals = np.zeros(1, dtype=DEAL_DTYPE)
    deals["hidden"] = 1  # a used work record: determinise must start from nothing
    deals["pool"] = 7
    dealt_differently = False
    for _ in range(20):
        t = determinise(s, det, mover, r, deals[0])
        assert (t.grid == s.grid).all() and (t.hand[mover] == s.hand[mover]).all()
        assert (t.hand_len == s.hand_len).all() and (t.pile_len == s.pile_len).all()
        for d in (0, 1):
            assert t.pile[d, t.pile_top[d]] == s.pile[d, s.pile_top[d]]
        hidden_s, hidden_t = [], []
        for place, holder in ((0, 1 - mover), (1, 0), (2, 1)):
            lo, hi = spans[place]
            rows = (s.hand if place == 0 else s.pile)[holder if place == 0 else place - 1]
            rows_t = (t.hand if place == 0 else t.pile)[holder if place == 0 else place - 1]
            hidden_s += list(rows[lo:hi])
            hidden_t += list(rows_t[lo:hi])
            assert sorted(t.owner[c] for c in rows_t[lo:hi]) == sorted(
                s.owner[c] for c in rows[lo:hi]
            )
        assert sorted(hidden_s) == sorted(hidden_t)
        dealt_differently |= hidden_s != hidden_t
    assert dealt_differently
    for name in ("grid", "hand", "pile", "chance"):
        assert (np.asarray(s[name]) == np.asarray(before[name])).all()  # s is left alone
