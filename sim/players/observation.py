"""What a player may see (docs/RULES.md 7): the only view of a game a strategy is given."""

from __future__ import annotations

from dataclasses import dataclass

from sim.model.notation import Card, Slot
from sim.model.position import Plain, card_at, cut_cards, display_rows, hand_cards


@dataclass(frozen=True)
class Observation:
    """One player's view. Hidden things (the opponent's hand unless 'open', pile order below
    the top, pile tops when 'closed') are not in it at all, so a strategy cannot read them."""

    digit: int
    display: tuple[tuple[Slot, ...], ...]
    hand: tuple[Card, ...]
    opponent_hand: tuple[Card, ...] | None
    hand_sizes: tuple[int, int]
    pile_sizes: tuple[int, int]
    pile_tops: tuple[Card | None, Card | None] | None
    cut_pile: tuple[Card, ...]
    removed: tuple[Card, ...]
    forced: tuple[int, int] | None
    turn: int


def observe(s, digit: int, visibility: str = "default") -> Observation:
    """Build digit's observation of state s (or its Plain fields) under a visibility mode."""
    s = s if isinstance(s, Plain) else Plain(s)
    sizes = tuple(int(s.pile_len[d] - s.pile_top[d]) for d in (0, 1))
    tops = None
    if visibility != "closed":
        tops = tuple(
            card_at(s, int(s.pile[d][s.pile_top[d]]), False) if sizes[d] else None for d in (0, 1)
        )
    forced = None if s.forced_line < 0 else (int(s.forced_line), int(s.forced_col))
    return Observation(
        digit=digit,
        display=tuple(tuple(row) for row in display_rows(s)),
        hand=tuple(hand_cards(s, digit)),
        opponent_hand=tuple(hand_cards(s, 1 - digit)) if visibility == "open" else None,
        hand_sizes=(int(s.hand_len[0]), int(s.hand_len[1])),
        pile_sizes=sizes,
        pile_tops=tops,
        cut_pile=tuple(cut_cards(s)),
        removed=tuple(card_at(s, int(s.removed[i]), False) for i in range(int(s.removed_len))),
        forced=forced,
        turn=int(s.turns),
    )
