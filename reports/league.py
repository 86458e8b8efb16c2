"""A round robin's results: each cell's pair table read from a run folder, the crosstable of
pair scores, one Elo fit with the first-seat term, and the dominance verdict with the Nash
weights (the maths in reports/ratings.py; every interval has the pair as its unit)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reports import ratings
from sim.players.specs import read_matchup
from sim.stats import Estimate, rate, sequential_rate
from sim.store.folder import RunFolder, RunFolderError
from sim.store.quantities import pairs_by_seat_points

Tables = dict[tuple[str, str], np.ndarray]
"""(config, match-up) -> the cell's pair table (reports/ratings.py)."""


def pair_tables(run: RunFolder) -> Tables:
    """Every cell's pair table from the workers' tallies (quantities.pairs_by_seat_points):
    per pair A's half points as the first and as the second seat, counted; RunFolderError
    when the run did not swap seats."""
    tables: Tables = {}
    for cell, counted in run.tallies.items():
        if not counted.paired:
            raise RunFolderError(
                f"{run.path}: the run did not swap seats; a skill profile and a "
                "league need seat-swapped pairs (sim run without --no-swap)"
            )
        tables[cell] = pairs_by_seat_points(counted.hist)
    return tables


def cell_players(matchup: str) -> tuple[str, str]:
    """The match-up's two strategies, as the run stores them."""
    a, b = read_matchup(matchup).specs
    return a, b


def flipped(e: Estimate) -> Estimate:
    """B's score from A's: 1 - A's, the interval mirrored."""
    return Estimate(1 - e.value, 1 - e.high, 1 - e.low, e.units, e.games, e.unit, e.n_eff)


def scores(tables: dict[str, np.ndarray], plan: int | None = None) -> dict[tuple, Estimate]:
    """(i, j) -> i's score against j, both ways round, from one config's cells by match-up;
    with plan (`--precision`) its interval is the confidence sequence tuned for plan pairs."""
    out = {}
    for matchup, t in tables.items():
        a, b = cell_players(matchup)
        if a != b:
            tally = ratings.score_tally(t)
            out[(a, b)] = (
                rate(tally, "pair") if plan is None else sequential_rate(tally, "pair", plan)
            )
            out[(b, a)] = flipped(out[(a, b)])
    return out


@dataclass(frozen=True)
class League:
    """One config's league: its players (the order given), every pairing's score, the Elo
    fit (None with the reason when it has no finite solution) and the dominance verdict."""

    config: str
    players: tuple[str, ...]
    scores: dict[tuple[str, str], Estimate]
    fit: ratings.Ratings | None
    problem: str | None
    dominance: ratings.Dominance
    plan: int | None = None  # the pairs the scores' confidence sequences are tuned for, if any

    @property
    def pairs(self) -> int:
        return sum(e.units for (i, j), e in self.scores.items() if i < j)


def league(
    config: str, players: list[str], tables: dict[str, np.ndarray], plan: int | None = None
) -> League:
    """The league of players on one config's cells (by match-up); ValueError naming the
    first pairing the cells lack. With plan the pair scores' intervals are confidence
    sequences (a league played to `--precision`); the Elo fit's stay fixed-sample."""
    s = scores(tables, plan)
    k = len(players)
    for i in range(k):
        for j in range(i + 1, k):
            if (players[i], players[j]) not in s:
                raise ValueError(f"{config}: no games of {players[i]} against {players[j]}")
    score = np.array([[s[(a, b)].value if a != b else 0.5 for b in players] for a in players])
    low = np.array([[s[(a, b)].low if a != b else 0.5 for b in players] for a in players])
    cells = {cell_players(m): t for m, t in tables.items()}
    try:
        fit, problem = ratings.fit(players, cells), None
    except ratings.RatingError as exc:
        fit, problem = None, str(exc)
    dominance = ratings.dominance(players, score, low)
    return League(config, tuple(players), s, fit, problem, dominance, plan)


