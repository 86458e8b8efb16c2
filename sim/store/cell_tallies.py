"""A run's tallies summed per cell (config, match-up): the verified parts of the `tallies`
table the workers wrote, and for a chunk without one (played before the table existed) its
games part counted by the same kernel. Readers take every figure from these sums."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import polars as pl

from sim.stats import Tally
from sim.store import layout, verify
from sim.store.categories import MOMENTS
from sim.store.quantities import DIRECT, OFFSETS, ROOMS, moments

Cell = tuple[str, str]


@dataclass(frozen=True)
class CellTally:
    """One cell's summed counts: the groups' histogram (flat, quantities.OFFSETS) and the
    DIRECT values' sums and sums of squares, over pairs (paired) or games."""

    hist: np.ndarray
    direct: np.ndarray
    paired: bool

    @property
    def unit(self) -> str:
        """What the intervals count: 'pair' or 'game'."""
        return "pair" if self.paired else "game"

    @cached_property
    def moments(self) -> dict[str, tuple]:
        """Each quantity's Tally fields by name (quantities.moments)."""
        return moments(self.hist, self.direct, self.paired)

    def tally(self, name: str) -> Tally:
        """One quantity's Tally."""
        return Tally(*self.moments[name])

    def __add__(self, other: CellTally) -> CellTally:
        """The counts of both (chunks of one cell, or runs with distinct pairs)."""
        if other.paired != self.paired:
            raise ValueError("a cell's counts mix seat-swapped pairs and single games")
        return CellTally(self.hist + other.hist, self.direct + other.direct, self.paired)

    def row(self) -> dict:
        """Every quantity's fields as `name:field` keys (reports.tally.from_row reads them)."""
        return {k: v for n, m in self.moments.items() for k, v in keyed(n, m).items()}


def keyed(name: str, fields) -> dict:
    """A Tally's fields (in MOMENTS' order) as `name:field` keys."""
    return {f"{name}:{f}": v for f, v in zip(MOMENTS, fields, strict=True)}


def summed(pairs) -> dict:
    """(key, CellTally) pairs summed by key, keys in the order first seen."""
    out: dict = {}
    for key, counted in pairs:
        try:
            out[key] = out[key] + counted if key in out else counted
        except ValueError as exc:  # name the cell
            name = " · ".join(key) if isinstance(key, tuple) else str(key)
            raise ValueError(f"{name}: {exc}") from None
    return out


def cell_tallies(folder: Path, games_parts: list[Path]) -> dict[Cell, CellTally]:
    """Every cell's CellTally: the tallies parts of the chunks that have one, the games
    parts of the others (a games part and its chunk's tallies part share a file name)."""
    tallied = {p.name: p for p in verify.counted_parts(folder, layout.TALLIES)}
    found = [c for part in games_parts if part.name not in tallied for c in _games_counts(part)]
    parts = [tallied[p.name] for p in games_parts if p.name in tallied]
    found += _part_counts(parts) if parts else []
    return summed((cell, CellTally(*counted)) for cell, counted in found)


def chunk_counts(folder: Path, name: str, entry: dict) -> tuple:
    """One chunk's (hist, direct, paired), its manifest record `entry`: from its tallies part
    when it wrote one, else from its games part."""
    parts = entry.get("parts") or {}
    if layout.TALLIES in parts:
        (_, counted), *_ = _part_counts([layout.part_path(folder, layout.TALLIES, name)])
        return counted
    (_, counted), *_ = _games_counts(layout.part_path(folder, layout.GAMES, name))
    return counted


def _part_counts(parts: list[Path]):
    """(cell, (hist, direct, paired)) from the tallies parts, summed by polars."""
    frame = (
        pl.scan_parquet(parts)
        .group_by("config", "matchup", "paired", "tally", "code")
        .agg(pl.col("count").sum())
        .with_columns(pl.col("config", "matchup", "tally").cast(pl.String))
        .collect()
    )
    for (config, matchup, paired), rows in frame.group_by(
        "config", "matchup", "paired", maintain_order=True
    ):
        hist = np.zeros(OFFSETS[-1], dtype=np.int64)
        direct = np.zeros((len(DIRECT), 2), dtype=np.int64)
        tally, code, count = (rows[c].to_numpy() for c in ("tally", "code", "count"))
        for name in set(tally):
            at = tally == name
            if name in DIRECT:
                direct[DIRECT.index(name), code[at]] = count[at]
            else:
                np.add.at(hist, OFFSETS[ROOMS.index(name)] + code[at], count[at])
        yield (config, matchup), (hist, direct, bool(paired))


def _games_counts(part: Path):
    """(cell, (hist, direct, paired)) of each cell in a games part, counted by the kernel,
    each cell's games in pair order."""
    from sim.store.tallies import PART_COLUMNS, count_frame

    names = pl.read_parquet_schema(part)
    wanted = ["config", "matchup", "game", *(c for c in PART_COLUMNS if c in names)]
    frame = pl.read_parquet(part, columns=list(dict.fromkeys(wanted)))
    if "pair" not in frame.columns:  # games played without seat swapping
        frame = frame.with_columns(pl.lit(None, pl.UInt32).alias("pair"))
    for (config, matchup), games in frame.group_by("config", "matchup", maintain_order=True):
        games = games.sort("pair", "game", nulls_last=True)
        pair = games["pair"].to_numpy()
        if games["pair"].null_count() == 0 and (len(pair) % 2 or (pair[0::2] != pair[1::2]).any()):
            raise ValueError(f"{part}: the games of {config} · {matchup} are not whole pairs")
        *counted, paired = count_frame(games)
        yield (str(config), str(matchup)), (*counted, paired)
