"""The report's "Balance across skill" section on a run made by hand: each pair's two
winners are set, so every level's first seat, each rung's score and the league's order
are known before the code runs. The config is named with markup, shown as text."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from hand_runs import manifest, planted, write_run
from test_html_templates import EVIL, assert_shown_as_text

from reports.html import build_report, load_run

# Per cell: pairs by (winner of game 1, A first; winner of game 2, seats swapped).
CELLS = {
    "random,random": {"FF": 300, "SS": 100, "FS": 600},  # first seat (600+600)/2000 = 60%
    "greedy,greedy": {"FF": 200, "SS": 200, "FS": 600},  # (400+600)/2000 = 50%
    "heuristic,heuristic": {"FF": 250, "SS": 150, "FS": 600},  # (500+600)/2000 = 55%
    "greedy,random": {"FS": 700, "SF": 300},  # FS: A wins both games, SF: B does: A 70%
    "heuristic,greedy": {"FS": 600, "SF": 400},  # 60%
    "heuristic,random": {"FS": 800, "SF": 200},  # 80%
}
SEAT = {"F": "first", "S": "second"}


def cell(config: str, matchup: str, counts: dict[str, int]) -> pl.DataFrame:
    """The cell's games: planted's columns, its winners replaced by the pairs' patterns."""
    pairs = sum(counts.values())
    winners = [SEAT[w] for pattern, n in counts.items() for _ in range(n) for w in pattern]
    games = planted(config, matchup, pairs, 0.5, seed=0)
    return games.with_columns(winner=pl.Series(winners), score_first=60, score_second=40)


def skill_run(folder: Path, cells: dict[str, dict[str, int]]) -> Path:
    games = pl.concat([cell(EVIL, m, c) for m, c in cells.items()])
    return write_run(folder, games, manifest=manifest([EVIL], games.height))


def test_the_section_shows_the_profile_the_rungs_and_the_league(tmp_path: Path) -> None:
    page = build_report(load_run(skill_run(tmp_path / "r", CELLS)), margin=5.0)
    parsed = assert_shown_as_text(page, 3)
    text = " ".join(" ".join(parsed.text).split())
    assert "Balance across skill" in text
    # random +10 pts (its interval about ±1.9: 0.3 / sqrt(1000) per pair) beyond ±5;
    # greedy 0 ± 2 inside; heuristic +5 ± 1.9 across the bound
    assert (
        "first seat +10.0 → +0.0 → +5.0 pts as skill rises: balanced only for greedy play; "
        "heuristic not yet decided" in text
    )
    assert f"{EVIL}: first-seat advantage by skill level" in parsed.labels
    assert "favours first seat by +10.0" in text and "balanced within ±5.0 pts" in text
    assert "70.0% [" in text and "60.0% [" in text  # the rungs greedy/random, heuristic/greedy
    league = text[text.index(f"League of {EVIL}") :]
    assert "(3,000 pairs)" in league
    order = [league.index(f"{k} {p} ") for k, p in ((1, "heuristic"), (2, "greedy"), (3, "random"))]
    assert order == sorted(order)
    assert "heuristic dominates" in league


def test_no_section_without_two_levels_or_a_round_robin(tmp_path: Path) -> None:
    """One level and its rung; or a match-up of two strategies alone."""
    for name, kept in (("one", ("random,random", "greedy,random")), ("two", ("greedy,random",))):
        run = skill_run(tmp_path / name, {m: CELLS[m] for m in kept})
        assert "Balance across skill" not in build_report(load_run(run))


def test_a_round_robin_alone_gets_its_league(tmp_path: Path) -> None:
    robin = {m: c for m, c in CELLS.items() if len(set(m.split(","))) == 2}
    page = build_report(load_run(skill_run(tmp_path / "r", robin)))
    text = " ".join(" ".join(assert_shown_as_text(page, 1).text).split())
    assert "Balance across skill" in text and f"League of {EVIL}" in text
    assert "as skill rises" not in text
