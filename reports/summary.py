"""`sim summary`: what one run folder says per config and match-up, with intervals and sizes.

Every rate carries its sample size and a 95% Wilson interval; a sample too small to tell
anything (under MIN_GAMES, or an interval wider than WIDE_INTERVAL) says so in plain words.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl
from rich.console import Console
from rich.table import Table
from scipy import stats as sps

from reports.stats import wilson
from sim.runner import storage
from sim.runner.lock import holder
from sim.runner.schema import cards_long
from sim.runner.verify import reader_warnings, unreadable

MIN_GAMES = 100
WIDE_INTERVAL = 0.10
END_ORDER = ("run", "deck_out", "stalled", "cpu_out")
REQUIRED = (
    "config",
    "matchup",
    "first",
    "second",
    "swapped",
    "game",
    "seed",
    "winner",
    "outcome",
    "tiebreak_line",
    "end_reason",
    "turns",
)
LINE_COLUMN = re.compile(r"line_(\d+)")
CARD_NOTE = (
    "Played vs not played is an association, not a cause: longer games see more cards played."
)


class RunFolderError(ValueError):
    """A folder that cannot be read as a run; the message says which and what to do."""


# --- reading a run folder ------------------------------------------------------------------


@dataclass(frozen=True)
class RunFolder:
    """A run folder's manifest and games table (text columns as plain strings)."""

    path: Path
    manifest: dict
    games: pl.DataFrame

    def lines(self, config: str, frame: pl.DataFrame | None = None) -> list[int]:
        """Line values (10, 20, ...) the config plays: from the manifest, else seen in games."""
        present = sorted(int(m.group(1)) for c in self.games.columns if (m := LINE_COLUMN.match(c)))
        content = self.manifest.get("configs", {}).get(config, {}).get("content", {})
        count = content.get("rules", {}).get("lines") if isinstance(content, dict) else None
        if isinstance(count, int):
            return [v for v in present if v <= 10 * count]
        seen = self.games if frame is None else frame
        seen = seen.filter(pl.col("config") == config)
        return [v for v in present if seen[f"line_{v}"].null_count() < seen.height]

    def warnings(self) -> list[str]:
        """Plain notes about the folder itself, e.g. an unfinished, live or failed run."""
        notes = reader_warnings(self.path)
        status = self.manifest.get("status", "unknown")
        if status == "complete" or holder(self.path):  # a live run: said in the notes
            return notes
        total = self.manifest.get("total_games")
        return notes + [
            f"{self.path}: run is {status}, {self.games.height:,}"
            + (f" of {total:,}" if isinstance(total, int) else "")
            + " games on disk; rerun its `sim run` command to finish it"
        ]


def open_run(path: Path) -> RunFolder:
    """Read a run folder's manifest and games; every problem is one RunFolderError."""
    if not path.is_dir():
        raise RunFolderError(f"{path}: no such folder")
    try:
        manifest = json.loads((path / "manifest.json").read_text())
    except (OSError, json.JSONDecodeError):
        raise RunFolderError(
            f"{path} is not a run folder (no readable manifest.json); make one with `sim run`"
        ) from None
    if not isinstance(manifest, dict):
        raise RunFolderError(f"{path}/manifest.json is not a run manifest")
    parts = storage.verified_parts(path, "games")
    if not parts:
        why = unreadable(path, "games")
        raise RunFolderError(why or f"{path}: no games on disk yet (games/*.parquet)")
    games = _read(parts, path, "games")
    missing = [c for c in REQUIRED if c not in games.columns]
    if missing:
        raise RunFolderError(f"{path}: games table lacks columns {', '.join(missing)}")
    return RunFolder(path, manifest, games)


def _read(parts: list[Path], path: Path, table: str) -> pl.DataFrame:
    """Part files as one frame, categorical and enum text as strings."""
    try:
        frame = pl.read_parquet(parts)
    except (OSError, pl.exceptions.PolarsError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunFolderError(f"{path}: cannot read the {table} table: {first}") from None
    return frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))


def read_cards(run: RunFolder) -> pl.DataFrame | None:
    """The cards table one row per game, seat and kind, or None when the run wrote none."""
    parts = storage.verified_parts(run.path, "cards")
    return cards_long(_read(parts, run.path, "cards")) if parts else None


def cells(games: pl.DataFrame) -> list[tuple[str, str]]:
    """(config, matchup) pairs in the order first seen."""
    keys = games.select("config", "matchup").unique(maintain_order=True)
    return list(keys.iter_rows())


