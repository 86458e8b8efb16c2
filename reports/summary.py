"""`sim summary`: what one run folder says per config and match-up, with intervals and sizes.

Every rate carries its sample size and a 95% interval from sim.stats over the independent
units (seat-swapped pairs, or games without swapping); a sample too small to tell anything
(under MIN_GAMES units, or an interval wider than WIDE_INTERVAL) says so in plain words.
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
from scipy import special  # not scipy.stats: a second to import for one quantile

from reports import present
from reports.present import drop_empty, fit
from reports.seeds import Seeding, SeedsError, seeding
from reports.tally import CARD_RATES, card_sums, card_tally, from_row, part_tallies
from reports.verdict import DEFAULT_MARGIN
from sim.runner import storage
from sim.runner.categories import ENDS
from sim.runner.lock import holder
from sim.runner.verify import reader_warnings, unreadable
from sim.stats import Estimate, Tally, events, unit_text
from sim.stats import mean as mean_estimate
from sim.stats import rate as rate_estimate

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
    """A run folder's manifest and its verified games parts, read lazily: summary and
    compare read only the columns they need, a few parts at a time."""

    path: Path
    manifest: dict
    parts: tuple[Path, ...]
    columns: tuple[str, ...]

    def scan(self) -> pl.LazyFrame:
        """The games table as a lazy frame (polars' own types: text is categorical)."""
        return pl.scan_parquet(list(self.parts))

    @cached_property
    def seeding(self) -> Seeding:
        """Where the games' seeds come from: the parts' column, or the manifest."""
        return seeding(self.path, self.manifest, list(self.columns))

    def seeded(self) -> pl.LazyFrame:
        """scan() with each game's `seed` (after `game`), derived when the parts hold none;
        RunFolderError when the run records no seeds this sim can give."""
        if self.seeding.stored:
            return self.scan()
        try:
            self.seeding.check()
        except SeedsError as exc:
            raise RunFolderError(str(exc)) from None
        order = list(self.columns)
        order.insert(order.index("game") + 1, "seed")
        return self.scan().with_columns(self.seeding.expr(order)).select(order)

    @cached_property
    def games(self) -> pl.DataFrame:
        """The whole games table in memory with its seeds, text as strings: for small runs
        and notebooks; the commands never call it."""
        try:
            frame = self.seeded().collect()
        except (OSError, pl.exceptions.PolarsError) as exc:
            why = _first(exc)
            raise RunFolderError(f"{self.path}: cannot read the games table: {why}") from None
        return frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))

    @cached_property
    def cells(self) -> list[tuple[str, str]]:
        """(config, matchup) pairs in the order first seen."""
        keys = self.scan().select("config", "matchup").unique(maintain_order=True)
        return [tuple(r) for r in keys.collect().cast(pl.String).iter_rows()]

    @cached_property
    def part_cells(self) -> dict:
        """Each part's (config, matchup, games), None for a part of several cells."""
        from reports.paired import part_cells

        return part_cells(self.parts)

    @cached_property
    def height(self) -> int:
        """Games on disk (verified parts)."""
        return int(self.scan().select(pl.len()).collect().item())

    def lines(self, config: str, frame: pl.DataFrame | None = None) -> list[int]:
        """Line values (10, 20, ...) the config plays: from the manifest, else seen in games."""
        present = sorted(int(m.group(1)) for c in self.columns if (m := LINE_COLUMN.match(c)))
        content = self.manifest.get("configs", {}).get(config, {}).get("content", {})
        count = content.get("rules", {}).get("lines") if isinstance(content, dict) else None
        if isinstance(count, int):
            return [v for v in present if v <= 10 * count]
        seen = self.scan() if frame is None else frame.lazy()
        held = seen.filter(pl.col("config").cast(pl.String) == config).select(
            pl.len().alias("n"), *(pl.col(f"line_{v}").null_count() for v in present)
        )
        row = held.collect().row(0, named=True)
        return [v for v in present if row[f"line_{v}"] < row["n"]]

    def warnings(self) -> list[str]:
        """Plain notes about the folder itself, e.g. an unfinished, live or failed run."""
        notes = reader_warnings(self.path)
        status = self.manifest.get("status", "unknown")
        if status == "complete" or holder(self.path):  # a live run: said in the notes
            return notes
        total = self.manifest.get("total_games")
        return notes + [
            f"{self.path}: run is {status}, {self.height:,}"
            + (f" of {total:,}" if isinstance(total, int) else "")
            + " games on disk; rerun its `sim run` command to finish it"
        ]


def open_run(path: Path) -> RunFolder:
    """Read a run folder's manifest and find its games; every problem is one RunFolderError."""
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
    try:
        columns = pl.scan_parquet(parts).collect_schema().names()
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise RunFolderError(f"{path}: cannot read the games table: {_first(exc)}") from None
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise RunFolderError(f"{path}: games table lacks columns {', '.join(missing)}")
    return RunFolder(path, manifest, tuple(parts), tuple(columns))


