"""`sim summary --json`: the board and the sections as plain JSON values (docs/designer-guide.md,
JSON outputs).

Rates are fractions with their 95% interval ({"value", "low", "high"}), NaN as null; the
numbers are the ones the terminal prints, before rounding.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from reports import arc, board, skill
from reports.summary import CellSummary, Proportion
from sim.store.folder import RunFolder

if TYPE_CHECKING:
    from collections.abc import Sequence

    from reports.card_impact import Measured

SHAPE_VERSION = 1
"""Raised when a key changes meaning or disappears; new keys may be added without it."""


def num(x: float) -> float | None:
    """NaN as None, which JSON can hold."""
    return None if x is None or math.isnan(x) else x


def rate_json(p: Proportion) -> dict:
    """A proportion: count, games, value and its interval, units."""
    e = p.estimate
    return {
        "count": p.k,
        "games": p.n,
        "value": num(e.value),
        "low": num(e.low),
        "high": num(e.high),
        "units": e.units,
    }


def _cell(s: CellSummary, sections: tuple[str, ...]) -> dict:
    """One cell's long sections (only those asked for, like the terminal)."""
    low, high = s.turns.interval
    out: dict = {"config": s.config, "matchup": s.matchup}
    if "wins" in sections:
        out["wins"] = {k: rate_json(v) for k, v in s.wins.items()}
    if "outcomes" in sections:
        out["outcomes"] = {k: rate_json(v) for k, v in s.outcomes.items()}
    if "lines" in sections:
        out["tiebreak_lines"] = [
            {"line": t.line, "decided": rate_json(t.decided), "first_won": rate_json(t.first_won)}
            for t in s.tiebreaks
        ]
    if "ends" in sections:
        out["end_reasons"] = {k: rate_json(v) for k, v in s.end_reasons.items()}
    if "turns" in sections:
        out["turns"] = {"mean": num(s.turns.mean), "low": num(low), "high": num(high)}
    if "control" in sections:
        out["line_control"] = [
            {"line": c.line, **{k: rate_json(getattr(c, k)) for k in ("first", "second", "nobody")}}
            for c in s.control
        ]
    if "cards" in sections:
        out["cards"] = [
            {
                "strategy": c.strategy,
                "kind": c.kind,
                "seat_games": c.seat_games,
                "drawn_per_game": c.drawn,
                "played_per_game": c.played,
                "played_any": rate_json(c.played_any),
                "won_when_played": rate_json(c.won_played),
                "won_when_not": rate_json(c.won_not),
            }
            for c in s.cards
        ]
    if "arc" in sections:
        out["arc"] = arc.to_json(s.arc)
    return out


def to_json(
    run: RunFolder,
    summaries: list[CellSummary],
    margin: float,
    sections: tuple[str, ...],
    impact: Sequence[Measured] = (),
) -> dict:
    """The whole summary: the board's rows, the card-impact comparisons (impact) and their
    dominant flags among the card flags, then the sections asked for per cell."""
    rows = board.rows(summaries, margin)
    flags = [f.to_json() for f in board.card_flags(summaries)]
    dominant = [f.to_json() for m in impact for _, _, cell in m.cells for f in cell]
    measured = {"card_impact": [m.to_json() for m in impact]} if impact else {}
    return {
        "shape": SHAPE_VERSION,
        "run": str(run.path),
        "margin_pts": margin,
        "confidence": 0.95,
        "warnings": run.warnings(),
        "board": [board.to_json(r) for r in rows],
        "skill": skill.board_json(rows),
        "card_flags": flags + dominant,
        **measured,
        "cells": [_cell(s, sections) for s in summaries] if sections else [],
    }
