"""Properties over many random games in every shipped config (RULES.md 1-7, 10)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import SHIPPED
from hypothesis import given
from hypothesis import strategies as st

from sim import config as cfg
from sim import game
from sim.engine.state import NO_CARD

CONFIGS = {name: cfg.load(name) for name in SHIPPED}
seeds = st.integers(0, 2**64 - 1)


def locations(s) -> Counter:
    """How many places hold each card id: display, hands, piles, cut pile, removed."""
    where: Counter = Counter()
    grid = np.asarray(s.grid[: int(s.lines)])
    where.update(int(c) for c in grid[grid != NO_CARD])
    for d in (0, 1):
        where.update(int(c) for c in s.hand[d, : s.hand_len[d]])
        where.update(int(c) for c in s.pile[d, s.pile_top[d] : s.pile_len[d]])
    where.update(int(c) for c in s.cut[: s.cut_len])
    where.update(int(c) for c in s.removed[: s.removed_len])
    return where


def saved_positions(s) -> dict[int, tuple[int, int, int]]:
    out = {}
    for line in range(int(s.lines)):
        for col in range(int(s.width[line])):
            cid = int(s.grid[line, col])
            if cid != NO_CARD and s.saved[cid]:
                out[cid] = (line, col, int(s.face[cid]))
    return out


@pytest.mark.parametrize("name", SHIPPED)
@given(seed=seeds)
def test_every_card_in_one_place_and_saved_cards_never_change(name, seed):
    s = game.start(CONFIGS[name], seed)
    every_card = Counter(range(int(s.n_cards)))
    assert locations(s) == every_card
    saved: dict = {}
    for _ in game.turns(s, seed):
        assert locations(s) == every_card
        now = saved_positions(s)
        for cid, place in saved.items():
            assert now.get(cid) == place, f"saved card {cid} changed"
        saved = now


@pytest.mark.parametrize("name", SHIPPED)
@given(seed=seeds)
def test_every_game_ends_within_its_bound(name, seed):
    s = game.start(CONFIGS[name], seed)
    # every turn that is not a pass moves a card out of a hand for good; two passes end it
    bound = 2 * int(s.n_cards) + 2
    for turn in game.turns(s, seed):
        assert turn.number <= bound
    assert game.end_reason(s) in ("run", "deck_out", "stalled")


@pytest.mark.parametrize("name", SHIPPED)
@given(seed=seeds)
def test_same_seed_same_game(name, seed):
    first = [
        (t.digit, t.card, t.line, t.direction) for t in game.turns(game.start(CONFIGS[name], seed))
    ]
    again = [
        (t.digit, t.card, t.line, t.direction) for t in game.turns(game.start(CONFIGS[name], seed))
    ]
    assert first == again


@pytest.mark.parametrize("name", SHIPPED)
def test_compiled_loop_and_turn_by_turn_play_the_same_games(name):
    config = CONFIGS[name]
    seeds_ = np.arange(50, dtype=np.uint64) * np.uint64(7919)
    out, _ = game.play_batch(config, seeds_)
    for row, seed in zip(out, seeds_, strict=True):
        s = game.start(config, int(seed))
        list(game.turns(s))
        assert (int(row[1]), int(row[2])) == (int(s.ended), int(s.turns))


def test_different_seeds_give_different_games():
    config = CONFIGS["base"]
    games = {
        tuple((t.card, t.line, t.direction) for t in game.turns(game.start(config, seed)))
        for seed in range(20)
    }
    assert len(games) == 20
