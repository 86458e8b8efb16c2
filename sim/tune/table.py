"""What a study hands back: the Pareto front as a terminal table, front.parquet (the front)
and trials.parquet (every finished trial), and one config per confirmed candidate in
candidates/, ready for `sim run --config`.

The front: among finished trials meeting every constraint, those no other trial beats on
every objective (each target's excess); when no trial meets the constraints, the trials
not beaten on the objectives and the total constraint excess together.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

from sim.tune.confirm import START, Confirmation, evaluation
from sim.tune.space import Space

MARK = {"met": "met", "missed": "missed", "open": "open"}


def _dominates(a: list[float], b: list[float]) -> bool:
    return all(x <= y for x, y in zip(a, b, strict=True)) and a != b


def front(space: Space, trials: list) -> list:
    """The Pareto front of the finished trials (see the module's docstring)."""

    def constraint_excess(t) -> float:
        return sum(max(0.0, evaluation(t).excess(c)) for c in space.constraints)

    trials = [t for t in trials if "same_as" not in t.user_attrs]  # each point once
    feasible = [t for t in trials if constraint_excess(t) <= 0]
    pool = feasible or trials
    vectors = {
        t.number: [evaluation(t).excess(o) for o in space.objectives]
        + ([] if feasible else [constraint_excess(t)])
        for t in pool
    }
    return [t for t in pool if not any(_dominates(vectors[o.number], vectors[t.number])
                                         for o in pool)]  # fmt: skip


def rows(space: Space, trials: list, confirmations: dict[str, Confirmation]) -> list[dict]:
    """One flat row per trial: parameters, each target's value, interval and verdict in the
    search, and the confirmation's pairs and verdicts where it was confirmed."""
    out = []
    for t in trials:
        e = evaluation(t)
        row = {"trial": t.number, "start": bool(t.user_attrs.get("start", False))}
        row["same_as"] = t.user_attrs.get("same_as")
        row |= {p.name: t.params.get(p.name) for p in space.params}
        row |= {"pairs": e.pairs, "rungs": e.rungs, "stopped_early": e.stopped_early}
        for target in space.targets:
            v = e.value(target)
            row |= {
                f"{target.name}": v.value,
                f"{target.name}:low": v.low,
                f"{target.name}:high": v.high,
                f"{target.name}:search": target.verdict(v),
            }
        c = confirmations.get(f"t{t.number:04d}")
        row["confirm_pairs"] = c.pairs if c else None
        for target in space.targets:
            row[f"{target.name}:confirm"] = c.verdicts[target.name] if c else None
        row["confirmed"] = bool(c and c.confirmed)
        out.append(row)
    return out


def write_parquet(table: list[dict], path: Path) -> None:
    """Rows to a Parquet file, written aside and moved in whole."""
    import polars as pl

    frame = pl.DataFrame(table, infer_schema_length=None)
    temporary = path.with_suffix(".parquet.tmp")
    frame.write_parquet(temporary)
    temporary.replace(path)


def write_candidates(out: Path, confirmations: list[Confirmation]) -> list[Path]:
    """Copy each confirmed candidate's config into candidates/ (only confirmed ones)."""
    folder = out / "candidates"
    written = []
    for c in confirmations:
        if c.name == START or not c.confirmed:
            continue
        folder.mkdir(exist_ok=True)
        target = folder / f"{c.name}.toml"
        shutil.copyfile(out / "trials" / c.name / f"{c.name}.toml", target)
        written.append(target)
    return written


def _cell(values: dict, target, verdicts: dict | None = None) -> str:
    v = values[target.name]
    text = f"{v[0]:.1f} [{v[1]:.1f}, {v[2]:.1f}]"
    return text if verdicts is None else f"{text} {MARK[verdicts[target.name]]}"


def render(space: Space, front_trials: list, confirmations: dict[str, Confirmation], console):
    """The front as one rich table; below it each confirmation beside the start config."""
    from rich.table import Table

    table = Table(title=f"Pareto front of {len(front_trials)} trial(s); 95% intervals, pairs")
    table.add_column("trial")
    for p in space.params:
        table.add_column(p.name)
    for target in space.targets:
        table.add_column(target.text())
    table.add_column("pairs")
    table.add_column("confirmed")
    for t in front_trials:
        e = evaluation(t)
        verdicts = {target.name: target.verdict(e.value(target)) for target in space.targets}
        c = confirmations.get(f"t{t.number:04d}")
        status = ("yes" if c.confirmed else "no") + f" ({c.pairs:,} pairs)" if c else "-"
        table.add_row(
            f"t{t.number:04d}" + (" (start)" if t.user_attrs.get("start") else ""),
            *(str(t.params.get(p.name)) for p in space.params),
            *(_cell(e.values, target, verdicts) for target in space.targets),
            f"{e.pairs:,}",
            status,
        )
    console.print(table)
    if confirmations:
        console.print(_confirm_table(space, confirmations))


def _confirm_table(space: Space, confirmations: dict[str, Confirmation]):
    from rich.table import Table

    table = Table(title="Confirmation on fresh seeds, beside the start config")
    for name in ("config", "pairs", *(t.text() for t in space.targets), "all targets met"):
        table.add_column(name)
    order = [c for n, c in confirmations.items() if n != START]
    order += [confirmations[START]] if START in confirmations else []
    for c in order:
        label = f"{space.start.name} (start)" if c.name == START else c.name
        verdicts = c.verdicts
        done = "yes" if c.confirmed else "no"
        need = "" if not math.isfinite(c.needed) or c.needed <= c.pairs else " (more needed)"
        table.add_row(
            label,
            f"{c.pairs:,}{need}",
            *(_cell(c.values, t, verdicts) for t in space.targets),
            done,
        )
    return table
