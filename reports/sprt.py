"""Sequential test of strategy A against B over seat-swapped game pairs (pentanomial SPRT).

Each pair is one game seed played twice, A in the first seat and then in the second, so
the deal's luck cancels within the pair. A's points over the pair (0, 0.5, 1, 1.5 or 2)
tally into a pentanomial; after every batch the LLR of elo1 against elo0 is compared with
Wald's bounds, as chess-engine testing (fishtest) does. Deciding only at batch ends keeps
the LLR approximation away from its small-sample failures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from reports.stats import Pentanomial, elo_estimate, sprt_bounds, sprt_decision, sprt_llr
from sim.engine.game import DRAW, R_ERROR, R_WINNER, WIN_FIRST, WIN_SECOND
from sim.model.config import Config
from sim.players.specs import Matchup
from sim.store.seeds import cell_key, game_seeds

_LABELS = {"first": WIN_FIRST, "second": WIN_SECOND, "draw": DRAW}


class SprtError(ValueError):
    """Settings or a match-up the test cannot run with; the message names the option."""


@dataclass(frozen=True)
class SprtSettings:
    """The hypotheses (logistic Elo of A over B), error rates and the batching of games."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    batch: int = 2000  # games per look, whole pairs
    max_games: int | None = None  # None: play until the test decides

    def check(self) -> None:
        """Raise SprtError for settings the test cannot run with."""
        if not self.elo0 < self.elo1:
            raise SprtError(f"--elo0 must be below --elo1, got {self.elo0} and {self.elo1}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 1.0:
                raise SprtError(f"--{name} must be between 0 and 1, got {value}")
        if self.alpha + self.beta >= 1.0:
            raise SprtError("--alpha plus --beta must be below 1, or the bounds cross")
        if self.batch < 2:
            raise SprtError(f"--batch must be at least 2 games (one pair), got {self.batch}")
        if self.max_games is not None and self.max_games < 2:
            raise SprtError(f"--max-games must be at least 2 (one pair), got {self.max_games}")

    @property
    def pairs_per_batch(self) -> int:
        """Pairs per look: the batch in games, rounded up to whole pairs."""
        return (self.batch + 1) // 2

    @property
    def max_pairs(self) -> int | None:
        """The pair limit: max games rounded up to whole pairs."""
        return None if self.max_games is None else (self.max_games + 1) // 2


@dataclass(frozen=True)
class SprtStatus:
    """Where the test stands after a look: counts, LLR, bounds and the verdict so far."""

    pentanomial: Pentanomial
    llr: float
    lower: float
    upper: float
    verdict: str  # "H1", "H0", "continue" or "inconclusive" (stopped at the game limit)

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial.counts())

    @property
    def games(self) -> int:
        return 2 * self.pairs

    def elo(self, confidence: float = 0.95) -> tuple[float, float, float]:
        """Elo of A over B with its interval, from the pair scores."""
        return elo_estimate(self.pentanomial, confidence)


def winner_codes(winners: Iterable) -> np.ndarray:
    """Winner per game as engine codes (0 first, 1 second, 2 draw), from codes or labels."""
    values = np.asarray(list(winners) if not isinstance(winners, np.ndarray) else winners)
    if values.dtype.kind in "UO":
        try:
            return np.array([_LABELS[str(v)] for v in values], dtype=np.int8)
        except KeyError as exc:
            raise ValueError(f"unknown winner {exc.args[0]!r}; expected first/second/draw") from exc
    codes = values.astype(np.int8)
    if not np.isin(codes, (WIN_FIRST, WIN_SECOND, DRAW)).all():
        raise ValueError("winner codes must be 0 (first), 1 (second) or 2 (draw)")
    return codes


