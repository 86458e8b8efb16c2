"""The arc figures (reports/arc.py): the median's interval covers (a calibration on pairs
with a known median), and a hand-built games table gives hand-computed figures."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from frame_tallies import tallies
from hand_runs import tiny_games, write_run
from typer.testing import CliRunner

from reports import arc, board
from reports.compare import compare_runs
from reports.html import write_report
from reports.summary import read_cards, summarize
from sim.cli import app
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.stats import Tally
from sim.store.folder import open_run

REPS, PAIRS = 400, 200


def grid_tallies(values: np.ndarray, decided: np.ndarray) -> list[Tally]:
    """The tallies of the share at or below each grid point, one unit per row of values
    (a pair: two games), counting only the decided games."""
    units = values.shape[0]
    z = decided.sum(axis=1).astype(float)
    out = []
    for step in range(arc.GRID + 1):
        y = (decided & (values <= step / arc.GRID)).sum(axis=1).astype(float)
        out.append(Tally(units, y.sum(), z.sum(), (y * y).sum(), (z * z).sum(), (y * z).sum()))
    return out


def test_the_median_interval_covers_at_least_95_percent_on_pairs():
    """Each pair shares A ~ U(0, 1), each game adds its own B ~ U(0, 1); its value is
    ((A + B) / 2)^2, so (A + B) / 2, symmetric about 1/2, puts the median at 1/4 (a
    square keeps the order). A tenth of games is a draw (not counted). The two games of
    a pair correlate (0.5): the units are pairs. The grid interval is conservative by
    construction, so coverage is at least 95% less the binomial error of 400 repetitions
    (sd 1.1 points); its median width stays a few grid steps (not merely wide)."""
    rng = np.random.default_rng(34)
    covered, widths = 0, []
    for _ in range(REPS):
        shared = rng.random((PAIRS, 1))
        values = ((shared + rng.random((PAIRS, 2))) / 2) ** 2
        decided = rng.random((PAIRS, 2)) >= 0.1
        e = arc.median(grid_tallies(values, decided), "pair")
        covered += e.low <= 0.25 <= e.high
        widths.append(e.high - e.low)
    assert covered / REPS >= 0.925, covered / REPS  # measured 99.3%: grid-conservative
    assert np.median(widths) <= 0.1  # a usable width at 200 pairs: a few grid steps


def test_the_median_interval_counts_pairs_not_games():
    """The check can fail: with both games of a pair equal (a replay), the same values
    counted as 400 independent games undercover; as 200 pairs they cover."""
    rng = np.random.default_rng(7)
    as_games = as_pairs = 0
    for _ in range(REPS):
        values = np.repeat(rng.random((PAIRS, 1)) ** 2, 2, axis=1)  # median 1/4
        decided = np.ones((PAIRS, 2), bool)
        pairs = arc.median(grid_tallies(values, decided), "pair")
        games = arc.median(grid_tallies(values.reshape(-1, 1), decided.reshape(-1, 1)), "game")
        as_pairs += pairs.low <= 0.25 <= pairs.high
        as_games += games.low <= 0.25 <= games.high
    assert as_pairs / REPS >= 0.925
    assert as_games / REPS < as_pairs / REPS - 0.03


def frame() -> pl.DataFrame:
    """Four games in two pairs, by hand:
    pair 0: first won 20 turns, decided at 5, trailed by 20, led at half-time;
            second won 10 turns, decided at 10, never trailed, level at half-time;
    pair 1: a draw (10 turns; no decided turn or deficit), half-time leader first;
            second won 8 turns, decided at 6, trailed by 10, half-time leader first."""
    return pl.DataFrame(
        {
            "game": [0, 1, 2, 3],
            "pair": [0, 0, 1, 1],
            "winner": ["first", "second", "draw", "second"],
            "turns": [20, 10, 10, 8],
            "lead_changes": [3, 0, 2, 1],
            "decided_turn": [5, 10, None, 6],
            "max_deficit": [20, 0, None, 10],
            "half_leader": ["first", None, "first", "first"],
        }
    )


def test_the_figures_of_a_hand_built_table():
    """Mean lead changes 6/4 = 1.5. Decided games: 0, 1, 3; trailed by >= 10: games 0 and
    3 (2 of 3); by >= 20: game 0 (1 of 3). A half-time leader in games 0, 2, 3, who won
    game 0 only (1 of 3). Decided shares 5/20 = 0.25, 10/10 = 1, 6/8 = 0.75: median
    0.75, read on the grid (steps of 1/50) at the first point at or above it, 0.76."""
    counted = tallies(frame(), [], arc.quantities()).row(0, named=True)
    got = arc.from_tallies(counted, "pair")
    assert got.lead_changes.value == 1.5 and got.lead_changes.units == 2
    assert math.isclose(got.comebacks[10].value, 2 / 3)
    assert math.isclose(got.comebacks[20].value, 1 / 3)
    assert math.isclose(got.half_wins.value, 1 / 3) and got.half_wins.games == 3
    assert got.decided_share.value == 0.76
    assert got.decided_share.low <= 0.76 <= got.decided_share.high
    assert got.words().startswith("decided midway: half-time leader wins 33.3% [")  # wide


def test_the_words_say_early_above_80_and_late_below_65():
    def said(low: float, high: float) -> str:
        e = arc.Arc(None, {}, _est(0.5 * (low + high), low, high), None)  # half_wins only
        return e.words().split(":")[0]

    assert said(0.82, 0.90) == "decided early"
    assert said(0.78, 0.90) == "decided midway"
    assert said(0.60, 0.66) == "decided midway"
    assert said(0.50, 0.64) == "decided late"


def _est(value: float, low: float, high: float):
    from sim.stats import Estimate

    return Estimate(value, low, high, 100, 200, "pair", 100.0)


# --- a real run: the summary against the games table -------------------------------------


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    plan = make_plan(["base", "101"], ["random,random"], 600, 9, True, 300)
    return execute(plan, tmp_path_factory.mktemp("arc") / "run", RunOptions(workers=1)).out


def test_the_summary_figures_are_the_games_tables(run_folder):
    """Each cell's figures straight from its rows: the mean of lead_changes, the shares of
    decided games won from 10 and 20 behind, the share of half-time leaders who won, and
    the median of decided_turn / turns read up to the grid (the lower median, k = ceil(n /
    2) - 1 of the sorted shares, rounded up to a 50th)."""
    games = pl.read_parquet(run_folder / "games" / "*.parquet").with_columns(
        pl.col(pl.Categorical).cast(pl.String)
    )
    for cell in summarize(open_run(run_folder)):
        rows = games.filter(pl.col("config") == cell.config)
        decided = rows.filter(pl.col("decided_turn").is_not_null())
        led = rows.filter(pl.col("half_leader").is_not_null())
        a = cell.arc
        assert math.isclose(a.lead_changes.value, rows["lead_changes"].mean())
        for points in (10, 20):
            share = (decided["max_deficit"] >= points).mean()
            assert math.isclose(a.comebacks[points].value, share)
        assert math.isclose(a.half_wins.value, (led["half_leader"] == led["winner"]).mean())
        shares = sorted((decided["decided_turn"] / decided["turns"]).to_list())
        lower = shares[math.ceil(len(shares) / 2) - 1]
        assert math.isclose(a.decided_share.value, math.ceil(50 * lower - 1e-9) / 50)
        assert a.lead_changes.units == 300 and a.lead_changes.unit == "pair"
        assert a.lead_changes.low < a.lead_changes.value < a.lead_changes.high


def test_summary_prints_the_arc_in_words_and_as_a_section_and_json(run_folder):
    result = CliRunner().invoke(app, ["summary", str(run_folder)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    at = out.index("Decided early, midway or late (the half-time leader's win rate):")
    assert out[at + 1].startswith("  base · random,random: ") and "%" in out[at + 1]
    assert out[at + 2].startswith("  101 · random,random: ")
    assert all(len(line) <= 80 for line in out)
    shown = CliRunner().invoke(app, ["summary", str(run_folder), "--show", "arc"])
    assert "lead changes per game" in shown.output and "won from 20+ behind" in shown.output
    as_json = CliRunner().invoke(app, ["summary", str(run_folder), "--json"])
    board = json.loads(as_json.output)["board"]
    arc_json = board[0]["arc"]
    assert set(arc_json) >= {"lead_changes", "comebacks", "half_time_leader_wins", "words"}
    assert arc_json["comebacks"]["10"]["low"] <= arc_json["comebacks"]["10"]["value"]


def test_a_run_without_arc_columns_has_no_arc(tmp_path):
    """Runs written before #34 (hand_runs' tiny table has no arc columns) still summarise."""
    run = write_run(tmp_path / "tiny", tiny_games())
    assert all(cell.arc is None for cell in summarize(open_run(run)))
    result = CliRunner().invoke(app, ["summary", str(run), "--show", "arc"])
    assert result.exit_code == 0 and "half-time" not in result.output


