"""reports/sprt.py: pair scoring, the stopping logic on crafted sequences, and the engine run."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from cli_failures import assert_clean_failure
from scipy import optimize
from typer.testing import CliRunner

from reports.sprt import (
    SprtError,
    SprtSettings,
    engine_batches,
    pair_scores,
    run_sprt,
    sequential_test,
)
from sim.cli import app
from sim.model.config import load
from sim.players.specs import matchup
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute

F, S, D = 0, 1, 2  # engine winner codes: first seat, second seat, draw
QUARTERS = np.arange(5) / 4  # pair score / 2


def cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


# Pair scoring


@pytest.mark.parametrize(
    ("game_a_first", "game_a_second", "points"),
    [
        (F, S, 2.0),  # A wins both
        (F, F, 1.0),  # each seat wins once: A wins the first, B the second
        (S, S, 1.0),
        (S, F, 0.0),  # B wins both
        (D, D, 1.0),
        (F, D, 1.5),
        (D, S, 1.5),
        (S, D, 0.5),
        (D, F, 0.5),
    ],
)
def test_pair_score_by_hand(game_a_first: int, game_a_second: int, points: float) -> None:
    """A holds the first seat in the first game of a pair and the second seat in the next."""
    assert pair_scores([game_a_first, game_a_second]).tolist() == [points]


def test_pair_scores_from_labels_and_in_order() -> None:
    """Winner labels as in the games table score the same; pairs keep their order."""
    labels = ["first", "second", "second", "first", "draw", "second"]
    assert pair_scores(labels).tolist() == [2.0, 0.0, 1.5]
    assert pair_scores(np.array([F, S, S, F, D, S])).tolist() == [2.0, 0.0, 1.5]


def test_pair_scores_refuse_half_pairs_and_bad_winners() -> None:
    with pytest.raises(ValueError, match="whole pairs"):
        pair_scores([F, S, F])
    with pytest.raises(ValueError):
        pair_scores([F, 3])
    with pytest.raises(ValueError):
        pair_scores(["first", "nobody"])


# The stopping logic on crafted sequences


class Batches:
    """Crafted batches of pair scores that count how many the test asked for."""

    def __init__(self, batches: list[list[float]]):
        self.batches = batches
        self.taken = 0

    def __iter__(self):
        for batch in self.batches:
            self.taken += 1
            yield np.asarray(batch, dtype=float)


def hand_llr(scores: np.ndarray, elo0: float, elo1: float) -> float:
    """N (s1 - s0) (2 mu - s0 - s1) / (2 var) over pair scores with every cell present."""
    x = np.asarray(scores) / 2
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return x.size * (s1 - s0) * (2 * x.mean() - s0 - s1) / (2 * x.var())


def test_decides_h1_after_the_first_batch_and_stops() -> None:
    """A sweeping batch accepts H1 at once; the following batches are never played."""
    strong = [2.0] * 80 + [1.5] * 10 + [1.0] * 5 + [0.5] * 3 + [0.0] * 2
    batches = Batches([strong, strong, strong])
    result = sequential_test(batches, SprtSettings(0, 20))
    assert result.verdict == "H1"
    assert batches.taken == 1
    assert result.pairs == 100 and result.games == 200
    assert result.pentanomial.counts() == (2, 3, 5, 10, 80)
    assert result.llr == pytest.approx(hand_llr(np.array(strong), 0, 20), rel=1e-9)
    assert result.llr >= result.upper == pytest.approx(math.log(19))


def test_decides_h0_for_a_clearly_weaker_a() -> None:
    weak = [0.0] * 40 + [0.5] * 30 + [1.0] * 20 + [1.5] * 7 + [2.0] * 3
    result = sequential_test(Batches([weak] * 5), SprtSettings(0, 20))
    assert result.verdict == "H0"
    assert result.llr <= result.lower == pytest.approx(-math.log(19))


def test_looks_only_at_batch_ends() -> None:
    """Two sweeping pairs would already pass the bound, but the test decides only after the
    whole batch of 100, whose mixed tail pulls the LLR back between the bounds."""
    first = [2.0, 2.0] + [0.0, 0.5, 1.0, 1.5, 2.0] * 19 + [0.0, 0.5, 1.0]
    seen = []
    result = sequential_test(Batches([first]), SprtSettings(0, 20), seen.append)
    assert sequential_test(Batches([[2.0, 2.0]]), SprtSettings(0, 20)).verdict == "H1"
    assert [s.pairs for s in seen] == [100]
    assert seen[0].verdict == "continue"
    assert result.verdict == "inconclusive" and result.pairs == 100
    assert result.llr == pytest.approx(hand_llr(np.array(first), 0, 20), rel=1e-9)


def test_accumulates_across_batches_and_stops_at_the_game_limit() -> None:
    """A balanced, noisy sequence never decides; 30 games = 15 pairs, cut mid-batch."""
    noisy = [0.0, 2.0] * 5
    batches = Batches([noisy] * 10)
    seen = []
    result = sequential_test(batches, SprtSettings(0, 20, max_games=30), seen.append)
    assert result.verdict == "inconclusive"
    assert [s.pairs for s in seen] == [10, 15]
    assert batches.taken == 2
    assert result.games == 30
    # the 15 pairs kept: 8 of 0 points and 7 of 2; the empty middle cells count as 1e-3
    counts = np.array([8, 1e-3, 1e-3, 1e-3, 7])
    mu = counts @ QUARTERS / counts.sum()
    var = counts @ (QUARTERS - mu) ** 2 / counts.sum()
    s1 = 1 / (1 + 10 ** (-20 / 400))
    expected = counts.sum() * (s1 - 0.5) * (2 * mu - 0.5 - s1) / (2 * var)
    assert result.llr == pytest.approx(expected, rel=1e-9)


def test_odd_game_limit_rounds_up_to_a_whole_pair() -> None:
    result = sequential_test(Batches([[1.0, 0.0, 2.0]] * 3), SprtSettings(0, 20, max_games=5))
    assert result.pairs == 3 and result.verdict == "inconclusive"


def test_no_pairs_at_all_is_an_error() -> None:
    with pytest.raises(SprtError):
        sequential_test(Batches([[]]), SprtSettings(0, 20))


@pytest.mark.parametrize(
    ("settings", "option"),
    [
        (SprtSettings(20, 0), "--elo0"),
        (SprtSettings(0, 20, alpha=0), "--alpha"),
        (SprtSettings(0, 20, beta=1.5), "--beta"),
        (SprtSettings(0, 20, alpha=0.6, beta=0.5), "--alpha plus --beta"),
        (SprtSettings(0, 20, batch=1), "--batch"),
        (SprtSettings(0, 20, max_games=1), "--max-games"),
    ],
)
def test_settings_are_checked(settings: SprtSettings, option: str) -> None:
    with pytest.raises(SprtError, match=option):
        settings.check()


# Error rates on simulated pentanomial samples of known Elo


def tilted(elo: float) -> np.ndarray:
    """A pentanomial distribution with mean pair score / 2 equal to the score of `elo`."""
    base = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    target = 1 / (1 + 10 ** (-elo / 400))

    def mean(lam: float) -> float:
        w = base * np.exp(lam * QUARTERS)
        return w @ QUARTERS / w.sum() - target

    lam = optimize.brentq(mean, -20, 20)
    p = base * np.exp(lam * QUARTERS)
    return p / p.sum()


def simulated_verdicts(elo: float, runs: int, seed: int) -> dict[str, int]:
    """Verdicts of `runs` SPRTs (elo0 0, elo1 20) on pairs drawn at the given true Elo."""
    rng = np.random.default_rng(seed)
    p = tilted(elo)
    tally = {"H0": 0, "H1": 0, "inconclusive": 0}

    def batches():
        while True:
            yield rng.choice(QUARTERS * 4 / 2, size=200, p=p)

    for _ in range(runs):
        tally[sequential_test(batches(), SprtSettings(0, 20, batch=400)).verdict] += 1
    return tally


def test_error_rates_at_the_hypotheses_stay_near_alpha_and_beta() -> None:
    """At true Elo 0 H1 is rarely accepted, at true Elo 20 H0 rarely (alpha = beta = 5%)."""
    assert tilted(20) @ QUARTERS == pytest.approx(1 / (1 + 10 ** (-20 / 400)))
    at_h0 = simulated_verdicts(0.0, 200, 1)
    at_h1 = simulated_verdicts(20.0, 200, 2)
    assert at_h0["inconclusive"] == at_h1["inconclusive"] == 0
    # 5% of 200 is 10; allow for binomial noise (p of 20+ under a true 5% is below 0.003)
    assert at_h0["H1"] < 20 and at_h1["H0"] < 20
    far = simulated_verdicts(60.0, 50, 3)
    assert far["H1"] == 50


# The engine


def test_pair_scores_from_the_runner_table_match_the_engine_batches(tmp_path) -> None:
    """Seeds are derived as `sim run` derives them, so its games table scores the same."""
    out = execute(
        make_plan(["base"], ["random,random"], 2000, 1, True, 1000),
        tmp_path / "r",
        RunOptions(workers=1),
    )
    games = pl.read_parquet(out.out / "games" / "*.parquet").sort("game")
    from_table = pair_scores(games["winner"].cast(pl.String).to_list())
    settings = SprtSettings(0, 20, batch=1000, max_games=2000)
    from_engine = np.concatenate(
        list(engine_batches(load("base"), matchup("random", "random"), 1, settings))
    )
    assert from_engine.shape == (1000,)
    assert np.array_equal(from_table, from_engine)


def test_random_against_random_accepts_h0() -> None:
    """The same strategy in both seats is not 20 Elo stronger than itself: over several
    master seeds H0 is accepted nearly always (alpha bounds the false H1s)."""
    results = [
        run_sprt(load("base"), matchup("random", "random"), seed, SprtSettings(0, 20))
        for seed in range(8)
    ]
    assert sum(r.verdict == "H0" for r in results) >= 6
    for result in results:
        assert result.games % 2000 == 0
        elo, low, high = result.elo()
        assert abs(elo) < 40 and low < elo < high


def test_unknown_strategies_are_refused_by_name() -> None:
    message = assert_clean_failure(cli("sprt", "--players", "clever,random"))
    assert "unknown strategy 'clever'" in message


# The command


def test_cli_random_against_random_ends_in_h0() -> None:
    result = cli("sprt", "--config", "base", "--players", "random,random", "--seed", "5")
    assert result.exit_code == 0, result.output
    assert "verdict: H0 accepted" in result.stdout
    assert "Elo of random over random: " in result.stdout
    assert "bounds [-2.94, +2.94]" in result.stdout
    assert "games used: 2,000 (1,000 seat-swapped pairs)" in result.stdout
    assert "games 2,000: LLR" in result.stderr  # progress
    assert "note: every pair split 1-1" not in result.stdout  # pairs differ in play


def test_cli_stops_inconclusive_at_the_game_limit() -> None:
    """Hypotheses symmetric about the true 0 keep the LLR at 0; the limit ends the test."""
    result = cli(
        "sprt", "--players", "random,random", "--elo0", "-1000", "--elo1", "1000",
        "--batch", "100", "--max-games", "100", "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "games used: 100" in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "random,nobody"], "unknown strategy 'nobody'"),
        ([], "no match-up given"),
        (["--players", "random,random", "--config", "nope"], "unknown config 'nope'"),
        (["--players", "random,random", "--elo0", "5", "--elo1", "5"], "--elo0 must be below"),
        (["--players", "random,random", "--batch", "10"], "--batch must be at least 100"),
        (["--players", "random,random", "--max-games", "1"], "--max-games must be at least 2"),
        (["--players", "random,random", "--seed", "-1"], "--seed must be in"),
        (["--players", "random,cpu"], "cannot play seat-swapped pairs"),
    ],
)
def test_cli_mistakes_fail_cleanly(args: list[str], message: str) -> None:
    """An option value the command cannot take is a usage error (exit 2); a config file
    that cannot be used is a failure (exit 1)."""
    result = cli("sprt", *args)
    line = assert_clean_failure(result)
    assert message in line
    assert result.exit_code == (1 if "unknown config" in message else 2), line
