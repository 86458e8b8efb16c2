"""`sim compare`: two run folders side by side, each difference with its interval and p-value.

Runs that played the same seeds in the same seats are compared game by game (paired), which
cancels the deal's luck; otherwise the runs are independent samples (unpaired). Holm's method
controls the chance of any false alarm over all rows compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from rich.console import Console
from rich.table import Table
from scipy import stats as sps

from reports.stats import Difference, holm, paired_difference, unpaired_difference, wilson
from reports.summary import (
    END_ORDER,
    Mean,
    RunFolder,
    a_won,
    cells,
    pct,
)

ALPHA = 0.05
NO_CHANGE = "no detectable change"
PAIR_KEYS = ["game", "seed"]
SEATS = ["first", "second", "swapped"]


@dataclass(frozen=True)
class Side:
    """One run's value of a row with its 95% interval and sample size."""

    value: float
    low: float
    high: float
    n: int


@dataclass
class Row:
    """One quantity compared: both runs' values and the difference B - A."""

    metric: str
    rate: bool  # a proportion (else a mean, here turns)
    a: Side
    b: Side
    diff: Difference
    test: str
    holm_p: float = math.nan
    significant: bool = False

    @property
    def verdict(self) -> str:
        """'higher in B' / 'lower in B' when Holm-significant, else no detectable change."""
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
    n_a: int
    n_b: int
    rows: list[Row]

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

    @property
    def rows(self) -> list[Row]:
        """All rows of all cells, in display order."""
        return [row for cell in self.cells for row in cell.rows]

    @property
    def changes(self) -> int:
        """Rows with a Holm-significant difference."""
        return sum(row.significant for row in self.rows)


# --- statistics ----------------------------------------------------------------------------


def welch_difference(a: np.ndarray, b: np.ndarray, confidence: float = 0.95) -> Difference:
    """mean(b) - mean(a) for independent samples: Welch's t interval and t-test."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size < 2 or b.size < 2:
        raise ValueError("each run needs at least two games")
    d = float(b.mean() - a.mean())
    if a.var() == 0 and b.var() == 0:  # t is 0/0 or infinite, and scipy would warn
        return Difference(d, d, d, 1.0 if d == 0 else 0.0, False, a.size, b.size)
    result = sps.ttest_ind(b, a, equal_var=False)
    interval = result.confidence_interval(confidence)
    return Difference(
        d, float(interval.low), float(interval.high), float(result.pvalue), False, a.size, b.size
    )


def rate_row(metric: str, a: np.ndarray, b: np.ndarray, paired: bool) -> Row:
    """A proportion compared: per-game 0/1 outcomes of each run."""
    k_a, k_b = int(a.sum()), int(b.sum())
    side_a = Side(k_a / a.size, *wilson(k_a, a.size), a.size)
    side_b = Side(k_b / b.size, *wilson(k_b, b.size), b.size)
    if paired:
        return Row(metric, True, side_a, side_b, paired_difference(a, b), "paired t-test")
    diff = unpaired_difference(k_a, a.size, k_b, b.size)
    return Row(metric, True, side_a, side_b, diff, "two-proportion test")


def mean_row(metric: str, a: np.ndarray, b: np.ndarray, paired: bool) -> Row:
    """A mean compared: per-game values of each run."""
    sides = []
    for x in (a, b):
        m = Mean(x.size, float(x.mean()), float(x.std(ddof=1)))
        sides.append(Side(m.mean, *m.interval, m.n))
    if paired:
        return Row(metric, False, *sides, paired_difference(a, b), "paired t-test")
    return Row(metric, False, *sides, welch_difference(a, b), "Welch t-test")


# --- matching runs, cells and games --------------------------------------------------------


def match_cells(a: RunFolder, b: RunFolder) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(config in A, config in B, match-up) to compare, and notes on what has no partner.

    With one config in each run the two configs are compared whatever their names;
    otherwise only the same (config, match-up) is compared.
    """
    keys_a, keys_b = cells(a.games), cells(b.games)
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
    sa = fa.select(*PAIR_KEYS, *SEATS).sort(PAIR_KEYS)
    sb = fb.select(*PAIR_KEYS, *SEATS).sort(PAIR_KEYS)
    if not sa.select(PAIR_KEYS).equals(sb.select(PAIR_KEYS)):
        return False, "unpaired: the runs played different seeds"
    if not sa.equals(sb):
        return False, "unpaired: same seeds but different seats"
    return True, f"paired on {fa.height:,} games (same seeds and seats)"


