"""Ratings, equilibrium and luck from seat-swapped pairs: pure maths, no I/O.

A cell's results are its pair table: counts[i, j] pairs in which A took i half points as
the first seat and j as the second (0 loss, 1 draw, 2 win), A the match-up's first name.
From it come the pair score (sim.stats, the pair the unit), the first seat's score, and the
luck share; from a pool's cells come the Elo fit and the Nash equilibrium.

The Elo fit is one batch Bradley-Terry fit with a first-seat term, a draw half a win
(Bernoulli quasi-likelihood, as Elo scores a draw): the first seat's expected score is
logistic(r_first - r_second + h). It maximises the likelihood with scipy's trust-region
Newton on the exact gradient and Hessian (choix fits Bradley-Terry without a seat term,
draws or covariances, so it does not fit here). The covariance is the sandwich
H^-1 B H^-1 with B summed over pairs, the pair the unit: a pair's two games share their
deal, so they are not independent, and a draw is not a Bernoulli outcome, so the model's
own Fisher information H^-1 would misstate both; the sandwich is the cluster-robust
variance sim.stats uses for every rate, here for a fitted model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special
from scipy.sparse.csgraph import connected_components

from reports.stats import ELO_PER_NAT
from sim.stats import Estimate, Tally, events, points, rate, z_score

RESULTS = ("loss", "draw", "win")
"""The index of a pair table's axes: A's half points in that game."""

SUPPORT = 1e-6
"""Equilibrium weights below this are numerical zeros, not part of the support."""


class RatingError(ValueError):
    """A pool whose ratings cannot be fitted (a perfect score, a player never met)."""


# --- one cell's pair table -------------------------------------------------------------------


def pair_table(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The 3x3 pair table from each pair's A half points as the first and the second seat."""
    table = np.zeros((3, 3), dtype=np.int64)
    np.add.at(table, (np.asarray(first, int), np.asarray(second, int)), 1)
    return table


def _halves(counts: np.ndarray, first_seat: bool) -> list[int]:
    """Units by half points over the pair: A's (i + j), or the first seat's (i + 2 - j)."""
    out = [0] * 5
    for i in range(3):
        for j in range(3):
            out[i + (2 - j if first_seat else j)] += int(counts[i, j])
    return out


def score_tally(counts: np.ndarray) -> Tally:
    """A's score over the cell's games (a draw half), the pair the unit."""
    return points(_halves(counts, False), 2 * int(counts.sum()))


def first_seat_tally(counts: np.ndarray) -> Tally:
    """The first seat's score over the cell's games (a draw half), the pair the unit."""
    return points(_halves(counts, True), 2 * int(counts.sum()))


def split_tally(counts: np.ndarray) -> Tally:
    """Of the decisive pairs (no draw), those the same seat won twice, the pair the unit."""
    c = np.asarray(counts)
    split = int(c[2, 0] + c[0, 2])
    decisive = split + int(c[2, 2] + c[0, 0])
    return events(split, 0, decisive, decisive)


def luck_share(tables: list[np.ndarray], confidence: float = 0.95) -> Estimate:
    """The share of decisive pairs the same seat won twice, over the cells of two different
    strategies: the deal and the seat decided those pairs, whoever played. 0 when the
    stronger always wins both games, 1 when the deal decides every game, 1/2 for coin flips."""
    total = Tally(0, 0, 0, 0, 0, 0)
    for t in tables:
        total = total + split_tally(t)
    return rate(total, "pair", confidence)


# --- the Elo fit -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Ratings:
    """A pool's Elo (logistic, the anchor at 0), the first seat's bonus in Elo, and their
    covariance in Elo^2 (the last row and column the first seat's), the pair the unit."""

    players: tuple[str, ...]
    elo: np.ndarray
    first_seat: float
    cov: np.ndarray
    pairs: int

    def se(self, i: int) -> float:
        """Standard error of player i's Elo (0 for the anchor)."""
        return math.sqrt(max(self.cov[i, i], 0.0))

    def interval(self, i: int, confidence: float = 0.95) -> tuple[float, float]:
        """Player i's Elo interval (normal, from the sandwich covariance)."""
        half = z_score(confidence) * self.se(i)
        return self.elo[i] - half, self.elo[i] + half

    def first_seat_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The first seat's bonus in Elo, with its interval."""
        half = z_score(confidence) * math.sqrt(max(self.cov[-1, -1], 0.0))
        return self.first_seat - half, self.first_seat + half

    def superiority(self, i: int, j: int) -> float:
        """Likelihood of superiority: the chance that i is stronger than j, Phi(d / se(d))
        on the difference of their Elo (as Ordo and BayesElo report it)."""
        d = self.elo[i] - self.elo[j]
        var = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        if var <= 0:
            return 0.5 if d == 0 else float(d > 0)
        return float(special.ndtr(d / math.sqrt(var)))

    def order(self) -> list[int]:
        """Player indexes from strongest to weakest."""
        return sorted(range(len(self.players)), key=lambda i: -self.elo[i])


