"""`sim compare`: p-values and intervals against scipy, pairing, Holm, outputs and exit codes."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli_failures import assert_clean_failure
from run_folders import record_edited_parts
from scipy import stats as sps
from typer.testing import CliRunner

from reports.compare import compare_runs
from sim.cli import app
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.folder import open_run

WIDE = {"COLUMNS": "250"}
N = 200


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env=WIDE)


def games(
    first_won: np.ndarray,
    turns: np.ndarray,
    run_end: np.ndarray,
    seed0: int = 0,
    config: str = "base",
    matchup: str = "random,random",
) -> pl.DataFrame:
    """A games table: the first seat wins where first_won, else the second; no draws."""
    n = len(first_won)
    a, b = matchup.split(",")
    swapped = np.arange(n) % 2 == 1
    return pl.DataFrame(
        {
            "config": [config] * n,
            "config_hash": ["h-" + config] * n,
            "matchup": [matchup] * n,
            "first": np.where(swapped, b, a),
            "second": np.where(swapped, a, b),
            "swapped": swapped,
            "game": np.arange(n, dtype=np.uint32),
            "seed": np.arange(seed0, seed0 + n, dtype=np.uint64),
            "winner": np.where(first_won, "first", "second"),
            "outcome": ["points"] * n,
            "tiebreak_line": pl.Series([None] * n, dtype=pl.UInt8),
            "end_reason": np.where(run_end, "run", "deck_out"),
            "turns": pl.Series(turns, dtype=pl.UInt16),
            **{f"line_{v}": np.where(first_won, "first", "second") for v in (10, 20, 30, 40, 50)},
        }
    )


def write_run(folder: Path, *frames: pl.DataFrame) -> Path:
    (folder / "games").mkdir(parents=True)
    for i, frame in enumerate(frames):
        frame.write_parquet(folder / "games" / f"part-{i}.parquet")
    (folder / "manifest.json").write_text(json.dumps({"status": "complete"}))
    return folder


def rows_by_metric(comparison) -> dict:
    return {row.metric: row for row in comparison.rows}


g = np.arange(N)
A_FIRST = g < 100  # first seat wins 100 of 200
B_FIRST = g < 130  # ... and 130 of 200
A_TURNS = 20 + g % 5
B_TURNS = 21 + g % 7


# --- unpaired: independent samples --------------------------------------------------------


@pytest.fixture
def unpaired(tmp_path):
    a = write_run(tmp_path / "a", games(A_FIRST, A_TURNS, g < 30))
    b = write_run(tmp_path / "b", games(B_FIRST, B_TURNS, g < 60, seed0=1000))
    return compare_runs(open_run(a), open_run(b))


def test_unpaired_rate_matches_the_chi_square_test_and_newcombe_interval(unpaired):
    (cell,) = unpaired.cells
    assert not cell.paired and "different seeds" in cell.pairing
    row = rows_by_metric(unpaired)["first-seat win rate"]
    assert row.test == "two-proportion test" and not row.diff.paired
    # the pooled two-proportion z-test is the uncorrected chi-square test of the 2x2 table
    chi2 = sps.chi2_contingency([[100, 100], [130, 70]], correction=False)
    assert row.diff.p_value == pytest.approx(chi2.pvalue, rel=1e-9)
    assert row.diff.estimate == pytest.approx(0.15)
    ci_a = sps.binomtest(100, 200).proportion_ci(method="wilson")
    ci_b = sps.binomtest(130, 200).proportion_ci(method="wilson")
    assert (row.a.low, row.a.high) == pytest.approx((ci_a.low, ci_a.high))
    low = 0.15 - math.hypot(0.65 - ci_b.low, ci_a.high - 0.5)  # Newcombe's method 10
    high = 0.15 + math.hypot(ci_b.high - 0.65, 0.5 - ci_a.low)
    assert (row.diff.low, row.diff.high) == pytest.approx((low, high))


def test_unpaired_mean_turns_is_welch(unpaired):
    row = rows_by_metric(unpaired)["mean turns"]
    assert row.test == "Welch t-test"
    expected = sps.ttest_ind(B_TURNS, A_TURNS, equal_var=False)
    assert row.diff.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    va, vb = A_TURNS.var(ddof=1) / N, B_TURNS.var(ddof=1) / N
    df = (va + vb) ** 2 / (va**2 / (N - 1) + vb**2 / (N - 1))  # Welch-Satterthwaite
    half = sps.t.ppf(0.975, df) * math.sqrt(va + vb)
    d = B_TURNS.mean() - A_TURNS.mean()
    assert (row.diff.low, row.diff.high) == pytest.approx((d - half, d + half))


def holm_by_hand(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def test_holm_within_the_primary_and_the_secondary_family_apart(unpaired):
    primary, secondary = unpaired.family("primary"), unpaired.family("secondary")
    assert [r.metric for r in primary] == ["first-seat win rate", "A (random) score"]
    for rows in (primary, secondary):
        adjusted = holm_by_hand([r.diff.p_value for r in rows])
        assert [r.holm_p for r in rows] == pytest.approx(adjusted)
        assert [r.significant for r in rows] == [q <= 0.05 for q in adjusted]
    assert unpaired.changes == sum(r.significant for r in primary) > 0
    names = [r.metric for r in unpaired.rows]
    assert "draw rate" in names and "end: run" in names and "end: stalled" not in names
    assert [n for n in names if n.startswith("line")] == [
        f"line {v} controlled by first seat" for v in (10, 20, 30, 40, 50)
    ]
    (complement,) = unpaired.family("complement")  # two end reasons: one is the other's mirror
    assert complement.metric == "end: deck_out" and math.isnan(complement.holm_p)
    assert "not tested" in complement.verdict


def test_paired_when_seeds_and_seats_match(tmp_path):
    b_first = A_FIRST & (g % 10 != 0)  # ten first-seat wins become losses
    b_turns = A_TURNS + g % 3
    a = write_run(tmp_path / "a", games(A_FIRST, A_TURNS, g < 30))
    # B's parts are split and in another order: pairing is on (matchup, game, seed)
    frame = games(b_first, b_turns, g < 30)
    b = write_run(tmp_path / "b", frame.slice(100), frame.slice(0, 100))
    result = compare_runs(open_run(a), open_run(b))
    (cell,) = result.cells
    assert cell.paired and cell.pairing.startswith("paired on 200 games")
    rows = rows_by_metric(result)
    win = rows["first-seat win rate"]
    expected = sps.ttest_rel(b_first.astype(float), A_FIRST.astype(float))
    assert win.test == "paired t-test" and win.diff.paired
    assert win.diff.estimate == pytest.approx(-0.05)
    assert win.diff.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    ci = expected.confidence_interval()
    assert (win.diff.low, win.diff.high) == pytest.approx((ci.low, ci.high))
    turns = rows["mean turns"]
    assert turns.diff.p_value == pytest.approx(sps.ttest_rel(b_turns, A_TURNS).pvalue, rel=1e-9)
    assert rows["end: run"].diff.p_value == 1.0  # identical in every game


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda f: f.with_columns(pl.col("seed") + 1), "different seeds"),
        (lambda f: f.slice(0, N - 2), "200 vs 198 games"),
        (
            lambda f: f.with_columns(
                ~pl.col("swapped"), first=pl.col("second"), second=pl.col("first")
            ),
            "different seats",
        ),
    ],
)
def test_unpaired_when_seeds_counts_or_seats_differ(tmp_path, change, why):
    frame = games(A_FIRST, A_TURNS, g < 30)
    a = write_run(tmp_path / "a", frame)
    b = write_run(tmp_path / "b", change(frame))
    (cell,) = compare_runs(open_run(a), open_run(b)).cells
    assert not cell.paired and why in cell.pairing
    assert all(not row.diff.paired for row in cell.rows)


# --- which cells are compared ---------------------------------------------------------------


def test_one_config_each_is_compared_whatever_the_names(tmp_path):
    a = write_run(tmp_path / "a", games(A_FIRST, A_TURNS, g < 30, config="base"))
    b = write_run(tmp_path / "b", games(B_FIRST, B_TURNS, g < 30, config="base-60"))
    (cell,) = compare_runs(open_run(a), open_run(b)).cells
    assert (cell.config_a, cell.config_b, cell.configs) == ("base", "base-60", "base → base-60")


def test_several_configs_compare_only_the_same_config_and_matchup(tmp_path):
    def frame(config):
        return games(A_FIRST, A_TURNS, g < 30, config=config)

    a = write_run(tmp_path / "a", frame("base"), frame("101"))
    b = write_run(tmp_path / "b", frame("variants"), frame("base"))
    result = compare_runs(open_run(a), open_run(b))
    assert [(c.config_a, c.config_b) for c in result.cells] == [("base", "base")]
    assert "only in A: 101 · random,random" in result.notes
    assert "only in B: variants · random,random" in result.notes


def test_nothing_in_common_is_an_error(tmp_path):
    a = write_run(tmp_path / "a", games(A_FIRST, A_TURNS, g < 30))
    b = write_run(tmp_path / "b", games(A_FIRST, A_TURNS, g < 30, matchup="greedy,random"))
    line = assert_clean_failure(invoke("compare", str(a), str(b)))
    assert "no config and match-up in common" in line


# --- real runs through the command line -------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    cap1 = root / "cap1.toml"
    cap1.write_text('description = "RUN capacity 1"\nextends = "base"\n[rules]\nrun_capacity = 1\n')
    out = {"cap1_config": cap1}
    runs = (
        ("same1", "base", 11),
        ("same2", "base", 11),
        ("cap1", str(cap1), 12),  # another master seed: no game in common, so unpaired
        ("cap1_same_seeds", str(cap1), 11),  # seeds do not depend on the config: paired
    )
    for name, config, seed in runs:
        plan = make_plan([config], ["random,random"], 2000, seed, True, 1000)
        out[name] = execute(plan, root / name, RunOptions(workers=1)).out
    for name, swap, chunk in (("no_swap", False, 1000), ("chunks_of_500", True, 500)):
        plan = make_plan(["base"], ["random,random"], 2000, 11, swap, chunk)
        out[name] = execute(plan, root / name, RunOptions(workers=1)).out
    flipped = root / "flipped"  # same1 with every tenth first-seat win turned into a loss
    shutil.copytree(out["same1"], flipped)
    for part in (flipped / "games").glob("*.parquet"):
        frame = pl.read_parquet(part)
        lose = (pl.col("game") % 10 == 0) & (pl.col("winner") == "first")
        frame = frame.with_columns(
            pl.when(lose)
            .then(pl.lit("second"))
            .otherwise(pl.col("winner"))
            .cast(frame["winner"].dtype)
            .alias("winner")
        )
        frame.write_parquet(part)
    record_edited_parts(flipped)
    out["flipped"] = flipped
    return out


def read_games(folder: Path) -> pl.DataFrame:
    frame = pl.read_parquet(folder / "games" / "*.parquet")
    return frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String)).sort("game")


def json_rows(result) -> dict:
    assert result.stdout.lstrip().startswith("{"), result.output
    data = json.loads(result.stdout)
    return data, {row["metric"]: row for cell in data["cells"] for row in cell["rows"]}


def test_identical_runs_show_no_change_and_pass_fail_on_change(runs):
    result = invoke("compare", str(runs["same1"]), str(runs["same2"]), "--fail-on-change")
    assert result.exit_code == 0, result.output
    assert "paired on 1,000 pairs (2,000 games" in result.output
    assert "no detectable change in any of" in result.output
    assert "higher in B" not in result.output and "lower in B" not in result.output
    data, rows = json_rows(invoke("compare", str(runs["same1"]), str(runs["same2"]), "--json"))
    assert data["significant_changes"] == 0
    tested = [r for r in rows.values() if r["family"] != "complement"]
    assert all(r["p_value"] == 1.0 and r["paired"] for r in tested)


def test_a_changed_first_seat_rate_fails(runs):
    args = ("compare", str(runs["same1"]), str(runs["flipped"]))
    result = invoke(*args, "--fail-on-change")
    assert result.exit_code == 3, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "lower in B" in result.output and "of 2 primary rows changed" in result.output
    assert invoke(*args).exit_code == 0  # without the flag a change is not a failure


def test_secondary_changes_never_fail_the_gate(runs):
    result = invoke("compare", str(runs["same1"]), str(runs["cap1"]), "--fail-on-change")
    assert result.exit_code == 0, result.output  # end reasons move, the seat and score do not
    assert "unpaired" in result.output and "higher in B" in result.output
    assert "no detectable change in any of 2 primary rows" in result.output


def pair_counts(games: pl.DataFrame, event: pl.Expr) -> np.ndarray:
    """Per seat-swapped pair (games 2i, 2i+1), how many of its two games have the event."""
    per = games.group_by(pl.col("game") // 2).agg(event.sum().alias("s")).sort("game")
    return per["s"].to_numpy().astype(float)


def pair_means(games: pl.DataFrame, value: pl.Expr) -> np.ndarray:
    per = games.group_by(pl.col("game") // 2).agg(value.mean().alias("m")).sort("game")
    return per["m"].to_numpy().astype(float)


def effective_rate(s: np.ndarray) -> tuple[float, float]:
    """The rate and its effective size p(1-p) / var, var clustered by pair (by hand)."""
    n = 2 * s.size
    p = s.sum() / n
    return p, p * (1 - p) / (((s - 2 * p) ** 2).sum() / n**2)


def test_json_p_values_are_pair_level(runs):
    data, rows = json_rows(invoke("compare", str(runs["same1"]), str(runs["cap1"]), "--json"))
    a, b = read_games(runs["same1"]), read_games(runs["cap1"])
    assert data["significant_changes"] == 0 and not data["cells"][0]["paired"]
    for metric, column, value in (
        ("end: run", "end_reason", "run"),
        ("first-seat win rate", "winner", "first"),
        ("tie-break rate", "outcome", "tiebreak"),
    ):
        (p_a, n_a), (p_b, n_b) = (
            effective_rate(pair_counts(f, pl.col(column) == value)) for f in (a, b)
        )
        pooled = (p_a * n_a + p_b * n_b) / (n_a + n_b)
        z = (p_b - p_a) / math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
        assert rows[metric]["p_value"] == pytest.approx(2 * sps.norm.sf(abs(z)), rel=1e-6), metric
        assert rows[metric]["a"]["n"] == 1000 and rows[metric]["a"]["unit"] == "pair"
    assert rows["end: run"]["significant"] and rows["end: run"]["verdict"] == "higher in B"
    turns = [pair_means(f, pl.col("turns").cast(pl.Float64)) for f in (b, a)]
    welch = sps.ttest_ind(*turns, equal_var=False)  # Welch over the pairs' means
    assert rows["mean turns"]["p_value"] == pytest.approx(welch.pvalue, rel=1e-6)
    assert rows["mean turns"]["test"] == "Welch t-test"


def test_different_configs_with_one_master_seed_are_compared_pairwise(runs):
    data, rows = json_rows(
        invoke("compare", str(runs["same1"]), str(runs["cap1_same_seeds"]), "--json")
    )
    assert data["cells"][0]["paired"]
    a, b = read_games(runs["same1"]), read_games(runs["cap1_same_seeds"])
    run_end = (pl.col("end_reason") == "run").cast(pl.Float64)
    expected = sps.ttest_rel(pair_means(b, run_end), pair_means(a, run_end)).pvalue
    assert rows["end: run"]["p_value"] == pytest.approx(expected, rel=1e-6)


def test_paired_real_runs_match_scipy_on_pair_means(runs):
    data, rows = json_rows(invoke("compare", str(runs["same1"]), str(runs["flipped"]), "--json"))
    assert data["cells"][0]["paired"]
    a, b = read_games(runs["same1"]), read_games(runs["flipped"])
    first = (pl.col("winner") == "first").cast(pl.Float64)
    expected = sps.ttest_rel(pair_means(b, first), pair_means(a, first)).pvalue
    row = rows["first-seat win rate"]
    assert row["test"] == "paired t-test"
    assert row["p_value"] == pytest.approx(expected, rel=1e-6)
    assert row["significant"]  # about 5 points down, game by game
    assert rows["mean turns"]["p_value"] == 1.0


@pytest.mark.parametrize(
    ("b", "paired", "says"),
    [
        ("same2", True, "paired on 1,000 pairs"),  # one master seed: the same derivation
        ("cap1", False, "unpaired: the runs played different seeds"),  # another seed key
        ("no_swap", False, "unpaired: the runs played different seeds"),  # a seed a game
        ("chunks_of_500", True, "paired on 1,000 pairs"),  # parts not lined up: read whole
    ],
)
def test_derived_seeds_pair_on_the_master_seed_and_indexing(runs, b, paired, says):
    """Parts hold no seeds: two runs share them when their cells' seed keys (master seed
    and match-up) and their pair/game indexing agree."""
    (cell,) = compare_runs(open_run(runs["same1"]), open_run(runs[b])).cells
    assert cell.paired == paired and cell.pairing.startswith(says), cell.pairing


@pytest.mark.parametrize(("offset", "paired"), [(0, True), (1, False)])
def test_a_run_that_stores_its_seeds_pairs_with_one_that_derives_them(
    runs, tmp_path, offset, paired
):
    """An older sim's folder, its seeds in its parts: paired with a new run when the stored
    seeds are the derived ones, game by game."""
    from run_folders import store_seeds

    old = tmp_path / "old"
    shutil.copytree(runs["same1"], old)
    derived = open_run(runs["same1"]).seeded().select("game", "seed").collect()
    by_game = dict(derived.iter_rows())
    store_seeds(old, lambda f: pl.Series([by_game[g] + offset for g in f["game"]], dtype=pl.UInt64))
    (cell,) = compare_runs(open_run(old), open_run(runs["same2"])).cells
    assert cell.paired == paired
    assert cell.pairing.startswith("paired on 1,000" if paired else "unpaired: the runs played")


def test_markdown_is_one_table_row_per_metric(runs):
    result = invoke("compare", str(runs["same1"]), str(runs["cap1"]), "--markdown")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| config"))
    body = [line for line in lines[header + 2 :] if line.startswith("|")]
    _, rows = json_rows(invoke("compare", str(runs["same1"]), str(runs["cap1"]), "--json"))
    assert len(body) == len(rows)
    assert all(line.count("|") == 11 for line in body)
    assert any("**higher in B**" in line and "end: run" in line for line in body)
    assert any("no detectable change" in line for line in body)


def test_compare_configs_plays_both_then_compares(runs, tmp_path):
    args = ("compare", "--config", "base", "--config", str(runs["cap1_config"]))
    args += ("--games", "2000", "--seed", "11", "--workers", "1")
    result = invoke(*args, "--out", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "a-base" / "manifest.json").exists()
    assert (tmp_path / "b-cap1" / "manifest.json").exists()
    played, _ = json_rows(result)
    stored, _ = json_rows(
        invoke("compare", str(runs["same1"]), str(runs["cap1_same_seeds"]), "--json")
    )
    assert played["cells"] == stored["cells"]  # the same seeded games as the fixture's runs
    again = invoke(*args, "--out", str(tmp_path), "--fail-on-change")
    assert again.exit_code == 3, again.output  # paired, A's score moves 1.6 points


def test_compare_configs_in_a_temporary_folder_cleans_up():
    result = invoke("compare", "--config", "base", "--config", "base", "--games", "200",
                    "--workers", "1", "--fail-on-change")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "paired on 100 pairs (200 games" in result.output
    folders = re.findall(r"games into (\S+)", result.stderr)
    assert len(folders) == 2 and not any(Path(f).exists() for f in folders)


# --- mistakes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("compare", "RUN", "{tmp}/nope"), "no such folder"),
        (("compare", "RUN", "{tmp}"), "not a run folder"),
        (("compare", "RUN"), "give two run folders"),
        (("compare",), "give two run folders"),
        (("compare", "RUN", "RUN", "--games", "5"), "--games"),
        (("compare", "RUN", "RUN", "--seed", "0"), "--seed"),
        (("compare", "RUN", "RUN", "--players", "random,random"), "--players"),
        (("compare", "RUN", "RUN", "--json", "--markdown"), "--json and --markdown"),
        (("compare", "--config", "base"), "exactly twice"),
        (("compare", "--config", "base", "--config", "nope"), "nope"),
        (("compare", "--config", "base", "--config", "base", "--games", "0"), "--games"),
        (("compare", "RUN", "RUN", "--config", "base", "--config", "base"), "not both"),
    ],
)
def test_mistakes_give_one_error_line(runs, tmp_path, args, says):
    args = [a.replace("RUN", str(runs["same1"])).replace("{tmp}", str(tmp_path)) for a in args]
    line = assert_clean_failure(invoke(*args))
    assert says in line


def test_help():
    result = invoke("compare", "--help")
    assert result.exit_code == 0
    for text in ("--config", "--json", "--markdown", "--fail-on-change", "--out"):
        assert text in result.output
