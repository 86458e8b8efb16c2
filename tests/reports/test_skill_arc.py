"""The game's arc per skill level (`sim skill`, the report's skill section) on a run made by
hand: two self-play cells of four pairs whose arc columns are set game by game, so every
level's figures are counted by hand before the code runs."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import polars as pl
from hand_runs import manifest, planted, write_run
from typer.testing import CliRunner

from reports import skill as sk
from reports.html import build_report, load_run
from sim.cli import app
from sim.store.folder import open_run

N = None
# Per game (pairs are games 0-1, 2-3, ...): winner, turns, lead_changes, decided_turn,
# max_deficit, half_leader.
RANDOM = [
    ("first", 20, 2, 10, 10, "first"),
    ("second", 20, 0, 1, 0, "second"),
    ("first", 10, 1, 5, 20, "second"),
    ("draw", 10, 3, N, N, "first"),
    ("second", 20, 0, 20, 5, "first"),
    ("first", 10, 2, 8, 15, N),
    ("first", 20, 0, 1, 0, "first"),
    ("second", 20, 4, 15, 30, "second"),
]
GREEDY = [
    ("first", 20, 0, 1, 0, "first"),
    ("second", 20, 0, 1, 0, "second"),
    ("first", 20, 1, 4, 5, "first"),
    ("second", 20, 1, 6, 10, "second"),
    ("first", 20, 0, 1, 0, "first"),
    ("first", 20, 2, 12, 12, "second"),
    ("draw", 20, 2, N, N, N),
    ("second", 20, 0, 2, 0, "second"),
]
# By hand. random: lead changes 12 / 8 = 1.5; 7 decided games (not game 3), of them
# trailing by 10+ games 0, 2, 5, 7 (4/7) and by 20+ games 2, 7 (2/7); a half-time leader
# in 7 games (not 5), who won games 0, 1, 6, 7 (4/7); decided shares 0.5, 0.05, 0.5, 1,
# 0.8, 0.05, 0.75, sorted .05 .05 .5 [.5] .75 .8 1: median 0.5 (25 grid steps of 50).
# greedy: lead changes 6 / 8 = 0.75; 7 decided (not game 6), by 10+ games 3, 5 (2/7), by
# 20+ none; a half-time leader in 7 (not 6), who lost game 5 only (6/7); decided shares
# .05 .05 .2 .3 .05 .6 .1, sorted .05 .05 .05 [.1] .2 .3 .6: median 0.1.
EXPECTED = {
    "random": {"lead": 1.5, 10: 4 / 7, 20: 2 / 7, "half": 4 / 7, "median": 0.5},
    "greedy": {"lead": 0.75, 10: 2 / 7, 20: 0.0, "half": 6 / 7, "median": 0.1},
}
TEXT = {  # the text table's values (the intervals under them)
    "random": ["1.50", "57.1%", "57.1%", "50.0%"],
    "greedy": ["0.75", "28.6%", "85.7%", "10.0%"],
}
CONFIG = "tiny"


def cell(player: str, games: list[tuple]) -> pl.DataFrame:
    """planted's columns for the self-play cell, winners and arc columns set by hand."""
    frame = planted(CONFIG, f"{player},{player}", len(games) // 2, 0.5, seed=0)
    columns = ("winner", "turns", "lead_changes", "decided_turn", "max_deficit", "half_leader")
    values = dict(zip(columns, zip(*games, strict=True), strict=True))
    return frame.with_columns(
        winner=pl.Series(values["winner"]),
        turns=pl.Series(values["turns"], dtype=pl.UInt16),
        score_first=60,
        score_second=40,
        **{c: pl.Series(values[c], dtype=pl.UInt16) for c in columns[2:5]},
        half_leader=pl.Series(values["half_leader"], dtype=pl.String),
    )


def hand_run(folder: Path) -> Path:
    games = pl.concat([cell("random", RANDOM), cell("greedy", GREEDY)])
    return write_run(folder, games, manifest=manifest([CONFIG], games.height))


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env={"COLUMNS": "80"})


