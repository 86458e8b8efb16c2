"""A Python strategy's speed: this checkout against another, `sim bench` runs alternating.

    python benchmarks/python_players.py --old /work/main --rounds 5 --games 2000

Each round runs `sim bench --json` once per side (old then new, new then old on the next
round), each from its own checkout's .venv with its own warm numba cache, so a load spike
on the shared machine hits both sides of a round. Prints each side's median games per
second and the median and range of the per-round ratios (new / old): compare the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def games_per_second(checkout: Path, config: str, players: str, games: int) -> float:
    """One `sim bench` run of a checkout (its .venv's sim), in games per second."""
    command = [str(checkout / ".venv" / "bin" / "sim"), "bench", "--json"]
    command += ["--config", config, "--players", players, "--games", str(games)]
    done = subprocess.run(command, cwd=checkout, capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout)["configs"][0]["games_per_second"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--new", type=Path, default=HERE, help="default: this checkout")
    parser.add_argument("--config", default="base")
    parser.add_argument("--players", default="canonical-random,random")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sides = {"old": args.old.resolve(), "new": args.new.resolve()}
    figures: dict[str, list[float]] = {"old": [], "new": []}
    for round_ in range(args.rounds):
        for label in ("old", "new") if round_ % 2 == 0 else ("new", "old"):
            speed = games_per_second(sides[label], args.config, args.players, args.games)
            figures[label].append(speed)
        print(f"round {round_ + 1}: old {figures['old'][-1]:.0f}, new {figures['new'][-1]:.0f}")
    ratios = sorted(n / o for o, n in zip(figures["old"], figures["new"], strict=True))
    old, new = statistics.median(figures["old"]), statistics.median(figures["new"])
    print(f"{args.config} {args.players}: old {old:.0f} games/s, new {new:.0f} games/s")
    print(f"ratio {statistics.median(ratios):.2f} (rounds {ratios[0]:.2f}-{ratios[-1]:.2f})")


if __name__ == "__main__":
    main()
