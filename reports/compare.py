"""`sim compare`: two run folders side by side, each difference with its interval and p-value.

The unit is the seat-swapped pair (the game without swapping), as in sim.stats. Runs that
played the same seeds in the same seats are compared pair by pair on the pairs' means
(paired), which cancels the deal's luck; otherwise the runs are independent samples compared
on their effective sizes (Newcombe, Welch). Holm's method controls the chance of any false
alarm over the primary family (first-seat rate and A's score per cell), which alone decides
--fail-on-change; the other rows are a secondary family, adjusted on their own. A row that
only mirrors another (the second of two end reasons) is shown but not tested again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from rich.console import Console

from reports import arc, csv_out, present
from reports.balance import NAME as BALANCE
from reports.balance import Closer, closer, closer_of
from reports.paired import line_up, pair_parts
from reports.present import drop, fit
from reports.stats import (
    Difference,
    holm,
    mean_difference,
    paired_difference,
    rate_difference,
)
from reports.summary import a_score, cells, first_score
from reports.tally import from_row, unit, unit_name
from sim.players.specs import read_matchup
from sim.stats import Estimate, Tally, p_text, unit_text
from sim.stats import mean as mean_estimate
from sim.stats import rate as rate_estimate
from sim.store.categories import ENDS
from sim.store.cell_tallies import keyed
from sim.store.folder import RunFolder
from sim.store.quantities import END_ORDER

ALPHA = 0.05
NO_CHANGE = present.NO_CHANGE
PAIR_KEYS = ["game", "seed"]
HASHES = ("config_hash", "rules_version")  # a note when a cell's differ between the runs
SEATS = ["first", "second", "swapped"]


@dataclass(frozen=True)
class Side:
    """One run's value of a row with its 95% interval (sim.stats), over n units."""

    value: float
    low: float
    high: float
    n: int  # the units (pairs, or games) the interval counts
    unit: str = "game"
    games: int = 0

    @classmethod
    def of(cls, e: Estimate) -> Side:
        return cls(e.value, e.low, e.high, e.units, e.unit, e.games)


@dataclass
class Row:
    """One quantity compared: both runs' values and the difference B - A.

    family: "primary" (first-seat rate and A's score: they decide --fail-on-change),
    "secondary" (Holm-adjusted on their own), or "complement" (the mirror of another row,
    shown but not tested again)."""

    metric: str
    rate: bool  # a proportion (else a mean, here turns)
    a: Side
    b: Side
    diff: Difference
    test: str
    family: str = "secondary"
    holm_p: float = math.nan
    significant: bool = False

    @property
    def verdict(self) -> str:
        """'higher in B' / 'lower in B' when Holm-significant, else no detectable change."""
        if self.family == "complement":
            return f"not tested: {self.test}"
        if not self.significant:
            return NO_CHANGE
        return "higher in B" if self.diff.estimate > 0 else "lower in B"


@dataclass
class CellComparison:
    """One match-up (and config) compared across the two runs."""

    config_a: str
    config_b: str
    matchup: str
    paired: bool
    pairing: str  # how, or why not, the games were paired
    n_a: int  # games
    n_b: int
    rows: list[Row]
    units: tuple[str, str] = ("game", "game")  # what each run's intervals count
    balance: Closer | None = None  # which of the two is closer to balanced

    @property
    def configs(self) -> str:
        """'base' when both runs used the same config name, else 'base → base-60'."""
        same = self.config_a == self.config_b
        return self.config_a if same else f"{self.config_a} → {self.config_b}"


@dataclass
class Comparison:
    """Every cell compared, with Holm applied over all their rows."""

    a: Path
    b: Path
    cells: list[CellComparison]
    notes: list[str] = field(default_factory=list)
    alpha: float = ALPHA
    labels: tuple[str, str] | None = None  # how to name A and B (default: their paths)

    @property
    def names(self) -> tuple[str, str]:
        """What A and B stand for: the two run folders, or two configs of one run."""
        return self.labels or (str(self.a), str(self.b))

    @property
    def rows(self) -> list[Row]:
        """All rows of all cells, in display order."""
        return [row for cell in self.cells for row in cell.rows]

    def family(self, name: str) -> list[Row]:
        """The rows of one family ("primary", "secondary" or "complement")."""
        return [row for row in self.rows if row.family == name]

    @property
    def changes(self) -> int:
        """Primary rows with a Holm-significant difference: what --fail-on-change counts."""
        return sum(row.significant for row in self.family("primary"))

    @property
    def secondary_changes(self) -> int:
        """Secondary rows with a Holm-significant difference (their own family)."""
        return sum(row.significant for row in self.family("secondary"))


