"""`sim strategies train`: style targets, the written file, common deals, fresh confirmation
seeds, resuming an interrupted training, determinism and bad input. Budgets are tiny (a few
pairs a trial): these check the machinery, not the strength found."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from cli_failures import assert_clean_failure, assert_exit_1
from typer.testing import CliRunner

from sim.cli import app
from sim.players.weights import default_weights, read_weights
from sim.runner.run import RunOptions, execute
from sim.store.folder import open_run
from sim.store.seeds import played_seeds
from sim.tune import train
from sim.tune.train import StyleTarget, TrainError, Training, parse_style

TINY = ["--pairs", "4", "--confirm-pairs", "6", "--vary", "pot,reply", "--workers", "1"]


def invoke(*args: str):
    return CliRunner().invoke(app, ["strategies", "train", *args], prog_name="sim")


def runner(plan, out: Path) -> None:
    execute(plan, out, RunOptions(workers=1))


def tiny(seed: int = 5, **changes) -> Training:
    fields = dict(config="base", start="heuristic", pool=("self", "greedy"), pairs=3,
                  seed=seed, sampler="cmaes", style=None, vary=("pot", "reply"))  # fmt: skip
    return Training(**{**fields, **changes})


def points(study) -> list[tuple[dict, float]]:
    return [(t.params, t.value) for t in sorted(study.trials, key=lambda t: t.number)]


# --- style targets and weights files, by hand ---------------------------------------------------


def test_a_style_target_reads_its_metric_direction_and_bound() -> None:
    assert parse_style("run_end>=30") == StyleTarget("run_end", True, 30.0)
    assert parse_style(" turns <= 21.5 ") == StyleTarget("turns", False, 21.5)


@pytest.mark.parametrize(
    ("text", "says"),
    [("run_end>30", "expected METRIC>=N"), ("speed>=3", "unknown metric 'speed'"),
     ("run_end>=130", "percentage"), ("run_end>=1.2.3", "not a number")],
)  # fmt: skip
def test_a_bad_style_target_names_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(TrainError, match=says):
        parse_style(text)


def test_a_style_targets_shortfall_and_verdict() -> None:
    at_least = StyleTarget("run_end", True, 30.0)
    assert at_least.shortfall(25.0) == 5.0 and at_least.shortfall(31.0) == 0.0
    assert at_least.verdict(30.5, 40.0) == "met"  # the whole interval at or above 30
    assert at_least.verdict(20.0, 29.0) == "missed"
    assert at_least.verdict(29.0, 33.0) == "unclear"
    at_most = StyleTarget("turns", False, 20.0)
    assert at_most.shortfall(22.0) == 2.0
    assert at_most.verdict(18.0, 19.5) == "met"
    assert at_most.verdict(20.5, 21.0) == "missed"


def test_a_written_weights_file_reads_back_exactly(tmp_path: Path) -> None:
    weights = train.with_values(default_weights(), {"pot": 0.12345, "hand.DELETE": 7.0})
    path = tmp_path / "w.toml"
    train.write_weights(path, train.toml_text(weights, "a test", ["made here"]))
    assert read_weights(path) == weights
    assert weights[train.features()["pot"]] == 0.123  # rounded to what the file holds


def test_weights_to_vary_are_canonical_names() -> None:
    assert train.check_vary(("hand.DEL", "pot", "pot")) == ("hand.DELETE", "pot")
    with pytest.raises(TrainError, match="--vary speed: unknown weight"):
        train.check_vary(("speed",))
    with pytest.raises(TrainError, match="--vary deals: a search setting"):
        train.check_vary(("deals",))
    assert "second_ply" not in train.default_vary("base") and "threat" in train.default_vary("base")


# --- the study ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> tuple[Path, object]:
    """Three trials played in one go."""
    out = tmp_path_factory.mktemp("straight")
    return out, train.run(tiny(), out, 3, runner)


def test_every_trial_plays_the_same_deals(straight) -> None:
    """One candidate label in every trial's runs, so every trial's cells have one seed key."""
    out, _ = straight
    keys = set()
    for manifest in out.glob("trials/t*/games/manifest.json"):
        cells = json.loads(manifest.read_text())["cells"]
        keys |= {(c["matchup"], c["seed_key"]) for c in cells}
    assert len(list(out.glob("trials/t*/games/manifest.json"))) == 3
    assert len(keys) == 2  # one per opponent


def test_the_first_trial_is_the_start_weights(straight) -> None:
    _, study = straight
    first = min(study.trials, key=lambda t: t.number)
    assert first.params == {"pot": default_weights()[0], "reply": default_weights()[4]}


def test_the_same_seed_asks_and_measures_the_same(straight, tmp_path: Path) -> None:
    _, study = straight
    assert points(train.run(tiny(), tmp_path, 3, runner)) == points(study)


def test_an_interrupted_training_continues_as_if_uninterrupted(straight, tmp_path) -> None:
    """Stopped inside trial 2's games (a trial left running), then rerun: the same trials."""
    _, study = straight
    calls = []

    def stopping(plan, out):
        calls.append(out)
        if len(calls) == 3:
            raise KeyboardInterrupt
        runner(plan, out)

    with pytest.raises(KeyboardInterrupt):
        train.run(tiny(), tmp_path, 3, stopping)
    assert points(train.run(tiny(), tmp_path, 3, runner)) == points(study)


