"""Searches that use the evaluation (strategies/guided.py): the knobs in a spec, rollouts cut
after `depth` turns, and guided searches that still find a win and stay blind."""

from __future__ import annotations

import numpy as np
import pytest
from test_search import SEARCHES, hand, mid_game, rearranged, same_observation

from sim.engine.paths import scratch_state
from sim.engine.score import scores
from sim.engine.state import END_RUN, ONGOING
from sim.model.notation import parse_display
from sim.model.position import Position, build_state, display_rows
from sim.model.rules import RuleOptions
from sim.players.specs import PlayerError, parse_matchup, parse_player
from sim.players.weights import GUIDE, read_weights
from strategies.guided import S_DEPTH, S_GUIDE, guided_rollout
from strategies.heuristic import FEATURES, N_WEIGHTS, weights_box
from strategies.search import DEAL_DTYPE, determinise, search_stream


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mc(guide=101),random", "guide must be between 0 and 100, got 101"),
        ("ismcts(depth=-1),random", "depth must be between 0 and 1000, got -1"),
        ("mc(guide=half),random", "guide must be a whole number"),
        ("random,mc(cut=3)", "unknown parameter 'cut'; parameters: rollouts, guide, depth"),
    ],
)
def test_bad_knobs_say_what_is_wrong(spec, message):
    with pytest.raises(PlayerError, match=message.replace("(", r"\(")):
        parse_matchup(spec)


def test_a_search_seat_holds_the_guide_evaluation_and_its_knobs():
    weights = parse_player("ismcts(guide=30,depth=4)").evaluation()
    assert weights[:N_WEIGHTS] == read_weights(GUIDE)[:N_WEIGHTS]
    assert weights[FEATURES["reply"]] == 0.706  # guide.toml's, not strong's or heuristic's
    assert (weights[S_DEPTH], weights[S_GUIDE]) == (4.0, 30.0)


def test_a_rollout_cut_after_depth_turns_plays_that_many():
    s = mid_game(3, 4)
    box = weights_box(np.array(parse_player("mc").evaluation()))
    for depth in (1, 3):
        t = scratch_state()
        r = search_stream(s, s.mover)
        determinise(s, t, s.mover, r, np.zeros(1, dtype=DEAL_DTYPE)[0])
        before = int(t[0]["turns"])
        value, margin = guided_rollout(t[0], s.mover, scratch_state(), box, depth, 100, r)
        assert t[0]["ended"] == ONGOING  # four turns in, three more do not end a base game
        assert int(t[0]["turns"]) - before == depth
        assert 0.0 < value < 1.0 and margin == 0.0  # a cut is a chance, not a result


def test_an_uncut_rollout_plays_to_the_end_and_scores_the_result():
    s = mid_game(5, 4)
    box = weights_box(np.array(parse_player("mc").evaluation()))
    t = scratch_state()
    r = search_stream(s, s.mover)
    determinise(s, t, s.mover, r, np.zeros(1, dtype=DEAL_DTYPE)[0])
    value, margin = guided_rollout(t[0], s.mover, scratch_state(), box, 0, 50, r)
    assert t[0]["ended"] != ONGOING
    mine, theirs = scores(t[0])[::-1] if s.mover == 1 else scores(t[0])
    assert margin == mine - theirs
    assert value == {1: 1.0, -1: 0.0}.get(int(np.sign(margin)), value)
    assert value in (0.0, 0.5, 1.0)  # a result, not a chance


def guided(s, policy, spec):
    """s with its mover on the search policy, a budget, and the spec's knobs."""
    s.policy[s.mover] = policy
    s.budget[s.mover] = 40
    s.weights[s.mover, :] = parse_player(spec).evaluation()
    return s


@pytest.mark.parametrize(("policy", "turn"), SEARCHES)
@pytest.mark.parametrize("knobs", ["guide=100,depth=2", "guide=50,depth=0"])
def test_a_guided_search_finds_the_winning_move(policy, turn, knobs):
    # as in test_search: only a card into the RUN line (0 1 .) wins for 1, 90-60
    before = "10: 1 1 0\n20: 0 0 1\n30: 1 1 1\n40: 0 0 0\n50: 0 1"
    pos = Position(
        rules=RuleOptions(),
        rows=parse_display(before, 5),
        mover=1,
        hands=(hand("0 0"), hand("1SAVH 1")),
        piles=(hand("0 0 0 0"), hand("1 1 1 1")),
    )
    s = guided(build_state(pos), policy, f"mc({knobs})")
    turn(s)
    assert s.ended == END_RUN
    assert scores(s) == (60, 90)


@pytest.mark.parametrize(("policy", "turn"), SEARCHES)
def test_a_guided_search_does_not_see_hidden_cards(policy, turn):
    for seed in range(4):
        a = mid_game(seed, 6)
        b = rearranged(a, seed)
        assert same_observation(a, b)
        turn(guided(a, policy, "mc(guide=100,depth=3)"))
        turn(guided(b, policy, "mc(guide=100,depth=3)"))
        assert display_rows(a) == display_rows(b)
        assert (a.srng == b.srng).all()