@pytest.fixture(scope="module")
def other_run(tmp_path_factory) -> Path:
    """base with other seeds, and 101 where base is in run_folder: unpaired with it."""
    plan = make_plan(["base", "101"], ["random,random"], 400, 10, True, 200)
    return execute(plan, tmp_path_factory.mktemp("arc") / "other", RunOptions(workers=1)).out


def test_compare_has_the_arc_as_secondary_rows_of_all_games(run_folder, other_run):
    """Each side's value is the share (or mean) over all the cell's games, by hand from the
    games tables; the rows are secondary, never the gate."""
    comparison = compare_runs(open_run(run_folder), open_run(other_run))
    sides = {}
    for folder in (run_folder, other_run):
        games = pl.read_parquet(folder / "games" / "*.parquet").with_columns(
            pl.col(pl.Categorical).cast(pl.String)
        )
        sides[folder] = games.filter(pl.col("config") == "base")
    cell = next(c for c in comparison.cells if c.config_a == "base")
    rows = {r.metric: r for r in cell.rows}
    for folder, side in ((run_folder, "a"), (other_run, "b")):
        games = sides[folder]
        want = {
            "mean lead changes": games["lead_changes"].mean(),
            "won from 10+ behind": (games["max_deficit"] >= 10).fill_null(False).mean(),
            "won from 20+ behind": (games["max_deficit"] >= 20).fill_null(False).mean(),
            "half-time leader won": (games["half_leader"] == games["winner"])
            .fill_null(False)
            .mean(),
        }
        for metric, value in want.items():
            assert math.isclose(getattr(rows[metric], side).value, value), (metric, side)
            assert rows[metric].family == "secondary"


