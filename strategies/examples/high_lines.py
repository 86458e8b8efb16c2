"""A worked example of a designer's strategy (docs/strategies.md, "Write your own strategy
in 20 lines").

    sim run --config base --players strategies/examples/high_lines.py:HighLines,random \
        --games 2000 --out runs/high-lines
"""

from sim.strategy import PLAY, Strategy


class HighLines(Strategy):
    """Play into the most valuable line open to a card (or the least, with high=False);
    every sub-decision at random from the game's own stream."""

    def __init__(self, high: bool = True):
        self.high = high

    def start_game(self, start):
        super().start_game(start)  # keeps start.rng, this game's own stream, as self.rng
        self.digit = start.digit  # per-game memory lives in attributes set here

    def choose(self, observation, decision):
        if decision.kind != PLAY:
            return self.rng.below(len(decision.options))
        lines = [play.line if self.high else -play.line for play in decision.options]
        return lines.index(max(lines))
