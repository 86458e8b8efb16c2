"""The runner's Parquet writer: every reader gets back exactly what pyarrow's own writer
would have given it, for real chunks and for the encoder's edge cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parts_reference import to_arrow

from sim.engine.game import R_WINNER
from sim.model.config import load
from sim.play.batch import lead_buffer, play_matchup
from sim.players.specs import matchup
from sim.runner.plan import Cell
from sim.store import parquet
from sim.store.layout import TABLES
from sim.store.leads import lead_columns
from sim.store.schema import arrow_schema, serialized_schema
from sim.store.seeds import game_seeds, played_seeds
from sim.store.tables import (
    card_tally_columns,
    cards_columns,
    games_columns,
    result_fields,
)


def chunk(config: str, players: tuple[str, str], swap: bool, games: int = 300, start: int = 40):
    cell = Cell(0, load(config), matchup(*players), swapped_pairs=swap)
    seeds = game_seeds(7, start, start + games)
    swapped = (np.arange(start, start + games) % 2 == 1) if swap else None
    leads = lead_buffer()
    out, cards = play_matchup(cell.config, cell.players, seeds, swapped, leads=leads)
    seats = np.zeros(games, bool) if swapped is None else swapped
    return {
        "games": games_columns("run1", cell, start, swap, result_fields(out)),
        "cards": cards_columns(cell, start, swap, cards),
        "card_tallies": card_tally_columns(cell, swap, cards, out[:, R_WINNER], seats),
        "leads": lead_columns(cell, leads),
    }


def both_writers(tmp_path: Path, table: str, columns) -> tuple[Path, Path]:
    ours, theirs = tmp_path / f"ours-{table}.parquet", tmp_path / f"pyarrow-{table}.parquet"
    parquet.write(ours, columns, serialized_schema(table))
    pq.write_table(to_arrow(table, columns), theirs)
    return ours, theirs


CHUNKS = [
    ("base", ("random", "greedy"), True),
    ("101", ("greedy", "greedy"), True),
    ("variants", ("random", "random"), False),
    ("base-60", ("heuristic", "random"), True),
    ("base", ("random", "cpu(level=2)"), False),
]


@pytest.mark.parametrize(("config", "players", "swap"), CHUNKS)
def test_pyarrow_and_polars_read_back_what_pyarrows_own_writer_gives(
    tmp_path, config, players, swap
):
    for table, columns in chunk(config, players, swap).items():
        ours, theirs = both_writers(tmp_path, table, columns)
        assert pq.read_table(ours).equals(pq.read_table(theirs))
        mine, reference = pl.read_parquet(ours), pl.read_parquet(theirs)
        assert mine.schema == reference.schema
        assert mine.equals(reference)


def test_duckdb_reads_the_same_rows(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    for table, columns in chunk("101", ("random", "greedy"), True).items():
        ours, theirs = both_writers(tmp_path, table, columns)
        query = "select * from '{}' order by all"
        assert (
            duckdb.sql(query.format(ours)).fetchall() == duckdb.sql(query.format(theirs)).fetchall()
        )


values_and_runs = st.lists(
    st.tuples(st.integers(0, 2**17), st.integers(1, 20)), min_size=0, max_size=80
)


@settings(max_examples=150, deadline=None)
@given(runs=values_and_runs, nulls=st.integers(0, 3), bits=st.sampled_from([8, 16, 32]))
def test_runs_bit_packing_and_nulls_round_trip(tmp_path_factory, runs, nulls, bits):
    """Values in runs of every length around the encoder's groups of 8 and the delta
    encoding's blocks of 128, with nulls."""
    values = np.array([v for v, n in runs for _ in range(n)], dtype=np.uint64)
    values = (values % (2**bits)).astype(np.uint32 if bits == 32 else np.uint16)
    rows = len(values)
    valid = np.arange(rows) % 4 >= nulls
    columns = [
        parquet.Column("n", values, bits=bits, valid=valid),
        parquet.Column("text", (values % 3).astype(np.uint8), dictionary=("a", "b", "c")),
        parquet.Column("flag", values % 2 == 1, bits=1, valid=~valid),
        parquet.Column("delta", values.astype(np.uint32), bits=32, valid=valid, ascending=True),
    ]
    schema = pa.schema(
        [
            pa.field("n", pa.uint32() if bits == 32 else pa.uint16() if bits == 16 else pa.uint8()),
            pa.field("text", pa.dictionary(pa.uint8(), pa.string())),
            pa.field("flag", pa.bool_()),
            pa.field("delta", pa.uint32()),
        ]
    )
    if bits == 8:
        columns[0] = parquet.Column("n", values.astype(np.uint8), bits=8, valid=valid)
    path = tmp_path_factory.mktemp("rt") / "x.parquet"
    parquet.write(path, columns, _serialized(schema))
    back = pq.read_table(path)
    expected_n = [int(v) if ok else None for v, ok in zip(columns[0].values, valid, strict=True)]
    assert back.column("n").to_pylist() == expected_n
    assert back.column("text").to_pylist() == ["abc"[int(v) % 3] for v in values]
    flags = [bool(v % 2) if not ok else None for v, ok in zip(values, valid, strict=True)]
    assert back.column("flag").to_pylist() == flags
    assert back.column("delta").to_pylist() == expected_n  # deltas of any sign, not only ascending


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.integers(0, 2**17), min_size=1, max_size=60),
    repeat=st.integers(1, 30),
    nulls=st.booleans(),
)
def test_repeated_values_round_trip(tmp_path_factory, values, repeat, nulls):
    """Each value standing for `repeat` rows (the cards table's game numbers), in every
    encoding the writer may pick for it."""
    values = np.array(values, dtype=np.uint32)
    valid = np.arange(len(values)) % 3 != 1 if nulls else None
    rows = len(values) * repeat
    columns = [
        parquet.Column("wide", values, bits=32, valid=valid, repeat=repeat),
        parquet.Column("narrow", (values % 5).astype(np.uint8), bits=8, repeat=repeat),
        parquet.Column("up", np.sort(values), bits=32, ascending=True, repeat=repeat),
        parquet.Column("flag", values % 2 == 1, bits=1, repeat=repeat),
        parquet.Column("text", (values % 2).astype(np.uint8), dictionary=("x", "y"), repeat=repeat),
        parquet.Column("row", np.arange(rows, dtype=np.uint32), bits=32),
    ]
    schema = pa.schema(
        [("wide", pa.uint32()), ("narrow", pa.uint8()), ("up", pa.uint32()),
         ("flag", pa.bool_()), ("text", pa.dictionary(pa.uint8(), pa.string())),
         ("row", pa.uint32())]
    )  # fmt: skip
    path = tmp_path_factory.mktemp("rep") / "x.parquet"
    parquet.write(path, columns, _serialized(schema))
    back = pq.read_table(path)
    every = np.repeat(values, repeat).tolist()
    shown = np.repeat(valid, repeat) if nulls else np.ones(rows, bool)
    expected = [v if ok else None for v, ok in zip(every, shown, strict=True)]
    assert back.column("wide").to_pylist() == expected
    assert back.column("narrow").to_pylist() == [v % 5 for v in every]
    assert back.column("up").to_pylist() == np.repeat(np.sort(values), repeat).tolist()
    assert back.column("flag").to_pylist() == [v % 2 == 1 for v in every]
    assert back.column("text").to_pylist() == ["xy"[v % 2] for v in every]
    assert back.column("row").to_pylist() == list(range(rows))


