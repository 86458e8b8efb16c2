"""The dominant-card flag of `sim card-impact` (#34): a kind whose impact on who wins (the
rate with it minus the rate with it swapped out) lies beyond ±threshold points by its whole
95% interval. Synthetic impact tables whose flags are known by hand, the boundary, the
command's text and JSON, and the rule's error rate at the threshold."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_failures import assert_clean_failure
from typer.testing import CliRunner

from reports import card_impact as ci
from reports.card_impact import Impact, Measure, Swap, compare, dominant
from reports.stats import Difference
from sim.cli import app
from sim.engine.cards import BLANK, PRINT
from sim.engine.game import R_WINNER, RESULT_WIDTH, WIN_FIRST, WIN_SECOND

SWAP = Swap(config=None, card=PRINT, replacement=BLANK, copies=2)


def change(low: float, high: float) -> Difference:
    """A paired change (swapped minus original) with its interval, estimate the middle."""
    return Difference((low + high) / 2, low, high, 0.001, True, 1000, 1000)


def impact(first: tuple, score: tuple, draws=(0.0, 0.0), turns=(0.0, 0.0)) -> Impact:
    """An impact table with the given changes' intervals (fractions)."""
    measures = [
        Measure("first seat wins", 0.5, 0.5, change(*first)),
        Measure("greedy (A) score", 0.5, 0.5, change(*score)),
        Measure("draws", 0.1, 0.1, change(*draws)),
        Measure("mean turns", 30.0, 30.0, change(*turns)),
    ]
    return Impact(SWAP, 1000, tuple(measures))


def flagged(table: Impact, threshold: float = 5.0, same: bool = False) -> list[str]:
    return [f.measure for f in dominant(table, "base", threshold, same)]


def test_a_change_wholly_beyond_the_threshold_is_flagged_either_way() -> None:
    """Swapping PRINT out takes the first seat from 56.1% to 50% ([-7.0, -5.2] pts): PRINT
    adds +6.1 [+5.2, +7.0], wholly above 5. A's score rises 8 [6, 10] without it: PRINT
    takes 8 [6, 10] from it, wholly below -5. Both are flagged."""
    table = impact((-0.070, -0.052), (0.06, 0.10))
    assert flagged(table) == ["first seat wins", "greedy (A) score"]
    first = dominant(table, "base")[0].impact
    assert (first.estimate, first.low, first.high) == pytest.approx((0.061, 0.052, 0.070))


@pytest.mark.parametrize(
    ("first", "expected"),
    [
        ((-0.070, -0.049), []),  # impact [+4.9, +7.0]: could be within 5
        ((-0.070, -0.050), []),  # impact [+5.0, +7.0]: the low end on 5, not above it
        ((-0.070, -0.0501), ["first seat wins"]),  # [+5.01, +7.0]: just above
        ((0.049, 0.070), []),  # impact [-7.0, -4.9]
        ((0.0501, 0.070), ["first seat wins"]),  # [-7.0, -5.01]
        ((-0.02, 0.02), []),  # no detectable change at all
    ],
)
def test_the_boundary(first: tuple, expected: list[str]) -> None:
    assert flagged(impact(first, (0.0, 0.0))) == expected


def test_only_who_wins_counts_and_not_a_score_of_one_strategy_against_itself() -> None:
    """Draws up 30 points and 10 more turns are not who wins; with A and B the same
    strategy, A's score is noise around 50% and is not looked at."""
    table = impact((0.0, 0.0), (0.2, 0.3), draws=(0.2, 0.4), turns=(8.0, 12.0))
    assert flagged(table) == ["greedy (A) score"]
    assert flagged(table, same=True) == []


def test_the_threshold_is_the_designers() -> None:
    table = impact((-0.070, -0.052), (0.0, 0.0))
    assert flagged(table, 5.0) == ["first seat wins"]
    assert flagged(table, 5.3) == []  # the interval's low end, 5.2, is not above 5.3
    assert flagged(table, 2.0) == ["first seat wins"]


def test_the_line_says_what_the_kind_adds_and_against_what() -> None:
    (first, score) = dominant(impact((-0.070, -0.052), (0.06, 0.10)), "base")
    assert first.text() == (
        "dominant: base · PRINT moves the first seat's win rate by +6.1 pts [+5.2, +7.0] "
        "(beyond ±5.0 pts; against BLANK in its place)"
    )
    assert score.text().startswith("dominant: base · PRINT moves greedy (A)'s score by -8.0 pts")
    assert first.to_json() == {
        "flag": "dominant",
        "config": "base",
        "kind": "PRINT",
        "replacement": "BLANK",
        "measure": "first seat wins",
        "impact": {"estimate": pytest.approx(0.061), "low": 0.052, "high": 0.070},
        "threshold_pts": 5.0,
    }


