"""The balance board: one screen that answers "is this variant balanced, and if not, by how
much and for whom?" for every config x match-up of a run.

A row per cell: its pairs, the first seat's advantage (its score above 50%, in points, a
draw half a win), A's score against B, the draw rate, the share of games decided by
tie-break, the mean turns, and the verdict on the first-seat advantage within the margin
(reports/verdict.py). Below it, one line per match-up of two different strategies says
which is stronger (the same verdict logic, with Elo). It fits 80 columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reports import arc as game_arc
from reports import present
from reports.summary import CellSummary, Proportion
from reports.verdict import Verdict, decide
from sim.players.specs import read_matchup

SEATS = ("first seat", "second seat")


@dataclass(frozen=True)
class BoardRow:
    """One cell on the board: its numbers and its two verdicts (seat, strategies)."""

    cell: CellSummary
    first: Proportion
    a_score: Proportion
    seat: Verdict
    strategies: Verdict | None  # None when A and B are the same strategy

    @property
    def a(self) -> str:
        return read_matchup(self.cell.matchup).first.text

    @property
    def b(self) -> str:
        return read_matchup(self.cell.matchup).second.text


def rows(summaries: list[CellSummary], margin: float) -> list[BoardRow]:
    """The board's rows, one per cell, with verdicts at margin points."""
    out = []
    for s in summaries:
        first = s.first_score
        a, b = read_matchup(s.matchup).specs
        score = s.wins[f"A ({a}) score"]
        strategies = None if a == b else decide(score.tally, s.unit, margin, (a, b))
        seat = decide(first.tally, s.unit, margin, SEATS)
        out.append(BoardRow(s, first, score, seat, strategies))
    return out


def _two(value: str, bounds: str) -> str:
    """A number over its interval, two lines in one cell."""
    return f"{value}\n{bounds}" if bounds else value


def _advantage(p: Proportion) -> str:
    e = p.estimate
    return _two(f"{100 * (e.value - 0.5):+.1f}", present.interval(e.low - 0.5, e.high - 0.5, True))


def _score(p: Proportion) -> str:
    e = p.estimate
    return _two(present.pct(e.value), present.interval(e.low, e.high))


def table(board: list[BoardRow], margin: float):
    """The board as one rich table, fitted so no number is cut."""
    t = present.table(
        "config\nmatch-up",
        "pairs" if all(r.cell.unit == "pair" for r in board) else "units",
        "1st seat\npts",
        "A score\n%",
        "draw",
        "tie-\nbreak",
        "turns",
        f"verdict\n(±{margin:.1f} pts)",
        title=f"Balance board: {sum(r.cell.games for r in board):,} games, first-seat "
        "advantage, 95% intervals",
    )
    for r in board:
        s = r.cell
        t.add_row(
            f"{present.config(s.config)}\n{s.matchup}",
            present.count(r.first.estimate.units),
            _advantage(r.first),
            _score(r.a_score),
            present.pct(s.wins["draw"].rate),
            present.pct(s.outcomes["tiebreak"].rate),
            f"{s.turns.mean:.1f}",
            _styled(r.seat),
        )
    present.fit(t, whole=(1, 2, 3, 4, 5, 6))
    return t


def _styled(v: Verdict) -> str:
    """The short verdict, coloured by kind."""
    colour = {"balanced": "green", "favours": "red"}.get(v.kind, "yellow")
    return f"[{colour}]{v.short()}[/{colour}]"


def strategy_lines(board: list[BoardRow]) -> list[str]:
    """'base · greedy vs random: favours greedy by +28.3 [+27.7, +28.9], +223 Elo' (A's score
    above 50%) per cell of two different strategies."""
    from reports.stats import elo_from_score

    out = []
    for r in board:
        if r.strategies is None:
            continue
        e = r.a_score.estimate
        elo = present.elo(elo_from_score(e.value)) if 0 < e.value < 1 else ""
        out.append(
            f"{r.cell.config} · {r.a} vs {r.b}: {r.strategies.text()}" + (f", {elo}" if elo else "")
        )
    return out


def legend(margin: float) -> str:
    """What the board's columns and verdicts mean, in two short lines."""
    return (
        "1st seat: the first seat's score above 50% (a draw half a win), in points.\n"
        f"balanced: the interval lies within ±{margin:.1f} pts (TOST). More: --detail, --show."
    )


SECTIONS = ("wins", "outcomes", "lines", "ends", "turns", "control", "cards", "arc")
"""The long sections after the board, by the name --show takes."""


def to_json(r: BoardRow) -> dict:
    """One board row as plain JSON values: the same numbers as the table (fractions)."""

    def est(p: Proportion) -> dict:
        e = p.estimate
        return {"value": e.value, "low": e.low, "high": e.high}

    s = r.cell
    return {
        "config": s.config,
        "matchup": s.matchup,
        "units": r.first.estimate.units,
        "unit": s.unit,
        "games": s.games,
        "first_seat_score": est(r.first),
        "a_score": est(r.a_score),
        "draw_rate": s.wins["draw"].rate,
        "tiebreak_share": s.outcomes["tiebreak"].rate,
        "mean_turns": s.turns.mean,
        "seat_verdict": r.seat.to_json(),
        "strategy_verdict": None if r.strategies is None else r.strategies.to_json(),
        "arc": game_arc.to_json(s.arc),
    }


ARC_HEADING = "Decided early, midway or late (the half-time leader's win rate):"


def arc_lines(board: list[BoardRow]) -> list[str]:
    """A heading, then '  base · random,random: late, 54.9% [53.9, 55.9]' per cell of a run
    with arc columns (reports/arc.py); short, so a long match-up still fits 80 columns."""
    cells = [r.cell for r in board if r.cell.arc and not math.isnan(r.cell.arc.half_wins.value)]
    lines = [f"  {c.config} · {c.matchup}: {c.arc.when()}, {c.arc.half_text()}" for c in cells]
    return [ARC_HEADING, *lines] if lines else []


DEAD_SHARE, MIN_PLAYS = 0.05, 100  # a kind played this often that takes effect this seldom


@dataclass(frozen=True)
class CardFlag:
    """A kind of card that is dead weight in a cell: played, but seldom taking effect."""

    config: str
    matchup: str
    kind: str
    plays: int
    effects: int

    @property
    def share(self) -> float:
        return self.effects / self.plays

    def text(self) -> str:
        """'dead: base · random,random · SAVE takes effect in 3.1% of 2,345 plays'."""
        where = f"{self.config} · {self.matchup} · {self.kind}"
        return f"dead: {where} takes effect in {present.pct(self.share)} of {self.plays:,} plays"

    def to_json(self) -> dict:
        keys = ("config", "matchup", "kind", "plays", "effects")
        return {k: getattr(self, k) for k in keys} | {"share": self.share, "flag": "dead"}


def card_flags(summaries: list[CellSummary]) -> list[CardFlag]:
    """Per cell, the kinds played at least MIN_PLAYS times (both seats) that took effect in
    under DEAD_SHARE of their plays (BLANK has no command: never flagged)."""
    out = []
    for s in summaries:
        totals: dict[str, list[float]] = {}
        for c in s.cards:
            sums = totals.setdefault(c.kind, [0.0, 0.0])
            sums[0] += c.played * c.seat_games
            sums[1] += c.took_effect * c.seat_games
        for kind, (plays, effects) in totals.items():
            if kind != "BLANK" and plays >= MIN_PLAYS and effects < DEAD_SHARE * plays:
                out.append(CardFlag(s.config, s.matchup, kind, round(plays), round(effects)))
    return out
