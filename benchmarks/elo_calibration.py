"""Calibration of the league's Elo intervals (reports/ratings.py) on a synthetic pool of
known strengths: how often each player's 95% interval, and the first seat's, covers the
truth; beside them the model's own Fisher information H^-1, which ignores that a pair's
two games share their deal.

    python benchmarks/elo_calibration.py --reps 2000 --pairs 150 --same-deal 0.7

Each repetition plays every pairing of the pool for --pairs seat-swapped pairs. A game's
first seat scores with the logistic expectation of the Elo difference plus the seat bonus;
a --draw share of games are draws, placed so the expectation is kept; the pair's second
game reuses the first's uniform draw with chance --same-deal (the deal), which makes the
same seat win both more often. tests/reports/test_ratings.py runs 300 repetitions.
"""

from __future__ import annotations

import argparse

import numpy as np

TRUTH = (0.0, 60.0, 140.0, 230.0)  # Elo, the first player the anchor
SEAT, DRAW, SAME_DEAL = 50.0, 0.1, 0.7  # seat bonus (Elo), draw share, deal shared


def expected(d: float) -> float:
    """The logistic expected score of an Elo difference d."""
    return 1 / (1 + 10 ** (-d / 400))


def synthetic(rng, pairs: int, truth=TRUTH, seat=SEAT, draw=DRAW, same_deal=SAME_DEAL) -> dict:
    """Pair tables, (i, j) -> 3x3 counts of i's half points as the first and second seat."""
    cells = {}
    for i in range(len(truth)):
        for j in range(i):
            p1 = expected(truth[i] - truth[j] + seat)
            p2 = expected(truth[j] - truth[i] + seat)
            u1 = rng.random(pairs)
            u2 = np.where(rng.random(pairs) < same_deal, u1, rng.random(pairs))
            first = _result(u1, p1, draw)  # i's half points as the first seat
            second = 2 - _result(u2, p2, draw)  # j first: i's half points are 2 - j's
            t = np.zeros((3, 3))
            np.add.at(t, (first, second), 1)
            cells[(str(i), str(j))] = t
    return cells


def _result(u: np.ndarray, p: float, draw: float) -> np.ndarray:
    """The first seat's half points: a win below p - draw/2, a draw up to p + draw/2."""
    return np.where(u < p - draw / 2, 2, np.where(u < p + draw / 2, 1, 0))


def coverage(reps: int, pairs: int, seed: int, **pool) -> tuple[np.ndarray, np.ndarray]:
    """Per free player, then the seat: the share of repetitions whose sandwich interval
    covers the truth, and the share the model's own information would cover."""
    from reports.ratings import ELO_PER_NAT, _design, _hessian, fit

    truth = np.asarray(pool.get("truth", TRUTH))
    truths = np.r_[truth[1:], pool.get("seat", SEAT)]
    k = truth.size
    names = [str(i) for i in range(k)]
    rng = np.random.default_rng(seed)
    sandwich, model = np.zeros(k), np.zeros(k)
    for _ in range(reps):
        cells = synthetic(rng, pairs, **pool)
        r = fit(names, cells)
        estimates = np.r_[r.elo[1:], r.first_seat]
        se = np.sqrt(np.diag(r.cov)[1:])  # the free players, then the seat
        rows = _design(tuple(names), cells, list(range(1, k)))
        info = np.linalg.inv(_hessian(estimates / ELO_PER_NAT, rows)) * ELO_PER_NAT**2
        sandwich += np.abs(estimates - truths) <= 1.959964 * se
        model += np.abs(estimates - truths) <= 1.959964 * np.sqrt(np.diag(info))
    return sandwich / reps, model / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=150)
    parser.add_argument("--same-deal", type=float, default=SAME_DEAL)
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    sandwich, model = coverage(args.reps, args.pairs, args.seed, same_deal=args.same_deal)
    labels = [f"player {i}" for i in range(1, len(TRUTH))] + ["first seat"]
    print(f"{args.reps} repetitions, {args.pairs} pairs a pairing, same deal {args.same_deal}")
    for label, s, m in zip(labels, sandwich, model, strict=True):
        print(f"{label:>10}: sandwich {100 * s:5.1f}%   model information {100 * m:5.1f}%")


if __name__ == "__main__":
    main()
