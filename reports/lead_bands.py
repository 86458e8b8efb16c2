"""The lead by turn, per cell (the report's lead bands): the lead tallies the workers
wrote per chunk (sim/store/leads.py) summed per cell, and the mean, quartiles and 5-95%
band of the first seat's lead at each turn read off the summed histogram (definitions:
docs/statistics.md). The first seat's lead, not A's: over seat-swapped pairs A's lead
would average a first-seat advantage away."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from sim.store import layout, verify
from sim.store.folder import plain

QUANTILES = (5, 25, 75, 95)  # percent
# turns shown: those that at least this share of a cell's games reach (later turns rest
# on a few long games)
LEAST_REACHED = 0.05


@dataclass(frozen=True)
class Bands:
    """One cell's lead by turn: turn t is turns[i], reached by games[i] of its games."""

    config: str
    matchup: str
    turns: np.ndarray
    games: np.ndarray
    mean: np.ndarray
    quantiles: dict[int, np.ndarray]  # QUANTILES -> the lead at each turn


def read_bands(folder: Path, game_parts: list[Path]) -> tuple[list[Bands] | None, str | None]:
    """The bands of every cell of a run from its verified lead tallies, and a note when
    they are left out: None, None for a run from before the lead tallies (none on disk);
    None and why when some chunks the games count have no lead tally (resumed across the
    change), since bands from part of the games would not be the run's."""
    parts = verify.counted_parts(folder, layout.LEADS)
    if not parts:
        return None, None
    chunks = {p.name for p in game_parts}
    without = chunks - {p.name for p in parts}
    if without:
        why = (
            f"lead bands left out: {len(without)} of the {len(chunks)} chunks were "
            "played before sim kept lead tallies; replay with --overwrite to get them"
        )
        return None, why
    return cell_bands(plain(pl.scan_parquet(parts)).collect()), None


def cell_bands(frame: pl.DataFrame) -> list[Bands]:
    """Per cell (config, match-up), the summed tally's bands, cells in name order."""
    lead = (
        pl.when(pl.col("ahead") == "first")
        .then(pl.col("margin").cast(pl.Int64))
        .when(pl.col("ahead") == "second")
        .then(-pl.col("margin").cast(pl.Int64))
        .otherwise(0)
    )
    summed = (
        frame.with_columns(lead=lead)
        .group_by("config", "matchup", "turn", "lead")
        .agg(pl.col("games").sum())
        .sort("config", "matchup", "turn", "lead")
    )
    out = []
    for (config, matchup), cell in summed.group_by("config", "matchup", maintain_order=True):
        out.append(bands(config, matchup, cell))
    return out


def bands(config: str, matchup: str, cell: pl.DataFrame) -> Bands:
    """The bands of one cell's tally rows (turn, lead, games), sorted by turn and lead."""
    turn = cell["turn"].to_numpy().astype(np.int64)
    lead = cell["lead"].to_numpy().astype(np.int64)
    games = cell["games"].to_numpy().astype(np.int64)
    turns = np.unique(turn)
    reached = np.array([games[turn == t].sum() for t in turns])
    shown = reached >= LEAST_REACHED * reached.max()
    turns, reached = turns[shown], reached[shown]
    mean = np.array([(lead[turn == t] * games[turn == t]).sum() for t in turns]) / reached
    quantiles = {
        q: np.array([quantile(lead[turn == t], games[turn == t], q) for t in turns])
        for q in QUANTILES
    }
    return Bands(config, matchup, turns, reached, mean, quantiles)


def quantile(values: np.ndarray, counts: np.ndarray, percent: int) -> int:
    """A percentile of a histogram (values ascending, each with its count): the smallest
    value with at least percent % of the counts at or below it (in integers: exact)."""
    cumulative = np.cumsum(counts)
    need = -(-percent * int(cumulative[-1]) // 100)  # the ceiling of percent % of them
    return int(values[np.searchsorted(cumulative, need, side="left")])


def bands_section(folder: Path, game_parts: list[Path]) -> dict | None:
    """The report's section: a chart per cell, or the note why there is none; None for a
    run without lead tallies (from before them), which shows no section."""
    from reports import plots

    cells, note = read_bands(folder, game_parts)
    if cells is None and note is None:
        return None
    charts = []
    for b in cells or []:
        title = f"{b.config} · {b.matchup}"
        quantiles = {q: b.quantiles[q].tolist() for q in QUANTILES}
        chart = plots.lead_bands(b.turns.tolist(), b.mean.tolist(), quantiles, title)
        charts.append({"title": title, "chart": chart, "games": f"{int(b.games[0]):,}"})
    return {"cells": charts, "note": note, "least": f"{LEAST_REACHED:.0%}"}