@pytest.mark.parametrize("width", [1, 3, 8])
def test_long_bit_packed_stretches_and_ragged_ends_round_trip(tmp_path, width):
    """Thousands of values with no run of eight (several bit-packed runs of at most 63
    groups each), then runs landing on and off the groups of eight, then a ragged end."""
    rng = np.random.default_rng(width)
    stretch = np.arange(5000) % (2**width)  # never eight equal values in a row
    if width > 1:
        stretch = (stretch + rng.integers(0, 2, 5000)) % (2**width)
    runs = np.repeat(rng.integers(0, 2**width, 40), rng.integers(1, 30, 40))
    values = np.concatenate([stretch, runs, stretch[:13]]).astype(np.uint8)
    valid = rng.random(len(values)) < 0.7
    columns = [
        parquet.Column("n", values, bits=8),
        parquet.Column("m", values, bits=8, valid=valid),
    ]
    schema = pa.schema([pa.field("n", pa.uint8()), pa.field("m", pa.uint8())])
    parquet.write(tmp_path / "x.parquet", columns, _serialized(schema))
    back = pq.read_table(tmp_path / "x.parquet")
    assert back.column("n").to_pylist() == values.tolist()
    expected = [int(v) if ok else None for v, ok in zip(values, valid, strict=True)]
    assert back.column("m").to_pylist() == expected


