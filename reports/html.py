"""One self-contained HTML report of a run folder: inline CSS, matplotlib plots inlined as
SVG (reports/plots.py), the line-control heat map laid out here and drawn by the page's
template (reports/templates/report.html.j2, rendered with autoescape by reports/render.py).

Nothing in the file refers to the network, so it opens anywhere. Every section states its
sample size and says plainly when a sample is too small to tell. Every interval comes from
sim.stats with the seat-swapped pair as the unit (the game without swapping): the two
games of a pair share their deal (with one deterministic strategy in both seats they are
the same game twice), so summary, compare, the Parquet tables and this page agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from reports import arc as game_arc
from reports import plots, present
from reports.html_skill import skill_section
from reports.lead_bands import bands_section
from reports.render import render
from reports.stats import Difference, holm, rate_difference
from reports.tally import card_sums, from_row
from reports.verdict import DEFAULT_MARGIN, decide
from sim.players.specs import split_top_level
from sim.stats import Estimate, p_text
from sim.stats import rate as rate_estimate
from sim.store.categories import ENDS, MOMENTS
from sim.store.cell_tallies import keyed, summed
from sim.store.folder import RunFolderError, open_run, plain
from sim.store.quantities import game_counts, group_counts

MIN_SEEDS = 30
"""Fewer independent seeds than this and a section says it is too small to tell."""

FIRST_COLOUR, SECOND_COLOUR, DRAW_COLOUR = "#2b6cb0", "#c05621", "#718096"
KEYS = ["config", "matchup"]


class ReportError(ValueError):
    """A folder that is not a readable run; the message names it."""


@dataclass(frozen=True)
class Run:
    """A run folder's manifest and lazy views of its tables (text columns as strings)."""

    folder: Path
    manifest: dict
    games: pl.LazyFrame
    cards: pl.LazyFrame | None  # the card tallies (sim.store.tables.card_tally_columns)
    parts: tuple[Path, ...] = ()  # the verified games parts, read a few at a time
    tallies: dict = field(default_factory=dict)  # (config, matchup) -> the workers' CellTally
    cache: dict = field(default_factory=dict, compare=False)  # what one pass over parts found


def load_run(folder: Path) -> Run:
    """Open a run folder through the one reader (sim.store.folder); ReportError when it
    holds no run."""
    try:
        run = open_run(folder)
    except RunFolderError as exc:
        raise ReportError(str(exc)) from None
    try:
        counted = run.tallies
    except RunFolderError as exc:
        raise ReportError(str(exc)) from None
    cards = run.table_parts("card_tallies")
    card_tallies = pl.scan_parquet(cards) if cards else None
    return Run(folder, run.manifest, plain(run.scan()), card_tallies, run.parts, counted)


