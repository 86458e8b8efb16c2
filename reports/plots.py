"""The report's plots, drawn with matplotlib and inlined as SVG (no network, no files).

matplotlib rather than Vega-Lite: its SVG is static markup that any browser (or none)
shows offline, the page stays one file, and no JavaScript runtime is needed to render it.
Text stays text (svg.fonttype 'none'), so labels can be searched and checked; the figure is
cropped to what it draws (bbox 'tight'), so a long label widens the figure, never clips.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from markupsafe import Markup

FIRST, SECOND, GREY, BAND = "#2b6cb0", "#c05621", "#718096", "#c6f6d5"

_drawn: list[str] = []

Point = tuple[str, float, float, float]
"""A forest row: label, value, low, high (in the plot's unit)."""


def _pyplot():
    """pyplot on the file-only Agg backend, imported late (sim --help stays instant)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.fonttype": "none",
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }  # fmt: skip
    )
    return plt


def _svg(fig, label: str) -> Markup:
    """The figure as an inline <svg> element with an accessible label: markup we drew
    (matplotlib escapes its text), so the page's templates insert it as it is."""
    plt = _pyplot()
    out = io.StringIO()
    _drawn.append(label)  # each figure its own salt: clip-path ids stay unique on one page
    plt.rcParams["svg.hashsalt"] = f"sim-{len(_drawn)}-{label}"
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = out.getvalue()
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", text[text.index("<svg ") :], flags=re.S)
    return Markup("<svg role='img' aria-label='{}' ").format(label) + Markup(svg[5:])


def forest(
    points: Sequence[Point],
    xlabel: str,
    title: str,
    band: float | None = None,
    xlim: tuple[float, float] | None = None,
    colours: Sequence[str] | None = None,
) -> Markup:
    """Dots with 95% whiskers, one row each, a line at 0 and (band) a shaded ±band margin."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 0.7 + 0.32 * len(points)))
    ys = list(range(len(points)))[::-1]
    if band is not None:
        ax.axvspan(-band, band, color=BAND, alpha=0.7, lw=0, label=f"balanced: ±{band:g} pts")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.axvline(0, color="#1a202c", lw=0.8, ls="--")
    for i, ((_, value, low, high), y) in enumerate(zip(points, ys, strict=True)):
        colour = colours[i] if colours else FIRST
        ax.plot([low, high], [y, y], color=colour, lw=2)
        ax.plot([value], [y], "o", color=colour, ms=5)
    ax.set_yticks(ys, [p[0] for p in points])
    ax.set_ylim(-0.7, len(points) - 0.3)
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_xlabel(xlabel)
    ax.set_title(title, loc="left", fontsize=10)
    ax.grid(axis="x", color="#e2e8f0")
    return _svg(fig, title)


def advantage_forest(
    points: Sequence[Point], title: str, margin: float, colours: Sequence[str]
) -> Markup:
    """First-seat advantages (points) on one symmetric scale with the ±margin band: the
    comparison's and the history's chart."""
    top = max([2 * margin, *(max(abs(p[2]), abs(p[3])) for p in points)])
    xlabel = "first-seat advantage: its score minus 50% (points, 95% interval)"
    return forest(points, xlabel, title, margin, (-1.1 * top, 1.1 * top), colours)


def skill_profile(points: Sequence[Point], title: str, margin: float) -> Markup:
    """First-seat advantage (points) against skill level, weakest on the left: a dot with
    its 95% whiskers per level, joined by a line, a line at 0 and the ±margin band."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    xs = list(range(len(points)))
    ax.axhspan(-margin, margin, color=BAND, alpha=0.7, lw=0, label=f"balanced: ±{margin:g} pts")
    ax.axhline(0, color="#1a202c", lw=0.8, ls="--")
    ax.plot(xs, [p[1] for p in points], color=FIRST, lw=1, alpha=0.6)
    for x, (_, value, low, high) in zip(xs, points, strict=True):
        ax.plot([x, x], [low, high], color=FIRST, lw=2)
        ax.plot([x], [value], "o", color=FIRST, ms=5)
    ax.set_xticks(xs, [p[0] for p in points])
    ax.set_xlim(-0.5, len(points) - 0.5)
    ax.set_xlabel("skill level (weakest first; each level plays itself)")
    ax.set_ylabel("first-seat advantage\n(pts, 95% interval)")
    return _legend_right(fig, ax, title)


def histogram(
    categories: Sequence[int],
    series: dict[str, tuple[Sequence[float], str]],
    xlabel: str,
    title: str,
) -> Markup:
    """Shares of games per value, one bar series each (a legend names them), with axis
    titles: the value and 'share of games'."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 2.2))
    k = max(1, len(series))
    step = (categories[1] - categories[0]) if len(categories) > 1 else 1
    width = 0.8 * step / k
    for j, (name, (values, colour)) in enumerate(series.items()):
        xs = [c + (j - (k - 1) / 2) * width for c in categories]
        ax.bar(xs, [100 * v for v in values], width=width, color=colour, label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games (%)")
    ax.set_title(title, loc="left", fontsize=10)
    if k > 1:
        ax.legend(fontsize=8, frameon=False)
    return _svg(fig, title)


def lead_bands(
    turns: Sequence[int],
    mean: Sequence[float],
    bands: dict[int, Sequence[float]],
    title: str,
) -> Markup:
    """The first seat's lead by turn: its 5-95% band, its quartiles' band and its mean,
    over a line at 0 (bands: percent -> the lead at each turn, for 5, 25, 75 and 95)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 2.4))
    ax.fill_between(turns, bands[5], bands[95], color=FIRST, alpha=0.15, lw=0,
                    step="mid", label="5-95% of games")  # fmt: skip
    ax.fill_between(turns, bands[25], bands[75], color=FIRST, alpha=0.35, lw=0,
                    step="mid", label="middle half (quartiles)")  # fmt: skip
    ax.plot(turns, mean, color=FIRST, lw=1.5, label="mean")
    ax.axhline(0, color="#1a202c", lw=0.8, ls="--")
    ax.set_xlabel("turn")
    ax.set_ylabel("first seat's lead\n(points)")
    return _legend_right(fig, ax, title)


def _legend_right(fig, ax, title: str) -> Markup:
    """A chart's title, its legend right of the axes and a horizontal grid; its SVG."""
    ax.set_title(title, loc="left", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.grid(axis="y", color="#e2e8f0")
    return _svg(fig, title)
