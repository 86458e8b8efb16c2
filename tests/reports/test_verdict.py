"""Equivalence verdicts (reports/verdict.py) and the one presentation style (reports/present.py)."""

from __future__ import annotations

import math

import pytest

from reports import present
from reports.verdict import against, chance, decide, more_units, pairs_needed
from sim.stats import events

SEATS = ("first seat", "second seat")


def games(k: int, n: int):
    """A rate's tally over n independent games, k of them with the event."""
    return events(k, 0, n, n)


def test_balanced_when_the_interval_lies_inside_the_margin():
    v = decide(games(100_100, 200_000), "game", 1.0, SEATS)  # 50.05%, interval about ±0.22
    assert v.kind == "balanced"
    assert v.text() == "balanced within ±1.0 pts"
    assert v.more is None


def test_favours_when_the_interval_lies_beyond_the_margin_on_either_side():
    up = decide(games(10_400, 20_000), "game", 1.0, SEATS)  # 52.0%, interval about ±0.7
    down = decide(games(9_600, 20_000), "game", 1.0, SEATS)
    assert (up.kind, up.favoured) == ("favours", "first seat")
    assert (down.kind, down.favoured) == ("favours", "second seat")
    assert up.text().startswith("favours first seat by +2.0 [+1.")
    assert down.text().startswith("favours second seat by +2.0 [+1.")


def test_a_difference_inside_the_margin_is_not_balanced_while_the_interval_crosses_it():
    v = decide(games(1_010, 2_000), "game", 1.0, SEATS)  # 50.5% ± 2.2 pts
    assert v.kind == "inconclusive"
    assert v.text().startswith("inconclusive: about ")
    assert v.text().endswith(" more games would decide")


def test_more_units_is_the_smallest_size_with_an_80_percent_predictive_chance():
    t = games(10_100, 20_000)  # 50.5%: 0.5 points inside a 1-point margin, 0.7 of error
    spread = 0.505 * 0.495  # per-game variance of an independent rate
    m = more_units(t, 0.005, 0.01)
    assert chance(m, 20_000, spread, 0.005, 0.95) >= 0.8
    assert chance(m - 1, 20_000, spread, 0.005, 0.95) < 0.8
    plain = (1.959964 + 0.841621) ** 2 * spread / 0.005**2 - 20_000  # the textbook formula
    assert m > plain  # today's estimate may be off: the predictive chance asks for more


def test_weak_evidence_falls_back_to_even_odds():
    t = games(1_016, 2_000)  # 50.8%: 0.2 points from the margin, 1.1 points of error
    spread = 0.508 * 0.492
    m = more_units(t, 0.008, 0.01)
    assert chance(10**9, 2_000, spread, 0.002, 0.95) < 0.8  # 80% is out of reach
    assert chance(m, 2_000, spread, 0.002, 0.95) >= 0.5


@pytest.mark.parametrize("k", [10_100, 10_300, 9_680])
def test_that_many_more_units_at_the_same_rate_decide(k):
    """Where today's evidence can promise 80%, the same rate on that many more units is
    decided (the estimate itself lands clear of the margin)."""
    n = 20_000
    v = decide(games(k, n), "game", 1.0, SEATS)
    assert v.kind == "inconclusive"
    total = n + v.more
    later = decide(games(round(k / n * total), total), "game", 1.0, SEATS)
    assert later.kind != "inconclusive"


def test_pairs_count_as_the_unit():
    # 5,000 pairs, every pair split 1-1 between the seats: no spread, exactly 50%
    t = events(5_000, 0, 5_000, 10_000)
    v = decide(t, "pair", 1.0, SEATS)
    assert v.kind == "balanced" and v.units == 5_000


def test_the_margin_must_be_positive():
    with pytest.raises(ValueError, match="margin"):
        decide(games(10, 20), "game", 0.0, SEATS)


def test_json_holds_the_same_numbers_as_the_text():
    v = decide(games(10_400, 20_000), "game", 1.0, SEATS)
    j = v.to_json()
    assert j["kind"] == "favours" and j["text"] == v.text()
    assert f"{100 * j['advantage']:+.1f}" in v.text()


