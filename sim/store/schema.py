"""The tables' Arrow schemas, declared here once: what a part file's schema says, so every
reader (polars of any version, pyarrow, pandas, DuckDB) gets the same types.

Plain Arrow only, no reader-private metadata: a text column is a dictionary of strings
(polars reads it as Categorical, pandas as category, DuckDB as VARCHAR), its codes signed
as the Arrow format recommends, int8 for the fixed category lists of enum columns (in
categories.py order, the writer storing the whole list in every part) and int32 for
open-ended names. Only the parent loads this (pyarrow takes a tenth of a second to
import): it hands each worker the serialized schemas with its task.
"""

from __future__ import annotations

import base64
from functools import cache

import pyarrow as pa

from sim.store.categories import (
    CARD_CODES,
    CARD_RATES,
    CARD_SUMS,
    COUNT_NAMES,
    LINE_COLUMNS,
    MOMENTS,
)

NAME = pa.dictionary(pa.int32(), pa.string())  # config, match-up, strategy: any name
ENUM = pa.dictionary(pa.int8(), pa.string(), ordered=True)  # a fixed list, in code order

GAMES_TYPES: dict[str, pa.DataType] = {
    "run_id": NAME,
    "config": NAME,
    "config_hash": NAME,
    "rules_version": NAME,
    "matchup": NAME,
    "first": NAME,
    "second": NAME,
    "swapped": pa.bool_(),
    "pair": pa.uint32(),
    "game": pa.uint32(),  # no seed: readers derive it (sim/store/seeding.py)
    "first_digit": pa.uint8(),
    "winner": ENUM,  # categories.WINNERS
    "outcome": ENUM,  # OUTCOMES
    "tiebreak_line": pa.uint8(),
    "end_reason": ENUM,  # ENDS
    "turns": pa.uint16(),
    "score_first": pa.uint16(),
    "score_second": pa.uint16(),
    **dict.fromkeys(LINE_COLUMNS, ENUM),  # SEATS
    "lead_changes": pa.uint16(),  # the game's arc (docs/statistics.md)
    "decided_turn": pa.uint16(),  # null for a draw
    "max_deficit": pa.uint16(),  # null for a draw
    "half_leader": ENUM,  # SEATS; null when level at half-time
}

CARDS_TYPES: dict[str, pa.DataType] = {  # opt-in: one row per game and seat
    "config": NAME,
    "matchup": NAME,
    "game": pa.uint32(),
    "seat": ENUM,  # SEATS
    "strategy": NAME,
    **{f"{code}_{count}": pa.uint8() for code in CARD_CODES for count in COUNT_NAMES},
}

CARD_TALLY_TYPES: dict[str, pa.DataType] = {  # per chunk, side and kind (tables.py)
    "config": NAME,
    "matchup": NAME,
    "seats": ENUM,  # SIDES
    "strategy": NAME,
    "kind": ENUM,  # KINDS
    **dict.fromkeys(CARD_SUMS, pa.uint64()),
    **{f"{q}_{m}": pa.uint64() for q in CARD_RATES for m in MOMENTS},
}
LEAD_TYPES: dict[str, pa.DataType] = {  # per chunk, turn and lead (leads.py)
    "config": NAME,
    "matchup": NAME,
    "turn": pa.uint16(),  # 1 for the first; games longer than LEAD_TURNS are cut there
    "ahead": ENUM,  # SEATS: the seat whose score is higher; null when level
    "margin": pa.uint16(),  # by how many points
    "games": pa.uint64(),
}
TALLY_TYPES: dict[str, pa.DataType] = {  # per chunk, group and code (tallies.py)
    "config": NAME,
    "matchup": NAME,
    "paired": pa.bool_(),  # the cell's units are seat-swapped pairs (else games)
    "tally": ENUM,  # tallies.TALLIES: a group of quantities.py, or a DIRECT value
    "code": pa.uint16(),  # a pair's codes (first * size + second), a game's, or 0 / 1
    "count": pa.uint64(),  # units with that code; a DIRECT value's sum (0) or squares (1)
}
TYPES = {
    "games": GAMES_TYPES,
    "cards": CARDS_TYPES,
    "card_tallies": CARD_TALLY_TYPES,
    "leads": LEAD_TYPES,
    "tallies": TALLY_TYPES,
}


@cache
def arrow_schema(table: str) -> pa.Schema:
    """A table's Arrow schema, every column nullable, no metadata."""
    return pa.schema([pa.field(name, kind) for name, kind in TYPES[table].items()])


@cache
def serialized_schema(table: str) -> bytes:
    """arrow_schema as Parquet files carry it: the ARROW:schema key pyarrow writes, the
    base64 of the schema's IPC message (made here without pyarrow.parquet, whose import
    and pandas' cost the parent 0.5 s of CPU while its workers start)."""
    return base64.b64encode(arrow_schema(table).serialize().to_pybytes())
