"""A config's skill profile: how the first seat's advantage moves as skill rises, how much
skill the game rewards, and how much the deal decides.

A ladder is a list of strategies from weakest to strongest. Each level's self-play cell
gives the first seat's score with the board's verdict within the margin (reports/verdict.py,
the same call the balance board makes); each rung (level k+1 against level k) gives the
stronger's score; one Elo fit over the rungs (reports/ratings.py) anchors the weakest at 0;
the luck share pools the rungs' pairs. Every interval has the pair as its unit. Each
level also carries its self-play's arc (reports/arc.py: lead changes, comebacks, the
half-time leader, when the game is decided) for a run with the arc columns.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from reports import arc as game_arc
from reports import ratings
from reports.board import SEATS
from reports.league import cell_players, flipped
from reports.verdict import BAND_KINDS, Verdict, against, decide
from sim.stats import Estimate, Tally, rate, sequence_margin, sequential_rate, unit_variance
from sim.store.cell_tallies import summed

LADDER = ("random", "greedy", "heuristic", "mc", "ismcts")
"""The built-in players from weakest to strongest at their default budgets."""


@dataclass(frozen=True)
class Level:
    """One level: its strategy, the first seat's score in self-play and the verdict on it,
    and its self-play's arc (None for a run without the arc columns)."""

    player: str
    first_seat: Estimate
    verdict: Verdict
    arc: game_arc.Arc | None = None


@dataclass(frozen=True)
class Rung:
    """Level k+1 against level k: the stronger's score; it holds when the whole interval
    lies above 50%."""

    strong: str
    weak: str
    score: Estimate

    @property
    def holds(self) -> bool:
        return self.score.low > 0.5


@dataclass(frozen=True)
class Profile:
    """One config's skill profile; fit is None (with the reason) when the rungs allow no
    finite Elo, luck None when no rung was played."""

    config: str
    levels: list[Level]
    rungs: list[Rung]
    fit: ratings.Ratings | None
    problem: str | None
    luck: Estimate | None
    plan: int | None = None  # the pairs a level's confidence sequence is tuned for, if one

    def span(self) -> tuple[float, float, float] | None:
        """The top level's Elo over the weakest's (the anchor), with its interval."""
        if self.fit is None:
            return None
        top = len(self.fit.players) - 1
        lo, hi = self.fit.interval(top)
        return float(self.fit.elo[top]), lo, hi


def ladder_cells(players: list[str]) -> list[str]:
    """The match-ups a ladder plays: each level against itself, then each rung, the
    stronger first (its A)."""
    selves = [f"{p},{p}" for p in players]
    return selves + [f"{players[k + 1]},{players[k]}" for k in range(len(players) - 1)]


def ladder_of(matchups: list[str]) -> list[str]:
    """A run's ladder: the strategies of its self-play cells, in the order it played them."""
    out = []
    for m in matchups:
        a, b = cell_players(m)
        if a == b and a not in out:
            out.append(a)
    return out


def profile(
    config: str,
    players: list[str],
    tables: dict[str, np.ndarray],
    margin: float,
    plan: int | None = None,
    arcs: dict[str, game_arc.Arc] | None = None,
):
    """The profile of players (weakest first) from one config's cells by match-up;
    ValueError naming a level whose self-play the cells lack. With plan (the pairs the
    confidence sequence is tuned for) each level's interval is the confidence sequence,
    honest for a run that stopped once it was precise enough (`--precision`). arcs: the
    cells' arcs by match-up (cell_arcs), each level given its self-play's."""
    by_players = {cell_players(m): t for m, t in tables.items()}
    arc_of = {cell_players(m): a for m, a in (arcs or {}).items()}
    levels = []
    for p in players:
        if (p, p) not in by_players:
            raise ValueError(f"{config}: no self-play games of {p}")
        lv = level(p, ratings.first_seat_tally(by_players[(p, p)]), margin, plan)
        levels.append(dataclasses.replace(lv, arc=arc_of.get((p, p))))
    rungs, played = [], []
    for weak, strong in zip(players, players[1:], strict=False):
        if (strong, weak) in by_players:
            t = by_players[(strong, weak)]
            rungs.append(Rung(strong, weak, rate(ratings.score_tally(t), "pair")))
        elif (weak, strong) in by_players:
            t = by_players[(weak, strong)]
            rungs.append(Rung(strong, weak, flipped(rate(ratings.score_tally(t), "pair"))))
        else:
            continue
        played.append(t)
    pool = {k: t for k, t in by_players.items() if k[0] != k[1] and set(k) <= set(players)}
    try:
        fit, problem = ratings.fit(players, pool), None
    except ratings.RatingError as exc:
        fit, problem = None, str(exc)
    luck = ratings.luck_share(played) if played else None
    return Profile(config, levels, rungs, fit, problem, luck, plan)


