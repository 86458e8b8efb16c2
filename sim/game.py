"""Games driven from Python, one turn at a time: for watching games and for invariant tests.

The turn sequence is exactly the compiled loop's (engine/turn.py random_turn), so a
seed gives the same game here as in play_games.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from sim.config import Config
from sim.engine.game import setup
from sim.engine.state import END_REASONS, OK, ONGOING, new_state
from sim.engine.turn import begin_turn, finish_turn, play_card, random_input
from sim.notation import Card
from sim.position import hand_cards


class EngineError(RuntimeError):
    """The engine hit one of its fixed limits; the message names the game seed."""


@dataclass(frozen=True)
class Turn:
    """One turn as it was played: who, their hand before, and the card, line and direction."""

    number: int
    digit: int
    hand: list[Card]
    card: Card | None  # None: a pass (or a CPU turn: see placed)
    line: int
    direction: int
    placed: tuple[tuple[Card, int], ...] = ()  # a CPU turn's cards as they lie, with lines
    cpu_card: str = ""  # the CPU card's side and step for that turn


def start(config: Config, seed: int, cpu_level: int = 0):
    """A state holding a freshly dealt game (with the CPU in the second seat if cpu_level)."""
    s = new_state()
    setup(s, *config.engine_args(cpu_level), np.uint64(seed), 0)
    return s


def play_batch(
    config: Config,
    seeds: np.ndarray,
    s=None,
    cpu_level: int = 0,
    swapped=None,
    buffers=None,
    policies=(0, 0),
    budgets=(0, 0),
) -> tuple[np.ndarray, np.ndarray]:
    """Play one game per seed in one compiled call.

    policies are the engine codes of strategies A and B (players.policy_codes), budgets
    their search budgets (players.budgets); A sits
    first unless the game's swapped flag is set; cpu_level puts the CPU in the second
    seat. Returns the result rows (engine/game.py R_* columns) and the card counts
    [game, seat, kind, C_*]. Pass a state to reuse it across batches.
    """
    from sim.engine.game import play_games

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    out, cards = buffers if buffers is not None else result_buffers(len(seeds))
    state = new_state() if s is None else s
    flags = np.zeros(len(seeds), np.uint8) if swapped is None else np.asarray(swapped, np.uint8)
    seats = np.asarray(policies, dtype=np.int8)
    limits = np.asarray(budgets, dtype=np.int32)
    play_games(state, *config.engine_args(cpu_level), seats, limits, seeds, flags, out, cards)
    return out, cards


def result_buffers(games: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed result rows and card counts for a batch of games."""
    from sim.cards import N_KINDS
    from sim.engine.game import RESULT_WIDTH

    out = np.zeros((games, RESULT_WIDTH), dtype=np.int32)
    return out, np.zeros((games, 2, N_KINDS, 3), dtype=np.uint8)


def turns(s, seed: int = 0) -> Iterator[Turn]:
    """Play the game in s to its end with the random strategy, yielding each turn after it."""
    while s.ended == ONGOING:
        digit = int(s.mover)
        if digit == s.cpu:
            yield cpu_turn_of(s, seed)
            continue
        hand = hand_cards(s, digit)
        forced = begin_turn(s, digit)
        index, line, direction = random_input(s, digit, forced)
        if index >= 0:
            play_card(s, digit, index, line, direction, forced)
        finish_turn(s, digit, index < 0, True)
        if s.error != OK:
            raise EngineError(f"game seed {seed}: the engine hit a fixed limit (error {s.error})")
        card = hand[int(index)] if index >= 0 else None
        yield Turn(int(s.turns), digit, hand, card, int(line), int(direction))


def cpu_turn_of(s, seed: int) -> Turn:
    """Play the CPU's turn; its cards as they lie after the turn, with their lines."""
    from sim.engine.cpu import cpu_turn
    from sim.position import card_at

    cpu_turn(s)
    if s.error != OK:
        raise EngineError(f"game seed {seed}: the engine hit a fixed limit (error {s.error})")
    placed = tuple(
        (card_at(s, int(s.cpu_log[i, 0]), True), int(s.cpu_log[i, 1]))
        for i in range(int(s.cpu_log_len))
    )
    side = "WINNING" if s.cpu_side else "NOT WINNING"
    return Turn(int(s.turns), int(s.cpu), [], None, -1, 0, placed, f"{side} {int(s.cpu_step)}")


def end_reason(s) -> str | None:
    return END_REASONS[int(s.ended)] or None
