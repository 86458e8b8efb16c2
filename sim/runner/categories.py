"""The text values of the tables' enum columns, in code order, and the line columns' names:
shared by the columns workers build (tables.py, numba) and the types readers see
(schema.py, polars), so neither side has to load the other's libraries."""

from __future__ import annotations

from sim.cards import NAMES
from sim.engine.state import END_REASONS, MAX_LINES

SEATS = ("first", "second")
WINNERS = ("first", "second", "draw")
OUTCOMES = ("points", "tiebreak", "draw")
ENDS = tuple(r for r in END_REASONS if r)
KINDS = tuple(NAMES)
LINE_COLUMNS = [f"line_{10 * (i + 1)}" for i in range(MAX_LINES)]
