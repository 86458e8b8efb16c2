"""`sim report TUNE_DIR`: one self-contained HTML page of a folder written by `sim tune`.

The page shows the Pareto front (parameters, each target's metric with its 95% interval and
verdict, targets met, confirmed or not), the confirmation on fresh seeds beside the start
config, and for each target one figure: its metric against every varied parameter over all
measured trials, the target's band or threshold shaded, the start config marked. It reads
only what the study wrote (tune.json, front.parquet, trials.parquet, the study's confirm
records) and the space file tune.json names; it plays nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from markupsafe import Markup

from reports.html import FIRST_COLOUR, SECOND_COLOUR, ReportError
from reports.plots import _pyplot, _svg  # the run report's figure style and SVG inlining
from reports.render import render
from sim.model.documents import parse_json
from sim.tune.confirm import START, Confirmation
from sim.tune.space import Space, SpaceError, Target
from sim.tune.space import load as load_space

STATE, FRONT, TRIALS, STUDY = "tune.json", "front.parquet", "trials.parquet", "study.db"
GREY, BAND = "#a0aec0", "#c6f6d5"


class TuningError(ReportError):
    """A folder that looks like a tuning folder but cannot be reported; names what is wrong."""


def is_tuning_folder(folder: Path) -> bool:
    """A folder `sim tune` wrote into: it holds its record, its study or its front."""
    return any((folder / name).exists() for name in (STATE, STUDY, FRONT))


@dataclass(frozen=True)
class Tuning:
    """A tuning folder read back: its space, seed, every measured point, the front, and the
    confirmations (config name -> Confirmation), plus notes for the reader."""

    folder: Path
    space: Space
    seed: int
    trials: pl.DataFrame  # every finished trial, each point once (no repeats)
    front: pl.DataFrame
    confirmations: dict[str, Confirmation]
    notes: tuple[str, ...] = ()


def write_tuning(folder: Path, out: Path) -> Path:
    """Read the tuning folder and write its page to out."""
    tuning = load_tuning(folder)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(build_page(tuning), encoding="utf-8")
    except OSError as exc:
        raise TuningError(f"cannot write {out}: {exc.strerror or exc}") from exc
    return out


def load_tuning(folder: Path) -> Tuning:
    """Open a tuning folder; TuningError naming the file when it cannot be reported."""
    state = _state(folder)
    space = _space(folder, state)
    trials, front = (_table(folder, name, space) for name in (TRIALS, FRONT))
    trials = trials.filter(pl.col("same_as").is_null())
    confirmations, notes = _confirmations(folder, space, state)
    from sim.store import lock

    if lock.holder(folder) is not None:
        notes = (*notes, f"a sim tune is still running in {folder}: this is its last front")
    return Tuning(folder, space, state["seed"], trials, front, confirmations, notes)


def _state(folder: Path) -> dict:
    if not folder.is_dir():
        raise TuningError(f"{folder}: no such folder")
    path = folder / STATE
    try:
        state = parse_json(path.read_text())
    except FileNotFoundError:
        raise TuningError(f"{folder} is not a tuning folder (no {STATE}); see sim tune") from None
    except (OSError, ValueError) as exc:
        raise TuningError(f"{path}: unreadable ({exc})") from None
    if not isinstance(state, dict) or not {"space", "hash", "seed"} <= set(state):
        raise TuningError(f"{path}: not a sim tune record (needs space, hash and seed)")
    return state


def _space(folder: Path, state: dict) -> Space:
    """The space the folder was tuned on, refused when its file has changed since."""
    try:
        space = load_space(Path(state["space"]))
    except SpaceError as exc:
        raise TuningError(f"{folder / STATE} names a space that cannot be read: {exc}") from None
    if space.hash != state["hash"]:
        raise TuningError(
            f"{state['space']} has changed since {folder} was tuned; its study is of the old one"
        )
    return space


def _table(folder: Path, name: str, space: Space) -> pl.DataFrame:
    path = folder / name
    if not path.exists():
        raise TuningError(
            f"{folder} holds no {name} yet: the study has not finished; rerun its sim tune command"
        )
    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # polars raises several kinds for a damaged file
        raise TuningError(f"{path}: unreadable ({exc})") from None
    need = ["trial", "start", "same_as", "pairs", "confirmed"]
    need += [p.name for p in space.params]
    need += [f"{t.name}{s}" for t in space.targets for s in ("", ":low", ":high", ":search")]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise TuningError(f"{path}: column {missing[0]!r} missing; not written by this space")
    return frame


def _confirmations(
    folder: Path, space: Space, state: dict
) -> tuple[dict[str, Confirmation], tuple[str, ...]]:
    """The confirmation records the study holds; a study that cannot be read is a note, as
    front.parquet already says which trials were confirmed."""
    from sim.tune import study

    url = state.get("storage") or f"sqlite:///{(folder / STUDY).resolve()}"
    try:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = optuna.load_study(study_name=study.study_name(space, state["seed"]), storage=url)
        attrs = s.user_attrs
    except Exception as exc:  # optuna missing, or a database that cannot be read
        return {}, (f"the study's confirmation records could not be read ({exc})",)
    found = [Confirmation.from_json(v) for k, v in attrs.items() if k.startswith("confirm:")]
    return {c.name: c for c in found}, ()


# The page


def build_page(t: Tuning) -> str:
    """The whole page (sim/tune/templates/tune.html.j2)."""
    s = t.space
    return render(
        "tune.html.j2",
        package="sim.tune",
        title=f"One Zero One: tuning study {s.path.name}",
        folder=str(t.folder),
        t=t,
        varied=", ".join(_param_text(p) for p in s.params),
        targets=[_target_text(g) for g in s.targets],
        front=_front_rows(t),
        confirmations=_confirm_rows(t),
        sections=[_target_section(t, target) for target in s.targets],
    )


def _param_text(p) -> str:
    values = "/".join(map(str, p.choices)) if p.choices else f"{p.low}–{p.high}"
    return f"{p.name} {values}"


def _target_text(g: Target) -> str:
    return g.text() + (" (constraint: must hold)" if g.goal == "constraint" else " (objective)")


def _cell(row: dict, target: Target) -> str:
    v, lo, hi = (row[f"{target.name}{s}"] for s in ("", ":low", ":high"))
    return f"{v:.1f} [{lo:.1f}, {hi:.1f}] {row[f'{target.name}:search']}"


def _label(row: dict) -> str:
    return f"t{row['trial']:04d}" + (" (start)" if row["start"] else "")


def _confirmed(row: dict, t: Tuning) -> str:
    c = t.confirmations.get(f"t{row['trial']:04d}")
    if c is not None:
        return ("yes" if c.confirmed else "no") + f" ({c.pairs:,} pairs)"
    if row.get("confirm_pairs") is not None:
        return ("yes" if row["confirmed"] else "no") + f" ({row['confirm_pairs']:,} pairs)"
    return "no (not replayed)"


def _front_rows(t: Tuning) -> list[dict]:
    """The front's rows: label, parameters, each target's cell, targets met, pairs, and
    whether a replay on fresh seeds confirmed it."""
    s, rows = t.space, []
    for row in t.front.sort("trial").iter_rows(named=True):
        met = sum(row[f"{g.name}:search"] == "met" for g in s.targets)
        rows.append(
            {"label": _label(row), "params": [row[p.name] for p in s.params]}
            | {"cells": [_cell(row, g) for g in s.targets], "met": met}
            | {"pairs": row["pairs"], "confirmed": _confirmed(row, t)}
        )
    return rows


def _confirm_rows(t: Tuning) -> list[dict]:
    """The confirmations, candidates first and the start config last: label, pairs, each
    target's value, interval and verdict, and whether all were met."""
    order = sorted((n for n in t.confirmations if n != START), key=str)
    order += [START] if START in t.confirmations else []
    rows = []
    for name in order:
        c = t.confirmations[name]
        cells = []
        for g in t.space.targets:
            v = c.values[g.name]
            cells.append(f"{v[0]:.1f} [{v[1]:.1f}, {v[2]:.1f}] {c.verdicts[g.name]}")
        label = f"{t.space.start.name} (start)" if name == START else name
        rows.append({"label": label, "pairs": c.pairs, "cells": cells, "met": c.confirmed})
    return rows


