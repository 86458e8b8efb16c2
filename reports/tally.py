"""Per-unit tallies (sim.stats.Tally) of a games or cards frame, for the reports.

The unit is a game's seat-swapped pair (the games table's `pair` column), or the game itself
when seats were not swapped (`pair` null). The summaries' own figures come from the tallies
the workers write (sim/store/tallies.py); these serve quantities over any columns: paired
comparisons, the tuner's metrics and styles, the HTML report's shares.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats import Tally

Quantity = tuple[pl.Expr, pl.Expr | None]
"""A ratio y / z of per-row values: y (a condition or a number), z (None: every row counts 1)."""


def unit() -> pl.Expr:
    """A row's independent unit within its config and match-up: its pair, or its own game
    (negative) when it has no pair."""
    game = -1 - pl.col("game").cast(pl.Int64)
    return pl.when(pl.col("pair").is_null()).then(game).otherwise(pl.col("pair").cast(pl.Int64))


def unit_name(frame: pl.DataFrame) -> str:
    """'pair' when the rows belong to seat-swapped pairs, else 'game'."""
    if "pair" not in frame.columns or frame.height == 0:
        return "game"
    return "game" if frame["pair"].null_count() else "pair"


def _value(expr: pl.Expr) -> pl.Expr:
    return expr.fill_null(False).cast(pl.Float64)


def tallies(
    frame: pl.DataFrame | pl.LazyFrame, keys: list[str], quantities: dict[str, Quantity]
) -> pl.DataFrame:
    """One row per group of keys; for each quantity q the columns q:units, q:y, q:z, q:yy,
    q:zz, q:yz of its Tally over the group's units (those with z > 0). The frame needs
    `game`; without a `pair` column every game is its own unit. A lazy frame stays lazy
    until the small result, so a large run is never held in memory whole."""
    lazy = isinstance(frame, pl.LazyFrame)
    names = frame.collect_schema().names() if lazy else frame.columns
    if "pair" not in names:
        frame = frame.with_columns(pl.lit(None, pl.Int64).alias("pair"))
    per_row = []
    for name, (y, z) in quantities.items():
        per_row += [
            _value(y).sum().alias(f"{name}:y"),
            _value(pl.col("game").is_not_null() if z is None else z).sum().alias(f"{name}:z"),
        ]
    cell = [c for c in ("config", "matchup") if c in names and c not in keys]
    units = frame.with_columns(unit().alias("_unit")).group_by(*keys, *cell, "_unit").agg(per_row)
    sums = []
    for name in quantities:
        y, z = pl.col(f"{name}:y"), pl.col(f"{name}:z")
        sums += [
            y.sum().alias(f"{name}:y"),
            z.sum().alias(f"{name}:z"),
            (y * y).sum().alias(f"{name}:yy"),
            (z * z).sum().alias(f"{name}:zz"),
            (y * z).sum().alias(f"{name}:yz"),
            (z > 0).sum().alias(f"{name}:units"),  # the units a conditional rate sees
        ]
    result = units.group_by(keys).agg(sums) if keys else units.select(sums)
    return result.collect() if lazy else result


def from_row(row: dict, name: str) -> Tally:
    """Quantity name's Tally from a row of tallies()."""
    fields = ("units", "y", "z", "yy", "zz", "yz")
    return Tally(*(row[f"{name}:{f}"] for f in fields))


def tally(frame: pl.DataFrame, y: pl.Expr, z: pl.Expr | None = None) -> Tally:
    """The Tally of one quantity y / z over the whole frame's units."""
    return from_row(tallies(frame, [], {"q": (y, z)}).row(0, named=True), "q")


# --- card tallies: the runner's per-chunk sums (sim.store.tables.card_tally_columns) -------

CARD_RATES = ("any_played", "won_played", "won_unplayed")
_MOMENTS = ("units", "y", "z", "yy", "zz", "yz")


def card_sums(tallies: pl.LazyFrame, by_strategy: bool) -> pl.DataFrame:
    """The card tallies summed over chunks per config, match-up, strategy (by_strategy: the
    rows of one strategy's seats; else those of every seat, strategy null) and kind, kind
    as text. Sums of chunks are the run's: a chunk holds whole units."""
    keep = pl.col("strategy").is_not_null() if by_strategy else pl.col("seats") == "both"
    keys = ["config", "matchup", "strategy", "kind"]
    return (
        tallies.filter(keep)
        .with_columns(pl.col("config", "matchup", "strategy", "kind").cast(pl.String))
        .group_by(keys)
        .agg(pl.exclude(*keys, "seats").sum())
        .sort(keys)
        .collect()
    )


