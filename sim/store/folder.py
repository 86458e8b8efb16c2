"""The one reader of a run folder: its manifest (through layout.read_manifest), its verified
parts, the cells it holds and each game's seed. Every command and the notebook API read runs
through RunFolder; every problem is one RunFolderError naming the folder."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl

from sim.store import layout, verify
from sim.store.cell_tallies import CellTally, cell_tallies
from sim.store.lock import holder
from sim.store.seeding import Seeding, SeedsError, seeding
from sim.store.verify import reader_warnings, unreadable

PARTS_AT_ONCE = 2  # parts read at once by the polars queries of every reader (bounded memory)
REQUIRED = (
    "config",
    "matchup",
    "first",
    "second",
    "swapped",
    "game",
    "winner",
    "outcome",
    "tiebreak_line",
    "end_reason",
    "turns",
)
LINE_COLUMN = re.compile(r"line_(\d+)")


class RunFolderError(ValueError):
    """A folder that cannot be read as a run; the message says which and what to do."""


# --- reading a run folder ------------------------------------------------------------------


@dataclass(frozen=True)
class RunFolder:
    """A run folder's manifest and its verified games parts, read lazily: summary and
    compare read only the columns they need, a few parts at a time."""

    path: Path
    manifest: dict
    parts: tuple[Path, ...]
    columns: tuple[str, ...]

    def scan(self) -> pl.LazyFrame:
        """The games table as a lazy frame (polars' own types: text is categorical)."""
        return pl.scan_parquet(list(self.parts))

    @cached_property
    def seeding(self) -> Seeding:
        """Where the games' seeds come from: the parts' column, or the manifest."""
        return seeding(self.path, self.manifest, list(self.columns))

    def seeded(self) -> pl.LazyFrame:
        """scan() with each game's `seed` (after `game`), derived when the parts hold none;
        RunFolderError when the run records no seeds this sim can give."""
        if self.seeding.stored:
            return self.scan()
        try:
            self.seeding.check()
        except SeedsError as exc:
            raise RunFolderError(str(exc)) from None
        order = list(self.columns)
        order.insert(order.index("game") + 1, "seed")
        return self.scan().with_columns(self.seeding.expr(order)).select(order)

    @cached_property
    def games(self) -> pl.DataFrame:
        """The whole games table in memory with its seeds, text as strings: for small runs
        and notebooks; the commands never call it."""
        try:
            frame = self.seeded().collect()
        except (OSError, pl.exceptions.PolarsError) as exc:
            why = first_line(exc)
            raise RunFolderError(f"{self.path}: cannot read the games table: {why}") from None
        return frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))

    @cached_property
    def cells(self) -> list[tuple[str, str]]:
        """(config, matchup) pairs in the order first seen."""
        keys = self.scan().select("config", "matchup").unique(maintain_order=True)
        return [tuple(r) for r in keys.collect().cast(pl.String).iter_rows()]

    @cached_property
    def part_cells(self) -> dict:
        """Each part's (config, matchup, games), None for a part of several cells."""
        return part_cells(self.parts)

    @cached_property
    def tallies(self) -> dict[tuple[str, str], CellTally]:
        """Each cell's summed tallies (store/cell_tallies.py), every summary figure's source,
        in the order the games table first shows the cells."""
        try:
            counted = cell_tallies(self.path, list(self.parts))
            return {cell: counted[cell] for cell in self.cells}
        except (OSError, ValueError, pl.exceptions.PolarsError) as exc:
            why = first_line(exc)
            raise RunFolderError(f"{self.path}: cannot read the run's tallies: {why}") from None

    def table_parts(self, table: str) -> list[Path]:
        """The verified parts of another table (e.g. card_tallies) readers may count."""
        return verify.counted_parts(self.path, table)

    def table(self, name: str) -> pl.LazyFrame | None:
        """A table's verified parts as one lazy frame, text as strings; None when the run
        wrote none of it (e.g. the per-game cards table, written only on request)."""
        parts = self.table_parts(name)
        return plain(pl.scan_parquet(parts)) if parts else None

    @cached_property
    def height(self) -> int:
        """Games on disk (verified parts)."""
        return int(self.scan().select(pl.len()).collect().item())

    def lines(self, config: str, frame: pl.DataFrame | None = None) -> list[int]:
        """Line values (10, 20, ...) the config plays: from the manifest, else seen in games."""
        present = sorted(int(m.group(1)) for c in self.columns if (m := LINE_COLUMN.match(c)))
        content = self.manifest.get("configs", {}).get(config, {}).get("content", {})
        count = content.get("rules", {}).get("lines") if isinstance(content, dict) else None
        if isinstance(count, int):
            return [v for v in present if v <= 10 * count]
        seen = self.scan() if frame is None else frame.lazy()
        held = seen.filter(pl.col("config").cast(pl.String) == config).select(
            pl.len().alias("n"), *(pl.col(f"line_{v}").null_count() for v in present)
        )
        row = held.collect().row(0, named=True)
        return [v for v in present if row[f"line_{v}"] < row["n"]]

    def warnings(self) -> list[str]:
        """Plain notes about the folder itself, e.g. an unfinished, live or failed run."""
        notes = reader_warnings(self.path)
        status = self.manifest.get("status", "unknown")
        if status == "complete" or holder(self.path):  # a live run: said in the notes
            return notes
        total = self.manifest.get("total_games")
        return notes + [
            f"{self.path}: run is {status}, {self.height:,}"
            + (f" of {total:,}" if isinstance(total, int) else "")
            + " games on disk; rerun its `sim run` command to finish it"
        ]