# --- numbers with their sample sizes ------------------------------------------------------


@dataclass(frozen=True)
class Proportion:
    """k of n, with its 95% Wilson interval."""

    k: int
    n: int

    @property
    def rate(self) -> float:
        """k / n, NaN for an empty sample."""
        return self.k / self.n if self.n else math.nan

    @cached_property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval."""
        return wilson(self.k, self.n)

    @property
    def note(self) -> str:
        """Why the sample cannot tell, or '' when it can."""
        return too_small(self.n, *self.interval)


@dataclass(frozen=True)
class Mean:
    """A sample mean with its 95% t interval."""

    n: int
    mean: float
    sd: float

    @property
    def interval(self) -> tuple[float, float]:
        """95% t interval; NaN bounds for fewer than two values."""
        if self.n < 2:
            return math.nan, math.nan
        half = float(sps.t.ppf(0.975, self.n - 1)) * self.sd / math.sqrt(self.n)
        return self.mean - half, self.mean + half

    @property
    def note(self) -> str:
        """Why the sample cannot tell, or '' when it can."""
        return too_small(self.n)

    @classmethod
    def of(cls, values: pl.Series) -> Mean:
        """Mean and standard deviation of a numeric column."""
        n = values.len() - values.null_count()
        mean = float(values.mean()) if n else math.nan
        sd = float(values.std()) if n > 1 else math.nan
        return cls(n, mean, sd)


def too_small(n: int, low: float = 0.0, high: float = 0.0) -> str:
    """A plain note when n or the interval width is too small to tell; '' otherwise."""
    if n < MIN_GAMES:
        return f"too small to tell: n = {n:,}"
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


def a_won() -> pl.Expr:
    """The match-up's A strategy won: it sits first unless the game is a swapped one."""
    winner = pl.col("winner")
    return pl.when(pl.col("swapped")).then(winner == "second").otherwise(winner == "first")


def b_won() -> pl.Expr:
    """The match-up's B strategy won."""
    winner = pl.col("winner")
    return pl.when(pl.col("swapped")).then(winner == "first").otherwise(winner == "second")


def summarize(run: RunFolder, cards: pl.DataFrame | None = None) -> list[CellSummary]:
    """Every config x match-up of the run, in the order the games table has them."""
    card_stats = _card_stats(run.games, cards) if cards is not None else {}
    out = []
    for config, matchup in cells(run.games):
        frame = run.games.filter((pl.col("config") == config) & (pl.col("matchup") == matchup))
        out.append(
            CellSummary(
                config,
                matchup,
                frame.height,
                _wins(frame, matchup),
                _counts(frame, "outcome", ("points", "tiebreak", "draw")),
                _tiebreaks(frame),
                _counts(frame, "end_reason", END_ORDER, observed_only=True),
                Mean.of(frame["turns"].cast(pl.Float64)),
                _control(frame, run.lines(config, frame)),
                card_stats.get((config, matchup), []),
            )
        )
    return out


def _count(frame: pl.DataFrame, condition: pl.Expr) -> int:
    """Rows where condition holds (null counts as false)."""
    return int(frame.select(condition.fill_null(False).sum()).item())


def _wins(frame: pl.DataFrame, matchup: str) -> dict[str, Proportion]:
    """Wins by seat and by strategy, and draws."""
    a, _, b = matchup.partition(",")
    n = frame.height
    winner = pl.col("winner")
    return {
        "first seat": Proportion(_count(frame, winner == "first"), n),
        "second seat": Proportion(_count(frame, winner == "second"), n),
        f"A ({a})": Proportion(_count(frame, a_won()), n),
        f"B ({b})": Proportion(_count(frame, b_won()), n),
        "draw": Proportion(_count(frame, winner == "draw"), n),
    }


def _counts(
    frame: pl.DataFrame, column: str, order: tuple[str, ...], observed_only: bool = False
) -> dict[str, Proportion]:
    """Share of games per value of a column, known values first in their order."""
    counts = dict(frame[column].drop_nulls().value_counts().iter_rows())
    values = [v for v in order if v in counts or not observed_only]
    values += sorted(v for v in counts if v not in order)
    return {v: Proportion(int(counts.get(v, 0)), frame.height) for v in values}


def _tiebreaks(frame: pl.DataFrame) -> list[TiebreakLine]:
    """Which lines decided tie-breaks, and which seat won each."""
    ties = frame.filter(pl.col("outcome") == "tiebreak")
    rows = []
    for line in sorted(ties["tiebreak_line"].drop_nulls().unique().to_list()):
        on_line = ties.filter(pl.col("tiebreak_line") == line)
        first = _count(on_line, pl.col("winner") == "first")
        rows.append(
            TiebreakLine(
                int(line),
                Proportion(on_line.height, ties.height),
                Proportion(first, on_line.height),
            )
        )
    return rows


