"""`sim summary`: what one run folder says per config and match-up, with intervals and sizes.

Every rate carries its sample size and a 95% interval from sim.stats over the independent
units (seat-swapped pairs, or games without swapping); a sample too small to tell anything
(under MIN_GAMES units, or an interval wider than WIDE_INTERVAL) says so in plain words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import polars as pl
from scipy import special  # not scipy.stats: a second to import for one quantile

from reports import arc as game_arc
from reports.tally import card_sums, card_tally, from_row
from sim.players.specs import read_matchup
from sim.stats import Estimate, Tally, events, unit_text
from sim.stats import mean as mean_estimate
from sim.stats import rate as rate_estimate
from sim.store import quantities
from sim.store.categories import CARD_RATES
from sim.store.folder import RunFolder, RunFolderError, first_line

MIN_GAMES = 100
WIDE_INTERVAL = 0.10
CARD_NOTE = (
    "Played vs not played is an association, not a cause: longer games see more cards played."
)


def read_cards(run: RunFolder) -> pl.DataFrame | None:
    """The run's card tallies summed per config, match-up, strategy and kind (a few rows
    per kind), or None when the run wrote none."""
    parts = run.table_parts("card_tallies")
    if not parts:
        return None
    try:
        return card_sums(pl.scan_parquet(parts), by_strategy=True)
    except (OSError, pl.exceptions.PolarsError) as exc:
        why = first_line(exc)
        raise RunFolderError(f"{run.path}: cannot read the card_tallies table: {why}") from None


def cells(games: pl.DataFrame | RunFolder) -> list[tuple[str, str]]:
    """(config, matchup) pairs in the order first seen."""
    if isinstance(games, RunFolder):
        return games.cells
    keys = games.select("config", "matchup").unique(maintain_order=True)
    return list(keys.iter_rows())


# --- numbers with their sample sizes ------------------------------------------------------


@dataclass(frozen=True)
class Proportion:
    """k of n games (k may hold half points), with its 95% interval over the independent
    units behind them (sim.stats.rate): seat-swapped pairs, or the games themselves."""

    k: float
    n: int
    tally: Tally | None = None  # None: n independent games
    unit: str = "game"

    @property
    def rate(self) -> float:
        """k / n, NaN for an empty sample."""
        return self.k / self.n if self.n else math.nan

    @cached_property
    def estimate(self) -> Estimate:
        """The rate's estimate and 95% interval from sim.stats."""
        k = int(self.k) if self.tally is None else 0
        return rate_estimate(self.tally or events(k, 0, self.n, self.n), self.unit)

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval on the effective size (plain Wilson for independent games)."""
        return self.estimate.low, self.estimate.high

    @property
    def note(self) -> str:
        """Why the sample cannot tell, or '' when it can."""
        return too_small(self.estimate.units, *self.interval, unit=self.unit)

    @classmethod
    def of(cls, tally: Tally, unit: str) -> Proportion:
        """The proportion a tally holds (k = its y, n = its z)."""
        k = tally.y if tally.y != int(tally.y) else int(tally.y)
        return cls(k, int(tally.z), tally, unit)


@dataclass(frozen=True)
class Mean:
    """A sample mean with its 95% t interval over the units (sim.stats.mean)."""

    n: int
    mean: float
    sd: float
    tally: Tally | None = None  # None: n independent values
    unit: str = "game"

    @property
    def interval(self) -> tuple[float, float]:
        """95% t interval; NaN bounds for fewer than two units."""
        if self.tally is not None:
            e = mean_estimate(self.tally, self.unit)
            return e.low, e.high
        if self.n < 2:
            return math.nan, math.nan
        half = float(special.stdtrit(self.n - 1, 0.975)) * self.sd / math.sqrt(self.n)
        return self.mean - half, self.mean + half

    @property
    def units(self) -> int:
        """The independent units behind the mean."""
        return self.n if self.tally is None else self.tally.units

    @property
    def note(self) -> str:
        """Why the sample cannot tell, or '' when it can."""
        return too_small(self.units, unit=self.unit)

    @classmethod
    def of(cls, values: pl.Series, tally: Tally | None = None, unit: str = "game") -> Mean:
        """Mean and standard deviation of a numeric column, its interval from the tally."""
        n = values.len() - values.null_count()
        mean = float(values.mean()) if n else math.nan
        sd = float(values.std()) if n > 1 else math.nan
        return cls(n, mean, sd, tally, unit)


def too_small(n: int, low: float = 0.0, high: float = 0.0, unit: str = "game") -> str:
    """A plain note when n units or the interval width is too small to tell; '' otherwise."""
    if n < MIN_GAMES:
        return f"too small to tell: n = {unit_text(n, unit)}"
    if high - low > WIDE_INTERVAL:
        return f"too small to tell: {100 * (high - low):.0f}-point interval"
    return ""


# --- one config x match-up ----------------------------------------------------------------


@dataclass(frozen=True)
class TiebreakLine:
    """A line that decided tie-breaks, and how often the first seat won them."""

    line: int
    decided: Proportion  # tie-breaks this line decided, of all tie-breaks
    first_won: Proportion  # of those, won by the first seat


@dataclass(frozen=True)
class LineControl:
    """Who controlled a line at the end, over a cell's games."""

    line: int
    first: Proportion
    second: Proportion
    nobody: Proportion


