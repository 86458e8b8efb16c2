"""The canonical random strategy of docs/RULES.md 9, written against the plug-in interface.

It draws from its stream exactly as the compiled `random` does, so the Python loop and
the compiled loop play identical games with it: the check that both loops agree.
"""

from __future__ import annotations

from sim.strategy import PLAY, Decision, Strategy


class CanonicalRandom(Strategy):
    """A playable card uniformly, then one of its lines, then a direction; every
    sub-decision uniformly among its options."""

    def choose(self, observation, decision: Decision) -> int:
        if decision.kind != PLAY:
            return self.rng.below(len(decision.options))
        plays = decision.options
        cards = sorted({p.hand_index for p in plays})
        card = cards[self.rng.below(len(cards))]
        lines = sorted({p.line for p in plays if p.hand_index == card})
        line = lines[self.rng.below(len(lines))]
        choices = [i for i, p in enumerate(plays) if p.hand_index == card and p.line == line]
        return choices[self.rng.below(len(choices))]