def _control(frame: pl.DataFrame, lines: list[int]) -> list[LineControl]:
    """How often each line ends controlled by each seat, or by nobody."""
    n = frame.height
    rows = []
    for line in lines:
        col = pl.col(f"line_{line}")
        first, second = _count(frame, col == "first"), _count(frame, col == "second")
        rows.append(
            LineControl(
                line,
                Proportion(first, n),
                Proportion(second, n),
                Proportion(n - first - second, n),
            )
        )
    return rows


def _card_stats(games: pl.DataFrame, cards: pl.DataFrame) -> dict[tuple[str, str], list[CardStats]]:
    """Per config, match-up, strategy and card kind: draws, plays, and the seat's win rate."""
    keys = ["config", "matchup", "game"]
    joined = cards.join(games.select(*keys, "winner"), on=keys, how="inner").with_columns(
        (pl.col("winner") == pl.col("seat")).alias("won"), (pl.col("played") > 0).alias("any")
    )
    table = (
        joined.group_by("config", "matchup", "strategy", "kind")
        .agg(
            pl.len().alias("n"),
            pl.col("drawn").cast(pl.Float64).mean().alias("drawn"),
            pl.col("played").cast(pl.Float64).mean().alias("played"),
            pl.col("any").sum().alias("any"),
            (pl.col("won") & pl.col("any")).sum().alias("won_any"),
            (pl.col("won") & ~pl.col("any")).sum().alias("won_not"),
        )
        .sort("config", "matchup", "strategy", "kind")
    )
    out: dict[tuple[str, str], list[CardStats]] = {}
    for r in table.iter_rows(named=True):
        n, played = int(r["n"]), int(r["any"])
        out.setdefault((r["config"], r["matchup"]), []).append(
            CardStats(
                r["strategy"],
                r["kind"],
                n,
                r["drawn"],
                r["played"],
                Proportion(played, n),
                Proportion(int(r["won_any"]), played),
                Proportion(int(r["won_not"]), n - played),
            )
        )
    return out


# --- rendering -----------------------------------------------------------------------------


def pct(x: float) -> str:
    """A rate as a percentage with one decimal."""
    return "—" if math.isnan(x) else f"{100 * x:.1f}%"


def rate_text(p: Proportion) -> str:
    """'51.2% [50.5, 51.9]' for a proportion with its interval."""
    if not p.n:
        return "—"
    low, high = p.interval
    return f"{pct(p.rate)} [{100 * low:.1f}, {100 * high:.1f}]"


def mean_text(m: Mean) -> str:
    """'34.1 [33.9, 34.3]' for a mean with its interval."""
    low, high = m.interval
    if math.isnan(low):
        return "—" if math.isnan(m.mean) else f"{m.mean:.2f}"
    return f"{m.mean:.2f} [{low:.2f}, {high:.2f}]"


def _note(*notes: str) -> str:
    """The first non-empty note, in yellow so it is seen."""
    text = next((n for n in notes if n), "")
    return f"[yellow]{text}[/yellow]" if text else ""


def render(run: RunFolder, summaries: list[CellSummary], console: Console) -> None:
    """Print every cell's tables, each stating its sample sizes."""
    for warning in run.warnings():
        console.print(f"[bold yellow]warning:[/bold yellow] {warning}", highlight=False)
    for s in summaries:
        pairs = f", {s.games // 2:,} seat-swapped pairs" if _swapped(run) else ""
        console.rule(f"[bold]{s.config}[/bold] · {s.matchup} · {s.games:,} games{pairs}")
        for table in (
            _wins_table(s),
            _outcomes_table(s),
            _tiebreak_table(s),
            _ends_table(s),
            _turns_table(s),
            _control_table(s),
            _cards_table(s),
        ):
            if table is not None:
                console.print(table)
    console.print(
        f"Intervals are 95% (Wilson for rates, t for means). A note marks samples under "
        f"{MIN_GAMES} or intervals wider than {100 * WIDE_INTERVAL:.0f} points: too small to tell.",
        highlight=False,
    )


def _swapped(run: RunFolder) -> bool:
    """The run played seat-swapped pairs."""
    swap = run.manifest.get("params", {}).get("swap")
    return swap if isinstance(swap, bool) else bool(run.games["swapped"].any())


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
