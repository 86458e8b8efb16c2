"""Game seeds from (master seed, match-up, game index) only.

A match-up's key comes from NumPy's SeedSequence; a game's seed is the splitmix64
output at its index in that stream, computed vectorised. Nothing depends on workers,
chunks or scheduling, so every backend plays the same games; and the configs of one
run (or of two runs with the same master seed) share seeds game by game, so they can
be compared pairwise. The games parts do not store seeds: readers derive them the same
way from the manifest, which names this SCHEME (sim/store/seeding.py).
"""

from __future__ import annotations

import hashlib

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
SCHEME = "splitmix64/v1"  # cell_key and game_seeds below: changing either needs a new name


def _words(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def cell_key(master_seed: int, matchup: str) -> int:
    """The 64-bit seed key of a match-up's games (the same for every config)."""
    seq = np.random.SeedSequence(entropy=master_seed, spawn_key=(_words(matchup),))
    return int(seq.generate_state(1, dtype=np.uint64)[0])


def game_seeds(key: int, start: int, stop: int) -> np.ndarray:
    """Seeds of indexes start..stop-1 in a cell."""
    return seeds_at(key, np.arange(start, stop, dtype=np.uint64))


def played_seeds(key: int, start: int, stop: int, swap: bool) -> np.ndarray:
    """The seeds games start..stop-1 of a cell are played with: a seat-swapped pair's two
    games (2i, 2i+1) share the seed at index i, pair i; without swapping game g has g's."""
    index = np.arange(start, stop, dtype=np.uint64)
    return seeds_at(key, index // np.uint64(2) if swap else index)


def seeds_at(key: int, index: np.ndarray) -> np.ndarray:
    """Seeds at the given indexes of a cell's stream (uint64 arithmetic wraps by design)."""
    z = np.uint64(key) + (np.asarray(index, dtype=np.uint64) + np.uint64(1)) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
