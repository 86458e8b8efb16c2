"""Calibration of the intervals and of the A/A gate: how often the 95% intervals of the
first-seat rate, A's score and the draw rate cover the truth, and how often an A/A
`compare --fail-on-change` between two master seeds fires.

    python benchmarks/calibration.py --reps 1000 --pairs 5000 --truth-pairs 1000000

The truth is one large run (its own master seed); A's score is exactly 1/2 by symmetry
when a strategy plays itself. Draws are rare on base (about 0.2% of games), and a rate
with a handful of events has a step-shaped coverage: at 500 pairs (about 2 draws a run)
the Wilson interval covers 92% or 97% depending on where the truth falls between two
counts, as every non-randomised interval does. Hence 5,000 pairs a run (10,000 games,
about 22 draws) and a truth from 1,000,000 pairs, whose own error (1.5% of the draw rate)
stays well inside one step. The repetitions are one run of reps * pairs seat-swapped
pairs split into reps groups by pair index: pairs are independent, so the groups are
independent samples, each tallied by the workers' own code (tallies.count_chunk) and turned
into intervals by the function that writes winrates.parquet (summaries.winrates). Two
consecutive groups of --aa-pairs pairs (the same pairs, cut finer) are an A/A comparison:
different seeds, so unpaired, Holm over the primary family (first-seat rate and A's score)
as `sim compare` does. Cutting finer gives ten times the comparisons for the same games,
which the false-alarm bound needs: at a true 5%, 500 comparisons put the Clopper-Pearson
upper bound above 8% about one time in six, 5,000 comparisons almost never.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np

MATCHUPS = ("random,random", "greedy,random", "greedy,greedy", "heuristic,heuristic")
QUANTITIES = {"first": "first-seat rate", "a_score": "A's score", "draw": "draw rate"}


@dataclass(frozen=True)
class Calibration:
    """One match-up's coverage counts (of reps), A/A fires (of comparisons), and the old
    per-game Wilson interval's first-seat coverage for contrast."""

    matchup: str
    reps: int
    pairs: int
    covered: dict[str, int]
    degenerate: dict[str, int]  # reps whose interval had no width (an exact quantity)
    comparisons: int
    fired: int
    per_game_first: int


def play_pairs(config, a: str, b: str, key: int, pairs: int) -> np.ndarray:
    """Engine result rows of `pairs` seat-swapped pairs (games 2i, 2i+1 share a seed), a
    deterministic self-play pair played once and recorded twice as the workers do."""
    from sim.play.batch import play_matchup
    from sim.players.specs import matchup
    from sim.store.seeds import game_seeds, played_seeds

    players = matchup(a, b)
    if players.replays:
        return play_matchup(config, players, game_seeds(key, 0, pairs))[0].repeat(2, axis=0)
    swapped = np.tile(np.array([0, 1], dtype=np.uint8), pairs)
    return play_matchup(config, players, played_seeds(key, 0, 2 * pairs, True), swapped)[0]


