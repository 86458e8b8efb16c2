"""Two runs' cells compared part by part, in bounded memory: the per-unit differences a
paired test needs, summed as they are read (n, sum of d, sum of d squared), never held.

The runner writes a cell's games in chunks of fixed game ranges, so two runs of the same
plan shape have parts holding the same games: each pair of parts is checked for the same
games, seeds and seats, and its units' means compared. Two runs that both derive their
seeds (sim.store.seeding) are checked on the derivation (the cell's seed key and the games'
pair indexes), not seed by seed. Runs whose parts do not line up
(other chunk sizes, hand-made folders) are read whole by the caller instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from scipy import special  # not scipy.stats: a second to import

from reports.stats import Difference
from reports.tally import (
    part_shape,
    read_parts,
    unit,
)
from sim.store.seeding import Seeding

KEYS = ["game", "seed"]  # seed: stored by the parts, or derived (sim.store.seeding)
SEATS = ["first", "second", "swapped"]
STORED = (Seeding(True), Seeding(True))  # both runs' parts hold their seeds


@dataclass
class DiffSums:
    """A paired difference's running sums over units."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    low: float = math.inf
    high: float = -math.inf

    def add(self, d: np.ndarray) -> None:
        self.n += len(d)
        self.total += float(d.sum())
        self.squares += float((d * d).sum())
        if len(d):
            self.low, self.high = min(self.low, float(d.min())), max(self.high, float(d.max()))

    def difference(self, confidence: float = 0.95) -> Difference:
        """As reports.stats.paired_difference over the same d: t interval, paired t-test."""
        n = self.n
        if n < 2:
            raise ValueError("a paired difference needs at least 2 units")
        mean = self.total / n
        if self.low == self.high:  # every d the same: t is 0/0 or infinite
            c = self.low
            return Difference(c, c, c, 1.0 if c == 0 else 0.0, paired=True, n_a=n, n_b=n)
        sd = math.sqrt(max(self.squares - n * mean * mean, 0.0) / (n - 1))
        half = float(special.stdtrit(n - 1, 0.5 + confidence / 2.0)) * sd / math.sqrt(n)
        t = mean / (sd / math.sqrt(n)) if sd > 0 else math.inf
        p = float(2 * special.stdtr(n - 1, -abs(t)))
        return Difference(mean, mean - half, mean + half, p, paired=True, n_a=n, n_b=n)


@dataclass
class Paired:
    """What pairing two cells' parts found: whether they pair, why not, the sums."""

    paired: bool
    why: str = ""
    sums: dict = field(default_factory=dict)  # by metric; the balance's by ("closer", signs)


def line_up(parts_a: list[Path], parts_b: list[Path], games_of) -> bool:
    """Whether the two cells' parts hold the same numbers of games in the same order."""
    return len(parts_a) == len(parts_b) and all(
        games_of(a) == games_of(b) for a, b in zip(parts_a, parts_b, strict=True)
    )


FOLDS = [(sa, sb) for sa in (1.0, -1.0) for sb in (1.0, -1.0)]
"""The signs (A's, B's) a first-seat score's distance from 50% may take: reports.balance."""


def pair_parts(
    parts_a: list[Path],
    parts_b: list[Path],
    metrics: dict[str, pl.Expr],
    score: pl.Expr,
    listed: tuple[str, ...] = (),
    seeds: tuple[Seeding, Seeding] = STORED,
) -> tuple[Paired, list[dict]]:
    """Walk the lined-up parts a pair at a time: same games and seeds, same seats, then each
    unit's mean of every metric in both runs and their differences summed. score (the first
    seat's) gives the sums of reports.balance's distances from 50%, for each pair of signs
    (Paired.sums[("closer", sign_a, sign_b)]): the signs are known only at the end. The same
    reading gives each run's distinct values of the `listed` columns it has (as strings, by
    column). seeds: each run's (its RunFolder's seeding)."""
    values = {**metrics, "_score": score}
    found = Paired(True, "", {name: DiffSums() for name in metrics})
    found.sums |= {("closer", *signs): DiffSums() for signs in FOLDS}
    columns = [_columns(p[:1], values, listed) for p in (parts_a, parts_b)]
    seen: list[dict] = [{c: set() for c in listed if c in cs} for cs in columns]
    both = zip(read_parts(parts_a, columns[0]), read_parts(parts_b, columns[1]), strict=True)
    for (path_a, fa), (path_b, fb) in both:
        for into, frame in zip(seen, (fa, fb), strict=True):
            for c, values_of in into.items():
                values_of.update(frame[c].unique().cast(pl.String).to_list())
        if found.paired:
            why = _pair_part((path_a, path_b), fa, fb, values, found.sums, seeds)
            if why:
                found = Paired(False, why)
    return found, [{c: list(v) for c, v in s.items()} for s in seen]


