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

from sim.runner.categories import ENDS, KINDS, LINE_COLUMNS, OUTCOMES, SEATS, WINNERS

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

CARDS_TYPES: dict[str, pl.DataType] = {
    "config": pl.Categorical(),
    "matchup": pl.Categorical(),
    "game": pl.UInt32(),
    "seat": SEAT,
    "strategy": pl.Categorical(),
    "kind": KIND,
    "drawn": pl.UInt8(),
    "played": pl.UInt8(),
    "took_effect": pl.UInt8(),
}
TEXT_COLUMNS = ["config", "matchup", "seat", "strategy", "kind"]


@cache
def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema polars writes for a table's types, field metadata included (that is
    how polars knows an enum's categories when it reads the part back)."""
    types = GAMES_TYPES if table == "games" else CARDS_TYPES
    buffer = io.BytesIO()
    pl.DataFrame(schema=types).write_parquet(buffer)
    return pq.read_schema(pa.BufferReader(buffer.getvalue()))


@cache
def serialized_schema(table: str) -> bytes:
    """arrow_schema as Parquet files carry it (the ARROW:schema key pyarrow writes)."""
    buffer = io.BytesIO()
    pq.write_table(arrow_schema(table).empty_table(), buffer)
    return pq.read_metadata(pa.BufferReader(buffer.getvalue())).metadata[b"ARROW:schema"]


def cards_long(cards: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame | pl.DataFrame:
    """The cards table (frame or lazy scan) with its text columns as plain strings:
    config, matchup, game, seat, strategy, kind, drawn, played, took_effect."""
    return cards.with_columns(pl.col(TEXT_COLUMNS).cast(pl.String))
