"""reports/stats.py against independently computed values: scipy, published tables, hand work."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import optimize
from scipy import stats as sps

from reports.stats import (
    Pentanomial,
    elo_estimate,
    elo_from_score,
    holm,
    paired_difference,
    rate_difference,
    score_from_elo,
    sprt_bounds,
    sprt_decision,
    sprt_llr,
    wilson,
)
from sim import stats as sim_stats
from sim.stats import Tally, effective_size, events, p_text, points, rate

Z95 = 1.959963984540054  # standard-normal 0.975 quantile, from tables
OUTCOMES = st.sampled_from([0.0, 0.5, 1.0])


# Wilson


def test_wilson_hand_example() -> None:
    """81 of 263: the bounds are the roots of (p_hat - p)^2 = z^2 p (1 - p) / n."""
    n, p_hat = 263, 81 / 263
    roots = np.sort(np.roots([1 + Z95**2 / n, -(2 * p_hat + Z95**2 / n), p_hat**2]))
    low, high = wilson(81, 263)
    assert (low, high) == pytest.approx(tuple(roots), abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)


@given(st.integers(1, 3000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_scipy(case: tuple[int, int]) -> None:
    """Every k of n agrees with scipy's Wilson interval, at several confidence levels."""
    k, n = case
    for confidence in (0.8, 0.95, 0.99):
        ci = sps.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
        assert wilson(k, n, confidence) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_empty_and_invalid() -> None:
    """No games says nothing; impossible counts are refused."""
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(5, 4)
    with pytest.raises(ValueError):
        wilson(1, 4, confidence=1.0)


# Unpaired difference


def unpaired_difference(k_a: int, n_a: int, k_b: int, n_b: int):
    """rate_difference of two runs of independent games (a game is its own unit)."""
    return rate_difference(*(rate(events(k, 0, n, n), "game") for k, n in ((k_a, n_a), (k_b, n_b))))


def test_newcombe_published_example() -> None:
    """Newcombe (1998) Table II: 56/70 vs 48/80, method 10 gives 0.2000 (0.0524, 0.3339)."""
    d = unpaired_difference(48, 80, 56, 70)
    assert d.estimate == pytest.approx(0.2, abs=1e-12)
    assert (round(d.low, 4), round(d.high, 4)) == (0.0524, 0.3339)
    assert (d.paired, d.n_a, d.n_b) == (False, 80, 70)


def test_unpaired_is_antisymmetric() -> None:
    """Swapping the runs negates the estimate and mirrors the interval; the p-value stays."""
    ab, ba = unpaired_difference(30, 100, 45, 90), unpaired_difference(45, 90, 30, 100)
    assert (ab.estimate, ab.low, ab.high) == pytest.approx((-ba.estimate, -ba.high, -ba.low))
    assert ab.p_value == pytest.approx(ba.p_value)


@given(
    st.integers(20, 800).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.integers(20, 800).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
)
def test_unpaired_p_matches_chi_square(a: tuple[int, int], b: tuple[int, int]) -> None:
    """With every expected cell >= 5 the z-test p equals the uncorrected 2x2 chi-square p."""
    table = np.array([[a[0], a[1] - a[0]], [b[0], b[1] - b[0]]])
    chi2 = sps.chi2_contingency(table, correction=False) if table.sum(axis=0).all() else None
    assume(chi2 is not None and chi2.expected_freq.min() >= 5)
    d = unpaired_difference(a[0], a[1], b[0], b[1])
    assert d.p_value == pytest.approx(chi2.pvalue, rel=1e-9, abs=1e-300)
    assert d.low <= d.estimate <= d.high
    assert d.low >= -1 and d.high <= 1


# Paired difference


def test_paired_tiny_hand_example() -> None:
    """d = [1, 0, 0, 0.5]: mean 0.375, sd^2 = 0.6875/3; t(3) has a closed-form CDF."""
    d = paired_difference([0, 0, 1, 0.5], [1, 0, 1, 1])
    se = math.sqrt(0.6875 / 3 / 4)
    t = 0.375 / se
    cdf = 0.5 + (t / (math.sqrt(3) * (1 + t * t / 3)) + math.atan(t / math.sqrt(3))) / math.pi
    half = 3.182446305284263 * se  # t(3) 0.975 quantile, from tables
    assert (d.estimate, d.low, d.high) == pytest.approx((0.375, 0.375 - half, 0.375 + half))
    assert d.p_value == pytest.approx(2 * (1 - cdf), rel=1e-9)
    assert (d.paired, d.n_a, d.n_b) == (True, 4, 4)


