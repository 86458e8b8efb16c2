"""The tables' types as polars and Arrow see them: what a part file's schema says, so
parts read back with the same polars types, enums included.

Only the parent loads this (polars and pyarrow take a third of a second to import): it
hands each worker the serialized schemas with its task.
"""

from __future__ import annotations

import io
from functools import cache

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from sim.runner.categories import (
    CARD_CODES,
    CARD_RATES,
    CARD_SUMS,
    COUNT_NAMES,
    ENDS,
    KINDS,
    LINE_COLUMNS,
    MOMENTS,
    OUTCOMES,
    SEATS,
    SIDES,
    WINNERS,
)

SEAT = pl.Enum(SEATS)
WINNER = pl.Enum(WINNERS)
OUTCOME = pl.Enum(OUTCOMES)
END_REASON = pl.Enum(ENDS)
KIND = pl.Enum(KINDS)

GAMES_TYPES: dict[str, pl.DataType] = {
    "run_id": pl.Categorical(),
    "config": pl.Categorical(),
    "config_hash": pl.Categorical(),
    "rules_version": pl.Categorical(),
    "matchup": pl.Categorical(),
    "first": pl.Categorical(),
    "second": pl.Categorical(),
    "swapped": pl.Boolean(),
    "pair": pl.UInt32(),
    "game": pl.UInt32(),
    "seed": pl.UInt64(),
    "first_digit": pl.UInt8(),
    "winner": WINNER,
    "outcome": OUTCOME,
    "tiebreak_line": pl.UInt8(),
    "end_reason": END_REASON,
    "turns": pl.UInt16(),
    "score_first": pl.UInt16(),
    "score_second": pl.UInt16(),
    **dict.fromkeys(LINE_COLUMNS, SEAT),
}

SIDE = pl.Enum(SIDES)

CARDS_TYPES: dict[str, pl.DataType] = {  # opt-in: one row per game and seat
    "config": pl.Categorical(),
    "matchup": pl.Categorical(),
    "game": pl.UInt32(),
    "seat": SEAT,
    "strategy": pl.Categorical(),
    **{f"{code}_{count}": pl.UInt8() for code in CARD_CODES for count in COUNT_NAMES},
}

CARD_TALLY_TYPES: dict[str, pl.DataType] = {  # per chunk, side and kind (tables.py)
    "config": pl.Categorical(),
    "matchup": pl.Categorical(),
    "seats": SIDE,
    "strategy": pl.Categorical(),
    "kind": KIND,
    **dict.fromkeys(CARD_SUMS, pl.UInt64()),
    **{f"{q}_{m}": pl.UInt64() for q in CARD_RATES for m in MOMENTS},
}
TYPES = {"games": GAMES_TYPES, "cards": CARDS_TYPES, "card_tallies": CARD_TALLY_TYPES}


@cache
def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema polars writes for a table's types, field metadata included (that is
    how polars knows an enum's categories when it reads the part back)."""
    types = TYPES[table]
    buffer = io.BytesIO()
    pl.DataFrame(schema=types).write_parquet(buffer)
    return pq.read_schema(pa.BufferReader(buffer.getvalue()))


@cache
def serialized_schema(table: str) -> bytes:
    """arrow_schema as Parquet files carry it (the ARROW:schema key pyarrow writes)."""
    buffer = io.BytesIO()
    pq.write_table(arrow_schema(table).empty_table(), buffer)
    return pq.read_metadata(pa.BufferReader(buffer.getvalue())).metadata[b"ARROW:schema"]