def _pair_part(paths, fa, fb, values: dict[str, pl.Expr], sums: dict, seeds) -> str:
    """Add one pair of parts' per-unit differences to sums; or say why they do not pair."""
    if not all(s.known for s in seeds):
        return "unpaired: " + next(s.why for s in seeds if not s.known)
    means = _part_means(fa, fb, values, seeds)
    if means is None:  # not in the runner's layout: sorted and grouped by polars
        ua, ub = (_units(p, values, s) for p, s in zip(paths, seeds, strict=True))
        if not ua.select(KEYS).equals(ub.select(KEYS)):
            return "unpaired: the runs played different seeds"
        if not ua.select(SEATS).equals(ub.select(SEATS)):
            return "unpaired: same seeds but different seats"
        means = _means(ua, values), _means(ub, values)
    elif isinstance(means, str):
        return means
    ma, mb = means
    for name in values:
        if name != "_score":
            sums[name].add(mb[name] - ma[name])
    for sa, sb in FOLDS:  # distance from 50% on the side of each run's estimate
        d = sb * (mb["_score"] - 0.5) - sa * (ma["_score"] - 0.5)
        sums[("closer", sa, sb)].add(d)
    return ""


def _columns(parts: list[Path], values: dict[str, pl.Expr], listed=()) -> list[str]:
    """The columns pair_parts reads: keys, seats, units, what the values need, listed."""
    have = pl.scan_parquet(parts).collect_schema().names() if parts else []
    roots = [r for e in values.values() for r in e.meta.root_names()]
    wanted = dict.fromkeys([*KEYS, *SEATS, "config", "matchup", "pair", *roots, *listed])
    return [c for c in wanted if c in have]


def _part_means(fa, fb, values: dict[str, pl.Expr], seeds=STORED):
    """Both parts' per-unit means of every value, in unit order, when both are one cell in
    the runner's layout (games in order, pairs two by two); a string saying why they do not
    pair; or None when a part is laid out otherwise (the caller sorts)."""
    shape = part_shape(fa, [])
    if shape is None or part_shape(fb, []) != shape:
        return None
    ga, gb = fa["game"].to_numpy(), fb["game"].to_numpy()
    if (ga[1:] <= ga[:-1]).any() or (gb[1:] <= gb[:-1]).any():
        return None
    if len(ga) != len(gb) or not ((ga == gb).all() and seeds[0].same_seeds(seeds[1], fa, fb)):
        return "unpaired: the runs played different seeds"
    seats = [pl.col(s).cast(pl.String) if s != "swapped" else pl.col(s) for s in SEATS]
    if not fa.select(seats).equals(fb.select(seats)):
        return "unpaired: same seeds but different seats"
    out = []
    for frame in (fa, fb):
        per_game = frame.select(expr.alias(name) for name, expr in values.items())
        columns = {name: per_game[name].to_numpy() for name in values}
        if shape == "pairs":  # a pair's mean: its two rows' (exact: halves of small sums)
            columns = {name: (v[0::2] + v[1::2]) / 2 for name, v in columns.items()}
        out.append(columns)
    return out[0], out[1]


def _units(path: Path, metrics: dict[str, pl.Expr], seeds: Seeding) -> pl.DataFrame:
    """A part's games in game order: keys, seats, unit, and every metric's value."""
    scan = pl.scan_parquet(path)
    if "pair" not in scan.collect_schema().names():
        scan = scan.with_columns(pl.lit(None, pl.Int64).alias("pair"))
    return (
        scan.select(
            "game",
            seeds.expr(scan.collect_schema().names()),
            *(pl.col(s).cast(pl.String) if s != "swapped" else pl.col(s) for s in SEATS),
            unit().alias("_unit"),
            *(expr.alias(name) for name, expr in metrics.items()),
        )
        .collect()
        .sort("game")
    )


def _means(frame: pl.DataFrame, metrics: dict[str, pl.Expr]) -> dict[str, np.ndarray]:
    """Per unit, in unit order, the mean of each metric over the unit's games."""
    per = frame.group_by("_unit").agg(pl.col(list(metrics)).mean()).sort("_unit")
    return {name: per[name].to_numpy() for name in metrics}
