"""Properties over many random games in every shipped config (RULES.md 1-7, 10)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import SHIPPED
from game_checks import locations
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.engine.cards import CONT, END, REM, RIGHT
from sim.engine.state import MAX_COLS, NO_CARD
from sim.model import config as cfg
from sim.play import batch as game

CONFIGS = {name: cfg.load(name) for name in SHIPPED}
seeds = st.integers(0, 2**64 - 1)


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


def line_summaries(s) -> dict[str, list]:
    """What the display shows per line, read slot by slot: the engine keeps these up to
    date instead of walking the slots (count, ones, width, gap, shut, full3, rems, and the
    slots of the REM, END and CONT cards)."""
    names = ("count", "ones", "width", "gap", "shut", "full3", "rems", "lasting_at")
    out: dict[str, list] = {k: [] for k in names}
    for line in range(int(s.lines)):
        cards = [int(c) for c in s.grid[line]]
        held = [col for col, cid in enumerate(cards) if cid != NO_CARD]
        width = held[-1] + 1 if held else 0
        right = cards[width - 1] if held else NO_CARD
        shut = right != NO_CARD and s.kind[right] == END and s.dirn[right] == RIGHT
        out["count"].append(len(held))
        out["ones"].append(sum(int(s.face[cards[col]]) for col in held))
        out["width"].append(width)
        out["gap"].append(next(col for col, cid in enumerate(cards) if cid == NO_CARD))
        out["shut"].append(int(shut))
        out["full3"].append(int(len(held) >= 3))
        kinds = [int(s.kind[cards[col]]) for col in held]
        out["rems"].append(kinds.count(REM))
        lasting = [(cards[col], col) for col in held if s.kind[cards[col]] in (REM, END, CONT)]
        out["lasting_at"] += [(cid, line, col) for cid, col in lasting]
    out["lasting_at"].sort()
    return out


def kept_summaries(s) -> dict[str, list]:
    lines = range(int(s.lines))
    return {
        "count": [int(s.count[line]) for line in lines],
        "ones": [int(s.ones[line]) for line in lines],
        "width": [int(s.width[line]) for line in lines],
        "gap": [int(s.gap[line]) for line in lines],
        "shut": [int(s.shut) >> line & 1 for line in lines],
        "full3": [int(s.full3) >> line & 1 for line in lines],
        "rems": [int(s.rems[line]) for line in lines],
        "lasting_at": [
            (cid, int(s.lasting_at[cid]) // MAX_COLS, int(s.lasting_at[cid]) % MAX_COLS)
            for cid in range(int(s.n_cards))
            if s.lasting_at[cid] >= 0
        ],
    }


@pytest.mark.parametrize("name", SHIPPED)
@settings(max_examples=150)  # checked at every turn: 150 games give thousands of turns each
@given(seed=seeds)
def test_kept_line_summaries_match_the_display(name, seed):
    """Every turn, including turns that flip faces (IF...THEN, IF...ELSE, SYNTAX ERROR) and
    move or remove cards, the kept per-line figures equal a fresh count of the slots."""
    s = game.start(CONFIGS[name], seed)
    assert kept_summaries(s) == line_summaries(s)
    for _ in game.turns(s, seed):
        assert kept_summaries(s) == line_summaries(s)