def test_the_html_report_has_the_arc_section(run_folder, tmp_path):
    out = write_report(run_folder, tmp_path / "report.html")
    page = out.read_text()
    assert "The game's arc" in page and "median decided turn, share" in page
    assert page.count("half-time leader wins") == 4  # one line and one row per cell


def test_card_flags_mark_kinds_that_seldom_take_effect():
    """Both seats' plays and effects summed per kind: SAVE 100 + 100 plays, 4 + 5 effects
    (4.5%): dead; PRINT 300 plays, 15 effects (5.0%): not under 5%; DELETE 40 + 40 plays,
    0 effects: too few plays; BLANK never takes effect, never flagged."""

    def card(kind: str, plays: int, effects: int):
        return SimpleNamespace(
            kind=kind, played=plays / 200, took_effect=effects / 200, seat_games=200
        )

    cards = [card("SAVE", 100, 4), card("SAVE", 100, 5), card("PRINT", 300, 15)]
    cards += [card("DELETE", 40, 0), card("DELETE", 40, 0), card("BLANK", 900, 0)]
    cell = SimpleNamespace(config="base", matchup="random,random", cards=cards)
    flags = board.card_flags([cell])
    assert [(f.kind, f.plays, f.effects) for f in flags] == [("SAVE", 200, 9)]
    assert flags[0].text() == "dead: base · random,random · SAVE takes effect in 4.5% of 200 plays"


def test_card_flags_of_a_run_follow_its_card_tallies(run_folder):
    """Flagged exactly the kinds whose stored tallies (both seats' rows) say played >= 100
    and took_effect < 5% of played, BLANK aside."""
    tallies = pl.read_parquet(run_folder / "card_tallies" / "*.parquet").with_columns(
        pl.col(pl.Categorical).cast(pl.String)
    )
    sums = (
        tallies.filter(pl.col("seats") == "both")
        .group_by("config", "kind")
        .agg(pl.col("played").sum(), pl.col("took_effect").sum())
    )
    want = {
        (r["config"], r["kind"])
        for r in sums.iter_rows(named=True)
        if r["kind"] != "BLANK" and r["played"] >= 100 and r["took_effect"] < 0.05 * r["played"]
    }
    run = open_run(run_folder)
    got = {(f.config, f.kind) for f in board.card_flags(summarize(run, read_cards(run)))}
    assert got == want