def pair_scores(winners: Iterable) -> np.ndarray:
    """A's points per pair from winner rows in pair order: A first, then A second.

    A win is 1 point and a draw half; a pair scores 0, 0.5, 1, 1.5 or 2.
    """
    codes = winner_codes(winners)
    if codes.size % 2:
        raise ValueError(f"need whole pairs of games, got {codes.size} games")
    a_seat = np.tile(np.array([WIN_FIRST, WIN_SECOND], dtype=np.int8), codes.size // 2)
    points = np.where(codes == DRAW, 0.5, (codes == a_seat).astype(float))
    return points.reshape(-1, 2).sum(axis=1)


def status(counts: Pentanomial, settings: SprtSettings) -> SprtStatus:
    """The LLR of the counts against the bounds, and Wald's verdict on it."""
    lower, upper = sprt_bounds(settings.alpha, settings.beta)
    llr = sprt_llr(counts, settings.elo0, settings.elo1)
    verdict = sprt_decision(counts, settings.elo0, settings.elo1, settings.alpha, settings.beta)
    return SprtStatus(counts, llr, lower, upper, verdict)


def sequential_test(
    batches: Iterable[np.ndarray],
    settings: SprtSettings,
    progress: Callable[[SprtStatus], None] | None = None,
) -> SprtStatus:
    """Feed batches of pair scores, look after each, stop at a verdict or at the pair limit.

    Pairs beyond the limit in the last batch are not counted. If the batches run out first
    the verdict is "inconclusive".
    """
    settings.check()
    total = np.zeros(5, dtype=np.int64)
    limit = settings.max_pairs
    current = None
    for scores in batches:
        scores = np.asarray(scores, dtype=float)
        if limit is not None:
            scores = scores[: limit - int(total.sum())]
        total += np.asarray(Pentanomial.from_pair_scores(scores).counts())
        if not total.any():
            continue
        current = status(Pentanomial(*(int(c) for c in total)), settings)
        if progress:
            progress(current)
        if current.verdict != "continue":
            return current
        if limit is not None and total.sum() >= limit:
            break
    if current is None:
        raise SprtError("no game pairs were played")
    return SprtStatus(
        current.pentanomial, current.llr, current.lower, current.upper, "inconclusive"
    )


def pair_seeds(seed: int, players: Matchup, start: int, stop: int) -> np.ndarray:
    """Seeds of pairs start..stop-1, derived as the runner derives a swapped cell's seeds
    (from the master seed and the match-up), so `sim run` plays the same pairs."""
    if not 0 <= seed < 2**64:
        raise SprtError(f"--seed must be in 0..2**64-1, got {seed}")
    return game_seeds(cell_key(seed, players.text), start, stop)


def play_pairs(config: Config, players: Matchup, seeds: np.ndarray, state=None) -> np.ndarray:
    """Result rows (engine R_* columns) of each seed played twice: A first, then A second."""
    from sim.play.batch import play_matchup
    from sim.play.stepped import StrategyError
    from sim.players.specs import PlayerError

    if "cpu" in (players.first.name, players.second.name):
        raise SprtError(
            "the CPU card only plays the second seat, so it cannot play seat-swapped pairs"
        )
    games = np.repeat(np.asarray(seeds, dtype=np.uint64), 2)
    swapped = np.tile(np.array([0, 1], dtype=np.uint8), len(seeds))
    try:
        out, _ = play_matchup(config, players, games, swapped, state=state)
    except (PlayerError, StrategyError) as exc:
        raise SprtError(str(exc)) from None
    bad = out[:, R_ERROR].nonzero()[0]
    if len(bad):
        raise SprtError(f"game seed {int(games[bad[0]])} stopped at an engine limit")
    return out


def engine_batches(
    config: Config, players: Matchup, seed: int, settings: SprtSettings
) -> Iterator[np.ndarray]:
    """Pair scores batch after batch, played by the engine until the pair limit (or forever)."""
    from sim.engine.state import new_state

    state = new_state()
    start, size, limit = 0, settings.pairs_per_batch, settings.max_pairs
    while limit is None or start < limit:
        stop = start + size if limit is None else min(start + size, limit)
        out = play_pairs(config, players, pair_seeds(seed, players, start, stop), state)
        yield pair_scores(out[:, R_WINNER])
        start = stop


def run_sprt(
    config: Config,
    players: Matchup,
    seed: int,
    settings: SprtSettings,
    progress: Callable[[SprtStatus], None] | None = None,
) -> SprtStatus:
    """Play seat-swapped pairs of A against B on config until the SPRT decides."""
    batches = engine_batches(config, players, seed, settings)
    return sequential_test(batches, settings, progress)


def describe(result: SprtStatus, a: str, b: str, settings: SprtSettings) -> list[str]:
    """The verdict, Elo estimate, LLR and sample as lines of text."""
    e0, e1 = _elo(settings.elo0), _elo(settings.elo1)
    verdicts = {
        "H1": f"H1 accepted: {a} is stronger than {b} (Elo {e1} rather than {e0})",
        "H0": f"H0 accepted: {a} is not stronger than {b} by {e1} Elo ({e0} rather than {e1})",
        "inconclusive": "inconclusive: the game limit came before the test decided",
    }
    elo, low, high = result.elo()
    c = result.pentanomial.counts()
    note = []
    if c[2] == result.pairs:
        note = [
            "note: every pair split 1-1, so the interval has no width: each pair's two games "
            "mirror each other, as when one strategy sits in both seats (the same game twice)"
        ]
    return [
        f"verdict: {verdicts.get(result.verdict, result.verdict)}",
        f"Elo of {a} over {b}: {_elo(elo)} [{_elo(low)}, {_elo(high)}] (95%)",
        f"LLR {result.llr:+.2f}, bounds [{result.lower:+.2f}, {result.upper:+.2f}] "
        f"(elo0 {settings.elo0:g}, elo1 {settings.elo1:g}, "
        f"alpha {settings.alpha:g}, beta {settings.beta:g})",
        f"games used: {result.games:,} ({result.pairs:,} seat-swapped pairs); "
        f"pair scores 0/0.5/1/1.5/2: {'/'.join(str(n) for n in c)}",
        *note,
    ]


def _elo(value: float) -> str:
    """Signed Elo with one decimal; infinities spelled out."""
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")