def card_tally(row: dict, rate: str) -> Tally:
    """One of CARD_RATES' Tally from a row of card_sums."""
    return Tally(*(row[f"{rate}_{m}"] for m in _MOMENTS))


# --- bounded reading: a run's tallies one part at a time -----------------------------------

MAX_CODES = 256  # distinct values of a quantity's columns beyond which rows are summed directly


def part_tallies(
    parts: list, keys: list[str], quantities: dict[str, Quantity], columns: list[str]
) -> pl.DataFrame:
    """tallies() of the games parts, one part at a time, summed: a part holds whole units (a
    chunk never splits a pair), so the sums of the parts' moments are the run's, and memory
    stays that of a part or two whatever the run's size. Only `columns` (those the
    quantities may need) are read; keys come back as strings. Every moment is a sum of
    whole and half numbers, exact in floating point, so the order of the sums is immaterial."""
    totals: dict[tuple, dict] = {}
    for _, frame in read_parts(parts, tally_columns(parts, keys, columns)):
        add_tallies(totals, frame, keys, quantities)
    return tallies_frame(totals, keys)


def tallies_frame(totals: dict, keys: list[str]) -> pl.DataFrame:
    """add_tallies' sums as a frame: one row per keys (strings), in the order first seen."""
    if not totals:
        return pl.DataFrame()
    return pl.DataFrame([dict(zip(keys, key, strict=True)) | v for key, v in totals.items()])


def tally_columns(parts: list, keys: list[str], columns: list[str]) -> list[str]:
    """The columns part_tallies reads: keys, cell, units and those of `columns` the parts
    have."""
    have = pl.scan_parquet(parts[:1]).collect_schema().names() if parts else []
    need = dict.fromkeys([*keys, "config", "matchup", "game", "pair", *columns])
    return [c for c in need if c in have]


def add_tallies(
    totals: dict, frame: pl.DataFrame, keys: list[str], quantities: dict, units: dict | None = None
) -> None:
    """Add a part's tallies to totals (keys as strings -> quantity moment -> sum); units,
    when given, gets each quantity's per-unit y totals (_frame_tallies)."""
    for row in _frame_tallies(frame, keys, quantities, units):
        key = tuple(str(row[k]) for k in keys)
        into = totals.setdefault(key, {})
        for name, value in row.items():
            if name not in keys:
                into[name] = into.get(name, 0) + value


def read_parts(parts: list, columns: list[str]):
    """(path, frame of the columns) for each part in order, the next part read in a thread
    while the caller works on this one (polars and numpy release the GIL): two cores busy,
    two parts in memory at most."""
    from concurrent.futures import ThreadPoolExecutor

    def read(path) -> pl.DataFrame:
        frame = pl.read_parquet(path, columns=columns)
        if "pair" not in frame.columns:  # games played without seat swapping
            frame = frame.with_columns(pl.lit(None, pl.Int64).alias("pair"))
        return frame

    if not parts:
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        ahead = pool.submit(read, parts[0])
        for i, path in enumerate(parts):
            frame = ahead.result()
            if i + 1 < len(parts):
                ahead = pool.submit(read, parts[i + 1])
            yield path, frame


def part_shape(frame: pl.DataFrame, keys: list[str]) -> str | None:
    """'pairs' when a part is one cell whose rows come two by two (pairs in order, as the
    runner writes them), 'games' when it is one cell of unpaired games, else None."""
    cell = [c for c in dict.fromkeys([*keys, "config", "matchup"]) if c in frame.columns]
    if frame.height == 0 or any(not _constant(frame[c]) for c in cell):
        return None
    pair = frame["pair"]
    if pair.null_count() == frame.height:
        return "games"
    if pair.null_count() or frame.height % 2:
        return None
    p = pair.to_numpy()
    first = p[0::2]
    if (first == p[1::2]).all() and (first[1:] > first[:-1]).all():
        return "pairs"
    return None


def _constant(column: pl.Series) -> bool:
    """Whether every value of a column is the same, and none is null."""
    if column.null_count():
        return False
    if isinstance(column.dtype, pl.Categorical | pl.Enum):  # compare codes, not text
        column = column.to_physical()
    return column.min() == column.max()


