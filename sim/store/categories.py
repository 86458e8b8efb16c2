"""The text values of the tables' enum columns, in code order, and the line columns' names:
shared by the columns workers build (tables.py, numba) and the types readers see
(schema.py, polars), so neither side has to load the other's libraries."""

from __future__ import annotations

from sim.engine.cards import CODES, NAMES
from sim.engine.state import END_REASONS, MAX_LINES

SEATS = ("first", "second")
WINNERS = ("first", "second", "draw")
OUTCOMES = ("points", "tiebreak", "draw")
ENDS = tuple(r for r in END_REASONS if r)
KINDS = tuple(NAMES)
LINE_COLUMNS = [f"line_{10 * (i + 1)}" for i in range(MAX_LINES)]
COUNT_NAMES = ("drawn", "played", "took_effect")  # the engine's C_DRAWN, C_PLAYED, C_EFFECT
CARD_CODES = tuple(code or "BLK" for code in CODES)  # per-game cards columns: CODE_count

# card tallies (tables.card_tally_columns)
CARD_SUMS = ("seat_games", "drawn", "played", "took_effect")
CARD_RATES = ("any_played", "won_played", "won_unplayed")  # y / z over a unit's seat-games
MOMENTS = ("units", "y", "z", "yy", "zz", "yz")  # of sim.stats.Tally
SIDES = ("a", "b", "both")  # the strategy whose seat-games a row counts; both: every seat

# the run's win counts (summaries.py), also read by the live estimates before polars loads
POINTS = [f"a_points_{h}" for h in range(5)]  # units by A's half points (draw 1, win 2)
FIRST_POINTS = [f"first_points_{h}" for h in range(5)]  # units by the first seat's
