"""Part-writing benchmark: CPU time to build and write one chunk's games and cards parts,
against the CPU time the engine takes to play that chunk.

    python benchmarks/parts.py --games 100000 --repeat 30
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

import numpy as np

from sim.config import load
from sim.engine.game import R_WINNER
from sim.game import play_matchup
from sim.runner import storage, tables
from sim.runner.plan import Cell
from sim.runner.run import part_schemas


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
    args = parser.parse_args()
    cell = Cell(0, load(args.config), "random", "greedy")
    seeds = np.arange(args.games, dtype=np.uint64)
    swapped = np.arange(args.games) % 2 == 1
    play = cpu_times(lambda: play_matchup(cell.config, "random", "random", seeds, swapped), 3)
    out, cards = play_matchup(cell.config, "random", "random", seeds, swapped)
    names = itertools.count()
    schemas = part_schemas()
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)

        def write_both() -> None:
            name = str(next(names))
            fields = tables.result_fields(out)
            games = tables.games_columns("bench", cell, 0, True, seeds, fields)
            storage.write_part(here, storage.GAMES, name, games, schemas[storage.GAMES])
            tally = tables.card_tally_columns(cell, True, cards, fields[R_WINNER], swapped)
            storage.write_part(
                here, storage.CARD_TALLIES, name, tally, schemas[storage.CARD_TALLIES]
            )
            if args.per_game_cards:
                card_rows = tables.cards_columns(cell, 0, True, cards)
                storage.write_part(here, storage.CARDS, name, card_rows, schemas[storage.CARDS])

        write_both()  # loads the compiled encoders
        write = cpu_times(write_both, args.repeat)
        parts = (storage.GAMES, storage.CARD_TALLIES, *([storage.CARDS] * args.per_game_cards))
        sizes = {t: storage.part_path(here, t, "0").stat().st_size for t in parts}
    best, median = write[0], write[len(write) // 2]
    print(f"{args.games:,} games of {args.config}: playing {play[0] * 1000:.0f} ms (best of 3)")
    print(
        f"building and writing the parts: best {best * 1000:.1f} ms, median "
        f"{median * 1000:.1f} ms of {args.repeat} = {100 * best / play[0]:.0f}% of the playing"
    )
    print(", ".join(f"{t}: {size / args.games:.1f} bytes/game" for t, size in sizes.items()))


if __name__ == "__main__":
    main()