@given(st.lists(st.tuples(OUTCOMES, OUTCOMES), min_size=2, max_size=300))
def test_paired_matches_ttest_rel(games: list[tuple[float, float]]) -> None:
    """Estimate, interval and p-value agree with scipy's paired t-test."""
    a, b = np.array(games).T
    assume(len(set(b - a)) > 1)
    d = paired_difference(a, b, confidence=0.9)
    ref = sps.ttest_rel(b, a)
    ci = ref.confidence_interval(confidence_level=0.9)
    assert d.estimate == pytest.approx(np.mean(b - a), abs=1e-12)
    assert (d.low, d.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert d.p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


def test_paired_constant_differences() -> None:
    """No difference at all gives p 1 and a zero-width interval; a constant shift gives p 0."""
    same = paired_difference([1, 0, 0.5], [1, 0, 0.5])
    assert (same.estimate, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    shift = paired_difference([0, 0, 0], [1, 1, 1])
    assert (shift.estimate, shift.low, shift.high, shift.p_value) == (1.0, 1.0, 1.0, 0.0)
    with pytest.raises(ValueError):
        paired_difference([0, 1], [0, 1, 1])


# Holm


def test_holm_hand_example() -> None:
    """Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 then running max: 0.02, 0.03, 0.06, 0.06."""
    got = holm([0.01, 0.04, 0.03, 0.005])
    assert [q for q, _ in got] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [r for _, r in got] == [True, False, False, True]


def test_holm_steps_past_bonferroni_and_caps() -> None:
    """[0.01, 0.02, 0.03] all pass Holm (0.03, 0.04, 0.04), unlike Bonferroni; 1 is a cap."""
    assert holm([0.02, 0.01, 0.03]) == [
        (pytest.approx(0.04), True),
        (pytest.approx(0.03), True),
        (pytest.approx(0.04), True),
    ]
    assert holm([0.6, 0.7]) == [(1.0, False), (1.0, False)]
    assert holm([]) == []


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_properties(p: list[float]) -> None:
    """Adjusted p lies in [raw p, 1], keeps the order of the raw p, and rejects iff <= 0.05."""
    got = holm(p)
    for raw, (adj, rejected) in zip(p, got, strict=True):
        assert raw <= adj <= 1 and rejected == (adj <= 0.05)
    adjusted = [q for q, _ in got]
    for i, j in itertools.product(range(len(p)), repeat=2):
        if p[i] <= p[j]:
            assert adjusted[i] <= adjusted[j]


# Elo


def test_elo_known_values() -> None:
    """A 3:1 score is 400*log10(3) Elo; +400 Elo scores 10/11; certainty is infinite."""
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert score_from_elo(400) == pytest.approx(10 / 11)
    assert elo_from_score(0.5) == 0.0
    assert (elo_from_score(0.0), elo_from_score(1.0)) == (-math.inf, math.inf)
    with pytest.raises(ValueError):
        elo_from_score(1.5)


@given(st.floats(-1500, 1500))
def test_elo_round_trip(elo: float) -> None:
    """score_from_elo and elo_from_score invert each other."""
    assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo, abs=1e-8)


@given(st.floats(1e-9, 1 - 1e-9))
def test_score_round_trip(score: float) -> None:
    """The inverse holds from the score side too."""
    assert score_from_elo(elo_from_score(score)) == pytest.approx(score, rel=1e-9)


# Pentanomial SPRT


def exact_glr(counts: list[float], elo0: float, elo1: float) -> float:
    """Exact generalized LLR: multinomial MLE with mean s (van den Bergh's secular equation)."""
    a = np.arange(5) / 4
    n = sum(counts)
    p = np.asarray(counts) / n

    def log_mle(s: float) -> np.ndarray:
        def score_equation(x: float) -> float:
            """Zero at the Lagrange multiplier of the mean-s constraint."""
            return p @ ((a - s) / (1 + x * (a - s)))

        x = optimize.brentq(score_equation, -1 / (1 - s) + 1e-12, 1 / s - 1e-12, xtol=1e-15)
        return np.log(p / (1 + x * (a - s)))

    return n * p @ (log_mle(score_from_elo(elo1)) - log_mle(score_from_elo(elo0)))


def test_sprt_bounds_hand_values() -> None:
    """alpha = beta = 0.05 gives -+log(19); alpha 0.01, beta 0.1 gives log(0.1/0.99), log(90)."""
    assert sprt_bounds() == pytest.approx((-math.log(19), math.log(19)))
    assert sprt_bounds(0.01, 0.1) == pytest.approx((math.log(0.1 / 0.99), math.log(90)))


def test_sprt_llr_hand_value() -> None:
    """[1, 2, 3, 2, 2] on 0, 1/4, .., 1: mu = 22/40 = 0.55, var = 0.975/10; 0 vs +100 Elo."""
    s1 = 1 / (1 + 10 ** (-100 / 400))
    expected = 10 * (s1 - 0.5) * (2 * 0.55 - 0.5 - s1) / (2 * 0.0975)
    assert sprt_llr([1, 2, 3, 2, 2], 0, 100) == pytest.approx(expected, rel=1e-12)


def test_sprt_llr_regularizes_empty_cells() -> None:
    """Empty cells count as 1e-3 pairs (fishtest's regularize), so one-cell samples stay finite."""
    assert sprt_llr([0, 2, 3, 0, 2], 0, 5) == sprt_llr([1e-3, 2, 3, 1e-3, 2], 0, 5)
    mu = (5 + 1e-3 * (0.25 + 0.5 + 0.75)) / 5.004
    var = (
        5 * (1 - mu) ** 2 + 1e-3 * (mu**2 + (0.25 - mu) ** 2 + (0.5 - mu) ** 2 + (0.75 - mu) ** 2)
    ) / 5.004
    s1 = score_from_elo(5)
    assert sprt_llr([0, 0, 0, 0, 5], 0, 5) == pytest.approx(
        5.004 * (s1 - 0.5) * (2 * mu - 0.5 - s1) / (2 * var), rel=1e-9
    )


def test_sprt_llr_is_zero_at_the_midpoint() -> None:
    """The formula vanishes exactly when mu = (s0 + s1) / 2, and changes sign there."""
    assert sprt_llr([3, 5, 9, 5, 3], -5, 5) == pytest.approx(0, abs=1e-12)
    mid = (0.5 + score_from_elo(10)) / 2
    # [10, 1, 1, 1, b] has mu = (1.5 + b) / (13 + b); solve for mu = mid
    b = (13 * mid - 1.5) / (1 - mid)
    assert sprt_llr([10, 1, 1, 1, b], 0, 10) == pytest.approx(0, abs=1e-12)
    assert sprt_llr([10, 1, 1, 1, b + 0.1], 0, 10) > 0 > sprt_llr([10, 1, 1, 1, b - 0.1], 0, 10)


def test_sprt_llr_grows_with_n_for_a_strong_player() -> None:
    """A +43 Elo sample: LLR positive and proportional to the number of pairs."""
    base = np.array([10, 20, 40, 30, 20])
    llrs = [sprt_llr(base * k, 0, 5) for k in (1, 2, 10)]
    assert 0 < llrs[0] < llrs[1] < llrs[2]
    assert llrs[1:] == pytest.approx([2 * llrs[0], 10 * llrs[0]], rel=1e-12)


def test_sprt_llr_close_to_exact_glr() -> None:
    """On a realistic large sample the approximation is within 2% of the exact GLR."""
    counts = [400, 2000, 5000, 2300, 500]
    exact = exact_glr(counts, 0, 5)
    assert exact > 1
    assert sprt_llr(counts, 0, 5) == pytest.approx(exact, rel=0.02)


def test_sprt_llr_symmetries() -> None:
    """Swapping hypotheses negates the LLR; so does mirroring both the counts and the Elos."""
    counts = [12, 30, 50, 41, 17]
    llr = sprt_llr(counts, 0, 5)
    assert sprt_llr(counts, 5, 0) == pytest.approx(-llr)
    assert sprt_llr(counts[::-1], -5, 0) == pytest.approx(-llr)
    assert sprt_llr(Pentanomial(*counts), 0, 5) == llr


def test_sprt_decisions() -> None:
    """Overwhelming wins accept H1, a clearly weaker A accepts H0, a handful of pairs continues."""
    assert sprt_decision([0, 0, 0, 0, 1000], 0, 5) == "H1"
    assert sprt_decision([20, 60, 200, 150, 70], 0, 5) == "H1"
    assert sprt_decision([200, 50, 10, 0, 0], 0, 5) == "H0"
    assert sprt_decision([70, 150, 200, 60, 20], 0, 5) == "H0"
    assert sprt_decision([1, 2, 3, 2, 1], 0, 5) == "continue"
    assert sprt_decision([0, 0, 1, 1, 0], 0, 5) == "continue"
    with pytest.raises(ValueError):
        sprt_decision([1, 2, 3, 2, 1], 5, 0)


def test_pentanomial_tally() -> None:
    """Pair scores tally into the five cells; bad scores and negative counts are refused."""
    assert Pentanomial.from_pair_scores([0, 2, 1.5, 1, 1]) == Pentanomial(1, 0, 2, 1, 1)
    with pytest.raises(ValueError):
        Pentanomial.from_pair_scores([0.25])
    with pytest.raises(ValueError):
        Pentanomial(1, -1, 0, 0, 0)


def test_elo_estimate_symmetric_is_zero() -> None:
    """A mirror-image pentanomial scores exactly 0.5: 0 Elo and a symmetric interval."""
    elo, low, high = elo_estimate([3, 5, 9, 5, 3])
    assert elo == 0.0
    assert low < 0 < high and low == pytest.approx(-high, rel=1e-12)


def test_elo_estimate_from_raw_pair_scores() -> None:
    """Matches the mean and standard error of the expanded per-pair scores."""
    counts = [10, 20, 40, 30, 20]
    x = np.repeat(np.arange(5) / 4, counts)
    half = Z95 * x.std() / math.sqrt(x.size)
    expected = [400 * math.log10(s / (1 - s)) for s in (x.mean(), x.mean() - half, x.mean() + half)]
    assert elo_estimate(counts) == pytest.approx(tuple(expected), rel=1e-9)
    assert expected[1] > 0
    narrower = elo_estimate(np.array(counts) * 4)
    assert narrower[2] - narrower[1] < 0.55 * (expected[2] - expected[1])


# --- sim.stats: one estimate per quantity, the pair as the unit ------------------------------


def test_a_rate_over_single_games_is_plain_wilson() -> None:
    e = rate(events(30, 0, 100, 100), "game")
    ci = sps.binomtest(30, 100).proportion_ci(method="wilson")
    assert (e.low, e.high) == pytest.approx((ci.low, ci.high))
    assert (e.units, e.games, e.sample) == (100, 100, "100 games")


def test_replayed_pairs_count_once_and_mirrored_pairs_more() -> None:
    """Both games alike in every pair (a replay): the effective size is the pairs. One game
    of each pair only (a seat that always wins one): no spread, a point interval."""
    replay = rate(events(60, 30, 100, 200), "pair")  # 30 pairs with both, 70 with neither
    ci = sps.binomtest(30, 100).proportion_ci(method="wilson")
    assert replay.n_eff == pytest.approx(100) and (replay.low, replay.high) == pytest.approx(
        (ci.low, ci.high)
    )
    mirrored = rate(events(100, 0, 100, 200), "pair")  # every pair splits 1-1
    assert (mirrored.value, mirrored.low, mirrored.high) == (0.5, 0.5, 0.5)
    assert mirrored.sample == "100 pairs"


def test_the_variance_is_clustered_by_unit_by_hand() -> None:
    """Pairs with 2, 0, 1, 1 events: p = 1/2, sum of (s - 2p)^2 = 2, over 8^2 games."""
    t = events(4, 1, 4, 8)
    assert t.variance() == pytest.approx(2 / 64)
    assert effective_size(t) == pytest.approx(0.25 / (2 / 64))
    assert (t + t).fields() == (8, 8, 16, 2 * t.yy, 2 * t.zz, 2 * t.yz)


def test_a_score_from_the_pentanomial_matches_the_expanded_pairs() -> None:
    counts = [10, 20, 40, 30, 20]
    x = np.repeat(np.arange(5) / 4, counts)  # per-game score of each pair
    t = points(counts, 2 * sum(counts))
    assert t.ratio == pytest.approx(x.mean())
    assert t.variance() == pytest.approx(x.var() / x.size)


def test_a_mean_over_pairs_is_the_t_interval_of_the_pair_means() -> None:
    turns = np.array([20, 22, 24, 26, 21, 23, 25, 31], dtype=float)
    pairs = turns.reshape(-1, 2)
    s = pairs.sum(axis=1)
    t = Tally(4, s.sum(), 8, (s * s).sum(), 16, 2 * s.sum())
    m = sim_stats.mean(t, "pair")
    means = pairs.mean(axis=1)
    expected = sps.t.interval(0.95, 3, loc=means.mean(), scale=sps.sem(means))
    assert (m.low, m.high) == pytest.approx(expected)


def test_one_p_value_floor() -> None:
    assert p_text(0.0) == "<1e-16" and p_text(1e-300) == "<1e-16"
    assert p_text(0.0123) == "0.012" and p_text(1.0) == "1"


def test_rate_difference_on_effective_sizes() -> None:
    """Two runs of independent games: the pooled z-test and Newcombe's interval."""
    a, b = rate(events(100, 0, 200, 200), "game"), rate(events(130, 0, 200, 200), "game")
    d = rate_difference(a, b)
    chi2 = sps.chi2_contingency([[100, 100], [130, 70]], correction=False)
    assert d.p_value == pytest.approx(chi2.pvalue, rel=1e-9)
    assert d.low < 0.15 < d.high
