"""The interface a designer's own strategy implements, and everything it is given.

A strategy sees an Observation (docs/RULES.md 7, never the game state) and, at each decision
point, a Decision listing the legal options; it returns the index of its choice. It is
told when a game starts (with its own random stream) and when it ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.model.notation import Card
from sim.players.observation import Observation

_MASK = (1 << 64) - 1


class Stream:
    """A strategy's own random stream (splitmix64, the engine's generator).

    Derived from the game seed, separate from the deal's stream, so a strategy's
    sampling never changes which cards are dealt.
    """

    def __init__(self, state: int) -> None:
        self._state = int(state) & _MASK

    def _next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in 0..n-1, drawn exactly as the compiled engine draws it."""
        return ((self._next() >> 32) * n) >> 32

    def random(self) -> float:
        """A uniform float in [0, 1)."""
        return (self._next() >> 11) / float(1 << 53)

    def choice(self, options):
        return options[self.below(len(options))]

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


@dataclass(frozen=True)
class Play:
    """One legal play: the hand card at hand_index into a line (0 is the 10 line), pointing
    direction (sim.engine.cards LEFT, RIGHT, UP, DOWN; DIR_NONE for undirected cards)."""

    hand_index: int
    card: Card
    line: int
    direction: int


PLAY, PRINT, PASTE, DIRECTION, GOSUB = "play", "print", "paste", "direction", "gosub"


@dataclass(frozen=True)
class Decision:
    """A decision point and its legal options, in the engine's fixed order.

    kind and options:
    - "play": Play options (hand order, lines top to bottom, directions L R U D);
    - "print": hand cards that may enter `slot`; "paste": cut-pile cards (oldest first);
    - "direction": directions (ints) for `card`, just printed or pasted;
    - "gosub": line indexes `card` may move to.
    """

    kind: str
    options: tuple
    turn: int
    card: Card | None = None
    slot: tuple[int, int] | None = None


@dataclass(frozen=True)
class GameStart:
    """What a strategy is told as a game starts."""

    digit: int
    seat: str  # "first" or "second"
    config: str
    seed: int
    rng: Stream


@dataclass(frozen=True)
class GameEnd:
    """How the game ended, from the strategy's side: won is None for a draw."""

    digit: int
    won: bool | None
    scores: tuple[int, int]  # by digit
    outcome: str  # points, tiebreak, draw
    end_reason: str
    turns: int


class Strategy:
    """Base class for a strategy written in Python; override choose, and the hooks if needed.

    Instances are made once per seat and reused across games, so keep per-game memory in
    attributes reset by start_game. They must pickle (workers receive them). Set
    `deterministic = True` on a strategy that never uses its rng (the conformance suite
    checks the claim): reports then know its self-play pairs are one game played twice.
    """

    deterministic: bool = False

    def start_game(self, start: GameStart) -> None:
        self.rng = start.rng

    def choose(self, observation: Observation, decision: Decision) -> int:
        raise NotImplementedError

    def end_game(self, end: GameEnd) -> None:
        """Called once the game is over."""