Pool = dict[tuple[str, str], np.ndarray]
"""A pool's cells: (A, B) -> the pair table with A in the first seat of each pair's first game."""


def fit(players: list[str] | tuple[str, ...], cells: Pool, anchor: str | None = None) -> Ratings:
    """Fit Elo ratings and the first-seat bonus to the pool's pair tables (anchor: the player
    held at 0, the first by default); RatingError when no finite fit exists."""
    names = tuple(players)
    if len(names) < 2 or len(set(names)) != len(names):
        raise RatingError("a rating needs at least two different players")
    fixed = names.index(anchor if anchor is not None else names[0])
    free = [i for i in range(len(names)) if i != fixed]
    rows = _design(names, cells, free)
    _check_finite(names, cells)
    x0 = np.zeros(len(free) + 1)
    result = optimize.minimize(
        _negloglik, x0, args=(rows,), jac=_gradient, hess=_hessian, method="trust-exact"
    )
    if not result.success and np.linalg.norm(_gradient(result.x, rows)) > 1e-6:
        raise RatingError(f"the Elo fit did not converge: {result.message}")
    theta = result.x
    h_inv = np.linalg.inv(_hessian(theta, rows))
    meat, pairs = _meat(theta, rows)
    cov_free = h_inv @ meat @ h_inv * (pairs / (pairs - 1) if pairs > 1 else 1.0)
    k = len(names)
    idx = [*free, k]  # the free players' places, then the first seat's
    cov = np.zeros((k + 1, k + 1))
    cov[np.ix_(idx, idx)] = cov_free * ELO_PER_NAT**2
    elo = np.zeros(k)
    elo[free] = theta[:-1] * ELO_PER_NAT
    return Ratings(names, elo, float(theta[-1] * ELO_PER_NAT), cov, pairs)


