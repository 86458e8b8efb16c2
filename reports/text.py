"""The terminal view of `sim summary`: the balance board, then the long tables a designer
asks for (--detail, --show), each stating its sample sizes."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl
from rich.console import Console
from rich.table import Table

from reports import arc, board, present, skill
from reports.present import drop_empty, fit
from reports.summary import (
    CARD_NOTE,
    MIN_GAMES,
    WIDE_INTERVAL,
    CellSummary,
    Mean,
    Proportion,
    too_small,
)
from reports.verdict import DEFAULT_MARGIN
from sim.players.specs import read_matchup
from sim.store.folder import RunFolder

if TYPE_CHECKING:
    from collections.abc import Sequence

    from reports.card_impact import Measured

# --- rendering -----------------------------------------------------------------------------


pct = present.pct


def rate_text(p: Proportion) -> str:
    """'51.2% [50.5, 51.9]' for a proportion with its interval."""
    if not p.n:
        return present.DASH
    return present.rate(p.rate, *p.interval)


def mean_text(m: Mean) -> str:
    """'34.10 [33.90, 34.30]' for a mean with its interval."""
    return present.mean(m.mean, *m.interval)


def _note(*notes: str) -> str:
    """The first non-empty note, in yellow so it is seen."""
    text = next((n for n in notes if n), "")
    return f"[yellow]{text}[/yellow]" if text else ""


def render(
    run: RunFolder,
    summaries: list[CellSummary],
    console: Console,
    margin: float = DEFAULT_MARGIN,
    show: tuple[str, ...] = (),
    impact: Sequence[Measured] = (),
) -> None:
    """The balance board first, with the card-impact flags under it (impact); then
    the sections named in show (every one: SECTIONS)."""
    for warning in run.warnings():
        console.print(f"[bold yellow]warning:[/bold yellow] {warning}", highlight=False)
    rows = board.rows(summaries, margin)
    console.print(board.table(rows, margin))
    for line in board.strategy_lines(rows):
        console.print(line, highlight=False)
    for line in skill.board_lines(rows):
        console.print(line, highlight=False)
    for line in board.arc_lines(rows):
        console.print(line, highlight=False)
    for flag in board.card_flags(summaries):
        console.print(flag.text(), highlight=False)
    for line in (line for m in impact for line in m.lines()):
        console.print(line, highlight=False, markup=False)
    console.print(board.legend(margin), highlight=False, style="dim")
    if show:
        render_sections(run, summaries, console, show)


def render_sections(
    run: RunFolder, summaries: list[CellSummary], console: Console, show: tuple[str, ...]
) -> None:
    """Every cell's long tables named in show, each stating its sample sizes."""
    sections = {
        "wins": _wins_table,
        "outcomes": _outcomes_table,
        "lines": _tiebreak_table,
        "ends": _ends_table,
        "turns": _turns_table,
        "control": _control_table,
        "cards": _cards_table,
        "arc": _arc_table,
    }
    for s in summaries:
        pairs = f", {s.games // 2:,} seat-swapped pairs" if _swapped(run) else ""
        console.rule(f"[bold]{s.config}[/bold] · {s.matchup} · {s.games:,} games{pairs}")
        if s.unit == "pair" and replays(s.matchup):
            console.print(
                REPLAY_NOTE.format(strategy=read_matchup(s.matchup).first.text), highlight=False
            )
        for name, make in sections.items():
            table = make(s) if name in show else None
            if table is not None:
                drop_empty(table, "note")
                fit(table)
                console.print(table)
    units = {s.unit for s in summaries}
    unit = (
        "seat-swapped pairs"
        if units == {"pair"}
        else "games"
        if units == {"game"}
        else "pairs (games where seats were not swapped)"
    )
    console.print(
        f"Intervals are 95% and count {unit} as the independent unit (Wilson on the effective "
        f"size for rates, t for means; A's score counts a draw as half a win). A note marks "
        f"samples under {MIN_GAMES} units or intervals wider than {100 * WIDE_INTERVAL:.0f} "
        "points: too small to tell.",
        highlight=False,
    )


REPLAY_NOTE = (
    "note: {strategy} is deterministic and plays itself, so each pair's second game replays "
    "the first (a built-in's replay is recorded, not played again); the intervals count each "
    "pair once, which is exactly right for a replay."
)


def replays(matchup: str) -> bool:
    """Whether the match-up is a deterministic built-in against itself (a pair's two games
    are then one game twice). A Python strategy's claim is not read: that would import code
    the run folder names, which a reading command never runs."""
    from sim.players.specs import PlayerError

    try:
        return read_matchup(matchup).replays
    except PlayerError:
        return False


