"""The game's arc (docs/statistics.md) recomputed in plain Python from the scores after
each turn, written from the definitions, not from the engine's bookkeeping (game.track)."""

from __future__ import annotations


def arc(scores: list[tuple[int, int]], winner: int | None, first: int) -> dict:
    """lead_changes, decided_turn, max_deficit and half_leader (a seat, "first" or
    "second", or None) of a game whose turn t ended with scores[t - 1] (digit 0, digit 1)
    and that winner (a digit, None for a draw) won."""
    leads = [zero - one for zero, one in scores]
    signs = [lead for lead in leads if lead != 0]
    changes = sum(1 for a, b in zip(signs, signs[1:], strict=False) if (a > 0) != (b > 0))
    turns = len(leads)
    half = leads[turns // 2 - 1] if turns // 2 else 0
    leader = None if half == 0 else (0 if half > 0 else 1)
    seat = None if leader is None else ("first" if leader == first else "second")
    if winner is None:
        return {
            "lead_changes": changes,
            "decided_turn": None,
            "max_deficit": None,
            "half_leader": seat,
        }
    ahead = [lead if winner == 0 else -lead for lead in leads]
    behind = [t for t, margin in enumerate(ahead, start=1) if margin <= 0]
    decided = min((behind[-1] if behind else 0) + 1, turns)
    deficit = max([0, *(-margin for margin in ahead)])
    return {
        "lead_changes": changes,
        "decided_turn": decided,
        "max_deficit": deficit,
        "half_leader": seat,
    }