def _first(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def read_cards(run: RunFolder) -> pl.DataFrame | None:
    """The run's card tallies summed per config, match-up, strategy and kind (a few rows
    per kind), or None when the run wrote none."""
    parts = storage.verified_parts(run.path, "card_tallies")
    if not parts:
        return None
    try:
        return card_sums(pl.scan_parquet(parts), by_strategy=True)
    except (OSError, pl.exceptions.PolarsError) as exc:
        why = _first(exc)
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


def a_won() -> pl.Expr:
    """The match-up's A strategy won: it sits first unless the game is a swapped one."""
    winner = pl.col("winner")
    return pl.when(pl.col("swapped")).then(winner == "second").otherwise(winner == "first")


def b_won() -> pl.Expr:
    """The match-up's B strategy won."""
    winner = pl.col("winner")
    return pl.when(pl.col("swapped")).then(winner == "first").otherwise(winner == "second")


def summarize(run: RunFolder, cards: pl.DataFrame | None = None) -> list[CellSummary]:
    """Every config x match-up of the run, in the order the games table has them, from one
    pass over its parts a few at a time (reports.tally.part_tallies)."""
    seen = _seen(run)
    lines = {config: run.lines(config) for config, _ in run.cells}
    quantities: dict = {}
    for (config, _), values in seen.items():
        quantities |= cell_quantities(values, lines[config])
    columns = [c for c in run.columns if c not in ("config", "matchup")]
    counted = part_tallies(list(run.parts), ["config", "matchup"], quantities, columns)
    rows = {(r["config"], r["matchup"]): r for r in counted.iter_rows(named=True)}
    units = {key: "game" if row["pairless:y"] else "pair" for key, row in rows.items()}
    everywhere = "pair" if set(units.values()) == {"pair"} else "game"
    card_stats = _card_stats(everywhere, cards) if cards is not None else {}
    out = []
    for config, matchup in run.cells:
        row, unit = rows[(config, matchup)], units[(config, matchup)]
        names = [
            n for n in cell_quantities(seen[(config, matchup)], lines[config]) if _shown(n, row)
        ]
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
                [LineControl(v, *(p[f"line:{v}:{s}"] for s in CONTROL)) for v in lines[config]],
                card_stats.get((config, matchup), []),
                unit,
                p[FIRST_SCORE],
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
    return f"win:A ({matchup.partition(',')[0]}) score" if name == A_SCORE else name


def _seen(run: RunFolder) -> dict[tuple[str, str], dict]:
    """Per cell, the end reasons and tie-break lines its games may show (every one the
    tables know of; those never seen count 0 and are left out of the cell)."""
    ends = [*END_ORDER, *(e for e in ENDS if e not in END_ORDER)]
    lines = sorted(int(m.group(1)) for c in run.columns if (m := LINE_COLUMN.match(c)))
    return {cell: {"ends": ends, "ties": lines} for cell in run.cells}


def _turns(row: dict, unit: str) -> Mean:
    """Mean turns with its standard deviation over games, its interval over units."""
    n, total, squares = int(row["games:y"]), row["turns:y"], row["turns_sq:y"]
    mean = total / n if n else math.nan
    sd = math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1)) if n > 1 else math.nan
    return Mean(n, mean, sd, from_row(row, "turns"), unit)


def cell_quantities(seen: dict, lines: list[int]) -> dict:
    """Every quantity summary shows of a cell whose games show `seen` end reasons and
    tie-break lines, by name, as (y, z) for reports.tally."""
    winner, outcome, line = pl.col("winner"), pl.col("outcome"), pl.col("tiebreak_line")
    tie = outcome == "tiebreak"
    ends = [v for v in END_ORDER if v in seen["ends"]] + sorted(set(seen["ends"]) - set(END_ORDER))
    turns = pl.col("turns").cast(pl.Float64)
    q = {
        "games": (pl.col("game").is_not_null(), None),
        "pairless": (pl.col("pair").is_null(), None),
        "win:first seat": (winner == "first", None),
        "win:second seat": (winner == "second", None),
        "win:draw": (winner == "draw", None),
        FIRST_SCORE: (first_score(), None),
        A_SCORE: (a_score(), None),
        **{f"outcome:{v}": (outcome == v, None) for v in ("points", "tiebreak", "draw")},
        **{f"end:{v}": (pl.col("end_reason").cast(pl.String) == v, None) for v in ends},
        "turns": (turns, None),
        "turns_sq": (turns * turns, None),
    }
    for v in sorted(seen["ties"]):
        on_line = tie & (line == v)
        q[f"decided:{v}"] = (on_line, tie)
        q[f"first_won:{v}"] = (on_line & (winner == "first"), on_line)
    for v in lines:
        held = pl.col(f"line_{v}")
        q[f"line:{v}:first"] = (held == "first", None)
        q[f"line:{v}:second"] = (held == "second", None)
        q[f"line:{v}:nobody"] = (held.is_null() | ~held.is_in(["first", "second"]), None)
    return q


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
        drawn, played = (r[c] / n if n else math.nan for c in ("drawn", "played"))
        out.setdefault((r["config"], r["matchup"]), []).append(
            CardStats(r["strategy"], r["kind"], n, drawn, played, *p)
        )
    return out


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
) -> None:
    """The balance board first; then the sections named in show (every one: SECTIONS)."""
    from reports import board

    for warning in run.warnings():
        console.print(f"[bold yellow]warning:[/bold yellow] {warning}", highlight=False)
    rows = board.rows(summaries, margin)
    console.print(board.table(rows, margin))
    for line in board.strategy_lines(rows):
        console.print(line, highlight=False)
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
    }
    for s in summaries:
        pairs = f", {s.games // 2:,} seat-swapped pairs" if _swapped(run) else ""
        console.rule(f"[bold]{s.config}[/bold] · {s.matchup} · {s.games:,} games{pairs}")
        if s.unit == "pair" and replays(s.matchup):
            console.print(REPLAY_NOTE.format(strategy=s.matchup.partition(",")[0]), highlight=False)
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
    """Whether the match-up is a deterministic strategy against itself (a pair's two games
    are then one game twice); False for a spec that no longer loads."""
    from sim.players import PlayerError, deterministic, split_top_level

    a, b = split_top_level(matchup)
    try:
        return a == b and deterministic(a)
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
