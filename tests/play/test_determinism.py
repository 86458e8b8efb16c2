"""Regression test of determinism (not of rules): fixed-seed batches give exactly the
result rows and card counts main's engine gave before the speed work (issue #14).

The digests were produced at main c73cebb (a git worktree of it) by playing these batches with
sim.play.batch.play_batch (compiled) and hashing sha256(out.int32 bytes + cards.uint8 bytes).
A deliberate change to what games are played must update them and say why.

They hash the result columns main had then (up to R_LINE0's line columns), not the arc
columns added after them: those are derived from the same games (tests/play/test_arc.py), so
the same digests prove the games unchanged.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from sim.engine.game import R_LEAD_CHANGES
from sim.model.config import load
from sim.play.batch import play_batch
from sim.players.specs import matchup
from sim.players.weights import GUIDE

GAME_COLUMNS = R_LEAD_CHANGES  # the result row as the digests were made: before the arc

RANDOM_DIGESTS = {
    "base": "34631b3683121ba86ac9d9793bf12a3076c3014d5bed71c0e83a6b5fa3b4c105",
    "101": "1dd1298444f3cd1cd08f299e289e7c85a749390bb017e9cb7196f5ca24aeaa59",
    "large": "aa9acbec47dcd11063c7ac78eaab115b5d63b49cf956a25208b3ded11bdd4632",
}
GREEDY_DIGEST = "20175113b39178f2321f02f9c873c2e5a175d20f859540170fdefe5fbfcc070d"
CPU_DIGEST = "7a5d6861333298c5ebeb347b421004c912c9a55d64e6446f8b2885d5ae0c0709"
# heuristic (one ply) and strong (a second ply over deals) at 33babcb, before the one-ply
# fast path (strategies/heuristic.best_move), which must play the same games. strong's weights
# of then are guide.toml's: "old-strong" is guide.toml with strong's second ply (3 moves over
# 2 deals) and lookahead 1, "old-strong-lookahead-2" the same looking two turns ahead, as
# strong played at fa5202d; "strong" is strong as shipped, retrained with lookahead 2
EVALUATION_DIGESTS = {
    ("heuristic", 300): "4ebc126b00a595d5d68a759a61fca087ef83a72518eb765811e03ca5254dfa38",
    ("old-strong", 40): "7692d8dfd2fd9d591c05f0c290be885d43c022aa8990774e114d94c5b4274b70",
    ("old-strong-lookahead-2", 40): (
        "b9688cf9c54fd2483c34154269baf1d2b996da5398e475404040a6726ceb32f6"
    ),
    ("strong", 40): "f4d2a0da65832062e5638125ea016799c9c0688c8939483d9fca0fbc14a7a62c",
}
OLD_STRONG_SEARCH = {"old-strong": "", "old-strong-lookahead-2": "lookahead = 2\n"}
# small budgets, so the searches' rollouts (random turns) are covered in seconds; random
# rollouts to the end (guide=0, depth=0) as every search played them then
SEARCH_DIGESTS = {
    (
        "mc(rollouts=20,guide=0,depth=0)",
        40,
    ): "10e0c8658b2cd5c21ac9335016b77554aac08f7a8ef4fcb45088dda03a1ac449",
    ("ismcts(iterations=60,guide=0,depth=0)", 20): (
        "b33f6527e9eff71bfe6d6f7392e659a65904d25430d46c1c4c1dbe3c3788d78f"
    ),
}


def digest(out: np.ndarray, cards: np.ndarray) -> str:
    rows = np.ascontiguousarray(out[:, :GAME_COLUMNS], dtype=np.int32).tobytes()
    return hashlib.sha256(rows + np.ascontiguousarray(cards, dtype=np.uint8).tobytes()).hexdigest()


def batch(games: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeds 1..games, every second game seat-swapped."""
    return np.arange(1, games + 1, dtype=np.uint64), (np.arange(games) % 2).astype(np.uint8)


@pytest.mark.parametrize("name", sorted(RANDOM_DIGESTS))
def test_random_games_are_main_s_games(name):
    seeds, swapped = batch(3000)
    assert digest(*play_batch(load(name), seeds, swapped=swapped)) == RANDOM_DIGESTS[name]


def test_greedy_games_are_main_s_games():
    seeds, swapped = batch(300)
    seats = matchup("greedy", "random")
    codes, limits = seats.policy_codes(), seats.budgets()
    out = play_batch(load("base"), seeds, swapped=swapped, policies=codes, budgets=limits)
    assert digest(*out) == GREEDY_DIGEST


def test_games_against_the_cpu_are_main_s_games():
    seeds = np.arange(1, 1001, dtype=np.uint64)
    assert digest(*play_batch(load("base"), seeds, cpu_level=2)) == CPU_DIGEST


@pytest.mark.parametrize("spec, games", sorted(SEARCH_DIGESTS))
def test_search_games_are_main_s_games(spec, games):
    seeds, swapped = batch(games)
    seats = matchup(spec, "random")
    codes, limits = seats.policy_codes(), seats.budgets()
    out = play_batch(load("base"), seeds, swapped=swapped, policies=codes, budgets=limits)
    assert digest(*out) == SEARCH_DIGESTS[(spec, games)]


@pytest.mark.parametrize("spec, games", sorted(EVALUATION_DIGESTS))
def test_evaluation_games_are_main_s_games(spec, games, tmp_path):
    seeds, swapped = batch(games)
    player = spec
    if spec in OLD_STRONG_SEARCH:
        text = GUIDE.read_text(encoding="utf-8")
        search = "second_ply = 3\ndeals = 2\n" + OLD_STRONG_SEARCH[spec]
        player = str(tmp_path / f"{spec}.toml")
        Path(player).write_text(search + text)  # top-level keys, so ahead of [hand]
    seats = matchup(player, "heuristic")
    codes, limits, weights = seats.policy_codes(), seats.budgets(), seats.evaluations()
    out = play_batch(
        load("base"), seeds, swapped=swapped, policies=codes, budgets=limits, weights=weights
    )
    assert digest(*out) == EVALUATION_DIGESTS[(spec, games)]
