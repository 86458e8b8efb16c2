"""`sim card-impact` as a run (#34): both decks played through the runner into one folder
whose cells share their seeds pair by pair, the result independent of workers and of an
interruption, and the card's flag under the board of `sim summary` / `sim report`."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli_failures import assert_clean_failure, assert_exit_1
from typer.testing import CliRunner

from reports.card_impact import (
    card_impact,
    folder_impacts,
    impact_plan,
    measured,
    measured_all,
    note_swap,
    swap_card,
)
from reports.sprt import pair_seeds
from sim.cli import app
from sim.model.config import load
from sim.players.specs import matchup
from sim.runner.run import RunOptions, execute
from sim.store.folder import RunFolderError, open_run
from sim.store.impact import NOTE, write_note

RANDOMS = matchup("random", "random")
SWAPPED = "base (SAVE -> BLANK)"


def cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def small(games: int = 1200, seed: int = 5):
    """The plan of SAVE -> BLANK on base, parts of 200 games (several chunks per deck)."""
    base = load("base")
    swap = swap_card(base, "SAVE")
    return impact_plan(base, swap, RANDOMS, games, seed, chunk_size=200), swap


def the_impact(out: Path):
    """The one comparison a card-impact folder holds."""
    ((_, impact),), _ = folder_impacts(open_run(out))
    return impact


# The run: seeds, workers, interruption


def test_both_decks_play_the_same_seed_pair_by_pair(tmp_path) -> None:
    """Game 2i and 2i+1 of both cells are pair i, on the seed pair_seeds gives pair i:
    the cell's seeds follow from the master seed and match-up, never from the config."""
    plan, _ = small(games=400)
    execute(plan, tmp_path / "r", RunOptions(workers=1))
    games = open_run(tmp_path / "r").games.sort("config", "game")
    expected = np.repeat(pair_seeds(5, RANDOMS, 0, 200), 2)
    for config in ("base", SWAPPED):
        cell = games.filter(pl.col("config") == config)
        assert cell["game"].to_list() == list(range(400))
        assert (cell["seed"].to_numpy() == expected).all()
        assert cell["swapped"].to_list() == [False, True] * 200


def test_the_comparison_is_the_same_on_one_or_two_workers(tmp_path) -> None:
    plan, swap = small()
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        execute(plan, out, RunOptions(workers=workers))
        note_swap(out, plan, [("base", swap)], 5.0)
        runs[workers] = the_impact(out)
    assert runs[1].measures == runs[2].measures and runs[1].pairs == 600


def test_an_interrupted_comparison_continues_to_the_same_result(tmp_path) -> None:
    plan, swap = small()
    whole = card_impact(plan.configs[0], swap, RANDOMS, 1200, 5, tmp_path / "whole")

    def stop(done: int, total: int) -> None:
        if 0 < done < total:
            raise KeyboardInterrupt

    out = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        execute(plan, out, RunOptions(workers=1), progress=stop)
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    result = execute(plan, out, RunOptions(workers=1))
    assert 0 < result.skipped < 2400 and result.played + result.skipped == 2400
    note_swap(out, plan, [("base", swap)], 5.0)
    assert the_impact(out).measures == whole.measures


# The comparison read from a folder of games built by hand


@dataclass(frozen=True)
class HandFolder:
    """What folder_impact reads of a RunFolder: its path, manifest and seeded games."""

    path: Path
    manifest: dict
    frame: pl.DataFrame

    def seeded(self) -> pl.LazyFrame:
        return self.frame.lazy()


