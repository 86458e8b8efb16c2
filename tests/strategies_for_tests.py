"""Python strategies that misbehave on purpose, loaded by the tests as file.py:Class."""

from __future__ import annotations

import contextlib
import inspect
import sys
import time

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


class Hangs(Strategy):
    """Never decides."""

    def choose(self, observation, decision):
        while True:
            time.sleep(0.05)


class SwallowsTimeouts(Strategy):
    """Catches everything, the decision timeout too, and answers late."""

    def choose(self, observation, decision):
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline:
            with contextlib.suppress(BaseException):  # misbehaving on purpose
                time.sleep(0.05)
        return 0


class Slow(Strategy):
    """Takes its time (a fifth of a second) over each decision."""

    def __init__(self, seconds: float = 0.2):
        self.seconds = seconds

    def choose(self, observation, decision):
        time.sleep(self.seconds)
        return 0


class Exits(Strategy):
    def choose(self, observation, decision):
        sys.exit(3)


class Interrupts(Strategy):
    def choose(self, observation, decision):
        raise KeyboardInterrupt


class BrokenInit(Strategy):
    def __init__(self):
        raise RuntimeError("cannot set up")

    def choose(self, observation, decision):
        return 0


class BrokenStart(Strategy):
    def start_game(self, start):
        raise LookupError("no table for this seat")

    def choose(self, observation, decision):
        return 0


class BrokenEnd(Strategy):
    def end_game(self, end):
        raise ZeroDivisionError("no games to average")

    def choose(self, observation, decision):
        return 0


class LateStarter(Strategy):
    """Fails when its first decision of a game comes after turn 2: never in a whole game
    (the conformance check's one-turn positions start it mid-game)."""

    def start_game(self, start):
        self.fresh = True

    def choose(self, observation, decision):
        if self.fresh and decision.turn > 1:
            raise RuntimeError("joined a game already under way")
        self.fresh = False
        return 0


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
