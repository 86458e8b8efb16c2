"""Run folders made by hand for the report tests: a tiny run counted by hand, and runs of
seat-swapped pairs with a planted first-seat advantage."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
from card_reference import write_tallies

F, S, D = "first", "second", "draw"
LINES = (10, 20, 30, 40, 50)

# Eight hand-made games of greedy (A) against random (B); odd games are seat-swapped.
WINNER = [F, F, S, D, F, S, F, S]
OUTCOME = ["points", "tiebreak", "tiebreak", "draw", "points", "points", "tiebreak", "points"]
TIEBREAK_LINE = [None, 30, 30, None, None, None, 40, None]
END = ["run", "deck_out", "deck_out", "stalled", "run", "deck_out", "deck_out", "deck_out"]
TURNS = [20, 22, 24, 26, 21, 23, 25, 27]
LINE_10 = [F, F, S, None, F, S, F, None]
SAVE_PLAYED = {(0, F), (1, F), (2, S), (3, F), (5, F)}  # (game, seat) that played a SAVE


def tiny_games() -> pl.DataFrame:
    n = len(WINNER)
    swapped = [g % 2 == 1 for g in range(n)]
    return pl.DataFrame(
        {
            "config": ["tiny"] * n,
            "matchup": ["greedy,random"] * n,
            "first": ["random" if s else "greedy" for s in swapped],
            "second": ["greedy" if s else "random" for s in swapped],
            "swapped": swapped,
            "pair": [g // 2 for g in range(n)],
            "game": list(range(n)),
            "seed": [100 + g // 2 for g in range(n)],
            "winner": WINNER,
            "outcome": OUTCOME,
            "tiebreak_line": pl.Series(TIEBREAK_LINE, dtype=pl.UInt8),
            "end_reason": END,
            "turns": pl.Series(TURNS, dtype=pl.UInt16),
            "line_10": LINE_10,
            **{f"line_{v}": [F] * n for v in (20, 30, 40, 50)},
            "line_60": pl.Series([None] * n, dtype=pl.String),
        }
    )


def tiny_cards() -> pl.DataFrame:
    rows = []
    for g in range(len(WINNER)):
        for seat in (F, S):
            a_seat = F if g % 2 == 0 else S
            strategy = "greedy" if seat == a_seat else "random"
            for kind in ("BLANK", "SAVE"):
                played = int((g, seat) in SAVE_PLAYED) if kind == "SAVE" else 2
                drawn = 1 if kind == "SAVE" else 3
                rows.append(("tiny", "greedy,random", g, seat, strategy, kind, drawn, played))
    columns = ["config", "matchup", "game", "seat", "strategy", "kind", "drawn", "played"]
    return pl.DataFrame(rows, schema=columns, orient="row")


def write_run(folder: Path, games: pl.DataFrame, cards=None, manifest=None) -> Path:
    (folder / "games").mkdir(parents=True)
    games.write_parquet(folder / "games" / "part-0.parquet")
    if cards is not None:
        write_tallies(folder, games, cards)
    default = {
        "status": "complete",
        "params": {"swap": True},
        "total_games": games.height,
        "configs": {"tiny": {"content": {"rules": {"lines": 5}}}},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest or default))
    return folder


def planted(
    config: str, matchup: str, pairs: int, p_first: float, seed: int, seats=None
) -> pl.DataFrame:
    """Seat-swapped pairs in which the first seat wins each game with chance p_first (no
    draws): the first-seat advantage is planted at p_first - 50%. seats: A's and B's specs
    when the match-up's text holds commas inside parentheses."""
    rng = np.random.default_rng(seed)
    n = 2 * pairs
    first_won = rng.random(n) < p_first
    swapped = np.arange(n) % 2 == 1
    a, b = seats or matchup.split(",")
    return pl.DataFrame(
        {
            "config": [config] * n,
            "matchup": [matchup] * n,
            "first": np.where(swapped, b, a),
            "second": np.where(swapped, a, b),
            "swapped": swapped,
            "pair": np.arange(n) // 2,
            "game": np.arange(n),
            "seed": np.arange(n) // 2,
            "winner": np.where(first_won, "first", "second"),
            "outcome": np.where(np.arange(n) % 10 == 0, "tiebreak", "points"),
            "tiebreak_line": pl.Series([None] * n, dtype=pl.UInt8),
            "end_reason": ["run"] * n,
            "turns": pl.Series(30 + np.arange(n) % 7, dtype=pl.UInt16),
            **{f"line_{v}": ["first"] * n for v in LINES},
        }
    )


def manifest(configs: list[str], games: int) -> dict:
    return {
        "status": "complete",
        "params": {"swap": True},
        "total_games": games,
        "configs": {c: {"content": {"rules": {"lines": 5}}} for c in configs},
    }