def _design(names, cells: Pool, free: list[int]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per cell: the two games' design vectors (A first, then B first) over the free players
    and the seat term, and the pair table."""
    place = {i: n for n, i in enumerate(free)}
    rows = []
    for (a, b), counts in cells.items():
        if a not in names or b not in names:
            raise RatingError(f"cell {a},{b} names a player outside the pool")
        if a == b or not np.asarray(counts).sum():
            continue
        d = np.zeros(len(free) + 1)
        d[-1] = 1.0
        if names.index(a) in place:
            d[place[names.index(a)]] += 1.0
        if names.index(b) in place:
            d[place[names.index(b)]] -= 1.0
        d2 = -d
        d2[-1] = 1.0
        rows.append((d, d2, np.asarray(counts, dtype=float)))
    return rows


def _check_finite(names, cells: Pool) -> None:
    """A finite fit needs every player to have scored against, and conceded to, the rest in
    a chain that closes: the 'scored against' graph strongly connected (Zermelo, Ford)."""
    k = len(names)
    scored = np.zeros((k, k))
    for (a, b), counts in cells.items():
        if a == b:
            continue
        s = score_tally(np.asarray(counts))
        i, j = names.index(a), names.index(b)
        scored[i, j] += s.y
        scored[j, i] += s.z - s.y
    met = (scored + scored.T) > 0
    count, labels = connected_components(met, directed=False)
    if count > 1:
        apart = [names[i] for i in range(k) if labels[i] != labels[0]]
        raise RatingError(
            f"no finite Elo: {', '.join(apart)} never played {names[0]}'s side of the pool"
        )
    count, labels = connected_components(scored > 0, directed=True, connection="strong")
    if count > 1:
        top = [names[i] for i in range(k) if labels[i] == labels[int(np.argmax(scored.sum(1)))]]
        raise RatingError(
            f"no finite Elo: {', '.join(top)} never lost a game to the rest of the pool; "
            "play more pairs or a closer pool"
        )


def _games(theta: np.ndarray, rows) -> list:
    """Per cell: (d, x, n, p) for each of its two games' seat order: the first seat's
    scores x over the pair table's rows/columns, the pair counts n, the expected score p."""
    out = []
    halves = np.arange(3) / 2
    for d1, d2, counts in rows:
        x1 = np.repeat(halves[:, None], 3, axis=1)  # A first: A's score
        x2 = 1.0 - np.repeat(halves[None, :], 3, axis=0)  # B first: B's score
        p1, p2 = special.expit(d1 @ theta), special.expit(d2 @ theta)
        out.append(((d1, x1, p1), (d2, x2, p2), counts))
    return out


def _negloglik(theta: np.ndarray, rows) -> float:
    """Minus the quasi-log-likelihood: sum of x log p + (1 - x) log(1 - p) over games."""
    total = 0.0
    for (d1, x1, _), (d2, x2, _), n in _games(theta, rows):
        for d, x in ((d1, x1), (d2, x2)):
            eta = d @ theta
            won, lost = (n * x).sum(), (n * (1 - x)).sum()
            total += float(won * np.logaddexp(0, -eta) + lost * np.logaddexp(0, eta))
    return total


def _gradient(theta: np.ndarray, rows) -> np.ndarray:
    """The gradient of _negloglik."""
    g = np.zeros_like(theta)
    for (d1, x1, p1), (d2, x2, p2), n in _games(theta, rows):
        g -= (n * (x1 - p1)).sum() * d1 + (n * (x2 - p2)).sum() * d2
    return g


def _hessian(theta: np.ndarray, rows) -> np.ndarray:
    """The Hessian of _negloglik (the expected and observed one agree for the logit)."""
    h = np.zeros((theta.size, theta.size))
    for (d1, _, p1), (d2, _, p2), n in _games(theta, rows):
        games = n.sum()
        h += games * (p1 * (1 - p1) * np.outer(d1, d1) + p2 * (1 - p2) * np.outer(d2, d2))
    return h


def _meat(theta: np.ndarray, rows) -> tuple[np.ndarray, int]:
    """B = sum over pairs of g g', g the pair's score vector (both games); and the pairs."""
    b = np.zeros((theta.size, theta.size))
    pairs = 0
    for (d1, x1, p1), (d2, x2, p2), n in _games(theta, rows):
        for i in range(3):
            for j in range(3):
                if n[i, j]:
                    g = (x1[i, j] - p1) * d1 + (x2[i, j] - p2) * d2
                    b += n[i, j] * np.outer(g, g)
        pairs += int(n.sum())
    return b, pairs


# --- equilibrium and dominance ---------------------------------------------------------------


def nash(payoff: np.ndarray) -> np.ndarray:
    """Equilibrium weights of the symmetric zero-sum game with the antisymmetric payoff
    (row's score - 1/2 against column): maximise v with every column's payoff >= v."""
    m = np.asarray(payoff, dtype=float)
    k = m.shape[0]
    cost = np.zeros(k + 1)
    cost[-1] = -1.0  # maximise v
    upper = np.hstack([-m.T, np.ones((k, 1))])  # v - sum_i x_i m_ij <= 0 for each column j
    equal = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    bounds = [(0, None)] * k + [(None, None)]
    result = optimize.linprog(
        cost, A_ub=upper, b_ub=np.zeros(k), A_eq=equal, b_eq=[1.0], bounds=bounds, method="highs"
    )
    if not result.success:
        raise RatingError(f"no equilibrium found: {result.message}")
    w = np.where(result.x[:k] < SUPPORT, 0.0, result.x[:k])
    return w / w.sum()


@dataclass(frozen=True)
class Dominance:
    """The pool's verdict: kind 'dominates' (one strategy, beating every other beyond
    chance), 'cycle' (a beats b beats c beats a, each beyond chance) or 'unclear', its text,
    and the equilibrium's weights by player."""

    kind: str
    text: str
    weights: dict[str, float]


def dominance(players: list[str], score: np.ndarray, low: np.ndarray) -> Dominance:
    """The verdict on a pool from score[i, j] (i's score against j, per game) and low[i, j]
    (its 95% interval's lower end): beyond chance means low[i, j] > 1/2."""
    s = np.asarray(score, dtype=float)
    k = len(players)
    payoff = s - 0.5
    np.fill_diagonal(payoff, 0.0)
    w = nash(payoff)
    weights = {p: float(x) for p, x in zip(players, w, strict=True)}
    beats = np.asarray(low) > 0.5
    np.fill_diagonal(beats, False)
    support = [i for i in range(k) if w[i] > 0]
    if len(support) == 1:
        top = support[0]
        if all(beats[top, j] for j in range(k) if j != top):
            return Dominance(
                "dominates",
                f"{players[top]} dominates: it beats every other beyond chance",
                weights,
            )
    cycle = _cycle(beats)
    if cycle:
        chain = " > ".join(players[i] for i in [*cycle, cycle[0]])
        return Dominance("cycle", f"the pool holds a cycle: {chain}, each beyond chance", weights)
    leaders = [players[i] for i in support]
    return Dominance(
        "unclear",
        f"no verdict: {', '.join(leaders)} not told apart beyond chance (play more pairs)",
        weights,
    )


def _cycle(beats: np.ndarray) -> list[int]:
    """A cycle of the 'beats beyond chance' graph (player indexes in order), [] if none:
    a breadth-first search from each player back to itself."""
    k = beats.shape[0]
    for start in range(k):
        paths = {start: [start]}
        frontier = [start]
        while frontier:
            nxt = []
            for i in frontier:
                if beats[i, start]:
                    return paths[i]
                for j in range(k):
                    if beats[i, j] and j not in paths:
                        paths[j] = paths[i] + [j]
                        nxt.append(j)
            frontier = nxt
    return []