def hand_folder(path: Path, blocks: int, dominant_pts: float) -> HandFolder:
    """Four pairs, repeated blocks times. Winners per game (A first, then A second):
    original: first first | first second | second first | first first: the first seat's
    rate per pair 1, 1/2, 1/2, 1; swapped: second second | first second | second second |
    first second: 0, 1/2, 0, 1/2. Swapped minus original per pair: -1, 0, -1/2, -1/2, mean
    -1/2: SAVE adds +50 points to the first seat. Turns 20 on the original deck, 22 on the
    swapped one."""
    original = ["first", "first", "first", "second", "second", "first", "first", "first"]
    swapped = ["second", "second", "first", "second", "second", "second", "first", "second"]
    n = 8 * blocks
    rows = []
    for config, winners, turns in (("base", original, 20), (SWAPPED, swapped, 22)):
        rows.append(
            pl.DataFrame(
                {
                    "config": [config] * n,
                    "matchup": ["random,random"] * n,
                    "game": list(range(n)),
                    "seed": [g // 2 for g in range(n)],
                    "swapped": [g % 2 == 1 for g in range(n)],
                    "winner": winners * blocks,
                    "turns": [turns] * n,
                }
            )
        )
    cells = [{"config": c, "matchup": "random,random"} for c in ("base", SWAPPED)]
    manifest = {"run_id": "hand", "cells": cells}
    cell = {"original": "base", "swapped": SWAPPED, "matchup": "random,random", "copies": 2}
    note = {
        "run_id": "hand", "original_run": None, "card": "SAVE", "replacement": "BLANK",
        "dominant_pts": dominant_pts, "cells": [cell],
    }  # fmt: skip
    write_note(path, note)
    return HandFolder(path, manifest, pl.concat(rows))


def test_paired_differences_of_a_hand_built_folder(tmp_path) -> None:
    ((cell, impact),), note = folder_impacts(hand_folder(tmp_path, 10, 5.0))
    assert impact.pairs == 40 and note["card"] == "SAVE" and cell["copies"] == 2
    by_name = {m.name: m for m in impact.measures}
    first = by_name["first seat wins"]
    assert first.original == pytest.approx(0.75) and first.swapped == pytest.approx(0.25)
    assert first.change.estimate == pytest.approx(-0.5)
    assert by_name["mean turns"].change.estimate == pytest.approx(2.0)


def test_a_dominant_card_is_flagged_under_the_board(tmp_path) -> None:
    """+50 points with a standard error near 0.057 (the differences' variance 5/39 over
    40 pairs): the interval lies far beyond ±5; random,random is one strategy, so only
    the first seat's rate is judged."""
    found = measured(hand_folder(tmp_path, 10, 5.0))
    ((_, _, flags),) = found.cells
    assert len(flags) == 1
    (line,) = found.lines()
    assert line.startswith("dominant: base · SAVE moves the first seat's win rate by +50.0")
    assert "beyond ±5.0 pts; against BLANK in its place" in line
    assert found.to_json()["cells"][0]["dominant"][0]["measure"] == "first seat wins"


def test_a_card_within_the_threshold_is_said_measured_not_dominant(tmp_path) -> None:
    found = measured(hand_folder(tmp_path, 10, 70.0))  # +50 lies within ±70
    assert found.cells[0][2] == ()
    assert found.lines() == [
        "measured: base · SAVE (BLANK in its place, 40 pairs): not dominant (±70.0 pts)"
    ]


def test_a_note_naming_a_cell_the_run_lacks_is_refused(tmp_path) -> None:
    folder = hand_folder(tmp_path, 1, 5.0)
    note = json.loads((tmp_path / NOTE).read_text())
    note["cells"][0]["swapped"] = "base (GET -> BLANK)"
    (tmp_path / NOTE).write_text(json.dumps(note))
    with pytest.raises(RunFolderError, match="swapped: the run holds no cell base .GET"):
        folder_impacts(folder)


# The commands


@pytest.fixture(scope="module")
def impact_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("impact") / "r"
    args = ["--card", "SAVE", "--games", "400", "--seed", "5", "--workers", "1"]
    result = cli("card-impact", *args, "--out", str(out), "--dominant", "7.5")
    assert result.exit_code == 0, result.output
    return out


def test_summary_of_a_card_impact_folder_shows_what_was_measured(impact_run) -> None:
    text = cli("summary", str(impact_run)).stdout
    lines = [line for line in text.splitlines() if line.startswith(("measured:", "dominant:"))]
    assert len(lines) == 1 and "base · SAVE" in lines[0] and "±7.5 pts" in lines[0]
    shape = json.loads(cli("summary", str(impact_run), "--json").stdout)
    (found,) = shape["card_impact"]
    assert found["card"] == "SAVE" and found["cells"][0]["pairs"] == 200
    assert found["dominant_pts"] == 7.5


def test_report_of_a_card_impact_folder_shows_it(impact_run, tmp_path) -> None:
    page = tmp_path / "r.html"
    result = cli("report", str(impact_run), "--out", str(page))
    assert result.exit_code == 0, result.output
    assert "base · SAVE (BLANK in its place, 200 pairs)" in page.read_text()


def test_a_folder_without_impact_results_shows_nothing_new(tmp_path) -> None:
    plan, _ = small(games=200)
    execute(plan, tmp_path / "r", RunOptions(workers=1))  # the run, but no swap note
    text = cli("summary", str(tmp_path / "r")).stdout
    assert "measured:" not in text and "dominant:" not in text
    shape = json.loads(cli("summary", str(tmp_path / "r"), "--json").stdout)
    assert "card_impact" not in shape
    assert (
        measured(open_run(tmp_path / "r")) is None and measured_all(open_run(tmp_path / "r")) == []
    )


def test_a_damaged_swap_note_is_one_clear_failure(impact_run, tmp_path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(impact_run, copy)
    note = json.loads((copy / NOTE).read_text())
    cells = [note["cells"][0] | {"copies": "two"}]
    (copy / NOTE).write_text(json.dumps(note | {"cells": cells}))
    line = assert_exit_1(cli("summary", str(copy)))
    assert f"{copy / NOTE}: cells[0].copies: expected int, got 'two'" in line
    (copy / NOTE).write_text(json.dumps(note | {"run_id": "0123456789ab"}))
    line = assert_exit_1(cli("summary", str(copy), "--json"))
    assert "run_id 0123456789ab is not the folder's run" in line
    (copy / NOTE).write_text("{")
    assert "is corrupt" in assert_exit_1(cli("report", str(copy), "--out", str(tmp_path / "x")))


def test_a_folder_of_another_card_is_refused(impact_run) -> None:
    args = ["--card", "PRINT", "--games", "400", "--seed", "5", "--workers", "1"]
    line = assert_exit_1(cli("card-impact", *args, "--out", str(impact_run)))
    assert f"{impact_run} holds a different run" in line


def test_a_bad_backend_is_a_usage_error(tmp_path) -> None:
    result = cli("card-impact", "--card", "SAVE", "--backend", "spark", "--out", str(tmp_path))
    line = assert_clean_failure(result)
    assert result.exit_code == 2 and "--backend 'spark'" in line


# --run RUN: the swapped decks on a finished run's games


@pytest.fixture(scope="module")
def main_run(tmp_path_factory) -> Path:
    """A designer's main run: base and 101, two match-ups, 400 games each, seed 5."""
    out = tmp_path_factory.mktemp("main") / "run"
    result = cli("run", "--config", "base", "--config", "101", "--players", "random,random",
                 "--players", "greedy,random", "--games", "400", "--seed", "5", "--out",
                 str(out), "--workers", "1", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_run_replays_the_runs_deals_on_the_swapped_deck_only(main_run, tmp_path) -> None:
    """--run plays 1,600 games (base's two cells; 101 has no SAVE) and its comparison of
    base · random,random is the one --config plays on both decks with RUN's seed."""
    result = cli("card-impact", "--run", str(main_run), "--card", "SAVE", "--json", "-q",
                 "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "SAVE is not in config 101's deck" in result.stderr
    shape = json.loads(result.stdout)
    by_matchup = {c["matchup"]: c for c in shape["comparisons"]}
    assert set(by_matchup) == {"random,random", "greedy,random"}
    folder = main_run / "impact" / "SAVE-BLANK"
    assert open_run(folder).height == 800  # base (SAVE -> BLANK) x two match-ups
    alone = cli("card-impact", "--card", "SAVE", "--games", "400", "--seed", "5", "--json",
                "--out", str(tmp_path / "alone"), "-q", "--workers", "1")  # fmt: skip
    assert json.loads(alone.stdout)["measures"] == by_matchup["random,random"]["measures"]


def test_summary_of_the_run_lists_every_measured_card(main_run) -> None:
    for card in ("SAVE", "PRINT"):
        result = cli("card-impact", "--run", str(main_run), "--card", card, "-q",
                     "--workers", "1")  # fmt: skip
        assert result.exit_code == 0, result.output
    text = cli("summary", str(main_run)).stdout
    lines = [line for line in text.splitlines() if line.startswith(("measured:", "dominant:"))]
    flat = " ".join(text.split())  # the lines as the terminal's width did not wrap them
    for card in ("SAVE", "PRINT"):  # a line per card: base's two cells, neither dominant
        assert sum(line.startswith(f"measured: {card} (") for line in lines) == 1, lines
        assert "not dominant (±5.0 pts) in every one of the 2 cells compared" in flat
    shape = json.loads(cli("summary", str(main_run), "--json").stdout)
    assert [m["card"] for m in shape["card_impact"]] == ["PRINT", "SAVE"]
    own = cli("summary", str(main_run / "impact" / "PRINT-BLANK")).stdout
    assert "· PRINT " in own


def test_rerunning_a_run_comparison_plays_nothing_again(main_run) -> None:
    args = ["card-impact", "--run", str(main_run), "--card", "SAVE", "--workers", "1"]
    first = cli(*args, "-q", "--json")
    manifest = (main_run / "impact" / "SAVE-BLANK" / "manifest.json").read_text()
    again = cli(*args)
    assert again.exit_code == 0, again.output
    chunks = json.loads(manifest)["chunks"]
    now = json.loads((main_run / "impact" / "SAVE-BLANK" / "manifest.json").read_text())
    assert now["chunks"] == chunks and first.exit_code == 0  # each chunk's seconds kept


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--card", "REM"], 2, "REM is not in config base's deck"),
        (["--card", "SAVE", "--games", "40"], 2, "--games: --run replays the run's own games"),
        (["--card", "SAVE", "--config", "101", "--seed", "3"], 2, "--config, --seed: --run"),
    ],
)
def test_run_mistakes_fail_cleanly(main_run, args, code, message) -> None:
    result = cli("card-impact", "--run", str(main_run), *args)
    line = assert_clean_failure(result)
    assert result.exit_code == code and message in line, line


def test_run_that_is_not_a_finished_run_is_refused(main_run, tmp_path) -> None:
    line = assert_exit_1(cli("card-impact", "--run", str(tmp_path), "--card", "SAVE"))
    assert str(tmp_path) in line
    copy = tmp_path / "copy"
    shutil.copytree(main_run, copy, ignore=shutil.ignore_patterns("impact"))
    manifest = json.loads((copy / "manifest.json").read_text()) | {"status": "interrupted"}
    (copy / "manifest.json").write_text(json.dumps(manifest))
    line = assert_exit_1(cli("card-impact", "--run", str(copy), "--card", "SAVE"))
    assert "the run is not complete; finish it first" in line


def test_replacing_the_run_drops_its_comparisons(main_run, tmp_path) -> None:
    """`sim run --overwrite` with other games: the old comparisons replayed other deals."""
    copy = tmp_path / "copy"
    shutil.copytree(main_run, copy)
    assert cli("card-impact", "--run", str(copy), "--card", "SAVE", "-q", "--workers",
               "1").exit_code == 0  # fmt: skip
    result = cli("run", "--games", "200", "--out", str(copy), "--overwrite", "--quiet",
                 "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert not (copy / "impact").exists()
    assert "measured:" not in cli("summary", str(copy)).stdout


def test_a_damaged_comparison_under_the_run_fails_its_summary_naming_it(main_run, tmp_path):
    """A comparison folder whose manifest is corrupt is not left out without a word (the
    board would then seem to have no such measurement); one stopped before any part is."""
    copy = tmp_path / "copy"
    shutil.copytree(main_run, copy)
    assert cli("card-impact", "--run", str(copy), "--card", "SAVE", "-q", "--workers",
               "1").exit_code == 0  # fmt: skip
    (copy / "impact" / "EARLY-BLANK").mkdir()  # no manifest yet: nothing to show
    assert "measured: SAVE (" in cli("summary", str(copy)).stdout
    (copy / "impact" / "SAVE-BLANK" / "manifest.json").write_text("{ not json")
    line = assert_exit_1(cli("summary", str(copy)))
    assert str(copy / "impact" / "SAVE-BLANK") in line
