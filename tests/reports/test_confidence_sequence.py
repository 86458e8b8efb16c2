"""sim.stats.confidence_sequence: a hand-worked value, its shape, and its anytime coverage
against a fixed-sample interval watched the same way (which the check must catch)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.stats import Tally, confidence_sequence, points, rate, sequence_tuning, sequential_rate


def coin(units: int, heads: int) -> Tally:
    """A rate over single-game units: `heads` of `units` games with the event."""
    return Tally(units, heads, units, heads, units, heads)


def test_a_hand_worked_sequence() -> None:
    """100 games, 50 with the event, tuned for 100, alpha 0.05, by hand:
    log 20 = 2.99573; rho^2 = (2 * 2.99573 + log 6.99146) / 100 = 0.0793614;
    t rho^2 + 1 = 8.93614; log(sqrt(8.93614) / 0.05) = log 59.7867 = 4.09079;
    sigma^2 = 0.25 * 100 / 99 = 0.252525; half^2 = 0.252525 * 2 * 8.93614 /
    (10^4 * 0.0793614) * 4.09079 = 0.0232636, half = 0.152524."""
    assert sequence_tuning(100) == pytest.approx(0.0793614, rel=1e-5)
    lo, hi = confidence_sequence(coin(100, 50), plan=100)
    assert lo == pytest.approx(0.5 - 0.152524, abs=1e-5)
    assert hi == pytest.approx(0.5 + 0.152524, abs=1e-5)


def test_narrowest_near_the_plan_and_wider_than_a_fixed_interval() -> None:
    """Tuned for 1,000 units it is narrower at 1,000 than tuned for 250 or 4,000; the price
    of watching is width over Wilson's interval on the same games."""
    t = coin(1000, 400)
    halves = {p: confidence_sequence(t, p)[1] - 0.4 for p in (250, 1000, 4000)}
    assert halves[1000] < halves[250] and halves[1000] < halves[4000]
    fixed = rate(t, "game")
    assert halves[1000] > (fixed.high - fixed.low) / 2


def test_too_few_units_or_a_bad_plan() -> None:
    assert all(math.isnan(b) for b in confidence_sequence(coin(1, 1), plan=10))
    e = sequential_rate(coin(1, 1), "game", plan=10)
    assert (e.low, e.high) == (0.0, 1.0)
    with pytest.raises(ValueError, match="planned units"):
        confidence_sequence(coin(10, 5), plan=0)
    with pytest.raises(ValueError, match="confidence"):
        confidence_sequence(coin(10, 5), plan=10, confidence=1.0)


# Calibration: a pair's first-seat half-points (0..4) drawn from a fixed law, the run
# watched after every batch of pairs; the share of runs whose interval ever leaves the truth.
LAWS = {
    "even-ish": (0.10, 0.15, 0.30, 0.25, 0.20),  # truth (0.15 + 0.6 + 0.75 + 0.8) / 4 = 0.575
    "lopsided": (0.02, 0.03, 0.10, 0.25, 0.60),  # truth (0.03 + 0.2 + 0.75 + 2.4) / 4 = 0.845
}
TRUTH = {"even-ish": 0.575, "lopsided": 0.845}
RUNS, LOOKS, BATCH = 1500, 40, 50


def ever_missed(law: str, interval) -> float:
    rng = np.random.default_rng(20261204)
    counts = rng.multinomial(BATCH, LAWS[law], size=(RUNS, LOOKS)).cumsum(axis=1)
    missed = 0
    for run in counts:
        for look, c in enumerate(run, start=1):
            lo, hi = interval(points(tuple(int(x) for x in c), 2 * BATCH * look))
            if not lo <= TRUTH[law] <= hi:
                missed += 1
                break
    return missed / RUNS


def sequence(t: Tally) -> tuple[float, float]:
    e = sequential_rate(t, "pair", plan=LOOKS * BATCH)
    return e.low, e.high


def fixed(t: Tally) -> tuple[float, float]:
    e = rate(t, "pair")
    return e.low, e.high


@pytest.mark.parametrize("law", sorted(LAWS))
def test_watched_after_every_batch_the_sequence_keeps_its_95_percent(law: str) -> None:
    """1,500 runs of 40 looks: at most 5% + 1.2 points (two binomial standard errors)."""
    assert ever_missed(law, sequence) <= 0.05 + 0.012


@pytest.mark.parametrize("law", sorted(LAWS))
def test_a_fixed_interval_watched_the_same_way_misses_far_more_than_5_percent(law: str) -> None:
    """The same runs with Wilson's fixed-sample interval: peeking 40 times breaks it."""
    assert ever_missed(law, fixed) > 0.10


def test_pairs_to_precision_finds_the_first_size_that_is_enough() -> None:
    """50 of 100, tuned for 100: ±15.2524 pts by hand (above), so 15.253 is met now; ±15.25
    is not, but one unit more (half about 15.2524 * sqrt(100/101) = 15.177) is."""
    from reports.skill import pairs_to_precision

    assert pairs_to_precision(coin(100, 50), 15.253, plan=100) == 100
    assert pairs_to_precision(coin(100, 50), 15.25, plan=100) == 101
    n = pairs_to_precision(coin(100, 50), 5.0, plan=100)
    lo, hi = confidence_sequence(coin(n, n // 2), plan=100)
    assert 50 * (hi - lo) <= 5.0 * (1 + 1e-3)  # at n the same spread gives ±5


def test_a_levels_verdict_reads_the_sequence_when_there_is_a_plan() -> None:
    """540 of 1,000: Wilson's interval is about 54.0 ± 3.1%, so +0.9 pts at its low end,
    beyond a ±0.5 margin: favours. The sequence is about 1.55 times as wide (±4.8), so its
    low end is below 50%: inconclusive, with the more pairs it would take."""
    from reports.skill import level

    t = coin(1000, 540)
    assert level("x", t, margin=0.5).verdict.kind == "favours"
    tuned = level("x", t, margin=0.5, plan=1000)
    assert tuned.verdict.kind == "inconclusive" and tuned.verdict.more > 0
    assert tuned.first_seat.low < 0.5 < 0.54 < tuned.first_seat.high
