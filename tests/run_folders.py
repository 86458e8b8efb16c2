"""Helpers for tests that edit a run folder's parts by hand, and the reference generator
of its seeds."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl


def record_edited_parts(folder: Path) -> None:
    """Record edited games parts as the run's own: readers count only parts that match
    the size and checksum the manifest records."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest["chunks"].values():
        record = entry["parts"]["games"]
        data = (folder / "games" / record["file"]).read_bytes()
        record.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    (folder / "manifest.json").write_text(json.dumps(manifest))


MASK = 2**64 - 1


def splitmix64(state: int, count: int) -> list[int]:
    """Vigna's splitmix64 (prng.di.unimi.it/splitmix64.c) in Python integers: the outputs
    after `count` steps from `state`, which the runner's game_seeds promises to give."""
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def store_seeds(folder: Path, seeds) -> None:
    """Rewrite a folder's games parts with a `seed` column (seeds(frame)), as older sims
    wrote them, and record the edited parts as the run's own."""
    for part in (folder / "games").glob("*.parquet"):
        frame = pl.read_parquet(part)
        frame.insert_column(frame.columns.index("game") + 1, seeds(frame).alias("seed"))
        frame.write_parquet(part)
    record_edited_parts(folder)
