"""Moves from Python: legal placements and applying one turn with given choices."""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.engine.cards import DIR_NONE
from sim.engine.state import ERR_ILLEGAL, MAX_SCRIPT, OK, POLICY_SCRIPT, SCRIPT_LINE
from sim.engine.turn import (
    begin_turn,
    card_lines,
    finish_turn,
    forced_applies,
    line_masks,
    play_card,
)
from sim.model.notation import Card
from sim.model.position import hand_cards


class IllegalMove(ValueError):
    """A move the rules do not allow in this position."""


class EngineLimit(ValueError):
    """A legal move that went past what the engine's state can hold: refused, never
    truncated (RULES.md 13)."""


@dataclass(frozen=True)
class SubChoice:
    """A PRINT or PASTE card with its direction, or a GOSUB line (line index)."""

    card: Card | None = None
    direction: int = DIR_NONE
    line: int | None = None


@dataclass(frozen=True)
class Move:
    """A turn's INPUT: a hand card, a line index and a direction; or a pass (card None)."""

    card: Card | None
    line: int = -1
    direction: int = DIR_NONE
    subs: tuple[SubChoice, ...] = field(default_factory=tuple)


def legal_lines(s, digit: int) -> list[list[int]]:
    """For each hand card in order, the line indexes where it may be played this turn."""
    forced = forced_applies(s, digit)
    plain, cont = line_masks(s)
    out = []
    for i in range(int(s.hand_len[digit])):
        mask = int(card_lines(s, s.hand[digit, i], forced, plain, cont))
        out.append([line for line in range(int(s.lines)) if mask >> line & 1])
    return out


def apply_move(s, digit: int, move: Move, load: bool = True) -> None:
    """Play one whole turn for digit; raises IllegalMove (state then unusable) if refused."""
    _load_script(s, digit, move.subs)
    forced = begin_turn(s, digit)
    options = legal_lines(s, digit)
    if move.card is None:
        if any(options):
            raise IllegalMove("a pass is allowed only when no card can be played")
        finish_turn(s, digit, True, load)
        return
    index = _find_in_hand(s, digit, move, options)
    play_card(s, digit, index, move.line, move.direction, forced)
    if s.error == ERR_ILLEGAL:
        raise IllegalMove("the move or one of its sub-decisions is not legal here")
    if s.error != OK:
        raise EngineLimit(f"the move went past the engine's limits (error {s.error})")
    if s.script_pos != s.script_len:
        raise IllegalMove("a sub-decision was given that the move never asked for")
    finish_turn(s, digit, False, load)


def _find_in_hand(s, digit: int, move: Move, options: list[list[int]]) -> int:
    hand = hand_cards(s, digit)
    matching = [i for i, card in enumerate(hand) if move.card.matches(card)]
    if not matching:
        raise IllegalMove("the card is not in the mover's hand")
    for i in matching:
        if move.line in options[i]:
            return i
    raise IllegalMove("the card may not be played on that line")


def _load_script(s, digit: int, subs: tuple[SubChoice, ...]) -> None:
    if len(subs) > MAX_SCRIPT:
        raise IllegalMove(f"more than {MAX_SCRIPT} sub-decisions")
    s.policy[digit] = POLICY_SCRIPT
    for row, sub in enumerate(subs):
        if sub.line is not None:
            s.script[row] = (SCRIPT_LINE, -1, -1, DIR_NONE, sub.line)
        else:
            card = sub.card
            axis = -1 if card.axis is None else card.axis
            s.script[row] = (card.kind, axis, card.face, sub.direction, -1)
    s.script_len = len(subs)
    s.script_pos = 0