# --- statistics ----------------------------------------------------------------------------


def row_of(metric: str, rate: bool, a: Tally, b: Tally, units: tuple[str, str]) -> Row:
    """A quantity of two independent runs: Newcombe on effective sizes, or Welch."""
    side = rate_estimate if rate else mean_estimate
    ea, eb = side(a, units[0]), side(b, units[1])
    if rate:
        return Row(
            metric, True, Side.of(ea), Side.of(eb), rate_difference(ea, eb), "two-proportion test"
        )
    return Row(metric, False, Side.of(ea), Side.of(eb), mean_difference(a, b), "Welch t-test")


def paired_row(metric: str, rate: bool, a: Tally, b: Tally, units, ua, ub) -> Row:
    """A quantity of two runs over the same units: paired t on the per-unit means ua, ub."""
    side = rate_estimate if rate else mean_estimate
    ea, eb = side(a, units[0]), side(b, units[1])
    return Row(metric, rate, Side.of(ea), Side.of(eb), paired_difference(ua, ub), "paired t-test")


# --- matching runs, cells and games --------------------------------------------------------


def match_cells(a: RunFolder, b: RunFolder) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(config in A, config in B, match-up) to compare, and notes on what has no partner.

    With one config in each run the two configs are compared whatever their names;
    otherwise only the same (config, match-up) is compared.
    """
    keys_a, keys_b = cells(a), cells(b)
    by_matchup = len({c for c, _ in keys_a}) == 1 and len({c for c, _ in keys_b}) == 1

    def key(config: str, matchup: str) -> tuple[str, ...]:
        """What must be equal for two cells to be compared."""
        return (matchup,) if by_matchup else (config, matchup)

    configs_b = {key(c, m): c for c, m in keys_b}
    found_a = {key(c, m) for c, m in keys_a}
    matched = [(c, configs_b[key(c, m)], m) for c, m in keys_a if key(c, m) in configs_b]
    notes = [f"only in A: {c} · {m}" for c, m in keys_a if key(c, m) not in configs_b]
    notes += [f"only in B: {c} · {m}" for c, m in keys_b if key(c, m) not in found_a]
    return matched, notes


def pairing(fa: pl.DataFrame, fb: pl.DataFrame) -> tuple[bool, str]:
    """Whether two cells played the same games (seeds) in the same seats, and why not."""
    if fa.height != fb.height:
        return False, f"unpaired: {fa.height:,} vs {fb.height:,} games"
    if "seed" not in fa.columns or "seed" not in fb.columns:
        return False, "unpaired: a run records no seeds"
    sa = fa.select(*PAIR_KEYS, *SEATS).sort(PAIR_KEYS)
    sb = fb.select(*PAIR_KEYS, *SEATS).sort(PAIR_KEYS)
    if not sa.select(PAIR_KEYS).equals(sb.select(PAIR_KEYS)):
        return False, "unpaired: the runs played different seeds"
    if not sa.equals(sb):
        return False, "unpaired: same seeds but different seats"
    if unit_name(fa) == "pair":
        pairs = f"{fa.height // 2:,} pairs ({fa.height:,} games; same seeds and seats)"
        return True, f"paired on {pairs}"
    return True, f"paired on {fa.height:,} games (same seeds and seats)"


def metrics(
    matchup: str, ends: list[str], lines: list[int], with_arc: bool = False
) -> list[tuple[str, pl.Expr, bool, str, str]]:
    """(name, per-game value, is a rate, family, the workers' tally of it) for every row
    compared: each run's values come from its tallies (sim/store/quantities.py), the per-game
    values feed the paired differences. With only two end reasons the second is the first's
    complement and is not tested again. with_arc: both runs have the arc columns (#34),
    compared as shares of all games (a paired test needs every game in both runs'
    denominators)."""
    a = read_matchup(matchup).first.text
    winner, outcome = pl.col("winner"), pl.col("outcome")
    rows = [
        ("first-seat win rate", winner == "first", True, "primary", "win:first seat"),
        (f"A ({a}) score", a_score(), True, "primary", "win:A score"),
        ("draw rate", winner == "draw", True, "secondary", "win:draw"),
        ("tie-break rate", outcome == "tiebreak", True, "secondary", "outcome:tiebreak"),
        *(
            (
                f"end: {r}",
                pl.col("end_reason") == r,
                True,
                "complement" if i and len(ends) == 2 else "secondary",
                f"end:{r}",
            )
            for i, r in enumerate(ends)
        ),
        ("mean turns", pl.col("turns"), False, "secondary", "turns"),
        *(
            (
                f"line {v} controlled by first seat",
                pl.col(f"line_{v}") == "first",
                True,
                "secondary",
                f"line:{v}:first",
            )
            for v in lines
        ),
        *(arc_metrics() if with_arc else []),
    ]
    return [
        (name, expr.fill_null(False).cast(pl.Float64), rate, family, tally)
        for name, expr, rate, family, tally in rows
    ]


def arc_metrics() -> list[tuple[str, pl.Expr, bool, str, str]]:
    """The game's arc as secondary rows: mean lead changes, and of all games the shares won
    from 10 and 20 points behind and won by the half-time leader (docs/statistics.md)."""
    deficit, half = pl.col("max_deficit"), pl.col("half_leader").cast(pl.String)
    return [
        ("mean lead changes", pl.col("lead_changes"), False, "secondary", "arc:lead_changes"),
        *(
            (f"won from {p}+ behind", deficit >= p, True, "secondary", f"arc:from_behind:{p}")
            for p in arc.COMEBACKS
        ),
        ("half-time leader won", half == pl.col("winner").cast(pl.String), True, "secondary",
         "arc:half_leader_won"),
    ]  # fmt: skip


def tally_row(run: RunFolder, config: str, matchup: str, chosen: list) -> dict:
    """The cell's tallies of the chosen rows and of the first seat's score (BALANCE), as a
    row of `name:field` keys (reports.tally.from_row reads it)."""
    counted = run.tallies[(config, matchup)].moments
    named = {name: tally for name, _, _, _, tally in chosen} | {BALANCE: "seat:first score"}
    return {k: v for name, tally in named.items() for k, v in keyed(name, counted[tally]).items()}


def has_arc(*columns) -> bool:
    """Every one of the column lists has the arc columns (runs from before #34 do not)."""
    return all(set(arc.COLUMNS) <= set(c) for c in columns)


def _ends(fa: pl.DataFrame, fb: pl.DataFrame) -> list[str]:
    """End reasons seen in either cell, in the usual order."""
    seen = set(fa["end_reason"].drop_nulls()) | set(fb["end_reason"].drop_nulls())
    return [r for r in END_ORDER if r in seen] + sorted(seen - set(END_ORDER))


def compare_cell(
    a: RunFolder, b: RunFolder, config_a: str, config_b: str, matchup: str
) -> tuple[CellComparison | None, list[str]]:
    """One cell's rows (None when a run has under two games) and notes about it: read part
    by part in bounded memory when each run's parts hold one cell and, if the runs are
    paired, line up; otherwise the cell's games are read whole."""
    parts_a, parts_b = _cell_parts(a, config_a, matchup), _cell_parts(b, config_b, matchup)
    if parts_a is None or parts_b is None:
        return _compare_whole(a, b, config_a, config_b, matchup)
    games = {**_part_games(a), **_part_games(b)}
    n_a, n_b = sum(games[p] for p in parts_a), sum(games[p] for p in parts_b)
    lined_up = n_a == n_b and line_up(parts_a, parts_b, games.get)
    if n_a == n_b and not lined_up:
        return _compare_whole(a, b, config_a, config_b, matchup)
    where = f"{config_a if config_a == config_b else f'{config_a} → {config_b}'} · {matchup}"
    if n_a < 2 or n_b < 2:
        return None, [f"{where}: too few games to compare ({n_a} vs {n_b})"]
    lines_a, lines_b = a.lines(config_a), b.lines(config_b)
    notes = [f"{where}: line {v} only in A" for v in lines_a if v not in lines_b]
    notes += [f"{where}: line {v} only in B" for v in lines_b if v not in lines_a]
    lines = [v for v in lines_a if v in lines_b]
    arcs = has_arc(a.columns, b.columns)
    every = metrics(matchup, [*END_ORDER, *(e for e in ENDS if e not in END_ORDER)], lines, arcs)
    sides = ((a, config_a), (b, config_b))
    ta, tb = (tally_row(run, config, matchup, every) for run, config in sides)
    ends = [r for r in END_ORDER if ta[f"end: {r}:y"] or tb[f"end: {r}:y"]]
    chosen = metrics(matchup, ends, lines, arcs)
    units = tuple(run.tallies[(config, matchup)].unit for run, config in sides)
    seen = None  # the config hashes and rules versions, when pair_parts reads them
    if not lined_up:
        paired, how, sums = False, f"unpaired: {n_a:,} vs {n_b:,} games", {}
    else:  # one reading of each part: the pairs' differences and the hashes
        values = {name: expr for name, expr, _, _, _ in chosen}
        found, seen = pair_parts(parts_a, parts_b, values, first_score(), HASHES,
                                 (a.seeding, b.seeding))  # fmt: skip
        paired, how, sums = found.paired, found.why, found.sums
        if paired:
            pairs = f"{n_a // 2:,} pairs ({n_a:,} games; same seeds and seats)"
            how = (
                f"paired on {pairs}"
                if units[0] == "pair"
                else (f"paired on {n_a:,} games (same seeds and seats)")
            )

    def summed(name, rate, a_t, b_t):
        side = rate_estimate if rate else mean_estimate
        ea, eb = side(a_t, units[0]), side(b_t, units[1])
        return Row(name, rate, Side.of(ea), Side.of(eb), sums[name].difference(), "paired t-test")

    rows = _rows(chosen, ta, tb, units, summed if paired else None)
    scores = (rate_estimate(from_row(t, BALANCE), u) for t, u in zip((ta, tb), units, strict=True))
    balance = closer_of(*scores, sums if paired else None)
    cell = CellComparison(config_a, config_b, matchup, paired, how, n_a, n_b, rows, units, balance)
    return cell, notes + _part_hash_notes(parts_a, parts_b, where, seen)


def _rows(chosen, ta: dict, tb: dict, units, paired) -> list[Row]:
    """The cell's rows in the metrics' order, from each run's tallies: paired(name, rate,
    a_tally, b_tally) makes a paired row, else (None) the two runs count as independent."""
    rows = []
    for name, _, rate, family, _ in chosen:
        a_t, b_t = from_row(ta, name), from_row(tb, name)
        row = paired(name, rate, a_t, b_t) if paired else row_of(name, rate, a_t, b_t, units)
        if family == "complement":
            row.test = f"the complement of {rows[-1].metric}"
        row.family = family
        rows.append(row)
    return rows


def _cell_parts(run: RunFolder, config: str, matchup: str) -> list[Path] | None:
    """The run's parts of one cell in order, or None when some part holds several cells."""
    cells = run.part_cells
    if any(c is None for c in cells.values()):
        return None
    return [p for p, c in cells.items() if c[:2] == (config, matchup)]


def _part_games(run: RunFolder) -> dict[Path, int]:
    return {p: c[2] for p, c in run.part_cells.items() if c is not None}


def _part_hash_notes(
    parts_a: list[Path], parts_b: list[Path], where: str, seen: list | None = None
) -> list[str]:
    """_hash_notes from the parts: the config hashes and rules versions each cell holds
    (seen: those pair_parts found on its way, by run and column; else read here)."""
    if seen is None:
        seen = []
        for parts in (parts_a, parts_b):
            names = pl.scan_parquet(parts[:1]).collect_schema().names()
            wanted = [c for c in HASHES if c in names]
            unique = pl.col(wanted).unique().cast(pl.String).implode()  # cast the few values
            values = pl.scan_parquet(parts).select(unique)
            seen.append(values.collect().row(0, named=True) if wanted else {})
    notes = []
    for column, what in (("config_hash", "config hashes"), ("rules_version", "rules versions")):
        if column in seen[0] and column in seen[1]:
            va, vb = sorted(seen[0][column]), sorted(seen[1][column])
            if va != vb:
                notes.append(f"{where}: {what} differ ({', '.join(va)} vs {', '.join(vb)})")
    return notes


def _compare_whole(
    a: RunFolder, b: RunFolder, config_a: str, config_b: str, matchup: str
) -> tuple[CellComparison | None, list[str]]:
    """compare_cell with each cell's games read whole (cell_frame)."""
    fa, fb = cell_frame(a, config_a, matchup), cell_frame(b, config_b, matchup)
    where = f"{config_a if config_a == config_b else f'{config_a} → {config_b}'} · {matchup}"
    if fa.height < 2 or fb.height < 2:
        return None, [f"{where}: too few games to compare ({fa.height} vs {fb.height})"]
    lines_a, lines_b = a.lines(config_a, fa), b.lines(config_b, fb)
    notes = [f"{where}: line {v} only in A" for v in lines_a if v not in lines_b]
    notes += [f"{where}: line {v} only in B" for v in lines_b if v not in lines_a]
    paired, how = pairing(fa, fb)
    lines = [v for v in lines_a if v in lines_b]
    chosen = metrics(matchup, _ends(fa, fb), lines, has_arc(fa.columns, fb.columns))
    ta = tally_row(a, config_a, matchup, chosen)
    tb = tally_row(b, config_b, matchup, chosen)
    units = (a.tallies[(config_a, matchup)].unit, b.tallies[(config_b, matchup)].unit)
    means = _unit_means(fa, fb, chosen) if paired else None

    def on_means(name, rate, a_t, b_t):
        return paired_row(name, rate, a_t, b_t, units, means[0][name], means[1][name])

    rows = _rows(chosen, ta, tb, units, on_means if means is not None else None)
    n_a, n_b = rows[0].a.games, rows[0].b.games
    scores = (rate_estimate(from_row(t, BALANCE), u) for t, u in zip((ta, tb), units, strict=True))
    balance = closer(*scores, (fa, fb) if paired else None)
    cell = CellComparison(config_a, config_b, matchup, paired, how, n_a, n_b, rows, units, balance)
    return cell, notes + _hash_notes(fa, fb, where)


COMPARED = ["config", "matchup", "config_hash", "rules_version", "pair", *PAIR_KEYS, *SEATS]
COMPARED += ["winner", "outcome", "end_reason", "turns", *arc.COLUMNS]


def cell_frame(run: RunFolder, config: str, matchup: str) -> pl.DataFrame:
    """One cell's games with only the columns compare reads (the line columns too), text
    as strings, and their seeds (derived when the parts hold none, sim.store.seeding); the scan
    reads nothing of the other cells' columns it can skip."""
    scan = run.seeded() if run.seeding.known else run.scan()
    wanted = [c for c in scan.collect_schema().names() if c in COMPARED or c.startswith("line_")]
    frame = (
        scan.select(wanted)
        .filter(
            (pl.col("config").cast(pl.String) == config)
            & (pl.col("matchup").cast(pl.String) == matchup)
        )
        .collect()
    )
    return frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))


def _unit_means(fa: pl.DataFrame, fb: pl.DataFrame, chosen) -> tuple[dict, dict]:
    """Per unit (pair, or game) and quantity, the mean over the unit's games, in unit order."""
    out = []
    for f in (fa, fb):
        f = f if "pair" in f.columns else f.with_columns(pl.lit(None, pl.Int64).alias("pair"))
        per = (
            f.group_by(unit().alias("_unit"))
            .agg(expr.mean().alias(name) for name, expr, *_ in chosen)
            .sort("_unit")
        )
        out.append({name: per[name].to_numpy() for name, *_ in chosen})
    return out[0], out[1]


def _hash_notes(fa: pl.DataFrame, fb: pl.DataFrame, where: str) -> list[str]:
    """Say when the same config name stands for different content or rules versions."""
    notes = []
    for column, what in (("config_hash", "config hashes"), ("rules_version", "rules versions")):
        if column in fa.columns and column in fb.columns:
            va, vb = sorted(set(fa[column])), sorted(set(fb[column]))
            if va != vb:
                notes.append(f"{where}: {what} differ ({', '.join(va)} vs {', '.join(vb)})")
    return notes


def compare_runs(
    a: RunFolder, b: RunFolder, alpha: float = ALPHA, labels: tuple[str, str] | None = None
) -> Comparison:
    """Compare every matching cell, then apply Holm over the primary rows of all cells (the
    gate), and separately over the secondary rows."""
    matched, notes = match_cells(a, b)
    notes = a.warnings() + b.warnings() + notes
    compared = []
    for config_a, config_b, matchup in matched:
        cell, cell_notes = compare_cell(a, b, config_a, config_b, matchup)
        notes += cell_notes
        if cell is not None:
            compared.append(cell)
    comparison = Comparison(a.path, b.path, compared, notes, alpha, labels)
    for family in ("primary", "secondary"):  # separate families: secondary never pads the gate
        rows = comparison.family(family)
        for row, (adjusted, rejected) in zip(
            rows, holm([r.diff.p_value for r in rows], alpha), strict=True
        ):
            row.holm_p, row.significant = adjusted, rejected
    return comparison


# --- output --------------------------------------------------------------------------------


def _side_text(side: Side, rate: bool) -> str:
    """'51.2% [50.5, 51.9]' or '34.10 [33.90, 34.30]'."""
    if rate:
        return present.rate(side.value, side.low, side.high)
    return present.mean(side.value, side.low, side.high)


def _diff_text(d: Difference, rate: bool) -> str:
    """'+1.3 pts [+0.4, +2.2]' for rates, '+0.52 [+0.10, +0.94]' for means."""
    if rate:
        return present.pts(d.estimate, d.low, d.high)
    return present.mean_diff(d.estimate, d.low, d.high)


def _p(row: Row) -> str:
    """The row's p-value, or a dash for a complement that is not tested."""
    return "—" if row.family == "complement" else p_text(row.diff.p_value)


def _headline(c: Comparison) -> str:
    """One line: how many primary rows changed (the gate), and how many secondary ones."""
    primary, secondary = len(c.family("primary")), len(c.family("secondary"))
    gate = (
        f"{c.changes} of {primary} primary rows changed significantly"
        if c.changes
        else f"no detectable change in any of {primary} primary rows"
    )
    return (
        f"{gate} (first-seat rate and A's score per cell, Holm over the {primary}, "
        f"α = {c.alpha:g}; they decide --fail-on-change); secondary: {c.secondary_changes} of "
        f"{secondary} rows changed (Holm over those {secondary} on their own)"
    )


def balance_lines(c: Comparison) -> list[str]:
    """Per cell, which of A and B is closer to balanced (the designer's first question)."""
    return [
        f"{cell.configs} · {cell.matchup}: {cell.balance.text()}"
        for cell in c.cells
        if cell.balance is not None
    ]


def render(c: Comparison, console: Console) -> None:
    """Which is closer to balanced first, then one table per cell, significant rows
    highlighted."""
    console.print(f"A = {c.names[0]}\nB = {c.names[1]}", highlight=False, markup=False)
    console.rule("[bold]Closer to balanced?[/bold]")
    for line in balance_lines(c):
        console.print(line, highlight=False, markup=False)
    console.rule("[bold]Rows that changed[/bold]")
    for cell in c.cells:
        n_a, n_b = (
            unit_text(side.n, u)
            for side, u in zip((cell.rows[0].a, cell.rows[0].b), cell.units, strict=True)
        )
        table = present.table(
            "metric",
            "A [95% CI]",
            "B [95% CI]",
            "B − A [95% CI]",
            "p",
            "Holm p",
            "verdict",
            title=f"{cell.configs} · {cell.matchup} · {cell.pairing}; n = {n_a} in A, {n_b} in B",
        )
        shown = present.stack if console.width < 120 else str
        for row in cell.rows:
            table.add_row(
                f"{row.metric}{' (primary)' if row.family == 'primary' else ''}",
                shown(_side_text(row.a, row.rate)),
                shown(_side_text(row.b, row.rate)),
                shown(_diff_text(row.diff, row.rate)),
                _p(row),
                p_text(row.holm_p),
                row.verdict,
                style="bold red" if row.significant else None,
            )
        if console.width < 100:  # Holm's p is the one that decides; the raw p waits for room
            drop(table, "p")
        fit(table, whole=(1, 2, 3), width=console.width)
        console.print(table)
    for note in c.notes:
        console.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    console.print(_headline(c), style="bold", highlight=False)


def to_markdown(c: Comparison) -> str:
    """A Markdown table for a pull request; significant rows in bold."""
    lines = [
        f"**{_headline(c)}**",
        "",
        f"A = `{c.names[0]}`, B = `{c.names[1]}`",
        "",
        *(f"- {line}" for line in balance_lines(c)),
        "",
        "| config | match-up | pairing | metric | A [95% CI] | B [95% CI] | B − A [95% CI] | p "
        "| Holm p | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in c.cells:
        how = "paired" if cell.paired else "unpaired"
        for row in cell.rows:
            verdict = f"**{row.verdict}**" if row.significant else row.verdict
            lines.append(
                f"| {cell.configs} | {cell.matchup} | {how} | {row.metric} "
                f"| {_side_text(row.a, row.rate)} | {_side_text(row.b, row.rate)} "
                f"| {_diff_text(row.diff, row.rate)} | {_p(row)} "
                f"| {p_text(row.holm_p)} | {verdict} |"
            )
    lines += [f"- note: {note}" for note in c.notes]
    return "\n".join(lines) + "\n"


def to_csv(c: Comparison) -> str:
    """Every row of every cell as CSV (reports.csv_out), from the values to_json gives."""
    shape = to_json(c)
    keep = ("config_a", "config_b", "matchup")
    return csv_out.to_csv(
        {**{k: cell[k] for k in keep}, **row} for cell in shape["cells"] for row in cell["rows"]
    )


def to_json(c: Comparison) -> dict:
    """Everything compared, as plain JSON values (NaN as null)."""

    def num(x: float) -> float | None:
        """NaN as None, which JSON can hold."""
        return None if math.isnan(x) else x

    def side(s: Side) -> dict:
        """One run's value as a JSON object: n counts its units (pairs, or games)."""
        return {
            "value": num(s.value),
            "low": num(s.low),
            "high": num(s.high),
            "n": s.n,
            "unit": s.unit,
            "games": s.games,
        }

    return {
        "a": c.names[0],
        "b": c.names[1],
        "alpha": c.alpha,
        "correction": "holm, primary and secondary families apart",
        "rows_compared": len(c.rows),
        "primary_rows": len(c.family("primary")),
        "significant_changes": c.changes,
        "secondary_significant_changes": c.secondary_changes,
        "notes": c.notes,
        "cells": [
            {
                "config_a": cell.config_a,
                "config_b": cell.config_b,
                "matchup": cell.matchup,
                "paired": cell.paired,
                "pairing": cell.pairing,
                "games_a": cell.n_a,
                "games_b": cell.n_b,
                "balance": None if cell.balance is None else cell.balance.to_json(),
                "rows": [
                    {
                        "metric": row.metric,
                        "kind": "rate" if row.rate else "mean",
                        "a": side(row.a),
                        "b": side(row.b),
                        "difference": {
                            "estimate": row.diff.estimate,
                            "low": row.diff.low,
                            "high": row.diff.high,
                        },
                        "test": row.test,
                        "family": row.family,
                        "paired": row.diff.paired,
                        "p_value": num(row.diff.p_value) if row.family != "complement" else None,
                        "holm_p": num(row.holm_p),
                        "significant": row.significant,
                        "verdict": row.verdict,
                    }
                    for row in cell.rows
                ],
            }
            for cell in c.cells
        ],
    }