def level(player: str, t: Tally, margin: float, plan: int | None = None) -> Level:
    """A level from its self-play first-seat tally: Wilson's interval and the board's
    verdict, or with plan the confidence sequence and the verdict on it."""
    if plan is None:
        return Level(player, rate(t, "pair"), decide(t, "pair", margin, SEATS))
    e = sequential_rate(t, "pair", plan)
    m, adv = margin / 100, e.value - 0.5
    kind = BAND_KINDS[against(e.low - 0.5, e.high - 0.5, -m, m)]
    more = None
    if kind == "inconclusive" and abs(abs(adv) - m) > 0:
        more = max(pairs_to_precision(t, 100 * abs(abs(adv) - m), plan) - t.units, 1)
    favoured = SEATS[0] if adv >= 0 else SEATS[1]
    verdict = Verdict(kind, adv, e.low - 0.5, e.high - 0.5, m, favoured, t.units, "pair", more)
    return Level(player, e, verdict)


def half_width(t: Tally, units: int, plan: int, confidence: float = 0.95) -> float:
    """The confidence sequence's half width, in points, at `units` units if the per-unit
    spread stays what t shows."""
    return 100 * math.sqrt(unit_variance(t)) * sequence_margin(units, plan, confidence)


def pairs_to_precision(t: Tally, precision: float, plan: int, cap: int = 10**9) -> int:
    """The fewest pairs (at least t's) at which the confidence sequence is at most
    ±precision points, at t's per-pair spread; cap when even that is not enough."""
    if t.units < 2:
        raise ValueError("the spread needs two or more pairs")
    if half_width(t, t.units, plan) <= precision:
        return t.units
    low, high = t.units, cap
    if half_width(t, high, plan) > precision:
        return cap
    while high - low > 1:  # the half width falls with the units
        mid = (low + high) // 2
        low, high = (low, mid) if half_width(t, mid, plan) <= precision else (mid, high)
    return high


def trend(p: Profile, rising: str = "as skill rises") -> str:
    """'first seat +1.5 → +7.0 → +12.8 pts as skill rises: balanced only for random play'."""
    moves = " → ".join(f"{100 * lv.first_seat.value - 50:+.1f}" for lv in p.levels)
    kinds = {k: [lv.player for lv in p.levels if lv.verdict.kind == k] for k in VERDICTS}
    balanced, favours, unclear = (kinds[k] for k in VERDICTS)
    if len(balanced) == len(p.levels):
        said = "balanced at every level"
    elif balanced:
        said = f"balanced only for {_words(balanced)} play"
    elif favours:
        said = f"unbalanced for {_words(favours)} play"
    else:
        said = "undecided at every level"
    if unclear and len(unclear) < len(p.levels):
        said += f"; {_words(unclear)} not yet decided"
    return f"first seat {moves} pts {rising}: {said}"


VERDICTS = ("balanced", "favours", "inconclusive")