def metrics(matchup: str, ends: list[str], lines: list[int]) -> list[tuple[str, pl.Expr, bool]]:
    """(name, per-game value, is a rate) for every row compared."""
    a = matchup.partition(",")[0]
    winner, outcome = pl.col("winner"), pl.col("outcome")
    rows = [
        ("first-seat win rate", winner == "first", True),
        (f"A ({a}) win rate", a_won(), True),
        ("draw rate", winner == "draw", True),
        ("tie-break rate", outcome == "tiebreak", True),
        *((f"end: {r}", pl.col("end_reason") == r, True) for r in ends),
        ("mean turns", pl.col("turns"), False),
        *(
            (f"line {v} controlled by first seat", pl.col(f"line_{v}") == "first", True)
            for v in lines
        ),
    ]
    return [
        (name, expr.fill_null(False).cast(pl.Float64).alias(name), rate)
        for name, expr, rate in rows
    ]


def _ends(fa: pl.DataFrame, fb: pl.DataFrame) -> list[str]:
    """End reasons seen in either cell, in the usual order."""
    seen = set(fa["end_reason"].drop_nulls()) | set(fb["end_reason"].drop_nulls())
    return [r for r in END_ORDER if r in seen] + sorted(seen - set(END_ORDER))


def compare_cell(
    a: RunFolder, b: RunFolder, config_a: str, config_b: str, matchup: str
) -> tuple[CellComparison | None, list[str]]:
    """One cell's rows (None when a run has under two games) and notes about it."""
    fa = a.games.filter((pl.col("config") == config_a) & (pl.col("matchup") == matchup))
    fb = b.games.filter((pl.col("config") == config_b) & (pl.col("matchup") == matchup))
    where = f"{config_a if config_a == config_b else f'{config_a} → {config_b}'} · {matchup}"
    if fa.height < 2 or fb.height < 2:
        return None, [f"{where}: too few games to compare ({fa.height} vs {fb.height})"]
    lines_a, lines_b = a.lines(config_a, fa), b.lines(config_b, fb)
    notes = [f"{where}: line {v} only in A" for v in lines_a if v not in lines_b]
    notes += [f"{where}: line {v} only in B" for v in lines_b if v not in lines_a]
    paired, how = pairing(fa, fb)
    if paired:
        fa, fb = fa.sort(PAIR_KEYS), fb.sort(PAIR_KEYS)
    chosen = metrics(matchup, _ends(fa, fb), [v for v in lines_a if v in lines_b])
    va, vb = (f.select(expr for _, expr, _ in chosen) for f in (fa, fb))
    rows = [
        (rate_row if rate else mean_row)(name, va[name].to_numpy(), vb[name].to_numpy(), paired)
        for name, _, rate in chosen
    ]
    cell = CellComparison(config_a, config_b, matchup, paired, how, fa.height, fb.height, rows)
    return cell, notes + _hash_notes(fa, fb, where)


def _hash_notes(fa: pl.DataFrame, fb: pl.DataFrame, where: str) -> list[str]:
    """Say when the same config name stands for different content or rules versions."""
    notes = []
    for column, what in (("config_hash", "config hashes"), ("rules_version", "rules versions")):
        if column in fa.columns and column in fb.columns:
            va, vb = sorted(set(fa[column])), sorted(set(fb[column]))
            if va != vb:
                notes.append(f"{where}: {what} differ ({', '.join(va)} vs {', '.join(vb)})")
    return notes