def test_another_seed_asks_other_points(straight, tmp_path: Path) -> None:
    _, study = straight
    other = points(train.run(tiny(seed=6), tmp_path, 3, runner))
    assert [p for p, _ in other[1:]] != [p for p, _ in points(study)[1:]]


def test_the_confirmation_plays_deals_no_trial_played(straight) -> None:
    out, study = straight
    training = tiny()
    best = train.best_trial(training, study)
    result = train.confirm(training, out, best, 5, runner)
    assert set(result.measure.by_opponent) == {"self", "greedy"}
    seen = {"trials": set(), "confirm": set()}
    games = {"trials": 2 * 3, "confirm": 2 * 5}
    for kind in seen:
        for manifest in out.glob(f"{kind}/t*/games/manifest.json"):
            for cell in json.loads(manifest.read_text())["cells"]:
                seen[kind] |= set(played_seeds(cell["seed_key"], 0, games[kind], True).tolist())
    assert len(seen["confirm"]) == 2 * 5 and len(seen["trials"]) == 2 * 3  # pairs x opponents
    assert not seen["trials"] & seen["confirm"]


def test_a_style_target_picks_the_strongest_trial_meeting_it() -> None:
    """Trial 0 is stronger (60) but ends 4 of its 20 games by the RUN line (20%); trial 1
    (55) ends 8 of 20 (40%): without a target trial 0 is best, with run_end>=30 trial 1."""
    import optuna
    from optuna.distributions import FloatDistribution

    study = optuna.create_study(direction="maximize")
    for value, ran in ((60.0, 4), (55.0, 8)):
        style = [10, ran, 20, ran, 40, 2 * ran]  # Tally fields: 10 pairs of 2 games
        study.add_trial(optuna.trial.create_trial(
            params={"pot": 0.5}, distributions={"pot": FloatDistribution(0, 2)}, value=value,
            user_attrs={"style": style}))  # fmt: skip
    assert train.best_trial(tiny(), study).number == 0
    styled = tiny(style=parse_style("run_end>=30"))
    assert train.best_trial(styled, study).number == 1
    assert train.best_trial(tiny(style=parse_style("run_end>=50")), study) is None


# --- the command -------------------------------------------------------------------------------


def test_train_writes_a_weights_file_that_plays(tmp_path: Path) -> None:
    out = tmp_path / "t"
    result = invoke("--out", str(out), "--trials", "2", *TINY)
    assert result.exit_code == 0, result.output
    written = out / "trained.toml"
    weights = read_weights(written)
    assert len(weights) == len(default_weights())
    assert "On 6 fresh seat-swapped pairs" in written.read_text()
    assert "vs self:" in result.stdout
    again = invoke("--out", str(out), "--trials", "2", *TINY)  # a rerun plays no new trial
    assert again.exit_code == 0 and "trial 1/2" not in again.stderr
    moved = invoke("--out", str(out), "--trials", "2", *TINY, "--seed", "9")
    assert "holds another training (seed differ)" in assert_exit_1(moved)


def test_a_style_no_trial_meets_is_one_error(tmp_path: Path) -> None:
    result = invoke("--out", str(tmp_path / "t"), "--trials", "1", *TINY, "--style", "turns<=1")
    assert "no trial's estimate met --style turns<=1" in assert_exit_1(result)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--pool", "nobody"], "--pool nobody"),
        (["--pool", "cpu"], "--pool cpu: the CPU"),
        (["--pool", "greedy", "--pool", "greedy"], "names an opponent twice"),
        (["--pool", "self", "--pool", "heuristic"], "names an opponent twice"),
        (["--pairs", "0"], "--pairs"),
        (["--trials", "0"], "--trials"),
        (["--style", "run_end=>30"], "--style 'run_end=>30'"),
        (["--sampler", "grid"], "--sampler 'grid'"),
        (["--vary", "pot,hand.JOKER"], "--vary hand.JOKER"),
        (["--start", "missing.toml"], "missing.toml"),
    ],
)
def test_bad_input_is_one_usage_error(tmp_path: Path, args: list[str], says: str) -> None:
    result = invoke("--out", str(tmp_path / "t"), "--trials", "1", *TINY, *args)
    assert result.exit_code == 2, result.output
    assert says in (assert_clean_failure(result) if "error:" in result.stderr else result.output)
    assert not (tmp_path / "t").exists()


def test_a_trials_measure_is_its_games_counted(straight) -> None:
    """measure (the workers' tallies) against the games table counted here: the candidate's
    score against each opponent, and the style (games ended by the RUN line)."""
    out, _ = straight
    folder = sorted(out.glob("trials/t*/games"))[0]
    training = tiny(style=parse_style("run_end>=10"))
    measured = train.measure(folder, training)
    games = open_run(folder).games
    won = pl.when(pl.col("swapped")).then(pl.col("winner") == "second")
    score = won.otherwise(pl.col("winner") == "first").cast(float)
    score += 0.5 * (pl.col("winner") == "draw").cast(float)
    for opponent, spec in zip(("self", "greedy"), ("heuristic", "greedy"), strict=True):
        cell = games.filter(pl.col("matchup") == f"{train.CANDIDATE},{spec}")
        assert cell.height == 2 * 3
        assert measured.by_opponent[opponent].ratio == pytest.approx(
            cell.select(score.mean()).item()
        )
    assert measured.style.ratio == pytest.approx((games["end_reason"] == "run").mean())
