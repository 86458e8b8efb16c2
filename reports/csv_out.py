"""`--csv`: a command's main table as CSV for a spreadsheet, built from the same JSON values
the command's --json prints, so the two never disagree.

One header row, one row a record; nested objects flatten to `name_key` columns and an
interval {"value" (or "estimate"), "low", "high"} to `name`, `name_lo`, `name_hi`; lists
are left out (they are tables of their own). Plain numbers: fractions as JSON has them,
no colour, no rounding; a missing value (null) is an empty field, a flag true or false.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

MAIN = ("value", "estimate")  # the key whose value names an interval's own column
ENDS = {"low": "lo", "high": "hi"}


def flat(record: dict, prefix: str = "") -> dict[str, object]:
    """One JSON object as one row of columns (see the module's docstring)."""
    out: dict[str, object] = {}
    for key, value in record.items():
        if prefix and key in MAIN:
            name = prefix.removesuffix("_")
        elif key in ENDS:
            name = f"{prefix}{ENDS[key]}" if prefix else key
        else:
            name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flat(value, f"{name}_"))
        elif not isinstance(value, list):
            out[name] = value
    return out


def to_csv(records: Iterable[dict]) -> str:
    """Records (JSON objects) as CSV text: the header is every column in first-seen order."""
    rows = [flat(r) for r in records]
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([_cell(row.get(c)) for c in columns] for row in rows)
    return text.getvalue()


def _cell(value) -> str:
    """A value as a spreadsheet reads it: repr of a float (no rounding), true/false, empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if value != value else repr(value)  # NaN: missing
    return str(value)