def frame_codes(frame: pl.DataFrame, columns: list[str]) -> dict[str, tuple | None]:
    """column_codes of several columns with two polars queries for them all (their ranges,
    then the codes), not a few queries a column."""
    kinds = pl.Categorical | pl.Enum | pl.Boolean
    eligible = [
        c for c in columns if isinstance(frame[c].dtype, kinds) or frame[c].dtype.is_integer()
    ]
    out: dict[str, tuple | None] = {c: None for c in columns if c not in eligible}
    if not eligible:
        return out
    physical = {c: pl.col(c).to_physical().cast(pl.Int64) for c in eligible}
    ranges = frame.select(
        *(e.min().alias(f"{c}:low") for c, e in physical.items()),
        *(e.max().alias(f"{c}:high") for c, e in physical.items()),
    ).row(0, named=True)
    narrow = []
    for c in eligible:
        low, high = ranges[f"{c}:low"], ranges[f"{c}:high"]
        if low is None:  # every value null
            out[c] = (np.zeros(frame.height, dtype=np.int32), 1)
        elif high - low + 2 > MAX_CODES * 16:
            out[c] = None
        else:
            narrow.append((c, low, high))
    codes = frame.select(
        (physical[c] - low).fill_null(high - low + 1).cast(pl.Int32).alias(c)
        for c, low, high in narrow
    )
    for c, low, high in narrow:
        out[c] = (codes[c].to_numpy(), high - low + 2)
    return out


