"""A strategy's observation holds only what its player may see (RULES.md 7)."""

from __future__ import annotations

import numpy as np
from conftest import copy_state
from hypothesis import given
from hypothesis import strategies as st

from sim.model import config as cfg
from sim.play import batch as game
from sim.players.observation import observe

BASE = cfg.load("101")


def _midgame(seed: int, turns: int):
    s = game.start(BASE, seed)
    for turn in game.turns(s, seed):
        if turn.number >= turns:
            break
    return s


def _hide_differently(s, digit):
    """A copy differing only in what digit may not see: the opponent's hand and pile order."""
    other = 1 - digit
    t = copy_state(s)
    hand = np.array(t.hand[other, : t.hand_len[other]])
    pile = np.array(t.pile[other, t.pile_top[other] + 1 : t.pile_len[other]])
    # swap the opponent's hand with cards deeper in their pile, and reverse the rest
    k = min(len(hand), len(pile))
    hand[:k], pile[:k] = pile[:k].copy(), hand[:k].copy()
    t.hand[other, :k] = hand[:k]
    t.pile[other, t.pile_top[other] + 1 : t.pile_len[other]] = pile[::-1]
    return t


@given(seed=st.integers(0, 2**32), turns=st.integers(0, 12), digit=st.integers(0, 1))
def test_hidden_information_does_not_show(seed, turns, digit):
    s = _midgame(seed, turns)
    t = _hide_differently(s, digit)
    assert observe(s, digit, "default") == observe(t, digit, "default")
    assert observe(s, digit, "closed") == observe(t, digit, "closed")


def test_open_shows_the_opponent_hand_and_closed_hides_pile_tops():
    s = _midgame(3, 4)
    assert observe(s, 0, "default").opponent_hand is None
    assert observe(s, 0, "open").opponent_hand == observe(s, 1, "default").hand
    assert observe(s, 0, "closed").pile_tops is None
    assert observe(s, 0, "default").pile_tops is not None


def test_the_cheat_check_would_notice_a_leak():
    s = _midgame(5, 3)
    t = _hide_differently(s, 0)
    assert observe(s, 0, "open") != observe(t, 0, "open") or s.hand_len[1] == 0
