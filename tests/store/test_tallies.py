"""The workers' tallies (sim/store/tallies.py, quantities.py): every quantity's moments
equal those of the games table, defined here again from docs/statistics.md as polars
expressions and summed by reports.tally's group-by, on runs of seat-swapped pairs, of
single games and of the solo CPU; a chunk without a tallies part is counted from its games
part; games that are not whole pairs are refused."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from frame_tallies import tallies
from hand_runs import write_run

from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.folder import RunFolderError, open_run

FIELDS = ("units", "y", "z", "yy", "zz", "yz")


def expected_quantities(lines: list[int]) -> dict:
    """Each quantity as (y, z) over the games table, from the figures' definitions."""
    winner, outcome = pl.col("winner"), pl.col("outcome")
    tie, draw = outcome == "tiebreak", winner == "draw"
    a_won = pl.when(pl.col("swapped")).then(winner == "second").otherwise(winner == "first")
    turns = pl.col("turns").cast(pl.Float64)
    decided = pl.col("decided_turn").is_not_null()
    half = pl.col("half_leader")
    q = {
        "games": (pl.col("game").is_not_null(), None),
        "pairless": (pl.col("pair").is_null(), None),
        "win:first seat": (winner == "first", None),
        "win:second seat": (winner == "second", None),
        "win:draw": (draw, None),
        "seat:first score": ((winner == "first").cast(float) + 0.5 * draw.cast(float), None),
        "win:A score": (a_won.cast(float) + 0.5 * draw.cast(float), None),
        "turns": (turns, None),
        "turns_sq": (turns * turns, None),
        "arc:lead_changes": (pl.col("lead_changes").cast(pl.Float64), None),
        "arc:half_wins": (half.is_not_null() & (half == winner), half.is_not_null()),
        "arc:half_leader_won": (half == winner, None),
    }
    for v in ("points", "tiebreak", "draw"):
        q[f"outcome:{v}"] = (outcome == v, None)
    for v in ("run", "deck_out", "stalled", "cpu_out"):
        q[f"end:{v}"] = (pl.col("end_reason") == v, None)
    for v in lines:
        on_line = tie & (pl.col("tiebreak_line") == v)
        q[f"decided:{v}"] = (on_line, tie)
        q[f"first_won:{v}"] = (on_line & (winner == "first"), on_line)
        held = pl.col(f"line_{v}")
        q[f"line:{v}:first"] = (held == "first", None)
        q[f"line:{v}:second"] = (held == "second", None)
        q[f"line:{v}:nobody"] = (held.is_null(), None)
    for points in (10, 20):
        q[f"arc:comeback:{points}"] = (decided & (pl.col("max_deficit") >= points), decided)
        q[f"arc:from_behind:{points}"] = (pl.col("max_deficit") >= points, None)
    share = pl.col("decided_turn") / pl.col("turns")
    for step in range(51):  # at or below step / 50, exactly: 50 * decided <= step * turns
        at = 50 * pl.col("decided_turn").cast(pl.Int64) <= step * pl.col("turns").cast(pl.Int64)
        q[f"arc:cdf:{step}"] = (decided & at & share.is_not_nan(), decided)
    return q


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    """Pairs of base and variants (greedy against random, 3 chunks a cell), and single
    games of 101 against the solo CPU (its tie-breaks have no deciding line)."""
    out = tmp_path_factory.mktemp("tallies")
    pairs = make_plan(["base", "variants"], ["greedy,random"], 600, 11, True, 200)
    execute(pairs, out / "pairs", RunOptions(workers=2))
    solo = make_plan(["101"], ["random,cpu"], 600, 12, False, 300)
    execute(solo, out / "solo", RunOptions(workers=1))
    return out


def check_against_games(folder: Path) -> int:
    """Assert every quantity of every cell against the games table; the cells checked."""
    run = open_run(folder)
    games = run.scan().collect().with_columns(pl.col(pl.Categorical).cast(pl.String))
    for (config, matchup), counted in run.tallies.items():
        cell = games.filter((pl.col("config") == config) & (pl.col("matchup") == matchup))
        q = expected_quantities(run.lines(config))
        want = tallies(cell, [], q).row(0, named=True)
        for name in q:
            got = counted.moments[name]
            assert got == pytest.approx([want[f"{name}:{f}"] for f in FIELDS], rel=1e-12), (
                config,
                matchup,
                name,
            )
        assert counted.unit == ("game" if cell["pair"].null_count() else "pair")
    return len(run.tallies)


def test_every_quantity_of_pairs_equals_the_games_tables(mixed):
    assert check_against_games(mixed / "pairs") == 2


def test_every_quantity_of_single_games_and_the_cpu_equals_the_games_tables(mixed):
    assert check_against_games(mixed / "solo") == 1
    counted = open_run(mixed / "solo").tallies[("101", "random,cpu")]
    assert counted.moments["outcome:tiebreak"][1] > 0  # CPU tie-breaks, no deciding line
    assert counted.moments["end:cpu_out"][1] > 0


def test_a_chunk_without_a_tallies_part_is_counted_from_its_games(mixed, tmp_path):
    """A run resumed across the table's arrival: its earlier chunks have no tallies part."""
    out = tmp_path / "run"
    shutil.copytree(mixed / "pairs", out)
    whole = {cell: t.moments for cell, t in open_run(out).tallies.items()}
    manifest = json.loads((out / "manifest.json").read_text())
    for name in list(manifest["chunks"])[::2]:  # every other chunk, as if played before
        manifest["chunks"][name]["parts"].pop("tallies")
        (out / "tallies" / f"part-{name}.parquet").unlink()
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert {cell: t.moments for cell, t in open_run(out).tallies.items()} == whole


@pytest.mark.parametrize("layout", ["strings", "shuffled"])
def test_a_hand_made_part_of_any_layout_is_counted_as_the_runners(mixed, tmp_path, layout):
    """Games written by hand, as one part holding both cells in no order, text as plain
    strings or shuffled categoricals: counted from the games part as the workers count."""
    frame = pl.read_parquet(sorted((mixed / "pairs" / "games").glob("*.parquet")))
    if layout == "strings":
        frame = frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))
    frame = frame.sample(fraction=1.0, shuffle=True, seed=3)
    write_run(tmp_path / "run", frame)
    by_hand = open_run(tmp_path / "run").tallies
    assert {cell: t.moments for cell, t in by_hand.items()} == {
        cell: t.moments for cell, t in open_run(mixed / "pairs").tallies.items()
    }


def test_games_that_are_not_whole_pairs_are_refused(mixed, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(mixed / "pairs", out)
    shutil.rmtree(out / "tallies")
    manifest = json.loads((out / "manifest.json").read_text())
    for entry in manifest["chunks"].values():
        entry["parts"].pop("tallies")
    (out / "manifest.json").write_text(json.dumps(manifest))
    first = sorted((out / "games").glob("*.parquet"))[0]
    pl.read_parquet(first).slice(1).write_parquet(first)  # one game of the first pair gone
    manifest["chunks"][first.stem.removeprefix("part-")]["parts"]["games"] |= {
        "bytes": first.stat().st_size,
        "sha256": hashlib.sha256(first.read_bytes()).hexdigest(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunFolderError, match="are not whole pairs"):
        _ = open_run(out).tallies
