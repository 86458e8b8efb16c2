"""Game seeds are not stored in the games parts but derived from the manifest: the derived
seeds are those the engine played (replayed here game by game), the derivation is
splitmix64 as published, and folders that still store seeds, or name another derivation,
are read from their column or refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from run_folders import splitmix64, store_seeds

import sim
from reports.summary import summarize
from sim.engine import game as eg
from sim.model.config import load
from sim.play.batch import play_matchup
from sim.players.specs import matchup
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store.folder import RunFolderError, open_run
from sim.store.seeds import SCHEME, cell_key, game_seeds, played_seeds


def test_game_seeds_are_the_splitmix64_stream_of_the_cell_key():
    key = cell_key(42, "random,random")
    assert game_seeds(key, 0, 6).tolist() == splitmix64(key, 6)
    assert game_seeds(key, 4, 6).tolist() == splitmix64(key, 6)[4:]
    wraps = 2**64 - 3  # the state wraps past 2**64 at once
    assert game_seeds(wraps, 0, 3).tolist() == splitmix64(wraps, 3)


def test_played_seeds_share_one_per_pair_when_swapping():
    key, stream = 9, splitmix64(9, 10)
    assert played_seeds(key, 4, 10, swap=True).tolist() == [stream[i // 2] for i in range(4, 10)]
    assert played_seeds(key, 4, 10, swap=False).tolist() == stream[4:10]


def _run(tmp_path: Path, name: str, players: str, swap: bool = True, seed: int = 3) -> Path:
    plan = make_plan(["base"], [players], 240, seed, swap, 100)
    return execute(plan, tmp_path / name, RunOptions(workers=1)).out


def _replayed(games: pl.DataFrame, players: str) -> np.ndarray:
    """The engine's result rows of every game played again from the row's seed and seats."""
    config = load("base")
    a, b = players.split(",")
    seeds = games["seed"].to_numpy()
    swapped = games["swapped"].to_numpy().astype(np.uint8)
    players = matchup(a, b)
    out, _ = play_matchup(
        config, players, seeds, swapped, players.cpu_level(config.rules.cpu_level)
    )
    return out


@pytest.mark.parametrize(
    ("players", "swap", "by_pair"),
    [
        ("random,random", True, True),
        ("greedy,random", False, False),
        ("random,cpu", True, False),  # the CPU always sits second: no pairs, a seed a game
    ],
)
def test_open_run_gives_the_seeds_the_engine_played(tmp_path, players, swap, by_pair):
    out = _run(tmp_path, "r", players, swap)
    assert "seed" not in pq.read_schema(next((out / "games").glob("*.parquet"))).names
    games = sim.open_run(out).games.collect().sort("game")
    assert games["seed"].dtype == pl.UInt64
    assert games.columns[games.columns.index("game") + 1] == "seed"
    stream = splitmix64(cell_key(3, players), 240)
    assert games["seed"].to_list() == [stream[g // 2 if by_pair else g] for g in range(240)]
    played = _replayed(games, players)
    assert (played[:, eg.R_TURNS] == games["turns"].to_numpy()).all()
    assert (played[:, eg.R_SCORE_FIRST] == games["score_first"].to_numpy()).all()
    assert (played[:, eg.R_SCORE_SECOND] == games["score_second"].to_numpy()).all()


def test_the_manifest_records_the_scheme_and_each_cells_key(tmp_path):
    out = _run(tmp_path, "r", "random,random")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seeds"] == SCHEME == "splitmix64/v1"
    assert [c["seed_key"] for c in manifest["cells"]] == [cell_key(3, "random,random")]


def _edit_manifest(folder: Path, change) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: m.update(seeds="splitmix64/v2"), "follow 'splitmix64/v2', this sim derives"),
        (lambda m: m.pop("seeds"), "names no seed scheme"),
        (lambda m: m["cells"][0].update(seed_key=5), "does not follow from master_seed 3"),
    ],
)
def test_a_derivation_this_sim_cannot_vouch_for_is_refused(tmp_path, change, says):
    out = _run(tmp_path, "r", "random,random")
    _edit_manifest(out, change)
    run = open_run(out)
    with pytest.raises(RunFolderError, match=says):
        run.seeded()
    assert summarize(run)[0].games == 240  # what needs no seed still reads


def test_parts_that_store_seeds_are_read_from_their_column(tmp_path):
    """An older sim's folder: its parts hold the seeds, which readers take as they are."""
    out = _run(tmp_path, "new", "random,random")
    old = tmp_path / "old"
    shutil.copytree(out, old)
    store_seeds(old, lambda f: f["game"].cast(pl.UInt64) * 1000)
    _edit_manifest(old, lambda m: m.pop("seeds"))
    games = sim.open_run(old).games.collect().sort("game")
    assert games["seed"].to_list() == [1000 * g for g in range(240)]
