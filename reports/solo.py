"""`sim solo`: how strong each CPU level is against each strategy a human could use.

The CPU only plays the second seat, so seats are never swapped: every game is its own
unit, and the interval is sim.stats' rate over games (Wilson's), as summary gives for it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reports.verdict import Verdict, decide
from sim.engine import game as eg
from sim.engine.state import END_REASONS
from sim.model.config import Config
from sim.play.batch import play_matchup
from sim.players.specs import Matchup, Player, parse_player
from sim.stats import events, rate
from sim.store.seeds import cell_key, game_seeds


@dataclass(frozen=True)
class SoloRow:
    level: int
    human: str
    games: int
    human_wins: int
    low: float
    high: float
    ends: dict[str, float]
    mean_turns: float
    unit: str = "game"  # what the interval counts: the CPU cannot swap seats

    @property
    def rate(self) -> float:
        return self.human_wins / self.games


def solo_row(config: Config, human: Player, level: int, games: int, seed: int) -> SoloRow:
    """Play `games` games of human (first seat) against the CPU at one level."""
    players = Matchup(human, parse_player(f"cpu(level={level})"))  # a replay sees the level
    seeds = game_seeds(cell_key(seed, players.text), 0, games)
    out, _ = play_matchup(config, players, seeds, cpu_level=level)
    wins = int((out[:, eg.R_WINNER] == eg.WIN_FIRST).sum())
    estimate = rate(events(wins, 0, games, games), "game")  # unpaired: the game is the unit
    low, high = estimate.low, estimate.high
    counts = np.bincount(out[:, eg.R_END], minlength=len(END_REASONS)) / games
    ends = {name: float(counts[i]) for i, name in enumerate(END_REASONS) if name}
    return SoloRow(
        level, human.text, games, wins, low, high, ends, float(out[:, eg.R_TURNS].mean())
    )


def humans() -> list[str]:
    """The default humans: the built-ins fast enough for tens of thousands of games (mc and
    ismcts take seconds a game at their default budgets; ask for them with --human)."""
    return ["random", "greedy", "heuristic"]


def verdict(row: SoloRow, margin: float) -> Verdict:
    """Whether the level is even for this human (win rate within 50% ± margin points), the
    same verdict logic as the balance board's (reports/verdict.py)."""
    t = events(row.human_wins, 0, row.games, row.games)
    return decide(t, row.unit, margin, ("human", "CPU"))
