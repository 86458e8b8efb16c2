"""`sim summary`: counts and intervals against hand counts and scipy; CLI text and errors."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from card_reference import stored_tallies
from cli_failures import assert_clean_failure
from hand_runs import TURNS, tiny_cards, tiny_games, write_run
from scipy import stats as sps
from typer.testing import CliRunner

from reports.summary import Mean, Proportion, read_cards, summarize
from sim.cli import app
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.folder import open_run

WIDE = {"COLUMNS": "250"}


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env=WIDE)


def table_rows(text: str) -> list[list[str]]:
    """Body rows of rich tables as lists of stripped cells."""
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in text.splitlines()
        if line.startswith("│")
    ]


@pytest.fixture
def tiny(tmp_path) -> Path:
    return write_run(tmp_path / "tiny", tiny_games(), tiny_cards())


def scipy_wilson(k: int, n: int) -> tuple[float, float]:
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


# --- numbers against hand counts -----------------------------------------------------------


def test_hand_counted_win_rates_outcomes_and_end_reasons(tiny):
    (cell,) = summarize(open_run(tiny))
    assert (cell.config, cell.matchup, cell.games) == ("tiny", "greedy,random", 8)
    wins = {name: (p.k, p.n) for name, p in cell.wins.items()}
    assert wins == {
        "first seat": (4, 8),
        "second seat": (3, 8),
        "draw": (1, 8),
        # wins in games 0, 4, 6 in the first seat, 5, 7 in the second, and a draw (game 3)
        "A (greedy) score": (5.5, 8),
    }
    assert {k: p.k for k, p in cell.outcomes.items()} == {"points": 4, "tiebreak": 3, "draw": 1}
    assert {k: p.k for k, p in cell.end_reasons.items()} == {"run": 2, "deck_out": 5, "stalled": 1}


def test_tiebreak_lines_and_the_seat_that_won_them(tiny):
    (cell,) = summarize(open_run(tiny))
    lines = [
        (t.line, t.decided.k, t.decided.n, t.first_won.k, t.first_won.n) for t in cell.tiebreaks
    ]
    assert lines == [(30, 2, 3, 1, 2), (40, 1, 3, 1, 1)]


def test_turns_and_line_control(tiny):
    (cell,) = summarize(open_run(tiny))
    assert cell.turns.n == 8
    assert cell.turns.mean == pytest.approx(statistics.mean(TURNS))
    assert cell.turns.sd == pytest.approx(statistics.stdev(TURNS))
    low, high = cell.turns.interval  # over the four pairs: a t interval on the pair means
    pair_means = [statistics.mean(TURNS[i : i + 2]) for i in range(0, 8, 2)]
    expected = sps.t.interval(0.95, 3, loc=statistics.mean(pair_means), scale=sps.sem(pair_means))
    assert (low, high) == pytest.approx(expected)
    assert [c.line for c in cell.control] == [10, 20, 30, 40, 50]  # five lines in the manifest
    first = cell.control[0]
    assert (first.first.k, first.second.k, first.nobody.k) == (4, 2, 2)


def test_lines_come_from_the_games_when_the_manifest_has_no_config(tmp_path):
    run = write_run(tmp_path / "r", tiny_games(), manifest={"status": "complete"})
    (cell,) = summarize(open_run(run))
    assert [c.line for c in cell.control] == [10, 20, 30, 40, 50]  # line_60 is all null


def test_card_statistics_per_strategy_and_kind(tiny):
    run = open_run(tiny)
    (cell,) = summarize(run, read_cards(run))
    save = {c.strategy: c for c in cell.cards if c.kind == "SAVE"}
    greedy, random = save["greedy"], save["random"]
    assert greedy.seat_games == random.seat_games == 8
    assert greedy.drawn == 1.0
    assert (greedy.played, random.played) == (1 / 8, 4 / 8)
    # greedy sits first in even games: it played SAVE only in game 0 (won); 5 wins in all
    assert (greedy.won_played.k, greedy.won_played.n) == (1, 1)
    assert (greedy.won_not.k, greedy.won_not.n) == (4, 7)
    # random played SAVE in games 1 (won), 2 (won), 3 (draw), 5 (lost); 2 wins in all
    assert (random.won_played.k, random.won_played.n) == (2, 4)
    assert (random.won_not.k, random.won_not.n) == (0, 4)
    blank = [c for c in cell.cards if c.kind == "BLANK"]
    assert all(c.played_any.k == c.played_any.n == 8 and c.won_not.n == 0 for c in blank)


@pytest.mark.parametrize(("k", "n"), [(4, 8), (0, 8), (8, 8), (530, 1000), (1, 20000)])
def test_proportion_interval_is_wilson_as_scipy_computes_it(k, n):
    assert Proportion(k, n).interval == pytest.approx(scipy_wilson(k, n))


@pytest.mark.parametrize(
    ("k", "n", "small"),
    [
        (50, 99, True),  # fewer than 100
        (50, 100, True),  # interval about 19 points wide
        (200, 400, False),  # 9.7 points wide
        (5000, 10000, False),
        (2, 2000, False),
    ],
)
def test_small_samples_are_called_too_small(k, n, small):
    lo, hi = scipy_wilson(k, n)
    assert (hi - lo > 0.10 or n < 100) == small  # the rule itself, from scipy's interval
    assert bool(Proportion(k, n).note) == small
    assert ("too small to tell" in Proportion(k, n).note) == small


def test_mean_notes_small_samples():
    assert "too small" in Mean(99, 1.0, 1.0).note
    assert Mean(100, 1.0, 1.0).note == ""


# --- the command -------------------------------------------------------------------------


def test_summary_prints_hand_counts_with_sizes_and_small_sample_notes(tiny):
    result = invoke("summary", str(tiny), "--detail")
    assert result.exit_code == 0, result.output
    rows = {tuple(r[:3]): r for r in table_rows(result.output)}
    first = rows[("first seat", "4", "8")]
    lo, hi = scipy_wilson(4, 8)
    assert first[3] == f"50.0% [{100 * lo:.1f}, {100 * hi:.1f}]"
    assert "too small to tell" in first[4]
    assert ("A (greedy) score", "5.5", "8") in rows
    assert "count seat-swapped pairs as the independent unit" in result.output
    assert ("stalled", "1", "8") in rows
    assert "8 games, 4 seat-swapped pairs" in result.output
    assert "Cards" in result.output and "SAVE" in result.output


def test_summary_without_cards(tiny):
    result = invoke("summary", str(tiny), "--no-cards", "--detail")
    assert result.exit_code == 0, result.output
    assert "SAVE" not in result.output


def test_summary_says_when_a_run_is_unfinished(tmp_path):
    manifest = {"status": "interrupted", "total_games": 20}
    run = write_run(tmp_path / "r", tiny_games(), manifest=manifest)
    result = invoke("summary", str(run))
    assert result.exit_code == 0, result.output
    assert "interrupted" in result.output and "8 of 20 games" in result.output


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "base"
    plan = make_plan(["base", "101"], ["random,random"], 2000, 5, True, 1000)
    return execute(plan, out, RunOptions(workers=1)).out


def test_summary_of_a_real_run_agrees_with_its_tables(real_run):
    result = invoke("summary", str(real_run), "--detail")
    assert result.exit_code == 0, result.output
    games = pl.read_parquet(real_run / "games" / "*.parquet")
    winrates = pl.read_parquet(real_run / "winrates.parquet")
    rows = table_rows(result.output)
    for config in ("base", "101"):
        mine = games.filter(pl.col("config").cast(pl.String) == config)
        wins = int((mine["winner"] == "first").sum())
        stored = winrates.filter(pl.col("config") == config)["first_wins"].item()
        assert wins == stored
        assert ["first seat", f"{wins:,}", "2,000"] in [r[:3] for r in rows]
        assert f"{config} · random,random · 2,000 games, 1,000 seat-swapped pairs" in result.output
    cards = stored_tallies(real_run)
    save = cards.filter((pl.col("config") == "base") & (pl.col("kind") == "SAVE")).row(
        0, named=True
    )
    card_rows = [r for r in rows if r[:2] == ["random", "SAVE"]]
    assert card_rows[0][2] == "4,000" == f"{save['seat_games']:,}"  # 2 players, 2,000 games
    assert card_rows[0][3] == f"{save['drawn'] / 4000:.2f}"


def test_summary_matches_stored_tiebreak_counts(real_run):
    run = open_run(real_run)
    stored = pl.read_parquet(real_run / "tiebreaks.parquet").filter(
        pl.col("category") == "tiebreak_line"
    )
    for cell in summarize(run):
        mine = stored.filter(pl.col("config") == cell.config)
        for t in cell.tiebreaks:
            on_line = mine.filter(pl.col("value") == str(t.line))
            assert t.decided.k == on_line["count"].sum()
            assert t.first_won.k == on_line.filter(pl.col("seat") == "first")["count"].sum()


# --- mistakes ------------------------------------------------------------------------------


def test_missing_folder(tmp_path):
    line = assert_clean_failure(invoke("summary", str(tmp_path / "nope")))
    assert "no such folder" in line


def test_folder_without_manifest(tmp_path):
    line = assert_clean_failure(invoke("summary", str(tmp_path)))
    assert "not a run folder" in line


def test_folder_without_games(tmp_path):
    (tmp_path / "manifest.json").write_text("{}")
    line = assert_clean_failure(invoke("summary", str(tmp_path)))
    assert "no games" in line


def test_corrupt_games_file(tmp_path):
    run = write_run(tmp_path / "r", tiny_games())
    (run / "games" / "part-0.parquet").write_bytes(b"not parquet at all")
    line = assert_clean_failure(invoke("summary", str(run)))
    assert "cannot read the games table" in line


def test_games_table_missing_columns(tmp_path):
    run = write_run(tmp_path / "r", tiny_games().drop("winner", "turns"))
    line = assert_clean_failure(invoke("summary", str(run)))
    assert "winner" in line and "turns" in line


def test_help_and_light_import():
    result = invoke("summary", "--help")
    assert result.exit_code == 0 and "run folder written by `sim run`" in result.output
    code = "import sys, sim.cli.runs; print(any(m in sys.modules for m in ('polars', 'rich')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_deterministic_self_play_counts_each_replayed_pair_once(tmp_path):
    """greedy plays itself: a pair's second game replays the first, so the first-seat
    interval is exactly Wilson's over the pairs (k/2 of them won by the first seat)."""
    plan = make_plan(["base"], ["greedy,greedy"], 400, 3, True, 200)
    out = execute(plan, tmp_path / "gg", RunOptions(workers=1)).out
    games = pl.read_parquet(out / "games" / "*.parquet")
    wins = int((games["winner"] == "first").sum())
    assert wins % 2 == 0  # every pair is one game twice
    (cell,) = summarize(open_run(out))
    first = cell.wins["first seat"]
    assert first.interval == pytest.approx(scipy_wilson(wins // 2, 200))
    assert cell.wins["A (greedy) score"].interval == (0.5, 0.5)  # A takes one game of each pair
    stored = pl.read_parquet(out / "winrates.parquet").row(0, named=True)
    assert (stored["first_low"], stored["first_high"]) == pytest.approx(first.interval)
    result = invoke("summary", str(out), "--detail")
    assert "greedy is deterministic and plays itself" in result.output
