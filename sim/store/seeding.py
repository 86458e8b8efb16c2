"""Each game's seed, read back from a run folder: the games parts do not store it (64
random bits a pair took two thirds of the table's bytes), since it follows from the
manifest (each cell's seed key and the derivation's scheme) and the game's pair, or game
index without swapping, exactly as the workers derived it (sim.store.seeds.played_seeds).

Folders whose parts still hold a `seed` column (older sims, hand-made folders) are read
from that column; a manifest naming another scheme is refused rather than given seeds
this sim would derive differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from sim.store.seeds import SCHEME, cell_key, seeds_at


class SeedsError(ValueError):
    """A folder whose seeds cannot be given; the message says which and why."""


@dataclass(frozen=True)
class Seeding:
    """Where a run's seeds come from: its parts' `seed` column (stored), or its manifest's
    cell keys by match-up (derived); neither when the folder records no seeds (why)."""

    stored: bool
    keys: dict[str, int] = field(default_factory=dict)  # match-up -> seed key, when derived
    why: str = ""  # when neither: what is missing

    @property
    def known(self) -> bool:
        return self.stored or not self.why

    def check(self) -> None:
        """SeedsError when the run's seeds cannot be given."""
        if not self.known:
            raise SeedsError(self.why)

    def expr(self, columns: list[str]) -> pl.Expr:
        """The `seed` column (UInt64) of a games frame with these columns."""
        if self.stored:
            return pl.col("seed")
        self.check()
        index = pl.col("game").cast(pl.UInt64)
        if "pair" in columns:  # null without swapping: each game then has its own seed
            index = pl.coalesce(pl.col("pair").cast(pl.UInt64), index)
        both = pl.struct(pl.col("matchup").cast(pl.String).alias("m"), index.alias("i"))
        return both.map_batches(self._batch, return_dtype=pl.UInt64, is_elementwise=True).alias(
            "seed"
        )

    def series(self, frame: pl.DataFrame) -> pl.Series:
        """The seeds of a games frame's rows (it needs matchup, game and pair, or seed)."""
        return frame.select(self.expr(frame.columns)).to_series()

    def _batch(self, rows: pl.Series) -> pl.Series:
        """Seeds of (match-up, stream index) rows, one vectorised sweep per match-up."""
        matchup = rows.struct.field("m")
        index = rows.struct.field("i").to_numpy()
        out = np.zeros(len(rows), dtype=np.uint64)
        for name in matchup.unique().drop_nulls().to_list():
            if name not in self.keys:
                raise SeedsError(f"match-up {name} has no seed key in the run's manifest")
            where = (matchup == name).to_numpy()
            out[where] = seeds_at(self.keys[name], index[where])
        return pl.Series("seed", out, dtype=pl.UInt64)

    def same_seeds(self, other: Seeding, fa: pl.DataFrame, fb: pl.DataFrame) -> bool:
        """Whether two frames of one match-up, with the same games in the same order, were
        dealt the same seeds: by their derivations when both runs derive them (the same key
        and the same pair/game indexing), else by the seeds themselves."""
        if not (self.known and other.known):
            return False
        if not (self.stored or other.stored):
            ka = {self.keys.get(m) for m in fa["matchup"].cast(pl.String).unique()}
            kb = {other.keys.get(m) for m in fb["matchup"].cast(pl.String).unique()}
            known = len(ka) == 1 and None not in ka
            return known and ka == kb and _unpaired(fa).equals(_unpaired(fb))
        return self.series(fa).equals(other.series(fb))


def _unpaired(frame: pl.DataFrame) -> pl.Series:
    """Which games have no pair (their seed is at the game's index, not the pair's)."""
    if "pair" not in frame.columns:
        return pl.Series([True] * frame.height)
    return frame["pair"].is_null()


def seeding(path: Path, manifest: dict, columns: list[str]) -> Seeding:
    """The seeding of a folder whose games parts have these columns."""
    if "seed" in columns:
        return Seeding(True)
    try:
        return Seeding(False, keys(path, manifest))
    except SeedsError as exc:
        return Seeding(False, why=str(exc))


def keys(path: Path, manifest: dict) -> dict[str, int]:
    """Each match-up's seed key from the manifest, checked against the scheme this sim
    derives (and the key against the master seed), so a change of derivation is refused."""
    where = path / "manifest.json"
    scheme = manifest.get("seeds")
    if scheme is None:
        raise SeedsError(
            f"{where} names no seed scheme and the games parts hold no seed column, so the "
            "games' seeds are unknown; replay the run with its `sim run` command and --overwrite"
        )
    if scheme != SCHEME:
        raise SeedsError(
            f"{where}: seeds: the run's seeds follow {scheme!r}, this sim derives {SCHEME!r}; "
            f"read it with the sim that played it (sim {manifest.get('sim_version', '?')})"
        )
    master = manifest.get("master_seed")
    found = {}
    for i, cell in enumerate(manifest.get("cells") or []):
        key = cell.get("seed_key") if isinstance(cell, dict) else None
        matchup = cell.get("matchup") if isinstance(cell, dict) else None
        if not isinstance(key, int) or not isinstance(matchup, str) or not 0 <= key < 2**64:
            raise SeedsError(f"{where}: cells[{i}]: expected a matchup and a 64-bit seed_key")
        if isinstance(master, int) and key != cell_key(master, matchup):
            raise SeedsError(
                f"{where}: cells[{i}].seed_key does not follow from master_seed {master} and "
                f"match-up {matchup} under {SCHEME}; the manifest has been edited"
            )
        found[matchup] = key
    return found
