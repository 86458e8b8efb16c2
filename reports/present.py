"""How every report prints a number: a rate, an interval, a difference, a p-value, a verdict.

One style for every command (summary, compare, sprt, card-impact, solo, bench, report), so a
designer reads `51.2% [50.5, 51.9]` and `+1.8 pts [+1.5, +2.1]` the same way everywhere.
Rates and rate differences are in percent and percentage points (pts) with one decimal;
means with two. Tables built here never cut a number: a column is never narrower than its
longest word, and long cells wrap at spaces instead.
"""

from __future__ import annotations

import math
import os
import sys

from sim.stats import p_text

NO_CHANGE = "no detectable change"
DASH = "—"


def pct(x: float) -> str:
    """'51.2%': a rate with one decimal."""
    return DASH if math.isnan(x) else f"{100 * x:.1f}%"


def interval(low: float, high: float, signed: bool = False, scale: float = 100.0) -> str:
    """'[50.5, 51.9]' (or '[+1.5, +2.1]' when signed) in percent; '' without bounds."""
    if math.isnan(low) or math.isnan(high):
        return ""
    form = "+.1f" if signed else ".1f"
    return f"[{scale * low:{form}}, {scale * high:{form}}]"


def rate(value: float, low: float, high: float) -> str:
    """'51.2% [50.5, 51.9]': a rate with its interval."""
    if math.isnan(value):
        return DASH
    return f"{pct(value)} {interval(low, high)}".rstrip()


def pts(value: float, low: float = math.nan, high: float = math.nan) -> str:
    """'+1.8 pts [+1.5, +2.1]': a difference of rates in percentage points."""
    if math.isnan(value):
        return DASH
    return f"{100 * value:+.1f} pts {interval(low, high, signed=True)}".rstrip()


def mean(value: float, low: float = math.nan, high: float = math.nan) -> str:
    """'34.10 [33.90, 34.30]': a mean with its interval."""
    if math.isnan(value):
        return DASH
    if math.isnan(low) or math.isnan(high):
        return f"{value:.2f}"
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def mean_diff(value: float, low: float, high: float) -> str:
    """'+0.52 [+0.10, +0.94]': a difference of means."""
    if math.isnan(value):
        return DASH
    return f"{value:+.2f} [{low:+.2f}, {high:+.2f}]"


def p_value(p: float) -> str:
    """'0.012', '<1e-16', or a dash for an untested row (sim.stats.p_text)."""
    return p_text(p)


def count(n: float) -> str:
    """'20,000' (half points kept as '10,000.5')."""
    return f"{n:,}" if n == int(n) else f"{n:,.1f}"


def about(n: int) -> str:
    """A count to two significant digits: '12,000', '1,300', '40'."""
    if n < 100:
        return f"{n:,}"
    digits = len(str(n)) - 2
    return f"{round(n, -digits):,}"


def elo(value: float) -> str:
    """'+35 Elo', spelled out at the infinities."""
    if math.isnan(value):
        return DASH
    if math.isinf(value):
        return f"{'+' if value > 0 else '-'}inf Elo"
    return f"{value:+.0f} Elo"


def width() -> int:
    """The terminal's width (COLUMNS when set); 200 when stdout is not a terminal (a file or
    a pipe has no width to fit, and unwrapped lines grep better)."""
    if "COLUMNS" in os.environ:
        try:
            return max(40, int(os.environ["COLUMNS"]))
        except ValueError:
            pass
    if sys.stdout.isatty():
        return os.get_terminal_size().columns
    return 200


def console():
    """A rich console as wide as the terminal (never a fixed 120 or 140 columns)."""
    from rich.console import Console

    return Console(width=width(), highlight=False)


def fit(table, whole: tuple[int, ...] = (), width: int | None = None) -> None:
    """Give every column of a rich table a width, so that the table fits `width` (the
    terminal's) if it can, no column is narrower than its longest word (its longest line for
    the columns numbered in whole), and cells wrap at spaces: a number is never cut. Rich's
    own squeezing ignores minimum widths, hence this."""
    lows, highs = [], []
    for i, column in enumerate(table.columns):
        cells = [_plain(str(c)) for c in column.cells]
        lines = [line for c in cells for line in c.splitlines()] + [
            line for line in _plain(str(column.header)).splitlines()
        ]
        words = [w for c in cells for w in (c.splitlines() if i in whole else c.split())]
        words += _plain(str(column.header)).split()
        lows.append(max((len(w) for w in words), default=1))
        highs.append(max((len(line) for line in lines), default=1))
    room = (width or globals()["width"]()) - _overhead(table)
    for column, w in zip(table.columns, _share(lows, highs, room), strict=True):
        column.width = w
        column.overflow = "fold"


def _share(lows: list[int], highs: list[int], room: int) -> list[int]:
    """Column widths: each its natural width when all fit in room, else its minimum plus a
    share of what is left in proportion to how much wider it would like to be."""
    if sum(highs) <= room:
        return highs
    spare, wants = room - sum(lows), [h - lo for lo, h in zip(lows, highs, strict=True)]
    if spare <= 0 or not sum(wants):
        return lows
    widths = [lo + spare * want // sum(wants) for lo, want in zip(lows, wants, strict=True)]
    return [min(w, h) for w, h in zip(widths, highs, strict=True)]


def _overhead(table) -> int:
    """The characters a rich table adds around its cells: box edges, dividers, padding (rich
    keeps the edge padding in its sums even with pad_edge off, so it is counted here too)."""
    _, right, _, left = table.padding
    return table._extra_width + (left + right) * len(table.columns)  # rich pads every column


def _plain(text: str) -> str:
    """Text without rich markup ([yellow]...[/yellow])."""
    from rich.text import Text

    return Text.from_markup(text).plain


def table(*columns: str, title: str | None = None, caption: str | None = None):
    """A compact rich table (one space between columns, a bold header, no box); call fit()
    when it is full."""
    from rich.table import Table

    return Table(
        *columns,
        title=title,
        caption=caption,
        box=None,
        header_style="bold underline",
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )


def drop(table, header: str) -> None:
    """Remove the column named header (an optional column a narrow terminal has no room for)."""
    table.columns[:] = [c for c in table.columns if c.header != header]
    _reindex(table)


def drop_empty(table, header: str) -> None:
    """Remove the column named header when no row has anything in it (an empty note column
    would take width in every table)."""
    for column in list(table.columns):
        if column.header == header and not any(_plain(str(c)).strip() for c in column.cells):
            table.columns.remove(column)
    _reindex(table)


def _reindex(table) -> None:
    """Renumber the columns after one is removed: rich pads and styles a column by its index."""
    for i, column in enumerate(table.columns):
        column._index = i


def config(name: str) -> str:
    """A config's name for a narrow table cell: a derived config's changes one to a line
    (base / +run_capacity=5 / +DELETE=0), since a name has no spaces to wrap at."""
    return name.replace("+", "\n+")


def stack(text: str) -> str:
    """'51.2% [50.5, 51.9]' as two lines, the interval under the value (narrow tables)."""
    return text.replace(" [", "\n[", 1)
