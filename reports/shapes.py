"""The `--json` shapes of sprt, card-impact, solo and bench (docs/designer-guide.md, JSON
outputs), each the same numbers the terminal prints, before rounding: rates as fractions,
NaN as null.

Every shape carries "command" and "shape" (raised only when a key changes meaning or goes).
"""

from __future__ import annotations

import math

SHAPE_VERSION = 1


def num(x: float) -> float | None:
    """NaN and the infinities as None, which JSON can hold."""
    return None if x is None or not math.isfinite(x) else float(x)


def head(command: str) -> dict:
    """The keys every shape starts with."""
    return {"command": command, "shape": SHAPE_VERSION}


def sprt(result, a: str, b: str, settings, config: str, seed: int) -> dict:
    """`sim sprt --json`: the decision, Elo with its interval, LLR and bounds, the sample."""
    elo, low, high = result.elo()
    return {
        **head("sprt"),
        "a": a,
        "b": b,
        "config": config,
        "seed": seed,
        "verdict": result.verdict,
        "elo": {"value": num(elo), "low": num(low), "high": num(high)},
        "llr": result.llr,
        "bounds": [result.lower, result.upper],
        "elo0": settings.elo0,
        "elo1": settings.elo1,
        "alpha": settings.alpha,
        "beta": settings.beta,
        "games": result.games,
        "pairs": result.pairs,
        "pentanomial": list(result.pentanomial.counts()),
    }


def card_impact(
    impact, config: str, seed: int, a: str, b: str, dominant_pts: float, flags=()
) -> dict:
    """`sim card-impact --json`: each measure on both decks and its paired change, the
    dominant threshold in points and the flags it raised (reports.card_impact.dominant)."""
    from sim.engine.cards import NAMES

    swap = impact.swap
    return {
        **head("card-impact"),
        "config": config,
        "card": NAMES[swap.card],
        "replacement": NAMES[swap.replacement],
        "copies": swap.copies,
        "a": a,
        "b": b,
        "seed": seed,
        "games": impact.games,
        "pairs": impact.pairs,
        "measures": [
            {
                "name": m.name,
                "kind": "mean" if m.name == "mean turns" else "rate",
                "original": m.original,
                "swapped": m.swapped,
                "change": {
                    "estimate": m.change.estimate,
                    "low": m.change.low,
                    "high": m.change.high,
                },
                "p_value": num(m.change.p_value),
                "holm_p": num(m.holm_p),
                "significant": m.significant,
                "verdict": m.verdict,
            }
            for m in impact.measures
        ],
        "dominant_pts": dominant_pts,
        "dominant": [f.to_json() for f in flags],
    }


def solo(rows: list, verdicts: list, config: str, seed: int, margin: float) -> dict:
    """`sim solo --json`: per level and human, the human's win rate and its verdict."""
    return {
        **head("solo"),
        "config": config,
        "seed": seed,
        "margin_pts": margin,
        "rows": [
            {
                "level": r.level,
                "human": r.human,
                "games": r.games,
                "human_wins": r.human_wins,
                "win_rate": {"value": r.rate, "low": r.low, "high": r.high},
                "end_reasons": r.ends,
                "mean_turns": r.mean_turns,
                "verdict": v.to_json(),
            }
            for r, v in zip(rows, verdicts, strict=True)
        ],
    }


def bench(results: list, players: str) -> dict:
    """`sim bench --json`: per config the timing and what the games showed."""
    return {
        **head("bench"),
        "players": players,
        "configs": [
            {
                "config": r.config,
                "games": r.games,
                "seconds": r.seconds,
                "games_per_second": r.games_per_second,
                "warmup_seconds": r.warmup_seconds,
                "mean_turns": r.mean_turns,
                "first_wins": r.first_wins,
                "end_reasons": r.end_shares,
                "errors": r.errors,
            }
            for r in results
        ],
    }