def _swapped(run: RunFolder) -> bool:
    """The run played seat-swapped pairs."""
    swap = run.manifest.get("params", {}).get("swap")
    if isinstance(swap, bool):
        return swap
    return bool(run.scan().select(pl.col("swapped").any()).collect().item())


def _rate_table(title: str, first: str, rows: dict[str, Proportion]) -> Table:
    """A table of named proportions: count, games, rate with interval, note."""
    table = Table(first, "count", "of games", "rate [95% CI]", "note", title=title)
    for name, p in rows.items():
        table.add_row(name, f"{p.k:,}", f"{p.n:,}", rate_text(p), _note(p.note))
    return table


def _wins_table(s: CellSummary) -> Table:
    """Wins by seat and by strategy, and draws."""
    return _rate_table("Win rates by seat and by strategy", "who", s.wins)


def _outcomes_table(s: CellSummary) -> Table:
    """How games were decided: on points, by tie-break, or drawn."""
    return _rate_table("Outcomes", "outcome", s.outcomes)


def _ends_table(s: CellSummary) -> Table:
    """Why games ended."""
    return _rate_table("End reasons", "end reason", s.end_reasons)


def _tiebreak_table(s: CellSummary) -> Table:
    """Lines that decided tie-breaks and the seat that won them."""
    total = s.outcomes["tiebreak"].k
    table = Table(
        "line",
        "tie-breaks",
        f"share of {total:,} tie-breaks [95% CI]",
        "first won",
        "second won",
        "first-seat share [95% CI]",
        "note",
        title="Tie-breaks: deciding line and winning seat",
    )
    for t in s.tiebreaks:
        table.add_row(
            str(t.line),
            f"{t.decided.k:,}",
            rate_text(t.decided),
            f"{t.first_won.k:,}",
            f"{t.first_won.n - t.first_won.k:,}",
            rate_text(t.first_won),
            _note(t.first_won.note, t.decided.note),
        )
    if not s.tiebreaks:
        table.add_row("—", "0", "no tie-breaks", "", "", "", _note(too_small(0)))
    return table


def _turns_table(s: CellSummary) -> Table:
    """Mean game length."""
    table = Table("games", "mean turns [95% CI]", "sd", "note", title="Game length")
    sd = "—" if math.isnan(s.turns.sd) else f"{s.turns.sd:.2f}"
    table.add_row(f"{s.turns.n:,}", mean_text(s.turns), sd, _note(s.turns.note))
    return table


def _control_table(s: CellSummary) -> Table:
    """How often each line ends controlled by each seat."""
    table = Table(
        "line",
        "games",
        "first seat [95% CI]",
        "second seat [95% CI]",
        "nobody [95% CI]",
        "note",
        title="Line control at the end",
    )
    for c in s.control:
        note = _note(c.first.note, c.second.note, c.nobody.note)
        table.add_row(
            str(c.line),
            f"{c.first.n:,}",
            rate_text(c.first),
            rate_text(c.second),
            rate_text(c.nobody),
            note,
        )
    return table


def _cards_table(s: CellSummary) -> Table | None:
    """Per card kind: draws and plays per player and game, and the win rate when played."""
    if not s.cards:
        return None
    table = Table(
        "strategy",
        "card",
        "player-games",
        "drawn / game",
        "played / game",
        "played ≥1 [95% CI]",
        "win rate when played [95% CI] (n)",
        "when not played [95% CI] (n)",
        "note",
        title="Cards (per player and game)",
        caption=CARD_NOTE,
    )
    for c in s.cards:
        table.add_row(
            c.strategy,
            c.kind,
            f"{c.seat_games:,}",
            f"{c.drawn:.2f}",
            f"{c.played:.2f}",
            rate_text(c.played_any),
            f"{rate_text(c.won_played)} ({c.won_played.n:,})",
            f"{rate_text(c.won_not)} ({c.won_not.n:,})",
            _note(c.won_played.note, c.won_not.note),
        )
    return table


def _arc_table(s: CellSummary) -> Table | None:
    """What a game feels like: lead changes, comebacks, the half-time leader, when the game
    is decided (docs/statistics.md), for a run with arc columns."""
    if s.arc is None:
        return None
    table = Table(
        "figure", "value [95% CI]", "units", title="The game's arc", caption=s.arc.words()
    )
    for label, e, is_rate in arc.rows(s.arc):
        value = (
            present.rate(e.value, e.low, e.high)
            if is_rate
            else present.mean(e.value, e.low, e.high)
        )
        table.add_row(label, value, f"{e.units:,}")
    return table
