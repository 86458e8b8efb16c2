"""A rung against search budgets: strength and speed per budget, so designers can pick.

    python benchmarks/budgets.py --rung mc,heuristic --budgets 30,100,300,1000 --pairs 2000
    python benchmarks/budgets.py --rung ismcts,mc(rollouts=100) --budgets 100,300,1000

Each budget plays PAIRS seat-swapped pairs of STRONG(budget) against WEAK on `base` in this
process and reports A's score (wins + half draws) with its 95% interval over the pairs
(the function that writes winrates.parquet), whether the rung holds (interval above 50%),
and games per CPU second of that match-up and of STRONG against itself. Budgets are the
strategy's own parameter (mc: rollouts, ismcts: iterations). CPU seconds, not wall, since
the machine is shared. A budget's games do not depend on the engine's speed, only on the
seeds: the same command gives the same scores on any revision whose games are identical.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, beside calibration.py
from calibration import play_pairs, winrate_rows  # noqa: E402

SELF_PLAY_GAMES = 200


def with_budget(spec: str, budget: int) -> str:
    """mc -> mc(rollouts=300): the built-in's budget parameter set to budget."""
    from sim.players.specs import BUILT_IN

    name = BUILT_IN[spec].budget
    if name is None:
        raise SystemExit(f"{spec} has no search budget")
    return f"{spec}({name}={budget})"


def cpu_rate(config, a: str, b: str, pairs: int, key: int) -> tuple[np.ndarray, float]:
    """Result rows of `pairs` pairs and their games per CPU second."""
    started = time.process_time()
    out = play_pairs(config, a, b, key, pairs)
    return out, 2 * pairs / max(time.process_time() - started, 1e-9)


def measure(config, strong: str, weak: str, pairs: int, key: int) -> dict:
    """One budget's row: A's score over the pairs, and the two speeds."""
    from sim.players.specs import matchup
    from sim.runner.plan import Cell

    play_pairs(config, strong, strong, key, 1)  # compile (or load) outside the timing
    out, rate = cpu_rate(config, strong, weak, pairs, key)
    row = winrate_rows(Cell(0, config, matchup(strong, weak), True), out, pairs)[0]
    _, self_rate = cpu_rate(config, strong, strong, SELF_PLAY_GAMES // 2, key + 1)
    return {
        "strong": strong,
        "score": row["a_score"],
        "low": row["a_score_low"],
        "high": row["a_score_high"],
        "rate": rate,
        "self_rate": self_rate,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rung", required=True, help="STRONG,WEAK, e.g. mc,heuristic")
    parser.add_argument("--budgets", required=True, help="comma-separated budgets of STRONG")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    from sim.model.config import load
    from sim.players.specs import split_top_level
    from sim.store.seeds import cell_key

    config = load("base")
    strong, weak = split_top_level(args.rung)
    key = cell_key(args.seed, args.rung)
    print(f"{args.rung} on base, {args.pairs:,} seat-swapped pairs a budget, seed {args.seed}")
    print("| strong | A's score [95%, pairs] | rung holds | games/CPU s vs weak | vs itself |")
    print("|---|---|---|---|---|")
    for budget in (int(b) for b in args.budgets.split(",")):
        r = measure(config, with_budget(strong, budget), weak, args.pairs, key)
        holds = "yes" if r["low"] > 0.5 else "no"
        print(
            f"| {r['strong']} | {100 * r['score']:.1f}% [{100 * r['low']:.1f}, "
            f"{100 * r['high']:.1f}] | {holds} | {r['rate']:,.1f} | {r['self_rate']:,.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