def _words(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def to_json(p: Profile) -> dict:
    """One config's profile as plain JSON values: points in points, scores as fractions."""
    from reports.shapes import num

    def pts(e: Estimate) -> dict:
        return {"pts": 100 * e.value - 50, "lo": 100 * e.low - 50, "hi": 100 * e.high - 50}

    elo = {}
    if p.fit is not None:
        for i, name in enumerate(p.fit.players):
            lo, hi = p.fit.interval(i)
            elo[name] = {"elo": num(p.fit.elo[i]), "lo": num(lo), "hi": num(hi)}
    span = p.span()
    return {
        "config": p.config,
        "trend": trend(p),
        "interval": "95% confidence sequence" if p.plan else "95% Wilson",
        "levels": [
            {
                "player": lv.player,
                "first_seat": pts(lv.first_seat),
                "pairs": lv.first_seat.units,
                "verdict": lv.verdict.to_json(),
                "arc": game_arc.to_json(lv.arc),
            }
            for lv in p.levels
        ],
        "rungs": [
            {
                "strong": r.strong,
                "weak": r.weak,
                "holds": r.holds,
                "pairs": r.score.units,
                "score": {
                    "pct": 100 * r.score.value,
                    "lo": 100 * r.score.low,
                    "hi": 100 * r.score.high,
                },
            }
            for r in p.rungs
        ],
        "elo": elo,
        "elo_problem": p.problem,
        "elo_span": None if span is None else dict(zip(("elo", "lo", "hi"), span, strict=True)),
        "rungs_hold": sum(r.holds for r in p.rungs),
        "luck_share": None
        if p.luck is None
        else {"share": p.luck.value, "lo": p.luck.low, "hi": p.luck.high, "pairs": p.luck.units},
    }


def level_table(p: Profile, margin: float):
    """A row per level: the first seat's advantage and verdict, the rung up to it, its Elo."""
    from reports import present
    from reports.league import elo_text

    kind = "95% anytime intervals" if p.plan else "95% intervals"
    units = sorted({lv.first_seat.units for lv in p.levels})
    pairs = f"{units[0]:,}" if len(units) == 1 else f"{units[0]:,}–{units[-1]:,}"
    t = present.table(
        "level",
        "1st seat\npts",
        f"verdict\n(±{margin:.1f} pts)",
        "score vs the\nlevel below, %",
        "Elo [95%]",
        title=f"{p.config}: skill profile, {kind}, {pairs} pairs a cell",
    )
    rungs = {r.strong: r for r in p.rungs}
    for i, lv in enumerate(p.levels):
        e, r = lv.first_seat, rungs.get(lv.player)
        fs = f"{100 * e.value - 50:+.1f}\n{present.interval(e.low - 0.5, e.high - 0.5, True)}"
        score = (
            ""
            if r is None
            else f"{present.pct(r.score.value)}\n" + present.interval(r.score.low, r.score.high)
        )
        t.add_row(
            lv.player,
            fs,
            lv.verdict.short(),
            score,
            "" if p.fit is None else elo_text(p.fit, i),
        )
    present.fit(t, whole=(1, 3, 4))
    return t


def cell_arcs(folders: list) -> dict[tuple[str, str], game_arc.Arc]:
    """Each cell's arc by (config, match-up) over the games of folders (RunFolders: a run,
    or the rounds of one `--precision` profile, whose pairs are all distinct), from their
    summed tallies; empty when any folder lacks the arc columns (runs before #34)."""
    if not folders or any(not set(game_arc.COLUMNS) <= set(f.columns) for f in folders):
        return {}
    cells = summed(pair for folder in folders for pair in folder.tallies.items())
    return {cell: game_arc.from_tallies(t.row(), t.unit) for cell, t in cells.items()}


ARC_COLUMNS = ("lead changes\nper game", "won from\n10+ behind", "half-time\nleader wins",
               "median decided\nturn, share")  # fmt: skip


def arc_figures(a: game_arc.Arc) -> list[tuple[Estimate, bool]]:
    """The figures of ARC_COLUMNS as (estimate, is a rate): the summary's, less the 20+
    comeback rate, so the table fits 80 columns (--json and --csv have it)."""
    first = game_arc.COMEBACKS[0]
    return [(a.lead_changes, False), (a.comebacks[first], True), (a.half_wins, True),
            (a.decided_share, True)]  # fmt: skip


def arc_table(p: Profile):
    """A row per level: its self-play's arc (reports/arc.py), each figure over its 95%
    interval (pairs the unit); None when no level has the arc columns."""
    from reports import present

    if all(lv.arc is None for lv in p.levels):
        return None
    t = present.table("level", *ARC_COLUMNS, title=f"{p.config}: the game's arc by level, "
                      "95% intervals")  # fmt: skip
    for lv in p.levels:
        if lv.arc is None:
            t.add_row(lv.player, *[present.DASH] * len(ARC_COLUMNS))
            continue
        cells = [figure_text(e, is_rate) for e, is_rate in arc_figures(lv.arc)]
        t.add_row(lv.player, *(present.stack(c) for c in cells))
    present.fit(t, whole=(1, 2, 3, 4))
    return t


def figure_text(e: Estimate, is_rate: bool) -> str:
    """'12.3% [11.9, 12.7]' (a rate) or '1.23 [1.20, 1.26]' (a mean), as the summary's."""
    from reports import present

    show = present.rate if is_rate else present.mean
    return show(e.value, e.low, e.high)


def lines(p: Profile) -> list[str]:
    """The trend, the depth figures and the luck share, one line each."""
    out = [trend(p)]
    span = p.span()
    if span is None:
        out.append(f"Elo: {p.problem}")
    else:
        out.append(
            f"Elo span: {span[0]:+.0f} [{span[1]:+.0f}, {span[2]:+.0f}] from "
            f"{p.levels[0].player} to {p.levels[-1].player}"
        )
    if p.rungs:
        out.append(
            f"rungs that hold: {sum(r.holds for r in p.rungs)} of {len(p.rungs)} "
            "(the stronger's score above 50% beyond chance)"
        )
    if p.luck is not None:
        e = p.luck
        out.append(
            f"luck share: {present_rate(e)} of {e.units:,} decisive rung pairs were won "
            "by the same seat twice (0: skill decides, 1: the deal)"
        )
    return out


def present_rate(e: Estimate) -> str:
    from reports import present

    return present.rate(e.value, e.low, e.high)


def board_profiles(rows: list) -> list[tuple[Profile, str]]:
    """Per config with self-play cells of two or more strategies on the board: its levels
    (first seat and verdict from the board's rows) and how they rise, in words. Built-in
    players are put in LADDER's order; with any other the run's order is kept."""
    by_config: dict[str, list[Level]] = {}
    for r in rows:
        if r.a == r.b:
            by_config.setdefault(r.cell.config, []).append(Level(r.a, r.first.estimate, r.seat))
    out = []
    for config, levels in by_config.items():
        if len(levels) < 2:
            continue
        known = all(lv.player in LADDER for lv in levels)
        if known:
            levels.sort(key=lambda lv: LADDER.index(lv.player))
        names = ", ".join(lv.player for lv in levels)
        rising = f"as skill rises ({names})" if known else f"from {names}"
        out.append((Profile(config, levels, [], None, None, None), rising))
    return out


def board_lines(rows: list) -> list[str]:
    """'base · skill: first seat +1.5 → +7.0 pts as skill rises (random, greedy): ...'."""
    return [f"{p.config} · skill: {trend(p, rising)}" for p, rising in board_profiles(rows)]


def board_json(rows: list) -> list[dict]:
    """The board's skill lines as JSON: config, trend, and each level's first seat."""
    return [
        {k: v for k, v in to_json(p).items() if k in ("config", "levels")}
        | {"trend": trend(p, rising)}
        for p, rising in board_profiles(rows)
    ]
