"""Part-writing benchmark: CPU time to build and write one chunk's games and card tallies
parts, against the CPU time the engine takes to play that chunk; --pyarrow writes the same
columns with pyarrow's own writer instead (zstd level 1, dictionaries from the engine's
codes, DELTA_BINARY_PACKED for game and pair), the alternative issue #12 asks to measure.

    python benchmarks/parts.py --games 100000 --repeat 30 [--pyarrow]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

import numpy as np

from sim.engine.game import R_WINNER
from sim.model.config import load
from sim.play.batch import play_matchup
from sim.players.specs import matchup
from sim.runner.plan import Cell
from sim.runner.run import part_schemas
from sim.store import layout, tables
from sim.store.schema import arrow_schema
from sim.store.seeds import played_seeds


def write_with_pyarrow(path: Path, table: str, columns: list) -> None:
    """The columns through pyarrow's writer: dictionary arrays straight from the codes (no
    hashing), the rest as they are, written as issue #12 specifies."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema, arrays = arrow_schema(table), []
    for column, field in zip(columns, schema, strict=True):
        values = np.repeat(column.values, column.repeat) if column.repeat > 1 else column.values
        mask = None if column.valid is None else ~np.repeat(column.valid, column.repeat)
        if column.bits == 0:
            index = field.type.index_type
            codes = pa.array(values.astype(index.to_pandas_dtype()), type=index, mask=mask)
            words = pa.array(column.dictionary, pa.string())
            arrays.append(pa.DictionaryArray.from_arrays(codes, words, ordered=field.type.ordered))
        else:
            arrays.append(pa.array(values, type=field.type, mask=mask))
    deltas = [c.name for c in columns if c.ascending]
    pq.write_table(
        pa.Table.from_arrays(arrays, schema=schema),
        path,
        compression="zstd",
        compression_level=1,
        use_dictionary=[c.name for c in columns if not c.ascending and c.bits != 64],
        column_encoding=dict.fromkeys(deltas, "DELTA_BINARY_PACKED"),
    )


def cpu_times(work, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return sorted(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="base")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--per-game-cards", action="store_true", help="write that table too")
    parser.add_argument("--pyarrow", action="store_true", help="write with pyarrow's writer")
    args = parser.parse_args()
    cell = Cell(0, load(args.config), matchup("random", "greedy"))
    seeds = played_seeds(1, 0, args.games, swap=True)  # as a run's pairs share them
    swapped = np.arange(args.games) % 2 == 1
    play = cpu_times(lambda: play_matchup(cell.config, cell.players, seeds, swapped), 3)
    out, cards = play_matchup(cell.config, cell.players, seeds, swapped)
    names = itertools.count()
    schemas = part_schemas()
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)

        def put(table: str, name: str, columns: list) -> None:
            if args.pyarrow:
                write_with_pyarrow(layout.part_path(here, table, name), table, columns)
            else:
                layout.write_part(here, table, name, columns, schemas[table])

        for table in (layout.GAMES, layout.CARD_TALLIES, layout.CARDS):
            (here / table).mkdir()

        def write_both() -> None:
            name = str(next(names))
            fields = tables.result_fields(out)
            put(layout.GAMES, name, tables.games_columns("bench", cell, 0, True, fields))
            tally = tables.card_tally_columns(cell, True, cards, fields[R_WINNER], swapped)
            put(layout.CARD_TALLIES, name, tally)
            if args.per_game_cards:
                put(layout.CARDS, name, tables.cards_columns(cell, 0, True, cards))

        write_both()  # loads the compiled encoders
        write = cpu_times(write_both, args.repeat)
        parts = (layout.GAMES, layout.CARD_TALLIES, *([layout.CARDS] * args.per_game_cards))
        sizes = {t: layout.part_path(here, t, "0").stat().st_size for t in parts}
    best, median = write[0], write[len(write) // 2]
    writer = "pyarrow's writer" if args.pyarrow else "the part writer"
    print(
        f"{writer}; {args.games:,} games of {args.config}: playing {play[0] * 1000:.0f} ms "
        "(best of 3)"
    )
    print(
        f"building and writing the parts: best {best * 1000:.1f} ms, median "
        f"{median * 1000:.1f} ms of {args.repeat} = {100 * best / play[0]:.0f}% of the playing"
    )
    print(", ".join(f"{t}: {size / args.games:.1f} bytes/game" for t, size in sizes.items()))


if __name__ == "__main__":
    main()