def to_json(g: League) -> dict:
    """One config's league as plain JSON values: Elo in Elo, scores as fractions."""
    from reports.shapes import num

    rated = []
    if g.fit is not None:
        order = g.fit.order()
        for rank, i in enumerate(order):
            lo, hi = g.fit.interval(i)
            nxt = order[rank + 1] if rank + 1 < len(order) else None
            rated.append(
                {
                    "player": g.players[i],
                    "elo": num(g.fit.elo[i]),
                    "lo": num(lo),
                    "hi": num(hi),
                    "superiority_next": None if nxt is None else g.fit.superiority(i, nxt),
                }
            )
    seat = None
    if g.fit is not None:
        lo, hi = g.fit.first_seat_interval()
        seat = {"elo": g.fit.first_seat, "lo": lo, "hi": hi}
    return {
        "config": g.config,
        "interval": "95% confidence sequence" if g.plan else "95% Wilson",
        "players": list(g.players),
        "ratings": rated,
        "rating_problem": g.problem,
        "first_seat_elo": seat,
        "crosstable": [
            {
                "player": a,
                "opponent": b,
                "score": e.value,
                "lo": e.low,
                "hi": e.high,
                "pairs": e.units,
            }
            for (a, b), e in g.scores.items()
        ],
        "verdict": {"kind": g.dominance.kind, "text": g.dominance.text},
        "nash": g.dominance.weights,
    }


def elo_text(fit: ratings.Ratings, i: int) -> str:
    """'+212 [+190, +234]' (the anchor '0')."""
    if fit.se(i) == 0:
        return f"{fit.elo[i]:+.0f}" if fit.elo[i] else "0"
    lo, hi = fit.interval(i)
    return f"{fit.elo[i]:+.0f} [{lo:+.0f}, {hi:+.0f}]"


def los_text(p: float) -> str:
    """A likelihood of superiority as a percent, never shown as a certain 100%."""
    if math.isnan(p):
        return "—"
    if p > 0.999:
        return ">99.9%"
    return "<0.1%" if p < 0.001 else f"{100 * p:.1f}%"


def crosstable(g: League):
    """The pair scores as a rich table: row i's score against column j, with intervals."""
    from reports import present

    k = len(g.players)
    t = present.table(
        "player",
        *(str(j + 1) for j in range(k)),
        title=f"{g.config}: row's score against column, % "
        f"[95%{' anytime' if g.plan else ''}], {g.pairs:,} pairs",
    )
    for i, a in enumerate(g.players):
        cells = []
        for b in g.players:
            e = g.scores.get((a, b))
            cells.append(
                "" if e is None else f"{100 * e.value:.1f}\n{present.interval(e.low, e.high)}"
            )
        t.add_row(f"{i + 1} {a}", *cells)
    present.fit(t)
    return t


def rating_table(g: League):
    """The ratings, strongest first, with intervals and the chance each beats the next."""
    from reports import present

    t = present.table(
        "#",
        "player",
        "Elo [95%]",
        "stronger than\nthe next",
        "score\nvs pool",
        title=f"{g.config}: Elo, the first player anchored at 0",
    )
    assert g.fit is not None
    order = g.fit.order()
    for rank, i in enumerate(order):
        nxt = order[rank + 1] if rank + 1 < len(order) else None
        mine = [e for (a, _), e in g.scores.items() if a == g.players[i]]
        score = sum(e.value * e.games for e in mine) / sum(e.games for e in mine)
        t.add_row(
            str(rank + 1),
            g.players[i],
            elo_text(g.fit, i),
            "" if nxt is None else los_text(g.fit.superiority(i, nxt)),
            present.pct(score),
        )
    present.fit(t, whole=(2,))
    return t


def lines(g: League) -> list[str]:
    """The first seat's Elo bonus, the verdict and the equilibrium's weights, in words."""
    out = []
    if g.fit is None:
        out.append(f"Elo: {g.problem}")
    else:
        lo, hi = g.fit.first_seat_interval()
        out.append(f"first seat: {g.fit.first_seat:+.0f} Elo [{lo:+.0f}, {hi:+.0f}] over the pool")
    out.append(f"verdict: {g.dominance.text}")
    weights = ", ".join(f"{p} {100 * w:.0f}%" for p, w in g.dominance.weights.items() if w > 0)
    out.append(f"Nash equilibrium: {weights}")
    return out