def test_one_style_for_rates_differences_means_and_p_values():
    assert present.rate(0.512, 0.505, 0.519) == "51.2% [50.5, 51.9]"
    assert present.pts(0.018, 0.015, 0.021) == "+1.8 pts [+1.5, +2.1]"
    assert present.pts(-0.004, -0.01, 0.002) == "-0.4 pts [-1.0, +0.2]"
    assert present.mean(34.1, 33.9, 34.3) == "34.10 [33.90, 34.30]"
    assert present.mean_diff(0.52, 0.1, 0.94) == "+0.52 [+0.10, +0.94]"
    assert present.p_value(1e-20) == "<1e-16"
    assert present.rate(math.nan, 0, 1) == present.DASH
    assert present.about(12_345) == "12,000" and present.about(47) == "47"


@pytest.mark.parametrize("columns", [80, 120])
def test_a_fitted_table_never_cuts_a_number(columns):
    from rich.console import Console

    t = present.table("config", "rate [95% CI]", "difference", "verdict")
    cells = ("variants", present.rate(0.5123, 0.5051, 0.5195), present.pts(0.0182, 0.015, 0.021))
    for _ in range(3):
        t.add_row(*cells, "inconclusive: about 12,000 more pairs would decide")
    present.fit(t, width=columns)
    console = Console(width=columns, record=True)
    console.print(t)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= columns
    words = set(text.split())
    for cell in cells:
        assert set(cell.split()) <= words, cell


# Ranges and one-sided targets (reports.verdict.against, which `sim tune` decides with):
# the expectations follow from the definitions alone, met = the interval strictly inside,
# missed = strictly beyond one bound, open = anything else.
@pytest.mark.parametrize(
    ("low", "high", "lower", "upper", "expected"),
    [
        (10.6, 11.4, 10.5, 11.5, "met"),  # a range: both ends inside (TOST)
        (10.4, 11.4, 10.5, 11.5, "open"),  # crosses the lower bound
        (10.0, 12.0, 10.5, 11.5, "open"),  # wider than the range, centred in it
        (11.6, 12.0, 10.5, 11.5, "missed"),  # wholly above
        (9.0, 10.4, 10.5, 11.5, "missed"),  # wholly below
        (11.5, 12.0, 10.5, 11.5, "open"),  # touching a bound decides nothing
        (7.0, 9.9, None, 10.0, "met"),  # at most 10: the upper end below it
        (9.0, 10.1, None, 10.0, "open"),
        (10.1, 12.0, None, 10.0, "missed"),  # the lower end already above
        (-50.0, 9.0, None, 10.0, "met"),  # a one-sided target has no far side
        (61.0, 80.0, 60.0, None, "met"),  # at least 60
        (59.0, 61.0, 60.0, None, "open"),
        (40.0, 59.5, 60.0, None, "missed"),
        (math.nan, 1.0, 0.0, 2.0, "open"),  # no interval, no verdict
        (1.0, math.nan, None, 2.0, "open"),
    ],
)
def test_against_a_range_or_one_bound(low, high, lower, upper, expected):
    assert against(low, high, lower, upper) == expected


@pytest.mark.parametrize("k", [100_100, 10_400, 9_600, 1_010, 10_100])
def test_the_board_verdict_is_against_on_the_band(k):
    """decide and against agree: balanced = met, favours = missed, inconclusive = open."""
    n = 200_000 if k == 100_100 else (2_000 if k == 1_010 else 20_000)
    v = decide(games(k, n), "game", 1.0, SEATS)
    words = {"met": "balanced", "missed": "favours", "open": "inconclusive"}
    assert v.kind == words[against(v.low, v.high, -0.01, 0.01)]


def test_pairs_needed_for_a_fresh_sample_is_the_textbook_formula():
    # 0.5 points inside the nearest bound, 10 points of spread a pair:
    # ((1.959964 + 0.841621) * 10 / 0.5)^2 = 56.0317^2 = 3,139.6 pairs
    assert pairs_needed(0.5, 10.0) == pytest.approx(3_139.6, rel=1e-4)
    assert pairs_needed(0.5, 0.0) == 2.0  # no spread: the smallest sample with an interval
    assert pairs_needed(0.0, 10.0) == math.inf  # on the bound: no size decides
    assert pairs_needed(-1.0, 10.0) == math.inf  # outside: nothing to confirm
    assert pairs_needed(0.5, math.inf) == math.inf
