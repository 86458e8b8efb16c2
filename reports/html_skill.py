"""The run report's section on balance across skill, for a run that holds self-play cells
of two or more strategies or a round robin: per config, the first seat's advantage against
skill level (one plot, 95% intervals, the ±margin band), the rung ladder (reports/skill.py)
and the league table (reports/league.py). The numbers are `sim skill`'s and `sim league`'s
on the same pairs, so the page and the commands agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reports import league as lg
from reports import plots, present
from reports import skill as sk
from sim.store.folder import RunFolderError, open_run


def skill_section(folder: Path, margin: float) -> list[dict]:
    """One item per config with a skill profile or a league; none for a run that did not
    swap seats (no pairs to compare)."""
    try:
        run = open_run(folder)
        tables = lg.pair_tables(run)
    except RunFolderError:
        return []
    by_config: dict[str, dict[str, np.ndarray]] = {}
    for (config, matchup), t in tables.items():
        by_config.setdefault(config, {})[matchup] = t
    arcs = sk.cell_arcs([run])
    items = [
        config_item(c, cells, margin, {m: a for (k, m), a in arcs.items() if k == c})
        for c, cells in by_config.items()
    ]
    return [i for i in items if i is not None]


def ordered(players: list[str]) -> list[str]:
    """Built-in players weakest first (sk.LADDER); with any other, the run's order."""
    if all(p in sk.LADDER for p in players):
        return sorted(players, key=sk.LADDER.index)
    return players


def round_robin(cells: dict[str, np.ndarray]) -> list[str] | None:
    """The strategies of a config's cells when three or more of them met every other."""
    met = {frozenset(lg.cell_players(m)) for m in cells}
    pool = list(dict.fromkeys(p for m in cells for p in lg.cell_players(m)))
    every = all(frozenset((a, b)) in met for i, a in enumerate(pool) for b in pool[i + 1 :])
    return ordered(pool) if len(pool) >= 3 and every else None


def config_item(
    config: str, cells: dict[str, np.ndarray], margin: float, arcs: dict | None = None
) -> dict | None:
    """A config's profile (with each level's arc from arcs, by match-up) and league."""
    levels, pool = ordered(sk.ladder_of(list(cells))), round_robin(cells)
    if len(levels) < 2 and pool is None:
        return None
    profile = sk.profile(config, levels, cells, margin, None, arcs) if len(levels) >= 2 else None
    return {
        "config": config,
        "profile": None if profile is None else profile_item(profile, margin),
        "league": None if pool is None else league_item(lg.league(config, pool, cells)),
    }


def profile_item(p: sk.Profile, margin: float) -> dict:
    """The plot, the trend in words, a row per level and the depth lines."""
    points = [
        (lv.player, *(100 * x - 50 for x in (e.value, e.low, e.high)))
        for lv in p.levels
        for e in [lv.first_seat]
    ]
    title = f"{p.config}: first-seat advantage by skill level"
    rungs = {r.strong: r for r in p.rungs}
    rows = []
    for i, lv in enumerate(p.levels):
        e, r = lv.first_seat, rungs.get(lv.player)
        rows.append(
            {
                "player": lv.player,
                "pairs": f"{e.units:,}",
                "first": f"{100 * e.value - 50:+.1f} "
                + present.interval(e.low - 0.5, e.high - 0.5, True),
                "verdict": lv.verdict.text(),
                "rung": ""
                if r is None
                else f"{present.pct(r.score.value)} " + present.interval(r.score.low, r.score.high),
                "elo": "" if p.fit is None else lg.elo_text(p.fit, i),
            }
        )
    return {
        "chart": plots.skill_profile(points, title, margin),
        "trend": sk.trend(p),
        "rows": rows,
        "lines": sk.lines(p)[1:],
        "arc_heads": [h.replace("\n", " ") for h in sk.ARC_COLUMNS],
        "arcs": arc_rows(p),
    }


def arc_rows(p: sk.Profile) -> list[dict]:
    """Per level with the arc columns: its self-play's arc figures, each with its interval
    (the text table's), and the arc's line in words."""
    return [
        {
            "player": lv.player,
            "figures": [sk.figure_text(e, is_rate) for e, is_rate in sk.arc_figures(lv.arc)],
            "words": lv.arc.words(),
        }
        for lv in p.levels
        if lv.arc is not None
    ]


def league_item(g: lg.League) -> dict:
    """The ratings, strongest first, and the lines under them (first seat, verdict, Nash)."""
    rows = []
    if g.fit is not None:
        order = g.fit.order()
        for rank, i in enumerate(order):
            nxt = order[rank + 1] if rank + 1 < len(order) else None
            rows.append(
                {
                    "rank": rank + 1,
                    "player": g.players[i],
                    "elo": lg.elo_text(g.fit, i),
                    "next": "" if nxt is None else lg.los_text(g.fit.superiority(i, nxt)),
                }
            )
    return {"pairs": f"{g.pairs:,}", "rows": rows, "lines": lg.lines(g)}