def _frame_tallies(
    frame: pl.DataFrame, keys: list[str], quantities: dict, units: dict | None = None
) -> list[dict]:
    """A part's tallies() rows: from codes and counts for a part of one cell in the runner's
    layout, else by polars' group-by (tallies). Quantities are grouped by the columns they
    read; a group whose columns take few distinct values is evaluated once per value and its
    units counted per combination of their games' values (a bincount), the others per row.
    units (a dict), for a part in the runner's layout: each quantity's y total per unit, in
    row order (what reports.paired compares), filled in."""
    shape = part_shape(frame, keys)
    if shape is None:
        return tallies(frame, keys, quantities).to_dicts()
    paired = shape == "pairs"
    groups: dict[tuple, list[str]] = {}
    for name, (y, z) in quantities.items():
        roots = set(y.meta.root_names()) | (set() if z is None else set(z.meta.root_names()))
        groups.setdefault(tuple(sorted(roots)), []).append(name)
    wanted = sorted({c for roots in groups for c in roots if len(roots) <= 3})
    digits = frame_codes(frame, wanted)
    coded, direct = {}, []
    for roots, names in groups.items():
        found = _codes(frame, list(roots), digits) if roots else None
        if found is None:
            direct += names
        else:
            coded[roots] = (found, names)
    row = {k: frame[k][0] for k in keys}
    step = 2.0 if paired else 1.0
    if direct:  # one pass over the rows for every quantity that needs them
        part = {n: quantities[n] for n in direct}
        y, z = _values(frame.select(_row_values(part)), part)
        if paired:  # a unit's totals: its two rows summed
            y = {n: v[0::2] + v[1::2] for n, v in y.items()}
            z = {n: v[0::2] + v[1::2] for n, v in z.items()}
        count = np.ones(frame.height // 2 if paired else frame.height, dtype=np.int64)
        row |= _sums(part, y, z, count, step)
        if units is not None:
            units |= y
    if coded:  # one small frame holding a row of every code of every group
        rows = np.unique(np.concatenate([first for (_, first), _ in coded.values()]))
        part = {n: quantities[n] for _, names in coded.values() for n in names}
        sample_y, sample_z = _values(frame[rows].select(_row_values(part)), part)
        for (codes, first), names in coded.values():
            at = np.searchsorted(rows, first)
            y_c = {n: sample_y[n][at] for n in names}
            z_c = {n: sample_z[n][at] for n in names if n in sample_z}
            row |= _counted(codes, len(first), y_c, z_c, names, quantities, paired)
            if units is not None:  # each row's value from its code's
                ends = (codes[0::2], codes[1::2]) if paired else (codes,)
                units |= {n: sum(y_c[n][e] for e in ends) for n in names}
    return [row]


def _counted(codes, k: int, y_c: dict, z_c: dict, names, quantities, paired: bool) -> dict:
    """Moments from each row's code and each code's y and z: units counted per combination
    of codes (first game's, second game's when paired)."""
    step = 2.0 if paired else 1.0
    if paired:
        count = np.bincount(codes[0::2] * k + codes[1::2], minlength=k * k)
        y = {n: (v[:, None] + v[None, :]).ravel() for n, v in y_c.items()}
        z = {n: (v[:, None] + v[None, :]).ravel() for n, v in z_c.items()}
    else:
        count, y, z = np.bincount(codes, minlength=k), y_c, z_c
    return _sums({n: quantities[n] for n in names}, y, z, count, step)


def _values(values: pl.DataFrame, quantities: dict) -> tuple[dict, dict]:
    """The y and z columns of _row_values as numpy arrays, by quantity."""
    y = {n: values[f"{n}:y"].to_numpy() for n in quantities}
    z = {n: values[f"{n}:z"].to_numpy() for n in quantities if quantities[n][1] is not None}
    return y, z


def _row_values(quantities: dict) -> list[pl.Expr]:
    """Each quantity's y and (when it has one) z of a row, as floats."""
    out = []
    for name, (y, z) in quantities.items():
        out.append(_value(y).alias(f"{name}:y"))
        if z is not None:
            out.append(_value(z).alias(f"{name}:z"))
    return out


def _sums(quantities: dict, y: dict, z: dict, count: np.ndarray, step: float) -> dict:
    """The moments from per-unit (or per-combination, `count` units each) totals y and z;
    a quantity without z counts `step` games a unit."""
    units = int(count.sum())
    out: dict = {}
    for name in quantities:
        y_u, weighted = y[name], count * y[name]
        out[f"{name}:y"] = float(weighted.sum())
        out[f"{name}:yy"] = float((weighted * y_u).sum())
        if name in z:
            z_u = z[name]
            out[f"{name}:z"] = float((count * z_u).sum())
            out[f"{name}:zz"] = float((count * z_u * z_u).sum())
            out[f"{name}:yz"] = float((weighted * z_u).sum())
            out[f"{name}:units"] = int(count[z_u > 0].sum())
        else:
            out[f"{name}:z"] = units * step
            out[f"{name}:zz"] = units * step * step
            out[f"{name}:yz"] = float(weighted.sum()) * step
            out[f"{name}:units"] = units
    return out


def _codes(frame: pl.DataFrame, roots: list[str], digits: dict) -> tuple | None:
    """Each row's code 0..k-1 for its combination of the roots' values, and a row holding
    each code; None when a column is not categorical, boolean or a narrow integer, or the
    combinations could exceed MAX_CODES (then the rows are summed directly). digits holds
    each column's frame_codes (and the row numbers, under "", once made)."""
    combined, span = None, 1
    for name in roots:
        if digits.get(name) is None:
            return None
        values, radix = digits[name]
        span *= radix
        if span > MAX_CODES * 16:
            return None
        combined = values if combined is None else combined * radix + values
    seen = np.full(span, -1, dtype=np.int64)
    if "" not in digits:  # row numbers, shared by the groups
        digits[""] = (np.arange(frame.height), 0)
    seen[combined] = digits[""][0]  # a row holding each code (the last one written)
    used = seen >= 0
    if used.sum() > MAX_CODES:
        return None
    if used.all():
        return combined, seen
    code_of = np.cumsum(used) - 1
    return code_of[combined], seen[used]


def column_codes(column: pl.Series) -> tuple[np.ndarray, int] | None:
    """A column as small non-negative integers (null the largest) and their count: its
    physical codes (categories, enum values, integers) shifted to start at 0."""
    dtype = column.dtype
    if dtype == pl.String:
        column = column.cast(pl.Categorical)
    elif not (isinstance(dtype, pl.Categorical | pl.Enum | pl.Boolean) or dtype.is_integer()):
        return None
    physical = column.to_physical().cast(pl.Int64)
    low, high = physical.min(), physical.max()
    if low is None:  # every value null
        return np.zeros(len(column), dtype=np.int32), 1
    radix = high - low + 2
    if radix > MAX_CODES * 16:
        return None
    if column.null_count():
        physical = physical.fill_null(high + 1)
    values = physical.to_numpy().astype(np.int32)  # int32: half the memory traffic of int64
    return (values - np.int32(low) if low else values), radix