@dataclass(frozen=True)
class CardStats:
    """One card kind for one strategy: draws, plays and win rates."""

    strategy: str
    kind: str
    seat_games: int  # one per game and seat
    drawn: float  # mean per seat and game
    played: float
    played_any: Proportion  # seat-games where at least one was played
    won_played: Proportion  # the seat's win rate when it played the kind
    won_not: Proportion  # ... and when it did not
    took_effect: float = math.nan  # mean per seat and game (reports.board.card_flags)


@dataclass(frozen=True)
class CellSummary:
    """Everything `sim summary` shows for one config and match-up."""

    config: str
    matchup: str
    games: int
    wins: dict[str, Proportion]
    outcomes: dict[str, Proportion]
    tiebreaks: list[TiebreakLine]
    end_reasons: dict[str, Proportion]
    turns: Mean
    control: list[LineControl]
    cards: list[CardStats]
    unit: str = "game"  # what the intervals count: "pair" or "game"
    first_score: Proportion | None = None  # the first seat's score (a draw half a win)
    arc: game_arc.Arc | None = None  # what a game feels like; None for a run without arc columns


def a_won() -> pl.Expr:
    """The match-up's A strategy won: it sits first unless the game is a swapped one."""
    winner = pl.col("winner")
    return pl.when(pl.col("swapped")).then(winner == "second").otherwise(winner == "first")


def b_won() -> pl.Expr:
    """The match-up's B strategy won."""
    winner = pl.col("winner")
    return pl.when(pl.col("swapped")).then(winner == "first").otherwise(winner == "second")


def summarize(run: RunFolder, cards: pl.DataFrame | None = None) -> list[CellSummary]:
    """Every config x match-up of the run, in the order the games table has them, from the
    tallies the workers wrote (RunFolder.tallies)."""
    tallies = run.tallies
    units = {cell: t.unit for cell, t in tallies.items()}
    everywhere = "pair" if set(units.values()) == {"pair"} else "game"
    card_stats = _card_stats(everywhere, cards) if cards is not None else {}
    arcs = set(game_arc.COLUMNS) <= set(run.columns)  # runs from before #34 have none
    out = []
    for config, matchup in run.cells:
        counted, lines = tallies[(config, matchup)], run.lines(config)
        row, unit = counted.row(), counted.unit
        names = [n for n in cell_quantities(lines) if _shown(n, row)]
        p = {_label(n, matchup): Proportion.of(from_row(row, n), unit) for n in names}
        out.append(
            CellSummary(
                config,
                matchup,
                int(row["games:y"]),
                {name.removeprefix("win:"): v for name, v in p.items() if name[:4] == "win:"},
                _values(p, "outcome:"),
                _tiebreaks(p),
                _values(p, "end:"),
                _turns(row, unit),
                [LineControl(v, *(p[f"line:{v}:{s}"] for s in CONTROL)) for v in lines],
                card_stats.get((config, matchup), []),
                unit,
                p[FIRST_SCORE],
                game_arc.from_tallies(row, unit) if arcs else None,
            )
        )
    return out


