"""Hands and draw piles."""

from __future__ import annotations

from sim.engine.jit import inlined, kernel
from sim.engine.state import ERR_OVERFLOW, MAX_HAND


@kernel
def hand_add(s, digit, cid):
    if s.hand_len[digit] >= MAX_HAND:
        s.error = ERR_OVERFLOW
        return
    s.hand[digit, s.hand_len[digit]] = cid
    s.hand_len[digit] += 1


@inlined
def hand_remove(s, digit, index):
    """Take the index-th card out of a hand, keeping the others in order; returns its id."""
    cid = s.hand[digit, index]
    # every slot from the front, with a select: the loop's length no longer depends on the
    # random index (its exit mispredicted), only on the hand size
    for i in range(s.hand_len[digit] - 1):
        s.hand[digit, i] = s.hand[digit, i + 1] if i >= index else s.hand[digit, i]
    s.hand_len[digit] -= 1
    return cid


@kernel
def draw(s, digit):
    """Draw the top card of a pile into the hand; False if the pile is empty."""
    if s.pile_top[digit] >= s.pile_len[digit]:
        return False
    cid = s.pile[digit, s.pile_top[digit]]
    hand_add(s, digit, cid)
    s.pile_top[digit] += 1
    s.drawn[digit, s.kind[cid]] += 1
    return True