def _start_row(t: Tuning) -> dict | None:
    start = t.trials.filter(pl.col("start"))
    return start.row(0, named=True) if start.height else None


def _target_section(t: Tuning, target: Target) -> dict:
    """A target's heading, what the start config measured, and its figure."""
    start = _start_row(t)
    if start is not None:
        said = f"The start config (trial t{start['trial']:04d}): {_cell(start, target)}."
    else:
        said = "The start config lies outside the space, so the search did not measure it."
    c = t.confirmations.get(START)
    if c is not None:
        v = c.values[target.name]
        said += (
            f" On the confirmation seed ({c.pairs:,} pairs): {v[0]:.1f} [{v[1]:.1f}, "
            f"{v[2]:.1f}] {c.verdicts[target.name]}."
        )
    return {"title": target.text(), "said": said, "figure": target_figure(t, target)}


def target_figure(t: Tuning, target: Target) -> Markup:
    """One figure per target: a panel per varied parameter, the metric of every measured
    trial against it (front trials coloured, the start config a diamond), the target shaded."""
    plt = _pyplot()
    params = t.space.params
    fig, axes = plt.subplots(1, len(params), figsize=(3.0 * len(params) + 0.6, 2.6), sharey=True)
    axes = list(axes) if len(params) > 1 else [axes]
    on_front = set(t.front["trial"].to_list())
    for ax, p in zip(axes, params, strict=True):
        _panel(ax, t.trials, p, target, on_front)
    axes[0].set_ylabel(AXIS[target.metric])
    _shade(axes, target)
    handles = [
        plt.Line2D([], [], color=FIRST_COLOUR, marker="o", ls="", label="on the front"),
        plt.Line2D([], [], color=GREY, marker="o", ls="", label="other trials"),
        plt.Line2D([], [], color=SECOND_COLOUR, marker="D", ls="", label="start config"),
    ]
    axes[-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
                    frameon=False)  # fmt: skip
    fig.suptitle(target.text(), x=0.02, ha="left", fontsize=10)
    return _svg(fig, f"{target.name} against the parameters")


