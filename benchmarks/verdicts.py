"""Does "about N more pairs would decide" hold? Play a small sample until the balance verdict
is inconclusive, play the N more pairs it names, and count how often the verdict is then
decided (balanced or favours). The verdict promises about 80% (reports/verdict.py, POWER;
50% where the first sample cannot promise 80% at any size, so small first samples may fall
a little below 80%).

    python benchmarks/verdicts.py --config base --pairs 400 --repetitions 40

Each repetition uses fresh seeds (disjoint pair ranges of one master seed), random against
random, the first seat's score over seat-swapped pairs as in `sim summary`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from reports.sprt import pair_seeds, play_pairs
from reports.verdict import decide
from sim.engine.game import DRAW, R_WINNER, WIN_FIRST
from sim.model.config import load
from sim.stats import Tally

SEATS = ("first seat", "second seat")


def first_seat_tally(out: np.ndarray) -> Tally:
    """The first seat's score over pairs (rows in pair order), as sim.stats wants it."""
    winner = out[:, R_WINNER]
    points = (winner == WIN_FIRST) + 0.5 * (winner == DRAW)
    per_pair = points.reshape(-1, 2).sum(axis=1)
    units = per_pair.size
    return Tally(
        units, per_pair.sum(), 2 * units, (per_pair**2).sum(), 4 * units, 2 * per_pair.sum()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="base")
    parser.add_argument("--pairs", type=int, default=400, help="the first, small sample")
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument("--repetitions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    config = load(args.config)
    started, next_pair = time.perf_counter(), 0
    tried = decided = 0
    mores = []
    while tried < args.repetitions:
        seeds = pair_seeds(args.seed, "random", "random", next_pair, next_pair + args.pairs)
        next_pair += args.pairs
        first = first_seat_tally(play_pairs(config, "random", "random", seeds))
        verdict = decide(first, "pair", args.margin, SEATS)
        if verdict.kind != "inconclusive" or verdict.more is None or verdict.more > 200_000:
            continue  # only inconclusive starts (with a playable N) test the promise
        more = pair_seeds(args.seed, "random", "random", next_pair, next_pair + verdict.more)
        next_pair += verdict.more
        later = first + first_seat_tally(play_pairs(config, "random", "random", more))
        tried += 1
        decided += decide(later, "pair", args.margin, SEATS).kind != "inconclusive"
        mores.append(verdict.more)
    print(
        f"{args.config}, margin ±{args.margin:g} pts, first samples of {args.pairs:,} pairs: "
        f"{decided} of {tried} inconclusive verdicts decided after the N more pairs they named "
        f"({100 * decided / tried:.0f}%; promised about 80%); N median {int(np.median(mores)):,}, "
        f"range {min(mores):,}..{max(mores):,}; {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
