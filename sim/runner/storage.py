"""The run folder: atomic writes, part files, and the manifest."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parent never writes parts: its start-up stays free of numba
    import polars as pl

    from sim.runner.parquet import Column

MANIFEST = "manifest.json"
GAMES, CARDS = "games", "cards"


class StorageError(OSError):
    """The output folder cannot be written (full disk, no permission, ...)."""


def atomic_write(path: Path, write) -> None:
    """Write through a temporary file in the same folder, then rename: readers never see
    half a file, and an interrupted write leaves only a temporary file to sweep."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    atomic_write(path, lambda tmp: frame.write_parquet(tmp, compression="zstd", statistics=False))


def write_part(
    out: Path, table_name: str, chunk_name: str, columns: list[Column], schema: bytes
) -> None:
    """A chunk's part file of one table (tables.games_columns or cards_columns), carrying
    the table's serialized Arrow schema (schema.serialized_schema)."""
    from sim.runner import parquet

    atomic_write(
        part_path(out, table_name, chunk_name),
        lambda tmp: parquet.write(tmp, columns, schema),
    )


def write_json(data: dict, path: Path) -> None:
    atomic_write(path, lambda tmp: tmp.write_text(json.dumps(data, indent=2, sort_keys=True)))


def part_path(out: Path, table: str, chunk_name: str) -> Path:
    return out / table / f"part-{chunk_name}.parquet"


def chunk_done(out: Path, chunk_name: str) -> bool:
    """A chunk is done once both its part files exist (each was renamed into place whole)."""
    return all(part_path(out, t, chunk_name).exists() for t in (GAMES, CARDS))


def read_manifest(out: Path) -> dict | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def clear_folder(out: Path) -> None:
    """Empty a run folder for --overwrite (only what a run writes)."""
    for name in (GAMES, CARDS):
        shutil.rmtree(out / name, ignore_errors=True)
    for name in (MANIFEST, "winrates.parquet", "tiebreaks.parquet"):
        (out / name).unlink(missing_ok=True)


def sweep_temporaries(out: Path) -> None:
    """Remove temporary files left by an interrupted write."""
    for tmp in out.rglob(".*.tmp"):
        tmp.unlink(missing_ok=True)
