"""`sim skill --precision P` (and `sim league`): play in rounds until every level's
first-seat interval (every pairing's score) is at most ±P points, or --max-pairs pairs.

The interval is the confidence sequence (sim.stats), valid at every stopping time, so
stopping once it is narrow enough keeps its 95%. Each round is a run folder of its own
(OUT/round-K) with its own seed (round 1 the master seed, later rounds derived from it and
K), played through the runner: rerunning the same command finds every finished round,
replays nothing, and makes the same decisions, so the results depend on the seed alone.
OUT/rounds.json records the precision, so `sim skill OUT` (`sim league OUT`) reads the rounds
back. Only the cells still too wide play again, all the same pairs in a round."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from sim.stats import Tally

ROUNDS_FILE = "rounds.json"
GROWTH = 0.5
"""A later round adds at least this share of the pairs played so far: few rounds."""
AIM = 1.1
"""A round aims this much past the pairs today's spread says are enough (the spread moves)."""


@dataclass(frozen=True)
class Precision:
    """The target: ±points on every level's first seat, the first round's pairs and the
    cap on any level's pairs."""

    points: float
    first: int
    cap: int

    @property
    def plan(self) -> int:
        """The pairs the confidence sequence is tuned for, fixed before any game: the
        geometric mean of the first round and the cap, within a factor of both ends."""
        return max(2, round(math.sqrt(self.first * self.cap)))

    def to_json(self) -> dict:
        return {"precision": self.points, "pairs": self.first, "max_pairs": self.cap}


def round_seed(seed: int, k: int) -> int:
    """Round k's master seed: the command's seed for round 1, so a round-1 folder is the
    plain run's; later rounds a 64-bit word derived from (seed, k), fresh deals."""
    if k == 1:
        return seed
    import numpy as np

    return int(np.random.SeedSequence([seed, k]).generate_state(1, np.uint64)[0])


Quantity = Callable[[str, "np.ndarray"], "Tally | None"]
"""quantity(match-up, pair table): the tally whose interval must reach ±P, or None for a
cell that does not count (a rung of the skill ladder)."""


def self_play(ladder: list[str]) -> Quantity:
    """sim skill's quantity: each ladder level's first seat in its self-play."""
    from reports.league import cell_players
    from reports.ratings import first_seat_tally

    def first_seat(matchup: str, table):
        a, b = cell_players(matchup)
        return first_seat_tally(table) if a == b and a in ladder else None

    return first_seat


def pairings(matchup: str, table):
    """sim league's quantity: A's score in each pairing of two strategies."""
    from reports.league import cell_players
    from reports.ratings import score_tally

    a, b = cell_players(matchup)
    return score_tally(table) if a != b else None


def widths(by_config: dict[str, dict], quantity: Quantity, plan: int) -> dict[tuple, tuple]:
    """Each (config, match-up) that counts: its tally and the half width of its confidence
    sequence in points."""
    from sim.stats import confidence_sequence

    out = {}
    for config, cells in by_config.items():
        for matchup, table in cells.items():
            t = quantity(matchup, table)
            if t is not None:
                lo, hi = confidence_sequence(t, plan)
                out[(config, matchup)] = t, 50 * (hi - lo) if t.units >= 2 else math.inf
    return out


def open_cells(by_config: dict, quantity: Quantity, target: Precision) -> dict[tuple, tuple]:
    """The (config, match-up)s whose interval is still wider than ±P."""
    return {
        key: (t, half)
        for key, (t, half) in widths(by_config, quantity, target.plan).items()
        if half > target.points
    }


def next_pairs(open_: dict[tuple, tuple], played: int, target: Precision) -> int:
    """The pairs the next round plays in each open cell: enough for the widest by today's
    spread (AIM past it), at least GROWTH of those played, within the cap."""
    from reports.skill import pairs_to_precision

    needed = max(
        pairs_to_precision(t, target.points, target.plan) if t.units >= 2 else 2 * played
        for t, _ in open_.values()
    )
    more = max(math.ceil(AIM * needed) - played, math.ceil(GROWTH * played), 1)
    return min(more, target.cap - played)


def added(totals: dict, tables: dict) -> dict:
    """Pair tables summed by (config, match-up): the counts add over rounds."""
    out = dict(totals)
    for key, table in tables.items():
        out[key] = out[key] + table if key in out else table
    return out


def round_folders(out: Path) -> list[Path]:
    """OUT's round folders in order, as far as they run unbroken from round 1."""
    found = []
    while (out / f"round-{len(found) + 1}").is_dir():
        found.append(out / f"round-{len(found) + 1}")
    return found


def read_target(out: Path) -> Precision | None:
    """The precision OUT was played to, or None when OUT is no folder of rounds; ValueError
    when its rounds.json cannot be read."""
    path = out / ROUNDS_FILE
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
        return Precision(float(doc["precision"]), int(doc["pairs"]), int(doc["max_pairs"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a rounds file sim skill wrote ({exc})") from None


def write_target(out: Path, target: Precision) -> None:
    """Record the precision before the first round; refuse a folder played to another."""
    try:
        before = read_target(out)
    except ValueError:
        before = None
    if before is not None and before != target:
        raise ValueError(
            f"{out} holds rounds played to {before.to_json()}, not {target.to_json()}; "
            "write these elsewhere with --out DIR"
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / ROUNDS_FILE).write_text(json.dumps(target.to_json(), indent=2) + "\n")


def open_text(open_: dict[tuple, tuple]) -> str:
    """'greedy ±1.4, heuristic ±1.2 pts': each open cell (a level by its name) at its widest
    over the configs."""
    from reports.league import cell_players

    widest: dict[str, float] = {}
    for (_, matchup), (_, half) in open_.items():
        a, b = cell_players(matchup)
        label = a if a == b else matchup
        widest[label] = max(widest.get(label, 0.0), half)
    return ", ".join(f"{p} ±{h:.2f}" for p, h in widest.items()) + " pts"
