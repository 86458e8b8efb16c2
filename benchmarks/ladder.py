"""The default ladder: each rung's score against the rung below, through the runner.

    python benchmarks/ladder.py --pairs 2000 --seed 2026 --out runs/ladder

Plays random < greedy < heuristic < mc < ismcts at their default settings (each adjacent
pair, the stronger first) and the extra match-ups that place `strong` (--place), every one
PAIRS seat-swapped pairs on `base` in one run folder (sim.api.run: the runner, so an
interrupted run resumes, and the games depend only on the seed). Prints the stronger
player's score (wins + half draws) with its 95% interval over the pairs (the runner's
winrates), whether the rung holds (the issue asks 55%), and games per second: the games
over the seconds the worker spent playing them (wall clock of one worker; on a shared
machine that counts waits too). For budgets of one rung, see benchmarks/budgets.py.
"""

from __future__ import annotations

import argparse

RUNGS = ("random", "greedy", "heuristic", "mc", "ismcts")
PLACE = ("strong,heuristic", "mc,strong")  # where strong falls: above heuristic, below mc?
TARGET = 0.55  # the bar for a rung


def matchups(rungs: list[str], place: list[str]) -> list[str]:
    """Every adjacent rung, stronger first, then the placing match-ups."""
    return [f"{hi},{lo}" for lo, hi in zip(rungs, rungs[1:], strict=False)] + place


def play_seconds(manifest: dict, cells: dict[str, str]) -> dict[str, float]:
    """Per match-up, the seconds its chunks spent playing (not writing)."""
    seconds: dict[str, float] = {}
    for name, chunk in manifest["chunks"].items():
        m = cells[name]
        seconds[m] = seconds.get(m, 0.0) + chunk["seconds"] - chunk.get("write_seconds", 0.0)
    return seconds


def chunk_matchups(plan) -> dict[str, str]:
    """Chunk name -> its match-up label."""
    return {c.name: c.cell.players.text for c in plan.chunks()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000, help="seat-swapped pairs a rung")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default="runs/ladder", help="the run folder (resumes)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rungs", default=",".join(RUNGS), help="weakest first")
    parser.add_argument("--place", default=";".join(PLACE), help="extra match-ups, ';'")
    args = parser.parse_args()
    import sim.api
    from sim.players.specs import split_top_level
    from sim.runner.plan import make_plan

    games = 2 * args.pairs
    players = matchups(split_top_level(args.rungs), [p for p in args.place.split(";") if p])
    print(f"base, {args.pairs:,} seat-swapped pairs a match-up, seed {args.seed}, {args.out}")
    view = sim.api.run(["base"], players, games, args.seed, args.out, workers=args.workers)
    plan = make_plan(["base"], players, games, args.seed, True, None)
    seconds = play_seconds(view.manifest, chunk_matchups(plan))
    rows = view.winrates.collect().iter_rows(named=True)
    by_matchup = {r["matchup"]: r for r in rows}
    print("| stronger | weaker | score [95%] | holds | games/s |")
    print("|---|---|---|---|---|")
    for label in players:
        r = by_matchup[plan_label(label)]
        holds = "yes" if r["a_score"] >= TARGET else "no"
        rate = games / max(seconds.get(plan_label(label), 0.0), 1e-9)
        shown = f"{rate:,.1f}" if rate < 100 else f"{rate:,.0f}"
        print(
            f"| {r['a']} | {r['b']} | {100 * r['a_score']:.1f}% "
            f"[{100 * r['a_score_low']:.1f}, {100 * r['a_score_high']:.1f}] | {holds} | "
            f"{shown} |"
        )


def plan_label(label: str) -> str:
    """A match-up as the run labels it (canonical specs)."""
    from sim.players.specs import parse_matchup

    return parse_matchup(label).text


if __name__ == "__main__":
    main()
