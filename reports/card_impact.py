"""What one card kind is worth: the same seeds played with and without it in the deck.

Every copy of the kind is swapped for another kind (BLANK by default) in both players'
decks, and the same seat-swapped seed pairs are played on both decks: one run of two
configs through the runner (so it resumes and can use Dask), whose cells share their
seeds game by game because a cell's seeds follow from the match-up alone (sim.store.seeds).
Differences are paired by seed, so the deal's luck largely cancels; the pair (one seed,
two games) is the unit of every interval, because its two games share their deal. Holm's
method adjusts the p-values over the measures, so a null swap shows a change in any row at
most 5% of the time.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from reports import present
from reports.present import NO_CHANGE
from reports.stats import Difference, holm, paired_difference
from sim.engine.cards import (
    AXIS_H,
    AXIS_LETTERS,
    AXIS_NONE,
    AXIS_V,
    BLANK,
    CUT,
    DEFAULT_AXIS,
    NAMES,
    PASTE,
    UNDIRECTED,
    kind_from_name,
)
from sim.engine.game import DRAW, R_TURNS, R_WINNER, RESULT_WIDTH, WIN_FIRST, WIN_SECOND
from sim.model.config import Config
from sim.players.specs import Matchup, parse_matchup
from sim.runner.plan import RunPlan, default_chunk
from sim.runner.run import RunOptions, execute
from sim.store.categories import WINNERS
from sim.store.folder import RunFolder, RunFolderError, open_run
from sim.store.impact import ImpactNoteError, read_note, write_note
from sim.store.layout import MANIFEST

DOMINANT_PTS = 5.0
"""The default threshold: a kind that by itself moves who wins by more than 5 points."""


class CardImpactError(ValueError):
    """A swap that cannot be made; the message names the card and the config."""


@dataclass(frozen=True)
class Swap:
    """The swapped configuration and what was done to build it (config None when the
    swap is read back from a run folder's note)."""

    config: Config | None
    card: int
    replacement: int
    copies: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Measure:
    """One quantity on the original and the swapped deck, its paired change, and its
    Holm-adjusted p-value over all the measures of the comparison (and whether it stands)."""

    name: str
    original: float
    swapped: float
    change: Difference
    holm_p: float = math.nan
    significant: bool = False

    @property
    def verdict(self) -> str:
        """ "higher/lower with the swap" when Holm-significant, else no detectable change."""
        if not self.significant:
            return NO_CHANGE
        return ("higher" if self.change.estimate > 0 else "lower") + " with the swap"


@dataclass(frozen=True)
class Impact:
    """Every measure of one comparison and its sample."""

    swap: Swap
    pairs: int
    measures: tuple[Measure, ...]

    @property
    def games(self) -> int:
        return 2 * self.pairs


def swap_card(config: Config, card: str, replacement: str = "BLANK") -> Swap:
    """config with every copy of card swapped for replacement, keeping every axis valid.

    A BLANK's start card (set aside, RULES.md 3) stays: only the BLANKs in play are swapped.
    """
    old, new = _kind(card, "--card"), _kind(replacement, "--swap-for")
    if old == new:
        raise CardImpactError(f"--swap-for {NAMES[new]} is the card itself; nothing would change")
    at = [i for i, (kind, _) in enumerate(config.deck) if kind == old]
    if not at:
        present = ", ".join(dict.fromkeys(NAMES[k] for k, _ in config.deck))
        raise CardImpactError(
            f"{NAMES[old]} is not in config {config.name}'s deck; it holds {present}"
        )
    notes = []
    if old == BLANK:
        at = at[1:]
        if not at:
            raise CardImpactError(
                f"config {config.name}'s only BLANK is the start card; there is none to swap"
            )
        notes.append("the BLANK set aside as the start card stays; the other BLANKs are swapped")
    axes, note = _new_axes(old, new, [config.deck[i][1] for i in at])
    if note:
        notes.append(note)
    deck = list(config.deck)
    for i, axis in zip(at, axes, strict=True):
        deck[i] = (new, axis)
    return Swap(_swapped_config(config, deck, old, new), old, new, len(at), tuple(notes))


def _kind(name: str, option: str) -> int:
    """A card kind by name or code; CardImpactError naming the option otherwise."""
    try:
        return kind_from_name(name)
    except ValueError as exc:
        raise CardImpactError(f"{option}: {exc}") from exc


def _new_axes(old: int, new: int, old_axes: list[int]) -> tuple[list[int], str | None]:
    """Axes for the replacement copies, and a note when they had to be chosen."""
    if new in UNDIRECTED:
        return [AXIS_NONE] * len(old_axes), None
    if old not in UNDIRECTED:
        return list(old_axes), None
    if len(old_axes) == 1:
        axes = [DEFAULT_AXIS[new]]
    else:  # as the shipped decks pair directed cards: one H, one V, ...
        start = 0 if DEFAULT_AXIS[new] == AXIS_H else 1
        axes = [(AXIS_H, AXIS_V)[(start + i) % 2] for i in range(len(old_axes))]
    letters = ", ".join(AXIS_LETTERS[a] for a in axes)
    return axes, f"{NAMES[old]} has no axis; the new {NAMES[new]} cards get axis {letters}"


def _swapped_config(config: Config, deck: list, old: int, new: int) -> Config:
    """The loaded config with the new deck, renamed, with PASTE-without-CUT warned about."""
    kinds = {k for k, _ in deck}
    warnings = []
    if PASTE in kinds and CUT not in kinds:
        warnings.append("the swapped deck has PASTE but no CUT; PASTE will never find a card")
    return dataclasses.replace(
        config,
        name=f"{config.name} ({NAMES[old]} -> {NAMES[new]})",
        description=f"{config.description}; every {NAMES[old]} swapped for {NAMES[new]}",
        deck=tuple(deck),
        warnings=tuple(warnings),
    )


def pair_measures(out: np.ndarray) -> dict[str, np.ndarray]:
    """Per pair (rows A-first, A-second): first-seat rate, A's score (a draw is half a win;
    B's is its complement), draw rate and mean turns."""
    winner = out[:, R_WINNER].reshape(-1, 2)
    a_seat = np.array([WIN_FIRST, WIN_SECOND])  # A's seat in each game of the pair
    return {
        "first seat wins": (winner == WIN_FIRST).mean(axis=1),
        "A score": ((winner == a_seat) + 0.5 * (winner == DRAW)).mean(axis=1),
        "draws": (winner == DRAW).mean(axis=1),
        "mean turns": out[:, R_TURNS].reshape(-1, 2).mean(axis=1, dtype=float),
    }


def compare(original: np.ndarray, swapped: np.ndarray, a: str, b: str) -> tuple[Measure, ...]:
    """Paired changes (swapped minus original) of every pair measure over the same seeds,
    Holm-adjusted over the measures: a verdict on any of them keeps its 5% error rate."""
    before, after = pair_measures(original), pair_measures(swapped)
    labels = {"A score": f"{a} (A) score"}
    changes = {name: paired_difference(before[name], after[name]) for name in before}
    adjusted = holm([d.p_value for d in changes.values()])
    return tuple(
        Measure(
            labels.get(name, name),
            float(before[name].mean()),
            float(after[name].mean()),
            change,
            q,
            rejected,
        )
        for (name, change), (q, rejected) in zip(changes.items(), adjusted, strict=True)
    )


def impact_plan(
    config: Config, swap: Swap, players: Matchup, games: int, seed: int, chunk_size=None
) -> RunPlan:
    """The run of a comparison: the original and the swapped deck, one match-up, games
    rounded up to whole seat-swapped pairs, the runner's part size for the strategies."""
    pairs = (games + 1) // 2
    if pairs < 2:
        raise CardImpactError(f"--games must be at least 4 (two seed pairs), got {games}")
    if players.second.name == "cpu":
        raise CardImpactError(
            "the CPU card only plays the second seat, so it cannot play seat-swapped pairs"
        )
    size = default_chunk((players,)) if chunk_size is None else chunk_size
    return RunPlan((config, swap.config), (players,), 2 * pairs, seed, True, size + size % 2)


def run_plan(originals: RunFolder, card: str, replacement: str) -> tuple[RunPlan, list, list[str]]:
    """The run of `sim card-impact --run RUN`: RUN's configs with the card swapped, its
    match-ups, games, master seed and part size, so every game replays RUN's game of the
    same index on the swapped deck; with each original config's name and its Swap, and
    why a config is left out (the card is not in its deck; CardImpactError if in none).
    RunFolderError for a run that is not finished or not of seat-swapped pairs."""
    from reports.replay import ReplayError, played_config

    manifest = originals.manifest
    params = manifest.get("params") or {}
    if manifest.get("status") != "complete":
        raise RunFolderError(f"{originals.path}: the run is not complete; finish it first")
    if params.get("swap") is not True:
        raise RunFolderError(
            f"{originals.path}: the run did not play seat-swapped pairs (--no-swap)"
        )
    swaps, skipped, refused = [], [], None
    for record in params.get("configs", []):
        try:
            config = played_config(originals.path, manifest, record["name"], record["hash"])
        except ReplayError as exc:
            raise RunFolderError(str(exc)) from None
        try:
            swaps.append((config.name, swap_card(config, card, replacement)))
        except CardImpactError as exc:
            if " is not in config " not in str(exc):
                raise
            refused = refused or exc
            skipped.append(f"{exc}; its games are not compared")
    if not swaps:
        raise refused or RunFolderError(f"{originals.path}: the run records no configs")
    matchups = tuple(parse_matchup(m) for m in params["matchups"])
    configs = tuple(s.config for _, s in swaps)
    plan = RunPlan(configs, matchups, params["games"], params["seed"], True, params["chunk_size"])
    return plan, swaps, skipped


def card_impact(
    config: Config,
    swap: Swap,
    players: Matchup,
    games: int,
    seed: int,
    out: Path,
    options: RunOptions | None = None,
    dominant_pts: float = DOMINANT_PTS,
) -> Impact:
    """Play the comparison's run into out (continuing what is on disk), note the swap
    beside its manifest, and compare the two decks pair by pair."""
    plan = impact_plan(config, swap, players, games, seed)
    execute(plan, out, options or RunOptions())
    note_swap(out, plan, [(config.name, swap)], dominant_pts)
    return folder_impacts(open_run(out))[0][0][1]


def note_swap(
    out: Path, plan: RunPlan, swaps: list, dominant_pts: float, original_run: str | None = None
) -> None:
    """The swap note (sim.store.impact) of a comparison played into out: swaps holds each
    original config's name and its Swap; original_run the run the originals are in, when
    not this one."""
    card, replacement = swaps[0][1].card, swaps[0][1].replacement
    cells = [
        {"original": name, "swapped": swap.config.name, "matchup": m.text, "copies": swap.copies}
        for name, swap in swaps
        for m in plan.matchups
    ]
    note = {
        "run_id": plan.run_id,
        "original_run": original_run,
        "card": NAMES[card],
        "replacement": NAMES[replacement],
        "dominant_pts": float(dominant_pts),
        "cells": cells,
    }
    write_note(out, note)


def folder_impacts(
    folder: RunFolder, originals: RunFolder | None = None
) -> tuple[list[tuple[dict, Impact]], dict] | None:
    """Each compared cell of a card-impact folder with its Impact, and the folder's note;
    originals: the run the original decks are in, when not folder's. None for a folder
    without a note (any other run); RunFolderError when the note or games cannot be used."""
    try:
        note = read_note(folder.path, folder.manifest, originals and originals.manifest)
    except ImpactNoteError as exc:
        raise RunFolderError(str(exc)) from None
    if note is None:
        return None
    card, replacement = kind_from_name(note["card"]), kind_from_name(note["replacement"])
    found = []
    for cell in note["cells"]:
        players = parse_matchup(cell["matchup"])
        before = _results(originals or folder, cell["original"], cell["matchup"])
        after = _results(folder, cell["swapped"], cell["matchup"])
        if not np.array_equal(before[1], after[1]):
            raise RunFolderError(
                f"{folder.path}: {cell['swapped']} · {cell['matchup']} does not replay the "
                f"seeds of {cell['original']} pair by pair"
            )
        swap = Swap(None, card, replacement, cell["copies"])
        measures = compare(before[0], after[0], *players.specs)
        found.append((cell, Impact(swap, len(before[0]) // 2, measures)))
    return found, note


CODES = {name: code for code, name in enumerate(WINNERS)}  # the engine's WIN_FIRST, ...


def _results(folder: RunFolder, config: str, matchup: str) -> tuple:
    """A cell's result rows (engine R_* columns, game order: A first, then A second in
    each pair) and its seeds; RunFolderError when its pairs are not whole."""
    cell = (
        folder.seeded()
        .filter(
            (pl.col("config").cast(pl.String) == config)
            & (pl.col("matchup").cast(pl.String) == matchup)
        )
        .select(
            "game",
            "seed",
            "swapped",
            "turns",
            pl.col("winner").cast(pl.String).replace_strict(CODES, return_dtype=pl.Int8),
        )  # fmt: skip
        .collect()
        .sort("game")
    )
    n = cell.height
    whole = n >= 2 and n % 2 == 0 and (cell["game"].to_numpy() == np.arange(n)).all()
    if not whole or (cell["swapped"].to_numpy() != np.arange(n) % 2).any():
        raise RunFolderError(
            f"{folder.path}: {config} · {matchup} holds {n:,} games, not whole "
            "seat-swapped pairs from game 0; rerun the command that plays it to finish it"
        )
    out = np.zeros((n, RESULT_WIDTH), dtype=np.int64)
    out[:, R_WINNER] = cell["winner"].to_numpy()
    out[:, R_TURNS] = cell["turns"].to_numpy()
    return out, cell["seed"].to_numpy()


# --- the dominant-card flag (#34) ----------------------------------------------------------


@dataclass(frozen=True)
class DominantFlag:
    """A kind whose impact on who wins (the rate with it minus the rate with it swapped
    out, in points) lies beyond ±threshold points by the whole of its 95% interval."""

    config: str
    kind: str
    replacement: str
    measure: str  # the Measure's name: "first seat wins" or "X (A) score"
    impact: Difference  # original minus swapped: what the kind adds
    threshold: float  # points

    def text(self) -> str:
        """'dominant: base · PRINT moves the first seat's win rate by +6.1 pts [+5.2, +7.0]
        (beyond ±5.0 pts; against BLANK in its place)'."""
        d = self.impact
        what = self.measure.replace(" (A) score", " (A)'s score").replace(
            "first seat wins", "the first seat's win rate"
        )
        return (
            f"dominant: {self.config} · {self.kind} moves {what} by "
            f"{present.pts(d.estimate, d.low, d.high)} (beyond ±{self.threshold:.1f} pts; "
            f"against {self.replacement} in its place)"
        )

    def to_json(self) -> dict:
        d = self.impact
        return {
            "flag": "dominant",
            "config": self.config,
            "kind": self.kind,
            "replacement": self.replacement,
            "measure": self.measure,
            "impact": {"estimate": d.estimate, "low": d.low, "high": d.high},
            "threshold_pts": self.threshold,
        }


def dominant(
    impact: Impact, config: str, threshold: float = DOMINANT_PTS, same: bool = False
) -> list[DominantFlag]:
    """Flags for the measures of who wins (first seat wins; A's score unless same, A and B
    one strategy, where it only adds noise) whose impact's 95% interval lies wholly beyond
    ±threshold points: a one-sided 2.5% test each, so a kind whose true impact is within
    the threshold is flagged at most 5% of the time over both (Bonferroni)."""
    out = []
    for m in impact.measures:
        if not (m.name == "first seat wins" or (m.name.endswith(" (A) score") and not same)):
            continue
        c = m.change  # swapped minus original: the kind's impact is its negative
        d = dataclasses.replace(c, estimate=-c.estimate, low=-c.high, high=-c.low)
        if d.low > threshold / 100 or d.high < -threshold / 100:
            swap = impact.swap
            names = NAMES[swap.card], NAMES[swap.replacement]
            out.append(DominantFlag(config, *names, m.name, d, threshold))
    return out


# --- the flag under the board of a card-impact folder (#34) --------------------------------


@dataclass(frozen=True)
class Measured:
    """A card-impact comparison as `sim summary` and `sim report` show it under the
    board: per compared cell, the card's dominant flags at the threshold its note records."""

    note: dict
    cells: tuple[tuple[dict, Impact, tuple[DominantFlag, ...]], ...]

    def lines(self) -> list[str]:
        """Each dominant cell's flag lines, then one line for the cells where the card was
        measured and is not dominant (one line a card, however many cells compared)."""
        n = self.note
        out = [f.text() for _, _, flags in self.cells for f in flags]
        calm = [(cell, impact) for cell, impact, flags in self.cells if not flags]
        if not calm:
            return out
        pairs = sorted({impact.pairs for _, impact in calm})
        sample = f"{pairs[0]:,}" + (f"-{pairs[-1]:,}" if len(pairs) > 1 else "")
        swap = f"{n['card']} ({n['replacement']} in its place"
        verdict = f"not dominant (±{n['dominant_pts']:.1f} pts)"
        if len(self.cells) == 1:
            where = calm[0][0]["original"]
            return [f"measured: {where} · {swap}, {sample} pairs): {verdict}"]
        cells = "every one" if len(calm) == len(self.cells) else f"{len(calm)}"
        return out + [
            f"measured: {swap}, {sample} pairs a cell): {verdict} in {cells} of the "
            f"{len(self.cells)} cells compared"
        ]

    def to_json(self) -> dict:
        n = self.note
        return {
            "card": n["card"],
            "replacement": n["replacement"],
            "dominant_pts": n["dominant_pts"],
            "cells": [
                cell | {"pairs": impact.pairs, "dominant": [f.to_json() for f in flags]}
                for cell, impact, flags in self.cells
            ],
        }


def measured(folder: RunFolder, originals: RunFolder | None = None) -> Measured | None:
    """The folder's card-impact result with its flags; None for a folder without one."""
    found = folder_impacts(folder, originals)
    if found is None:
        return None
    impacts, note = found
    several = len({c["matchup"] for c, _ in impacts}) > 1
    cells = []
    for cell, impact in impacts:
        a, b = parse_matchup(cell["matchup"]).specs
        where = cell["original"] + (f" · {cell['matchup']}" if several else "")
        flags = dominant(impact, where, note["dominant_pts"], same=a == b)
        cells.append((cell, impact, tuple(flags)))
    return Measured(note, tuple(cells))


IMPACTS = "impact"
"""The folder of a run where `sim card-impact --run RUN` plays: RUN/impact/CARD-REPLACEMENT."""


def impact_folder(run: Path, card: int, replacement: int) -> Path:
    """Where `sim card-impact --run run` plays card swapped for replacement."""
    return run / IMPACTS / f"{NAMES[card]}-{NAMES[replacement]}"


def measured_all(folder: RunFolder) -> list[Measured]:
    """Every comparison a run shows under its board: its own (a `sim card-impact` folder,
    or one in RUN/impact/) and each one `sim card-impact --run` played against it
    (impact/*), card by card."""
    home = folder.path.parent  # a comparison of `--run`: RUN/impact/CARD-KIND
    inside = home.name == IMPACTS and (home.parent / MANIFEST).is_file()
    own = measured(folder, open_run(home.parent) if inside else None)
    found = [own] if own else []
    for path in sorted((folder.path / IMPACTS).glob("*/")):
        if not (path / MANIFEST).is_file():
            continue  # a comparison stopped before its first part: nothing to show
        m = measured(open_run(path), folder)  # a damaged one fails, naming its folder
        if m is not None:
            found.append(m)
    return found