def _serialized(schema: pa.Schema) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(schema.empty_table(), sink)
    return pq.read_metadata(pa.BufferReader(sink.getvalue())).metadata[b"ARROW:schema"]


@pytest.mark.parametrize("table", TABLES)
def test_each_tables_schema_is_carried_as_pyarrows_writer_carries_it(table):
    assert serialized_schema(table) == _serialized(arrow_schema(table))


def test_columns_of_different_lengths_are_refused(tmp_path):
    columns = [
        parquet.Column("a", np.zeros(3, np.uint8), bits=8),
        parquet.Column("b", np.zeros(2, np.uint8), bits=8),
    ]
    with pytest.raises(ValueError, match="one length"):
        parquet.write(tmp_path / "x.parquet", columns, b"")


@pytest.mark.parametrize(("config", "players", "swap"), CHUNKS[:3])
def test_parts_carry_each_columns_null_count_min_and_max(tmp_path, config, players, swap):
    """So readers can skip parts by value: what pyarrow reads from the footer is what the
    column holds (text compared as UTF-8 bytes, integers as unsigned)."""
    for table, columns in chunk(config, players, swap).items():
        ours, _ = both_writers(tmp_path, table, columns)
        frame = pl.read_parquet(ours).with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))
        meta = pq.ParquetFile(ours).metadata.row_group(0)
        for i, name in enumerate(frame.columns):
            stats, values = meta.column(i).statistics, frame[name]
            if values.dtype == pl.Boolean:
                continue
            assert stats.null_count == values.null_count(), name
            present = values.drop_nulls()
            assert stats.has_min_max == (len(present) > 0), name
            if len(present):
                assert (stats.min, stats.max) == (present.min(), present.max()), name


# What each reader gets, as the README's table of reader types says: by the kind of column
# (text naming a config, match-up or strategy; an enum's fixed list; flag; unsigned integers).
GAMES_KINDS = {
    **dict.fromkeys(
        ["run_id", "config", "config_hash", "rules_version", "matchup", "first", "second"], "name"
    ),
    **dict.fromkeys(["winner", "outcome", "end_reason", "half_leader"], "enum"),
    **{f"line_{v}": "enum" for v in (10, 20, 30, 40, 50, 60)},
    "swapped": "flag",
    **dict.fromkeys(["pair", "game"], "u32"),
    **dict.fromkeys(["first_digit", "tiebreak_line"], "u8"),
    **dict.fromkeys(["turns", "score_first", "score_second"], "u16"),
    **dict.fromkeys(["lead_changes", "decided_turn", "max_deficit"], "u16"),
}
READER_TYPES = {  # kind -> polars, pandas (numpy), pandas (pyarrow backend), DuckDB
    "name": ("Categorical", "category", "dictionary<values=string, indices=int32, ordered=0>",
             "VARCHAR"),
    "enum": ("Categorical", "category", "dictionary<values=string, indices=int8, ordered=1>",
             "VARCHAR"),
    "flag": ("Boolean", "bool", "bool", "BOOLEAN"),
    "u8": ("UInt8", "uint8", "uint8", "UTINYINT"),
    "u16": ("UInt16", "uint16", "uint16", "USMALLINT"),
    "u32": ("UInt32", "uint32", "uint32", "UINTEGER"),
    "u64": ("UInt64", "uint64", "uint64", "UBIGINT"),
}  # fmt: skip


def _games_part(tmp_path: Path, swap: bool = True) -> Path:
    from sim.store import layout

    columns = chunk("base", ("random", "greedy"), swap)["games"]
    layout.write_part(tmp_path, "games", "c0", columns, serialized_schema("games"))
    return layout.part_path(tmp_path, "games", "c0")