def winrate_rows(cell, out: np.ndarray, pairs: int) -> list[dict]:
    """The winrates.parquet row of every group of `pairs` pairs, from the workers' tally."""
    from sim.store import summaries, tables, tallies
    from sim.store.quantities import win_counts

    swapped = np.tile(np.array([False, True]), len(out) // 2)
    counts = []
    for start in range(0, len(out), 2 * pairs):
        g = slice(start, start + 2 * pairs)
        fields = tables.result_fields(out[g])
        hist, _ = tallies.count_chunk(fields, swapped[g], True)
        c = win_counts(cell, hist, True)
        c["wins"]["config"] = f"group{start // (2 * pairs):06d}"  # one row per group
        counts.append(c)
    return list(summaries.winrates(counts).iter_rows(named=True))


def truth(config, a: str, b: str, key: int, pairs: int) -> dict[str, float]:
    """The quantities on one large run; A's score 1/2 exactly in self-play (symmetry)."""
    from sim.engine import game as eg

    winner = play_pairs(config, a, b, key, pairs)[:, eg.R_WINNER]
    a_seat = np.tile(np.array([eg.WIN_FIRST, eg.WIN_SECOND]), pairs)
    score = ((winner == a_seat) + 0.5 * (winner == eg.DRAW)).mean()
    return {
        "first": float((winner == eg.WIN_FIRST).mean()),
        "a_score": 0.5 if a == b else float(score),
        "draw": float((winner == eg.DRAW).mean()),
    }


def aa_fires(x: dict, y: dict, alpha: float = 0.05) -> bool:
    """An A/A compare of two groups: unpaired, Holm over first-seat rate and A's score."""
    from reports.stats import holm, rate_difference
    from sim.store.summaries import score_estimate, seat_estimate

    p = [
        rate_difference(seat_estimate(x, "first_wins", "first_both"),
                        seat_estimate(y, "first_wins", "first_both")).p_value,
        rate_difference(score_estimate(x), score_estimate(y)).p_value,
    ]  # fmt: skip
    return any(rejected for _, rejected in holm(p, alpha))


def calibrate(
    matchup: str, reps: int, pairs: int, truth_pairs: int, seed: int, aa_pairs: int = 0
) -> Calibration:
    """Coverage and A/A fires of one match-up on base; A/A between groups of aa_pairs pairs
    (0: of pairs)."""
    from sim.model.config import load
    from sim.players.specs import matchup as parse
    from sim.runner.plan import Cell
    from sim.stats import wilson
    from sim.store.seeds import cell_key

    config = load("base")
    a, b = matchup.split(",")
    true = truth(config, a, b, cell_key(seed + 1, matchup), truth_pairs)
    cell = Cell(0, config, parse(a, b), True)
    out = play_pairs(config, a, b, cell_key(seed, matchup), reps * pairs)
    rows = winrate_rows(cell, out, pairs)
    aa = winrate_rows(cell, out, aa_pairs) if aa_pairs else rows
    covered = {q: sum(r[f"{q}_low"] <= true[q] <= r[f"{q}_high"] for r in rows) for q in QUANTITIES}
    degenerate = {q: sum(r[f"{q}_low"] == r[f"{q}_high"] for r in rows) for q in QUANTITIES}
    per_game = sum(
        lo <= true["first"] <= hi for lo, hi in (wilson(r["first_wins"], r["games"]) for r in rows)
    )
    fired = sum(aa_fires(aa[i], aa[i + 1]) for i in range(0, len(aa) - 1, 2))
    return Calibration(matchup, reps, pairs, covered, degenerate, len(aa) // 2, fired, per_game)


def upper_bound(k: int, n: int, confidence: float = 0.95) -> float:
    """One-sided Clopper-Pearson upper bound of a rate k/n."""
    from scipy.stats import beta

    return 1.0 if k == n else float(beta.ppf(confidence, k + 1, n - k))


def table(results: list[Calibration]) -> str:
    """The coverage and A/A table as Markdown."""
    lines = [
        "| match-up | quantity | coverage of 95% intervals | ± (2 sd) | zero-width |",
        "|---|---|---|---|---|",
    ]
    for c in results:
        for q, name in QUANTITIES.items():
            rate = c.covered[q] / c.reps
            sd = 2 * math.sqrt(0.95 * 0.05 / c.reps)
            lines.append(
                f"| {c.matchup} | {name} | {100 * rate:.1f}% ({c.covered[q]}/{c.reps}) "
                f"| {100 * sd:.1f} | {c.degenerate[q]} |"
            )
        old = c.per_game_first / c.reps
        lines.append(
            f"| {c.matchup} | first-seat rate, old per-game Wilson | {100 * old:.1f}% | | |"
        )
    lines += ["", "| match-up | A/A --fail-on-change fires | upper 95% bound |", "|---|---|---|"]
    for c in results:
        bound = upper_bound(c.fired, c.comparisons)
        lines.append(
            f"| {c.matchup} | {100 * c.fired / c.comparisons:.1f}% ({c.fired}/{c.comparisons}) "
            f"| {100 * bound:.1f}% |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="repetitions per match-up")
    parser.add_argument("--pairs", type=int, default=5000, help="seat-swapped pairs per repetition")
    parser.add_argument("--truth-pairs", type=int, default=1_000_000, help="pairs of the truth run")
    parser.add_argument("--aa-pairs", type=int, default=500, help="pairs per A/A group")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--matchup", action="append", help="default: the four of issue #12")
    args = parser.parse_args()
    results = []
    for matchup in args.matchup or MATCHUPS:
        started = time.perf_counter()
        results.append(
            calibrate(matchup, args.reps, args.pairs, args.truth_pairs, args.seed, args.aa_pairs)
        )
        print(f"{matchup}: {time.perf_counter() - started:.0f} s", flush=True)
    print(
        f"\n{args.reps} repetitions of {args.pairs} pairs on base; truth from "
        f"{args.truth_pairs:,} pairs (master seed {args.seed + 1}); seed {args.seed}; "
        f"A/A between groups of {args.aa_pairs} pairs\n"
    )
    print(table(results))


if __name__ == "__main__":
    main()