# --- the command, on a synthetic impact (no games played) ----------------------------------


def cli(*args: str):
    return CliRunner().invoke(app, ["card-impact", *args], env={"COLUMNS": "80"})


@pytest.fixture
def planted(monkeypatch, tmp_path):
    """card-impact's comparison, read from the run it plays into a temporary --out,
    replaced by a table with a known flag; the options that place the run."""
    table = impact((-0.070, -0.052), (0.0, 0.0))

    def planted_measured(folder, originals=None):
        note = json.loads((folder.path / "impact.json").read_text())
        flags = dominant(table, "base", note["dominant_pts"], same=True)
        return ci.Measured(note, ((note["cells"][0], table, tuple(flags)),))

    monkeypatch.setattr(ci, "measured", planted_measured)
    return "--out", str(tmp_path / "r"), "--workers", "1"


def test_the_command_prints_the_flag_under_its_table_in_80_columns(planted) -> None:
    result = cli("--card", "PRINT", "--games", "400", *planted)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "dominant: base · PRINT moves the first seat's win rate by +6.1 pts [+5.2, +7.0]" in text
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    quiet = cli("--card", "PRINT", "--games", "400", "--dominant", "7.5", *planted)
    assert quiet.exit_code == 0 and "dominant" not in quiet.stdout


def test_the_json_holds_the_threshold_and_the_flags(planted) -> None:
    doc = json.loads(cli("--card", "PRINT", "--games", "400", "--json", *planted).stdout)
    assert doc["dominant_pts"] == 5.0
    assert [f["measure"] for f in doc["dominant"]] == ["first seat wins"]
    doc = json.loads(cli("--card", "PRINT", "--games", "400", "--json", "--dominant", "7.5",
                         *planted).stdout)  # fmt: skip
    assert doc["dominant_pts"] == 7.5 and doc["dominant"] == []


@pytest.mark.parametrize("value", ["0", "-1", "100", "nan"])
def test_a_threshold_out_of_range_is_one_line_and_exit_2(value: str) -> None:
    result = cli("--card", "PRINT", "--dominant", value)
    assert "--dominant" in assert_clean_failure(result)
    assert result.exit_code == 2


# --- the rule's error rate ------------------------------------------------------------------


def results(first_wins: np.ndarray) -> np.ndarray:
    """Engine result rows (two a pair) with only the winner set."""
    out = np.zeros((first_wins.size, RESULT_WIDTH), dtype=np.int64)
    out[:, R_WINNER] = np.where(first_wins, WIN_FIRST, WIN_SECOND)
    return out


def flag_rate(with_card: float, without: float, reps: int, pairs: int, seed: int) -> float:
    """How often the first-seat flag fires at 5 points when the first seat wins each game
    with chance with_card on the original deck and without on the swapped one."""
    rng = np.random.default_rng(seed)
    fired = 0
    for _ in range(reps):
        original = results(rng.random(2 * pairs) < with_card)
        swapped = results(rng.random(2 * pairs) < without)
        table = Impact(SWAP, pairs, compare(original, swapped, "random", "random"))
        fired += bool(dominant(table, "base", 5.0, same=True))
    return fired / reps


def test_a_kind_exactly_at_the_threshold_is_flagged_at_most_2_5_percent_of_the_time() -> None:
    """The kind adds exactly 5 points (55% against 50%): the flag is a one-sided 2.5%
    test, so it fires about 2.5% of the time (sd 0.35 points over 2,000 repetitions) -
    not never, which would say the rule is blind rather than honest."""
    rate = flag_rate(0.55, 0.50, 2000, 500, 34)
    assert 0.01 <= rate <= 0.025 + 3 * 0.0035, rate


def test_a_kind_well_beyond_the_threshold_is_flagged() -> None:
    """The kind adds 10 points; at 2,000 pairs the interval is about ±2.2 points (a pair's
    difference has sd about 0.5), so its low end lies above 5 nearly always."""
    assert flag_rate(0.60, 0.50, 200, 2000, 35) >= 0.95


def test_the_commands_default_is_the_documented_one() -> None:
    """docs/statistics.md and the designer guide say 5 points."""
    import inspect

    from sim.cli.analysis import card_impact

    assert ci.DOMINANT_PTS == 5.0
    assert inspect.signature(card_impact).parameters["dominant"].default == ci.DOMINANT_PTS
