"""Pair tables read from a run folder, the league and the skill profile built on them,
against tables counted by hand (tests/hand_runs.py) and the balance board's own numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hand_runs import manifest, planted, tiny_games, write_run

from reports import league as lg
from reports import skill as sk
from reports.summary import summarize
from sim.store.folder import RunFolderError, open_run


def test_the_tiny_runs_pairs_counted_by_hand(tmp_path):
    # pair 0: A (greedy) wins first, B wins first after the swap -> A (win, loss)
    # pair 1: A loses first, the swapped game is drawn -> (loss, draw)
    # pairs 2 and 3: A wins first, and second after the swap -> (win, win)
    tables = lg.pair_tables(open_run(write_run(tmp_path / "r", tiny_games())))
    expected = np.zeros((3, 3), dtype=int)
    expected[2, 0], expected[0, 1], expected[2, 2] = 1, 1, 2
    assert list(tables) == [("tiny", "greedy,random")]
    assert (tables[("tiny", "greedy,random")] == expected).all()


def test_a_run_without_swapped_seats_is_refused(tmp_path):
    games = tiny_games().with_columns(pair=None)
    with pytest.raises(RunFolderError, match="did not swap seats"):
        lg.pair_tables(open_run(write_run(tmp_path / "r", games)))


def test_each_levels_first_seat_is_the_boards(tmp_path):
    import polars as pl

    games = pl.concat(
        [planted("c", "greedy,greedy", 400, 0.62, seed=1),
         planted("c", "random,random", 400, 0.52, seed=2)]
    )  # fmt: skip
    run = open_run(write_run(tmp_path / "r", games, manifest=manifest(["c"], games.height)))
    tables = {m: t for (_, m), t in lg.pair_tables(run).items()}
    p = sk.profile("c", ["random", "greedy"], tables, margin=1.0)
    board = {s.matchup: s.first_score.estimate for s in summarize(run)}
    for level in p.levels:
        e, b = level.first_seat, board[f"{level.player},{level.player}"]
        assert (e.value, e.low, e.high, e.units) == pytest.approx((b.value, b.low, b.high, b.units))
    assert p.rungs == [] and p.luck is None and p.fit is None  # no rung: no Elo


def _t(**cells) -> np.ndarray:
    """A pair table from ww=, wl=, lw=, ll=, dd= counts (A's first game, then second)."""
    t = np.zeros((3, 3))
    for k, (i, j) in {"ww": (2, 2), "wl": (2, 0), "lw": (0, 2), "ll": (0, 0),
                      "dd": (1, 1)}.items():  # fmt: skip
        t[i, j] = cells.get(k, 0)
    return t


LADDER = {
    "a,a": _t(ww=500, ll=500),  # A wins both or loses both: the first seat wins one of two
    "b,b": _t(wl=400, ww=300, ll=300),  # first seat wins both in 400: 70%
    "c,c": _t(wl=300, lw=100, ww=600),  # 60% (300 sweeps by the first, 100 by the second)
    "b,a": _t(ww=600, wl=100, lw=100, ll=200),  # b scores 70%
    "c,b": _t(ww=500, wl=100, lw=100, ll=300),  # c scores 60%
}


def test_a_ladder_profile_by_hand():
    p = sk.profile("cfg", ["a", "b", "c"], LADDER, margin=1.0)
    assert [lv.verdict.kind for lv in p.levels] == ["balanced", "favours", "favours"]
    assert [round(100 * lv.first_seat.value, 6) for lv in p.levels] == [50, 70, 60]
    assert [(r.strong, r.weak, round(r.score.value, 6)) for r in p.rungs] == [
        ("b", "a", 0.7), ("c", "b", 0.6)]  # fmt: skip
    assert all(r.holds for r in p.rungs)
    assert sk.trend(p) == (
        "first seat +0.0 → +20.0 → +10.0 pts as skill rises: balanced only for a play"
    )
    # luck: split pairs 100+100 and 100+100 of 1,000 + 1,000 decisive ones
    assert p.luck.value == pytest.approx(0.2) and p.luck.units == 2000
    assert p.fit.elo[0] == 0 and 0 < p.fit.elo[1] < p.fit.elo[2]


def test_a_league_needs_every_pairing():
    with pytest.raises(ValueError, match="no games of a against c"):
        lg.league("cfg", ["a", "b", "c"], {"b,a": LADDER["b,a"], "c,b": LADDER["c,b"]})


def test_a_league_reads_both_orientations():
    cells = {"b,a": LADDER["b,a"], "c,b": LADDER["c,b"], "a,c": _t(ww=100, ll=900)}
    g = lg.league("cfg", ["a", "b", "c"], cells)
    assert g.scores[("a", "b")].value == pytest.approx(0.3)
    assert g.scores[("c", "a")].value == pytest.approx(0.9)
    lo, hi = g.scores[("b", "a")].low, g.scores[("b", "a")].high
    assert (g.scores[("a", "b")].low, g.scores[("a", "b")].high) == pytest.approx((1 - hi, 1 - lo))
    assert g.dominance.kind == "dominates" and g.dominance.text.startswith("c dominates")
    assert g.pairs == 3000


def test_the_board_gets_a_skill_line_when_a_config_has_two_self_play_levels(tmp_path):
    import polars as pl

    from reports import board

    games = pl.concat(
        [planted("c", "greedy,greedy", 400, 0.62, seed=1),
         planted("c", "random,random", 400, 0.5, seed=2),
         planted("d", "random,random", 400, 0.5, seed=3)]
    )  # fmt: skip
    run = open_run(write_run(tmp_path / "r", games, manifest=manifest(["c", "d"], games.height)))
    rows = board.rows(summarize(run), 1.0)
    first = {r.a: 100 * r.first.estimate.value - 50 for r in rows if r.cell.config == "c"}
    (line,) = sk.board_lines(rows)  # d has one level: no line
    # random before greedy (the built-in ladder), whatever order the run holds them in
    assert line.startswith(
        f"c · skill: first seat {first['random']:+.1f} → {first['greedy']:+.1f} pts as skill "
        "rises (random, greedy): "
    )
    (doc,) = sk.board_json(rows)
    assert doc["config"] == "c" and doc["trend"] == line.split(" · skill: ")[1]
    assert [lv["player"] for lv in doc["levels"]] == ["random", "greedy"]
    assert doc["levels"][1]["first_seat"]["pts"] == pytest.approx(first["greedy"])
