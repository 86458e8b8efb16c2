"""game.record_arc alone: ns a game over random lead walks, with and without the arc.

    python benchmarks/arc_record.py [--games 4096] [--reps 200]

The engine benchmark (engine.py) resolves a few percent of a game at best; record_arc is
one of several pieces of the arc's cost (docs/performance.md), so a variant of it is timed
here in seconds, with no compile of the game loops.
Each game's walk is copied into the state first; the same loop without record_arc gives
that copy's cost, which the figure leaves out. CPU time, best of 9.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from sim.engine import game
from sim.engine.state import ARC_TURNS, LEAD_MAX, new_state


@numba.njit
def _games(s, walks, turns, winners, out, leads, reps, arc):
    """Each game's walk copied into s, then recorded (when arc) into its own out row."""
    for _ in range(reps):
        for g in range(walks.shape[0]):
            s.turns = turns[g]
            s.first = g & 1
            s.arc_leads[: turns[g] + 1] = walks[g, : turns[g] + 1]
            out[g, game.R_WINNER] = winners[g]
            if arc:
                game.record_arc(s, out[g], leads)
    return 0


def walks(games: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Leads in points (multiples of 10) that move by up to 30 a turn, 18-35 turns."""
    rng = np.random.default_rng(seed)
    turns = rng.integers(18, 36, games)
    steps = rng.integers(-3, 4, (games, ARC_TURNS))
    steps[:, 0] = 0
    lead = np.clip(np.cumsum(steps, axis=1), -LEAD_MAX // 10, LEAD_MAX // 10)
    return (10 * lead).astype(np.int16), turns, rng.integers(0, 2, games)


def main() -> None:
    """Print record_arc's ns a game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    lead, turns, winners = walks(args.games)
    s, leads = new_state(), game.lead_buffer()
    out = np.zeros((args.games, game.RESULT_WIDTH), dtype=np.int64)
    best = {}
    for arc in (False, True):
        _games(s, lead, turns, winners, out, leads, 1, arc)
        runs = []
        for _ in range(9):
            started = time.process_time()
            _games(s, lead, turns, winners, out, leads, args.reps, arc)
            runs.append(time.process_time() - started)
        best[arc] = min(runs) / (args.reps * args.games) * 1e9
    print(f"record_arc {best[True] - best[False]:.1f} ns a game, {turns.mean():.1f} turns")


if __name__ == "__main__":
    main()
