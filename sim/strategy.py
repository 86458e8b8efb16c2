"""The interface a designer's own strategy implements, at the path plug-in authors import:
`from sim.strategy import Strategy, Decision, PLAY`. It is defined in sim.players.interface."""

from sim.model.notation import Card
from sim.players.interface import (
    DIRECTION,
    GOSUB,
    PASTE,
    PLAY,
    PRINT,
    Decision,
    GameEnd,
    GameStart,
    Play,
    Strategy,
    Stream,
)
from sim.players.observation import Observation

__all__ = [
    "DIRECTION", "GOSUB", "PASTE", "PLAY", "PRINT", "Card", "Decision", "GameEnd",
    "GameStart", "Observation", "Play", "Strategy", "Stream",
]  # fmt: skip