def test_each_level_gets_its_self_plays_arc(tmp_path: Path) -> None:
    run = hand_run(tmp_path / "r")
    arcs = sk.cell_arcs([open_run(run)])
    assert set(arcs) == {(CONFIG, "random,random"), (CONFIG, "greedy,greedy")}
    tables = {m: _table() for _, m in arcs}
    by_matchup = {m: a for (_, m), a in arcs.items()}
    p = sk.profile(CONFIG, ["random", "greedy"], tables, 1.0, None, by_matchup)
    for lv in p.levels:
        want, a = EXPECTED[lv.player], lv.arc
        assert math.isclose(a.lead_changes.value, want["lead"])
        assert math.isclose(a.comebacks[10].value, want[10])
        assert math.isclose(a.comebacks[20].value, want[20])
        assert math.isclose(a.half_wins.value, want["half"])
        assert math.isclose(a.decided_share.value, want["median"])
        assert a.lead_changes.units == 4 and a.lead_changes.unit == "pair"
        for e in (a.lead_changes, a.comebacks[10], a.half_wins, a.decided_share):
            assert e.low <= e.value <= e.high and e.low < e.high


def _table() -> np.ndarray:
    """A pair table (reports.league): A's half points as first by as second, counted."""
    t = np.zeros((3, 3), dtype=np.int64)
    t[2, 0] = 4  # A wins as first, loses as second: four pairs
    return t


def test_sim_skill_prints_json_csv_and_a_second_table_in_80_columns(tmp_path: Path) -> None:
    run = hand_run(tmp_path / "r")
    result = invoke("skill", str(run), "--json")
    assert result.exit_code == 0, result.output
    (cfg,) = json.loads(result.stdout)["configs"]
    for lv in cfg["levels"]:
        want, a = EXPECTED[lv["player"]], lv["arc"]
        assert math.isclose(a["lead_changes"]["value"], want["lead"])
        assert math.isclose(a["comebacks"]["10"]["value"], want[10])
        assert math.isclose(a["comebacks"]["20"]["value"], want[20])
        assert math.isclose(a["half_time_leader_wins"]["value"], want["half"])
        assert math.isclose(a["median_decided_share"]["value"], want["median"])
        assert a["units"] == 4
    rows = list(csv.DictReader(io.StringIO(invoke("skill", str(run), "--csv").stdout)))
    assert [r["player"] for r in rows] == ["random", "greedy"]
    for r in rows:
        want = EXPECTED[r["player"]]
        assert math.isclose(float(r["arc_comebacks_10"]), want[10])
        lo, hi = float(r["arc_half_time_leader_wins_lo"]), float(r["arc_half_time_leader_wins_hi"])
        assert lo <= float(r["arc_half_time_leader_wins"]) <= hi
    text = invoke("skill", str(run))
    assert text.exit_code == 0, text.output
    out = text.stdout.splitlines()
    assert max(len(line) for line in out) <= 80
    at = next(i for i, line in enumerate(out) if "the game's arc by level" in line)
    for player, values in TEXT.items():
        row = next(line for line in out[at:] if line.split()[:1] == [player])
        assert row.split()[1:] == values, row
        under = out[out.index(row) + 1]
        assert under.count("[") == 4  # each value's interval on the line below


def test_the_report_shows_each_levels_arc(tmp_path: Path) -> None:
    page = build_report(load_run(hand_run(tmp_path / "r")), margin=5.0)
    section = page[page.index("Balance across skill") :]
    for values in TEXT.values():
        for v in values:
            assert f"{v} [" in section
    assert "decided midway: half-time leader wins 57.1% [" in section
    assert "decided midway: half-time leader wins 85.7% [" in section  # 7 games: wide


def test_a_run_without_arc_columns_has_none_per_level(tmp_path: Path) -> None:
    games = pl.concat([planted(CONFIG, f"{p},{p}", 20, 0.5, seed=1) for p in ("random", "greedy")])
    run = write_run(tmp_path / "r", games, manifest=manifest([CONFIG], games.height))
    assert sk.cell_arcs([open_run(run)]) == {}
    result = invoke("skill", str(run), "--json")
    assert all(lv["arc"] is None for lv in json.loads(result.stdout)["configs"][0]["levels"])
    assert "the game's arc" not in invoke("skill", str(run)).stdout