AXIS = {
    "first_seat": "first seat's score − 50% (points)",
    "a_score": "A's score (%)",
    "tiebreak": "decided by tie-break (%)",
    "draw": "drawn games (%)",
    "turns": "mean turns a game",
}


def _panel(ax, trials: pl.DataFrame, p, target: Target, on_front: set[int]) -> None:
    """The metric against one parameter; choices sit at 0, 1, 2 ... with their names."""
    positions = {c: i for i, c in enumerate(p.choices)}
    for row in trials.sort("trial").iter_rows(named=True):
        x = positions[row[p.name]] if p.choices else row[p.name]
        x += 0.3 * ((row["trial"] * 0.618034) % 1 - 0.5)  # golden-ratio jitter: no overlaps
        v, lo, hi = (row[f"{target.name}{s}"] for s in ("", ":low", ":high"))
        colour = SECOND_COLOUR if row["start"] else FIRST_COLOUR
        colour = colour if row["start"] or row["trial"] in on_front else GREY
        if not (math.isnan(lo) or math.isnan(hi)):
            ax.plot([x, x], [lo, hi], color=colour, lw=1.2, alpha=0.8)
        ax.plot([x], [v], "D" if row["start"] else "o", color=colour, ms=4.5)
    if p.choices:
        ax.set_xticks(range(len(p.choices)), [str(c) for c in p.choices])
        ax.set_xlim(-0.6, len(p.choices) - 0.4)
    else:
        ax.set_xlim(p.low - 0.6, p.high + 0.6)
        ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel(p.name)
    ax.grid(axis="y", color="#e2e8f0")


def _shade(axes, target: Target) -> None:
    """The target's band (within) or the allowed side of its threshold, on every panel, with
    the bounds in view."""
    bottom, top = axes[0].get_ylim()
    bounds = [b for b in (target.low, target.high) if b is not None]
    low, high = min(bottom, *bounds), max(top, *bounds)
    pad = 0.05 * (high - low) or 1.0
    low, high = low - pad, high + pad
    inside = (
        low if target.low is None else target.low,
        high if target.high is None else target.high,
    )
    for ax in axes:
        ax.axhspan(*inside, color=BAND, alpha=0.7, lw=0, zorder=0)
        for bound in bounds:
            ax.axhline(bound, color="#276749", lw=0.8, ls="--")
    axes[0].set_ylim(low, high)  # the panels share their y axis