def compare_runs(a: RunFolder, b: RunFolder, alpha: float = ALPHA) -> Comparison:
    """Compare every matching cell, then apply Holm over all rows at once."""
    matched, notes = match_cells(a, b)
    notes = a.warnings() + b.warnings() + notes
    compared = []
    for config_a, config_b, matchup in matched:
        cell, cell_notes = compare_cell(a, b, config_a, config_b, matchup)
        notes += cell_notes
        if cell is not None:
            compared.append(cell)
    comparison = Comparison(a.path, b.path, compared, notes, alpha)
    rows = comparison.rows
    for row, (adjusted, rejected) in zip(
        rows, holm([r.diff.p_value for r in rows], alpha), strict=True
    ):
        row.holm_p, row.significant = adjusted, rejected
    return comparison


# --- output --------------------------------------------------------------------------------


def _side_text(side: Side, rate: bool) -> str:
    """'51.2% [50.5, 51.9]' or '34.10 [33.90, 34.30]'."""
    if rate:
        return f"{pct(side.value)} [{100 * side.low:.1f}, {100 * side.high:.1f}]"
    return f"{side.value:.2f} [{side.low:.2f}, {side.high:.2f}]"


def _diff_text(d: Difference, rate: bool) -> str:
    """'+1.3 pts [0.4, 2.2]' for rates, '+0.52 [0.10, 0.94]' for means."""
    if rate:
        return f"{100 * d.estimate:+.1f} pts [{100 * d.low:+.1f}, {100 * d.high:+.1f}]"
    return f"{d.estimate:+.2f} [{d.low:+.2f}, {d.high:+.2f}]"


def p_text(p: float) -> str:
    """A p-value in two significant digits."""
    return "<1e-300" if p < 1e-300 else f"{p:.2g}"


def _headline(c: Comparison) -> str:
    """One line: how many rows changed, under which correction."""
    n = len(c.rows)
    return (
        f"{c.changes} of {n} rows changed significantly (Holm over all {n} rows, α = {c.alpha:g})"
        if c.changes
        else f"no detectable change in any of {n} rows (Holm over all rows, α = {c.alpha:g})"
    )


def render(c: Comparison, console: Console) -> None:
    """Rich tables, one per cell, significant rows highlighted."""
    console.print(f"A = {c.a}\nB = {c.b}", highlight=False)
    for cell in c.cells:
        table = Table(
            "metric",
            f"A [95% CI] (n = {cell.n_a:,})",
            f"B [95% CI] (n = {cell.n_b:,})",
            "B − A [95% CI]",
            "p",
            "Holm p",
            "verdict",
            title=f"{cell.configs} · {cell.matchup} · {cell.pairing}",
        )
        for row in cell.rows:
            table.add_row(
                row.metric,
                _side_text(row.a, row.rate),
                _side_text(row.b, row.rate),
                _diff_text(row.diff, row.rate),
                p_text(row.diff.p_value),
                p_text(row.holm_p),
                row.verdict,
                style="bold red" if row.significant else None,
            )
        console.print(table)
    for note in c.notes:
        console.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    console.print(_headline(c), style="bold", highlight=False)


def to_markdown(c: Comparison) -> str:
    """A Markdown table for a pull request; significant rows in bold."""
    lines = [
        f"**{_headline(c)}**",
        "",
        f"A = `{c.a}`, B = `{c.b}`",
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
                f"| {_diff_text(row.diff, row.rate)} | {p_text(row.diff.p_value)} "
                f"| {p_text(row.holm_p)} | {verdict} |"
            )
    lines += [f"- note: {note}" for note in c.notes]
    return "\n".join(lines) + "\n"


def to_json(c: Comparison) -> dict:
    """Everything compared, as plain JSON values (NaN as null)."""

    def num(x: float) -> float | None:
        """NaN as None, which JSON can hold."""
        return None if math.isnan(x) else x

    def side(s: Side) -> dict:
        """One run's value as a JSON object."""
        return {"value": num(s.value), "low": num(s.low), "high": num(s.high), "n": s.n}

    return {
        "a": str(c.a),
        "b": str(c.b),
        "alpha": c.alpha,
        "correction": "holm",
        "rows_compared": len(c.rows),
        "significant_changes": c.changes,
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
                        "paired": row.diff.paired,
                        "p_value": row.diff.p_value,
                        "holm_p": row.holm_p,
                        "significant": row.significant,
                        "verdict": row.verdict,
                    }
                    for row in cell.rows
                ],
            }
            for cell in c.cells
        ],
    }