def write_report(folder: Path, out: Path, margin: float = DEFAULT_MARGIN) -> Path:
    """Build the report of the run in folder and write it to out."""
    try:
        page = build_report(load_run(folder), margin)
    except (pl.exceptions.PolarsError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ReportError(f"{folder}: cannot read the run's tables: {first}") from exc
    return write_page(page, out)


def write_page(page: str, out: Path) -> Path:
    """A built page written to out (its folder made); ReportError when it cannot be."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write {out}: {exc.strerror or exc}") from exc
    return out


def build_report(run: Run, margin: float = DEFAULT_MARGIN) -> str:
    """The whole HTML page."""
    run_id = str(run.manifest.get("run_id", run.folder.name))
    return render(
        "report.html.j2",
        title=f"One Zero One run report {run_id}",
        overview=overview(run),
        winrates=winrate_section(run, margin),
        skill=skill_section(run.folder, margin),
        distributions=distribution_section(run),
        lines=line_control_section(run),
        arc=arc_section(run),
        bands=bands_section(run.folder, list(run.parts)),
        cards=card_section(run),
    )


# Numbers and samples


def _count(value) -> str:
    """A whole number with thousands separators, or '?' when the manifest lacks it."""
    return f"{value:,}" if isinstance(value, int) else "?"


def pct(x: float) -> str:
    """A share as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def estimate_text(e: Estimate) -> str:
    """'51.6% [50.9, 52.3]': a rate with its 95% interval over the units (sim.stats)."""
    return "-" if e.games == 0 or math.isnan(e.value) else e.text()


def estimate(r: dict, name: str) -> Estimate:
    """Quantity name's estimate from a row of reports.tally.tallies."""
    return rate_estimate(from_row(r, name), r.get("unit", "pair"))


@dataclass(frozen=True)
class Sample:
    """The sample-size sentence every section starts with (macros.html.j2): games, seeds,
    and the seeds below which it says the sample is too small to tell."""

    games: int
    seeds: int
    least: int = MIN_SEEDS


# The line-control heat map


def heatmap(
    rows: Sequence[tuple[str, str, Sequence[float | None]]], columns: Sequence[str], label: str
) -> dict:
    """The layout of a heat map (the template's heatmap macro draws it): cells shaded by
    share, rows (label, colour, values), None for a line the config lacks."""
    left, cell_w, cell_h = 180, 64, 26
    heads = [_text(left + i * cell_w + cell_w / 2, 14, c, "middle") for i, c in enumerate(columns)]
    laid = []
    for r, (name, colour, values) in enumerate(rows):
        y = 22 + r * cell_h
        cells = []
        for i, v in enumerate(values):
            x = left + i * cell_w
            fill, opacity, text = ("#edf2f7", 1.0, "n/a") if v is None else (colour, v, pct(v))
            white = v is not None and v > 0.55
            cells.append(
                {"x": x, "y": y, "width": cell_w - 2, "height": cell_h - 2, "fill": fill}
                | {"opacity": f"{max(opacity, 0.04):.3f}"}
                | {"text": _text(x + cell_w / 2 - 1, y + cell_h / 2 + 3, text, "middle", white)}
            )
        laid.append({"label": _text(left - 8, y + cell_h / 2 + 4, name, "end"), "cells": cells})
    width, height = left + cell_w * len(columns) + 10, 30 + cell_h * len(rows)
    return {"width": width, "height": height, "label": label, "columns": heads, "rows": laid}


def _text(x: float, y: float, s: str, anchor: str = "start", white: bool = False) -> dict:
    """A label of the heat map at (x, y), anchored start, middle or end; white on dark cells."""
    return {"x": f"{x:.1f}", "y": f"{y:.1f}", "text": s, "anchor": anchor, "white": white}


# Sections


def overview(run: Run) -> dict:
    """What the run is: id, status, seed, configs, match-ups, and how pairs behave."""
    m = run.manifest
    games, pairs, copies = _pair_counts(run)
    status = m.get("status", "unknown")
    rows = [
        ("run id", m.get("run_id", "?")),
        ("status", status),
        ("master seed", m.get("master_seed", "?")),
        ("games on disk", f"{games:,} of {_count(m.get('total_games'))}"),
        ("configs", ", ".join(f"{n} ({c.get('hash')})" for n, c in m.get("configs", {}).items())),
        ("match-ups", ", ".join(m.get("params", {}).get("matchups", []))),
        ("seat-swapped pairs", "yes" if m.get("params", {}).get("swap") else "no"),
        ("created", m.get("created", "?")),
    ]
    return {"rows": rows, "status": status, "pairs": pairs, "copies": copies}


def _pair_counts(run: Run) -> tuple[int, int, int]:
    """Games, seat-swapped pairs, and pairs whose two games ended alike (ReportCounts)."""
    counts = report_counts(run)
    return counts.games, counts.pairs, counts.copies


HISTOGRAMS = ("score_first", "score_second", "turns", "end_reason")


@dataclass
class ReportCounts:
    """What the report reads off the workers' tallies besides the rates: games, pairs and
    copies (pairs whose two games ended alike: same winner, turns and first seat's score);
    per cell its independent units (seeds) and its games by value of HISTOGRAMS."""

    games: int = 0
    pairs: int = 0
    copies: int = 0
    units: dict = field(default_factory=dict)  # (config, matchup) -> pairs, or games
    values: dict = field(default_factory=dict)  # (config, matchup, column) -> {value: n}

    def seeds(self, cells: list[tuple[str, str]]) -> int:
        """Independent units of the cells together. Pair ids restart in every match-up,
        whose games have their own seeds (runner/seeds.cell_key), so the cells' add up."""
        return sum(self.units[c] for c in cells)


def report_counts(run: Run) -> ReportCounts:
    """The run's ReportCounts (cached on the run)."""
    if "counts" not in run.cache:
        counts = ReportCounts()
        for cell, t in run.tallies.items():
            _count_cell(counts, cell, t)
        run.cache["counts"] = counts
    return run.cache["counts"]


def _count_cell(counts: ReportCounts, cell: tuple[str, str], t) -> None:
    """Add one cell's tallies (a CellTally) to counts."""
    units, games = t.moments["games"][0], int(t.moments["games"][1])
    counts.games += games
    counts.pairs += units if t.paired else 0
    counts.copies += int(t.moments["copies"][1])
    counts.units[cell] = units
    for column, group, scale in (
        ("score_first", "score_first", 10),
        ("score_second", "score_second", 10),
        ("turns", "length", 1),
    ):
        n = game_counts(t.hist, group)
        counts.values[(*cell, column)] = {scale * int(v): int(n[v]) for v in np.flatnonzero(n)}
    ends = group_counts(t.hist, "end", t.paired)
    per_game = ends.sum(axis=0) + ends.sum(axis=1) if t.paired else ends
    reasons = (None, *ENDS)  # code 0: no end reason
    counts.values[(*cell, "end_reason")] = {
        reasons[code]: int(per_game[code]) for code in np.flatnonzero(per_game)
    }


WIN_QUANTITIES = {  # the report's name -> the tallies' (store/quantities.py)
    "first": "win:first seat",
    "second": "win:second seat",
    "draw": "win:draw",
    "a_score": "win:A score",
    "first_score": "seat:first score",
}


def winrate_table(run: Run) -> pl.DataFrame:
    """Per config and match-up: games, seeds, wins by seat and by strategy, draws, and the
    tallies of the seat rates and A's and the first seat's scores (the workers' tallies;
    seeds from report_counts)."""
    counts = report_counts(run)
    out = []
    for cell, t in run.tallies.items():
        m = t.moments
        y = {name: m[q][1] for name, q in WIN_QUANTITIES.items()}
        a_wins = round(y["a_score"] - y["draw"] / 2)
        row = dict(zip(KEYS, cell, strict=True)) | {"games": int(m["games"][1])}
        row |= {"seeds": counts.seeds([cell]), "unit": t.unit}
        row |= {"first_wins": round(y["first"]), "second_wins": round(y["second"])}
        row |= {"draws": round(y["draw"]), "a_wins": a_wins}
        row |= {"b_wins": row["games"] - a_wins - row["draws"]}
        for name, q in WIN_QUANTITIES.items():
            row |= keyed(name, m[q])
        out.append(row)
    return pl.DataFrame(out).sort(KEYS)


def advantage(e: Estimate, who: str, other: str, what: str = "of decided games") -> str:
    """A plain verdict on whether `who`'s share e (of decided games, or a score) is off 50%."""
    if e.units < MIN_SEEDS:
        return f"too few seeds to tell ({e.units} < {MIN_SEEDS})"
    if e.games == 0:
        return "no game was decided"
    share = f"{who} takes {e.text()} {what}"
    if e.low > 0.5:
        return f"{who} favoured: {share}"
    if e.high < 0.5:
        return f"{other} favoured: {share}"
    return f"no difference detectable with {e.units:,} seeds: {share}, which includes 50%"


def winrate_row(r: dict) -> dict:
    """One table row: the cell, its sample, and each rate with its interval."""
    rates = [estimate_text(estimate(r, q)) for q in ("first", "second", "draw", "a_score")]
    numbers = [f"{r['games']:,}", f"{r['seeds']:,}", *rates]
    return {"config": r["config"], "matchup": r["matchup"], "numbers": numbers}


def advantage_points(rows: list[dict], quantity: str) -> list[plots.Point]:
    """Forest rows in points above 50%: the first seat's score, or A's score, per cell."""
    out = []
    for r in rows:
        e = estimate(r, quantity)
        tag = f"{r['config']} · {r['matchup']} ({present.count(e.units)} {e.unit}s)"
        out.append((tag, 100 * (e.value - 0.5), 100 * (e.low - 0.5), 100 * (e.high - 0.5)))
    return out


def seat_verdict(r: dict, margin: float) -> dict:
    """A list item: the cell and its sample, the balance verdict of the cell
    (reports/verdict.py) and A against B."""
    n, s = r["games"], r["seeds"]
    a, b = split_top_level(r["matchup"])
    unit = r.get("unit", "pair")
    cell = f"{r['config']} · {r['matchup']}"
    if s < MIN_SEEDS:
        return {"cell": cell, "sample": f"{n:,} games",
                "text": f"too few seeds to tell ({s} < {MIN_SEEDS})"}  # fmt: skip
    seat = decide(from_row(r, "first_score"), unit, margin, ("first seat", "second seat"))
    strat = (
        f"same strategy ({a}) in both seats"
        if a == b
        else decide(from_row(r, "a_score"), unit, margin, (a, b)).text()
    )
    text = f"seats: {seat.text()}; strategies: {strat}"
    return {"cell": cell, "sample": f"{n:,} games, {s:,} seeds", "text": text}


def _reach(points: list[plots.Point], least: float) -> tuple[float, float]:
    """A symmetric x range around 0 that holds every interval (at least ±least)."""
    top = max([least, *(max(abs(p[2]), abs(p[3])) for p in points)])
    return -1.1 * top, 1.1 * top


def winrate_section(run: Run, margin: float = DEFAULT_MARGIN) -> dict:
    """Win rates by seat and A's score with their intervals, the first-seat advantage on a
    scale of points with the margin band, A's score per match-up, and verdicts."""
    table = winrate_table(run)
    rows = list(table.iter_rows(named=True))
    units = present.count(int(table["seeds"].sum()))
    seat = advantage_points(rows, "first_score")
    charts = [
        plots.forest(
            seat,
            "first-seat advantage: its score minus 50% (points, 95% interval)",
            f"First-seat advantage per cell ({units} independent seeds in all)",
            band=margin,
            xlim=_reach(seat, 2 * margin),
        )
    ]
    versus = [r for r in rows if len(set(split_top_level(r["matchup"]))) == 2]
    if versus:
        score = advantage_points(versus, "a_score")
        charts.append(
            plots.forest(
                score,
                "A's score minus 50% (points, 95% interval; a draw is half a win)",
                "A's score against B per match-up",
                band=margin,
                xlim=_reach(score, 2 * margin),
                colours=[SECOND_COLOUR] * len(score),
            )
        )
    return {
        "sample": Sample(int(table["games"].sum()), int(table["seeds"].sum())),
        "margin": f"{margin:g}",
        "charts": charts,
        "verdicts": [seat_verdict(r, margin) for r in rows],
        "rows": [winrate_row(r) for r in rows],
        "impact": impact_lines(run),
    }


def impact_lines(run: Run) -> list[str]:
    """The card-impact flag lines (reports.card_impact.measured_all) of a run: its own
    comparison, or those `sim card-impact --run` played against it; none for others."""
    from reports.card_impact import measured_all

    try:
        found = measured_all(open_run(run.folder))
    except RunFolderError as exc:
        raise ReportError(str(exc)) from None
    return [line for m in found for line in m.lines()]


def shares(counts: pl.DataFrame, column: str, values: Sequence[int]) -> list[float]:
    """Shares of each of values among the counts (0 for values not seen)."""
    total = counts["n"].sum() or 1
    seen = dict(zip(counts[column].to_list(), counts["n"].to_list(), strict=True))
    return [seen.get(v, 0) / total for v in values]


def distribution_section(run: Run) -> list[dict]:
    """Final scores by seat and game length, as histograms per config and match-up."""
    cells, counts = _distributions(run)
    return [distribution_cell(r, counts) for r in cells.iter_rows(named=True)]


def _distributions(run: Run) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """Per cell games, seeds, mean scores and turns, and histograms, from report_counts'
    counts of each value: means and medians of whole numbers from their counts are exactly
    polars' over the games."""
    counts = report_counts(run)
    hist = {
        c: pl.DataFrame(
            [
                {"config": k[0], "matchup": k[1], c: v, "n": n}
                for k, seen in counts.values.items()
                if k[2] == c
                for v, n in seen.items()
            ],
            schema={"config": pl.String, "matchup": pl.String, c: _value_type(c), "n": pl.Int64},
        ).sort(*KEYS, c)
        for c in HISTOGRAMS
    }
    rows = []
    for cell in counts.units:
        values = {c: counts.values[(*cell, c)] for c in ("score_first", "score_second", "turns")}
        rows.append(
            dict(zip(KEYS, cell, strict=True))
            | {"games": sum(values["turns"].values()), "seeds": counts.seeds([cell])}
            | {
                "mean_first": _mean(values["score_first"]),
                "mean_second": _mean(values["score_second"]),
            }
            | {"mean_turns": _mean(values["turns"]), "median_turns": _median(values["turns"])}
        )
    return pl.DataFrame(rows).sort(KEYS), hist


def _value_type(column: str) -> pl.DataType:
    return pl.String if column == "end_reason" else pl.Int64


def _mean(counts: dict) -> float | None:
    """The mean of the values counted (nulls left out), as polars' mean of the column."""
    known = {v: n for v, n in counts.items() if v is not None}
    total = sum(known.values())
    return sum(v * n for v, n in known.items()) / total if total else None


def _median(counts: dict) -> float | None:
    """The median of the values counted (nulls left out): the middle one, or the mean of
    the two middle ones, as polars' median."""
    known = sorted((v, n) for v, n in counts.items() if v is not None)
    total = sum(n for _, n in known)
    if not total:
        return None
    wanted = [(total - 1) // 2, total // 2]  # positions in the sorted values
    found, seen = [], 0
    for v, n in known:
        while wanted and wanted[0] < seen + n:
            found.append(v)
            wanted.pop(0)
        seen += n
    return (found[0] + found[1]) / 2


def distribution_cell(r: dict, counts: dict[str, pl.DataFrame]) -> dict:
    """One cell's sample, means, end reasons, score histogram and length histogram."""
    key = (pl.col("config") == r["config"]) & (pl.col("matchup") == r["matchup"])
    f, s, t, end = (
        counts[c].filter(key) for c in ("score_first", "score_second", "turns", "end_reason")
    )
    top = int(max(f["score_first"].max() or 0, s["score_second"].max() or 0))
    scores = list(range(0, top + 10, 10))
    lengths = list(range(int(t["turns"].min() or 0), int(t["turns"].max() or 0) + 1))
    end_text = ", ".join(
        f"{v} {pct(c / r['games'])}" for v, c in zip(end["end_reason"], end["n"], strict=True)
    )
    tag = f"{r['config']} · {r['matchup']}"
    n = f"{r['games']:,} games"
    score_series = {
        "first seat": (shares(f, "score_first", scores), FIRST_COLOUR),
        "second seat": (shares(s, "score_second", scores), SECOND_COLOUR),
    }
    length_series = {"games": (shares(t, "turns", lengths), DRAW_COLOUR)}
    charts = [
        plots.histogram(scores, score_series, "final score (points)",
                        f"Final scores by seat, {tag}, {n}"),
        plots.histogram(lengths, length_series, "game length (turns)",
                        f"Game length, {tag}, {n}"),
    ]  # fmt: skip
    means = {k: r[k] for k in ("mean_first", "mean_second", "mean_turns", "median_turns")}
    sample = Sample(r["games"], r["seeds"])
    return {"tag": tag, "sample": sample, "ends": end_text, "charts": charts} | means


def config_lines(run: Run, config: str) -> int:
    """Number of lines the config plays, from the manifest (5 if it does not say)."""
    content = run.manifest.get("configs", {}).get(config, {}).get("content", {})
    return int(content.get("rules", {}).get("lines", 5))


def line_columns(run: Run) -> list[str]:
    """The games table's line_* columns, top line first."""
    names = run.games.collect_schema().names()
    return sorted((n for n in names if n.startswith("line_")), key=lambda n: int(n[5:]))


def line_control_section(run: Run) -> dict:
    """Share of games each line ends controlled by the first or second seat, per config."""
    configs = sorted({config for config, _ in run.tallies})
    columns = line_columns(run)[: max(config_lines(run, c) for c in configs)]
    table = _lines(run, columns)
    rows, notes = [], []
    for r in table.iter_rows(named=True):
        rows += heat_rows(r, columns, config_lines(run, r["config"]))
        notes.append(line_note(r, columns[: config_lines(run, r["config"])]))
    labels = [c.removeprefix("line_") for c in columns]
    return {
        "sample": Sample(int(table["games"].sum()), int(table["seeds"].sum())),
        "chart": heatmap(rows, labels, "Line control at the end of the game, per config"),
        "notes": notes,
    }


def _lines(run: Run, columns: list[str]) -> pl.DataFrame:
    """Per config: seeds (report_counts), unit, games, the games each line's control went to
    each seat, and the tallies of those shares, summed over the config's match-ups (units
    never span cells)."""
    counts = report_counts(run)
    by_config = summed((cell[0], t) for cell, t in run.tallies.items())
    rows = []
    for config, t in sorted(by_config.items()):
        cells = [cell for cell in run.tallies if cell[0] == config]
        row = {"config": config, "seeds": counts.seeds(cells), "unit": t.unit}
        row["games"] = int(t.moments["games"][1])
        for c in columns:
            for seat in ("first", "second"):
                m = t.moments[f"line:{c.removeprefix('line_')}:{seat}"]
                row[f"{c}:{seat}"] = round(m[1])
                row |= keyed(f"t:{c}:{seat}", m)
        rows.append(row)
    return pl.DataFrame(rows)


def heat_rows(r: dict, columns: list[str], lines: int) -> list:
    """A config's heat-map rows: shares of first seat, second seat and nobody per line."""
    n = r["games"]

    def share(c: str, seat: str) -> float:
        return r[f"{c}:{seat}"] / n

    def row(i: int, c: str, seat: str) -> float | None:
        if i >= lines:
            return None
        return 1 - share(c, "first") - share(c, "second") if seat == "nobody" else share(c, seat)

    return [
        (f"{r['config']} · {seat}{' seat' if seat != 'nobody' else ''}", colour,
         [row(i, c, seat) for i, c in enumerate(columns)])
        for seat, colour in (("first", FIRST_COLOUR), ("second", SECOND_COLOUR),
                             ("nobody", DRAW_COLOUR))
    ]  # fmt: skip


def line_note(r: dict, columns: list[str]) -> dict:
    """A config's sample and the widest 95% interval among its line shares."""
    half = max(
        (e.high - e.low) / 2
        for c in columns
        for seat in ("first", "second")
        for e in [estimate(r, f"t:{c}:{seat}")]
    )
    sample = Sample(r["games"], r["seeds"])
    return {"config": r["config"], "sample": sample, "half": f"{100 * half:.1f}"}


CARD_RATES = {"played": "won_played", "not": "won_unplayed"}  # html name -> tally name


def arc_section(run: Run) -> list[dict] | None:
    """Per cell, the game's arc (reports/arc.py) as labelled texts and its line in words;
    None for a run without the arc columns (from before #34)."""
    names = run.games.collect_schema().names()
    if not set(game_arc.COLUMNS) <= set(names):
        return None
    out = []
    for (config, matchup), t in run.tallies.items():
        figures = game_arc.from_tallies(t.row(), t.unit)
        rows = [
            (label, present.rate(*_bounds(e)) if is_rate else present.mean(*_bounds(e)))
            for label, e, is_rate in game_arc.rows(figures)
        ]
        units = figures.lead_changes.sample
        out.append({"config": config, "matchup": matchup, "rows": rows, "units": units,
                    "words": figures.words()})  # fmt: skip
    return out


def _bounds(e: Estimate) -> tuple[float, float, float]:
    return e.value, e.low, e.high


def card_table(run: Run) -> pl.DataFrame:
    """Per config, match-up and kind: seat-games that played it or not, their wins, the
    tallies of both win rates over the games' units, and the cell's games and seeds."""
    assert run.cards is not None
    table = winrate_table(run).select(*KEYS, "games", "seeds", "unit").lazy()
    cells = table.with_columns(pl.col("seeds").cast(pl.UInt32))
    sums = card_sums(run.cards, by_strategy=False)
    columns = [pl.col(KEYS), pl.col("kind")]
    for name, rate in CARD_RATES.items():
        columns += [
            pl.col(f"{rate}_z").alias(f"n_{name}"),
            pl.col(f"{rate}_y").alias(f"k_{name}"),
            *(pl.col(f"{rate}_{m}").alias(f"{name}:{m}") for m in MOMENTS),
        ]
    return sums.select(columns).join(cells.collect(), on=KEYS).sort(*KEYS, "kind")


def card_difference(r: dict) -> Difference | str:
    """Win rate when played minus when not, over the units; or why it cannot be told."""
    played, not_played = estimate(r, "played"), estimate(r, "not")
    if min(played.units, not_played.units) < MIN_SEEDS:
        return f"too few to tell ({played.units} against {not_played.units} independent seeds)"
    return rate_difference(not_played, played)


def card_verdicts(diffs: list[Difference | str]) -> list[str]:
    """Plain verdicts, Holm-adjusted over the kinds of one cell (many kinds, many chances)."""
    tested = [d for d in diffs if isinstance(d, Difference)]
    adjusted = iter(holm([d.p_value for d in tested]))
    out = []
    for d in diffs:
        if isinstance(d, str):
            out.append(d)
            continue
        q, rejected = next(adjusted)
        if not rejected:
            text = "no difference detectable at this sample size"
        else:
            text = f"seats that played it won {'more' if d.estimate > 0 else 'less'} often"
        out.append(f"{text} ({100 * d.estimate:+.1f} pts, Holm-adjusted p = {p_text(q)})")
    return out


def card_section(run: Run) -> list[dict] | None:
    """Win rate of a seat when it played each kind against when it did not, per cell; None
    when the run has no cards table."""
    if run.cards is None:
        return None
    table = card_table(run)
    groups = [cell for _, cell in table.group_by(KEYS, maintain_order=True)]
    every = [card_points(cell) for cell in groups]
    xlim = _reach([p for points in every for p in points], 1.0)  # one scale for every panel
    return [card_cell(cell, xlim) for cell in groups]


def card_points(cell: pl.DataFrame) -> list[plots.Point]:
    """A cell's forest rows: per kind, the win-rate difference when played, in points."""
    out = []
    for r in cell.iter_rows(named=True):
        d = card_difference(r)
        if isinstance(d, Difference):
            out.append((r["kind"], 100 * d.estimate, 100 * d.low, 100 * d.high))
    return out


def card_cell(cell: pl.DataFrame, xlim: tuple[float, float]) -> dict:
    """One config and match-up: a row per kind, verdicts, and a plot of the differences."""
    records = list(cell.iter_rows(named=True))
    diffs = [card_difference(r) for r in records]
    rows = [
        {"kind": r["kind"], "verdict": verdict}
        | {"n_played": f"{r['n_played']:,}", "played": estimate_text(estimate(r, "played"))}
        | {"n_not": f"{r['n_not']:,}", "not": estimate_text(estimate(r, "not"))}
        for r, verdict in zip(records, card_verdicts(diffs), strict=True)
    ]
    first = records[0]
    tag = f"{first['config']} · {first['matchup']}"
    plot = card_points(cell)
    chart = (
        plots.forest(
            plot,
            "win rate when played minus when not (points, 95% interval)",
            f"Cards, {tag}, {first['seeds']:,} seeds (observational)",
            xlim=xlim,
        )
        if plot
        else None
    )
    sample = Sample(first["games"], first["seeds"])
    return {"tag": tag, "sample": sample, "rows": rows, "chart": chart}