CONTROL = ("first", "second", "nobody")
A_SCORE = "win:A score"  # shown as "A (its name) score"
FIRST_SCORE = "seat:first score"


def _shown(name: str, row: dict) -> bool:
    """End reasons and deciding lines only where the cell's games show them."""
    if name.startswith("end:"):
        return row[f"{name}:y"] > 0
    if name.startswith(("decided:", "first_won:")):
        return row[f"decided:{name.partition(':')[2]}:y"] > 0
    return True


def _label(name: str, matchup: str) -> str:
    return f"win:A ({read_matchup(matchup).first.text}) score" if name == A_SCORE else name


def _turns(row: dict, unit: str) -> Mean:
    """Mean turns with its standard deviation over games, its interval over units."""
    n, total, squares = int(row["games:y"]), row["turns:y"], row["turns_sq:y"]
    mean = total / n if n else math.nan
    sd = math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1)) if n > 1 else math.nan
    return Mean(n, mean, sd, from_row(row, "turns"), unit)


def cell_quantities(lines: list[int]) -> list[str]:
    """The names of every quantity summary shows of a cell whose config plays these lines
    (store/quantities.py defines them): wins, scores, outcomes, end reasons, turns,
    deciding lines, line control."""
    named = quantities.quantities()
    shown = [n for n in named if not n.startswith(("line:", "decided:", "first_won:", "arc:"))]
    for v in lines:
        shown += [f"decided:{v}", f"first_won:{v}"]
    shown += [f"line:{v}:{c}" for v in lines for c in CONTROL]
    return shown + ["turns"]


def first_score() -> pl.Expr:
    """The first seat's points in a game: 1 for a win, half for a draw."""
    winner = pl.col("winner")
    return (winner == "first").cast(pl.Float64) + 0.5 * (winner == "draw").cast(pl.Float64)


def a_score() -> pl.Expr:
    """A's points in a game: 1 for a win, half for a draw (a draw is no loss)."""
    return a_won().cast(pl.Float64) + 0.5 * (pl.col("winner") == "draw").cast(pl.Float64)


def _values(p: dict[str, Proportion], prefix: str) -> dict[str, Proportion]:
    """The proportions named prefix + value, by value."""
    return {name.removeprefix(prefix): v for name, v in p.items() if name.startswith(prefix)}


def _tiebreaks(p: dict[str, Proportion]) -> list[TiebreakLine]:
    """Which lines decided tie-breaks, and which seat won each."""
    decided = _values(p, "decided:")
    return [TiebreakLine(int(v), decided[v], p[f"first_won:{v}"]) for v in decided]


def _card_stats(unit: str, cards: pl.DataFrame) -> dict[tuple[str, str], list[CardStats]]:
    """Per config, match-up, strategy and card kind (read_cards' rows): draws, plays, and
    the seat's win rate, the intervals over the run's units (a pair's seat-games of one
    strategy are one unit)."""
    out: dict[tuple[str, str], list[CardStats]] = {}
    for r in cards.iter_rows(named=True):
        n = int(r["seat_games"])
        p = [Proportion.of(card_tally(r, rate), unit) for rate in CARD_RATES]
        drawn, played, effect = (
            r[c] / n if n else math.nan for c in ("drawn", "played", "took_effect")
        )
        out.setdefault((r["config"], r["matchup"]), []).append(
            CardStats(r["strategy"], r["kind"], n, drawn, played, *p, effect)
        )
    return out