def open_run(path: Path) -> RunFolder:
    """Read a run folder's manifest and find its games; every problem is one RunFolderError."""
    if not path.is_dir():
        raise RunFolderError(f"{path}: no such folder")
    try:
        manifest = layout.read_manifest(path)
    except layout.ManifestError as exc:
        raise RunFolderError(str(exc)) from None
    if manifest is None:
        raise RunFolderError(
            f"{path} is not a run folder (no manifest.json); make one with `sim run`"
        )
    parts = verify.counted_parts(path, "games")
    if not parts:
        why = unreadable(path, "games")
        raise RunFolderError(why or f"{path}: no games on disk yet (games/*.parquet)")
    try:
        columns = pl.scan_parquet(parts).collect_schema().names()
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise RunFolderError(f"{path}: cannot read the games table: {first_line(exc)}") from None
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise RunFolderError(f"{path}: games table lacks columns {', '.join(missing)}")
    return RunFolder(path, manifest, tuple(parts), tuple(columns))


def plain(frame: pl.LazyFrame) -> pl.LazyFrame:
    """Categorical and enum columns as strings: what every reader gets, whatever polars."""
    schema = frame.collect_schema()
    text = [n for n, t in schema.items() if isinstance(t, pl.Categorical | pl.Enum)]
    return frame.with_columns(pl.col(text).cast(pl.String))


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (polars' are long)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def part_cells(parts: tuple[Path, ...]) -> dict[Path, tuple[str, str, int] | None]:
    """Each part's (config, matchup, games), or None when a part holds several cells."""
    queries = [
        pl.scan_parquet(p).select(
            pl.col("config").first().cast(pl.String),
            pl.col("matchup").first().cast(pl.String),
            pl.len().alias("games"),
            (pl.col("config").n_unique() + pl.col("matchup").n_unique()).alias("distinct"),
        )
        for p in parts
    ]
    rows = []
    for start in range(0, len(queries), PARTS_AT_ONCE):  # a few parts' columns at a time
        rows += pl.collect_all(queries[start : start + PARTS_AT_ONCE])
    out: dict[Path, tuple[str, str, int] | None] = {}
    for path, row in zip(parts, rows, strict=True):
        r = row.row(0, named=True)
        out[path] = (r["config"], r["matchup"], r["games"]) if r["distinct"] == 2 else None
    return out