def test_parts_carry_no_reader_private_metadata(tmp_path):
    """A plain Arrow schema: no polars (or pandas) keys that one version reads and another
    does not."""
    schema = pq.read_schema(_games_part(tmp_path))
    assert not schema.metadata
    assert all(not field.metadata for field in schema)


def test_polars_gets_the_documented_types(tmp_path):
    schema = pl.read_parquet(_games_part(tmp_path)).schema
    assert {n: str(t) for n, t in schema.items()} == {
        n: READER_TYPES[k][0] for n, k in GAMES_KINDS.items()
    }


def test_pandas_gets_the_documented_types(tmp_path):
    import pandas as pd  # the test extra installs it: a missing reader fails, never skips

    path = _games_part(tmp_path)
    numpy_types = {n: str(t) for n, t in pd.read_parquet(path).dtypes.items()}
    expected = {n: READER_TYPES[k][1] for n, k in GAMES_KINDS.items()}
    expected["tiebreak_line"] = "float64"  # numpy integers hold no nulls: pandas makes floats
    draws = pd.read_parquet(path)["winner"].eq("draw").any()
    assert draws  # base at random has draws in 300 games: null decided turns and deficits
    expected["decided_turn"] = expected["max_deficit"] = "float64"
    assert numpy_types == expected
    arrow = pd.read_parquet(path, dtype_backend="pyarrow").dtypes
    assert {n: str(t) for n, t in arrow.items()} == {
        n: f"{READER_TYPES[k][2]}[pyarrow]" for n, k in GAMES_KINDS.items()
    }
    winner = pd.read_parquet(path)["winner"].dtype
    assert list(winner.categories) == ["first", "second", "draw"] and winner.ordered


def test_duckdb_gets_the_documented_types(tmp_path):
    import duckdb

    relation = duckdb.sql(f"select * from '{_games_part(tmp_path)}'")
    assert dict(zip(relation.columns, map(str, relation.types), strict=True)) == {
        n: READER_TYPES[k][3] for n, k in GAMES_KINDS.items()
    }


def test_without_swapping_pair_is_null_and_pandas_makes_it_float(tmp_path):
    import pandas as pd

    frame = pd.read_parquet(_games_part(tmp_path, swap=False))
    assert frame["pair"].isna().all() and str(frame["pair"].dtype) == "float64"


def _column_sizes(tmp_path: Path, games: int, swap: bool = True) -> dict:
    """Each games column's chunk metadata in a part of that many random,random games."""
    cell = Cell(0, load("base"), matchup("random", "random"), swapped_pairs=swap)
    seeds = played_seeds(7, 0, games, swap)  # as the worker deals them
    swapped = np.arange(games) % 2 == 1 if swap else None
    out, _ = play_matchup(cell.config, cell.players, seeds, swapped)
    columns = games_columns("run1", cell, 0, swap, result_fields(out))
    path, _ = both_writers(tmp_path, "games", columns)
    meta = pq.ParquetFile(path).metadata.row_group(0)
    return {meta.column(i).path_in_schema: meta.column(i) for i in range(meta.num_columns)}


def test_pages_are_zstd_compressed_where_that_saves_bytes(tmp_path):
    """turns (2 bytes a game as uint16, encoded bit-packed) is smaller compressed; a
    constant column's few bytes stay as they are."""
    games = 2000
    by_name = _column_sizes(tmp_path, games)
    turns = by_name["turns"]
    assert turns.compression == "ZSTD"
    assert turns.total_compressed_size < turns.total_uncompressed_size < 2 * games
    assert by_name["config"].compression == "UNCOMPRESSED"


@pytest.mark.parametrize("swap", [True, False])
def test_the_games_table_takes_at_most_6_bytes_a_game(tmp_path, swap):
    """Issue #12's bound, on the columns' bytes of a 20,000-game part (the footer's fixed
    cost fades in the runner's 100,000-game parts). The seed is not stored: 64 random bits
    a pair (4 bytes a game, 8 without swapping) would break it alone with the rest."""
    games = 20_000
    by_name = _column_sizes(tmp_path, games, swap)
    assert "seed" not in by_name
    assert sum(c.total_compressed_size for c in by_name.values()) <= 6 * games
