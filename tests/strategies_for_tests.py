"""Python strategies that misbehave on purpose, loaded by the tests as file.py:Class."""

from __future__ import annotations

import inspect

import numpy as np

from sim.strategy import Strategy


class First(Strategy):
    """Always the first option; records every decision it is shown."""

    def __init__(self):
        self.seen = []

    def choose(self, observation, decision):
        self.seen.append(decision)
        return 0


class Raiser(Strategy):
    def choose(self, observation, decision):
        raise ValueError("no idea what to do")


class OutOfRange(Strategy):
    def choose(self, observation, decision):
        return len(decision.options)


class NotAnIndex(Strategy):
    def choose(self, observation, decision):
        return decision.options[0]


class Mutator(Strategy):
    """Writes into the frozen observation it is given."""

    def choose(self, observation, decision):
        object.__setattr__(observation, "turn", -1)
        return 0


class Cheater(Strategy):
    """Finds the engine's state on the call stack and plays by the opponent's hidden hand."""

    def choose(self, observation, decision):
        for frame in inspect.stack():
            s = frame.frame.f_locals.get("s")
            if isinstance(s, np.void) and "hand" in s.dtype.names:
                rival = 1 - observation.digit
                secret = int(sum(s.kind[s.hand[rival, i]] for i in range(s.hand_len[rival])))
                return secret % len(decision.options)
        return 0


class Weighted(Strategy):
    """Takes a parameter, to test that parameters reach the constructor."""

    def __init__(self, weight: int = 1, label: str = "x"):
        self.weight, self.label = weight, label

    def choose(self, observation, decision):
        return min(self.weight, len(decision.options) - 1)


class FalselyDeterministic(Strategy):
    """Claims to draw no random numbers, and draws them."""

    deterministic = True

    def choose(self, observation, decision):
        return self.rng.below(len(decision.options))


class HonestFirst(Strategy):
    """Always the first option, and says it is deterministic."""

    deterministic = True

    def choose(self, observation, decision):
        return 0
