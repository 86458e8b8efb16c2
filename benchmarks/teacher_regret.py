"""Teacher regret: how far a player's moves are from ismcts's, position by position.

    python benchmarks/teacher_regret.py label --games 800 --seed 600000 --budget 3000 \\
        --out runs/teacher.npz
    python benchmarks/teacher_regret.py score runs/teacher.npz strong heuristic 'ismcts'
    python benchmarks/teacher_regret.py fit runs/teacher.npz --start strong --trials 500 \\
        --write runs/my-fitted.toml

`label` plays `strong,ismcts` games on `base` (seats swapped every other game), keeps the
position before every decision of either seat, and runs ismcts with --budget iterations on
each: the teacher's value of a root move is the mean result of the iterations under it
(a win chance, as ismcts backs up), its choice the move it would play. `score` gives a
player's regret, the teacher's value of its choice less that of the player's move, and its
agreement, how often the two are the same move, both averaged over the held-out positions
(those of every fourth game); an ismcts player searches each position on another stream.
`fit` runs CMA-ES (optuna) over a weights file's weights, search settings kept, to minimise
the regret on the other positions, and writes the best. Scoring a player takes about a
second and draws no noise of its own, but it is no stand-in for games: it orders ismcts's
budgets as their games do, not strong's search settings, and weights fitted to it played
worse (docs/strategies.md has the figures).
Positions are played outside the runner: this measures players, it makes no run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.engine.game import track  # noqa: E402
from sim.engine.jit import entry  # noqa: E402
from sim.engine.state import (  # noqa: E402
    MAX_DEPTH,
    ONGOING,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    STATE_DTYPE,
)
from sim.engine.turn import begin_turn  # noqa: E402
from sim.play.compiled import start_game  # noqa: E402
from strategies.heuristic import searched_choice  # noqa: E402
from strategies.ismcts import root_search  # noqa: E402
from strategies.search import M_DIR, M_INDEX, M_LEN, M_LINE, M_PATH, search_start  # noqa: E402
from strategies.seats import cpu_or_any  # noqa: E402

WIDTH = M_PATH + MAX_DEPTH  # a move row's columns
HELD_OUT = 4  # every HELD_OUT-th game's positions are held out of fit
OTHER_STREAM = 0x9E3779B97F4A7C15  # an ismcts player's search stream is moved by


@entry
def teacher(a, moves_out, means_out):
    """ismcts's search on a[0] (the mover's seat on ismcts with its budget): the root moves
    and their mean values into the outputs; (how many, the index of the one it plays)."""
    s = a[0]
    digit = s.mover
    _, r, det, work, deals, moves, n = search_start(s, digit)
    if n <= 1:
        return n, 0
    best, root_moves, stats = root_search(s, digit, r, det, work, deals, moves, n)
    for m in range(n):
        moves_out[m, :] = root_moves[m]
        means_out[m] = stats[1 + m, 2] / max(stats[1 + m, 0], 1.0)
    return n, best


@entry
def student(a, w, move, path):
    """The heuristic-family player of weights w on a[0]: its move into move and path."""
    s = a[0]
    digit = s.mover
    chosen, chosen_path, n = searched_choice(s, digit, begin_turn(s, digit), w)
    move[:] = chosen
    path[:] = chosen_path
    return n


def matching_row(moves: np.ndarray, n: int, move, path) -> int:
    """The row of moves[:n] that is this (hand index, line, direction) and decision path
    (zeros past the row's M_LEN), or -1."""
    for m in range(n):
        row = moves[m]
        if (row[M_INDEX], row[M_LINE], row[M_DIR]) != tuple(int(x) for x in move):
            continue
        depth = row[M_LEN]
        if np.array_equal(row[M_PATH : M_PATH + depth], path[:depth]) and not path[depth:].any():
            return m
    return -1


# --- label ---------------------------------------------------------------------------------


@entry
def start(a, rules, seats, seed, swapped):
    start_game(a[0], rules, seats, seed, swapped)


@entry
def one_turn(a):
    cpu_or_any(a[0])
    track(a[0])


def play_positions(seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every human decision's position in strong,ismcts games of these seeds, and its game."""
    from sim.model.config import load
    from sim.play.batch import engine_seats
    from sim.players.specs import parse_matchup

    m = parse_matchup("strong,ismcts")
    rules = load("base").engine_args(0)
    seats = engine_seats(m.policy_codes(), m.budgets(), m.evaluations())
    a = np.zeros(1, dtype=STATE_DTYPE)
    snaps, games = [], []
    for seed in seeds:
        start(a, rules, seats, np.uint64(seed), int(seed) % 2 == 1)
        while a[0]["ended"] == ONGOING:
            if a[0]["mover"] != a[0]["cpu"]:
                snaps.append(a[0].copy())
                games.append(int(seed))
            one_turn(a)
    return np.array(snaps, dtype=STATE_DTYPE), np.array(games, np.int64)


def search_each(states: np.ndarray, budget: int, weights, stream: int = 0) -> tuple:
    """ismcts of this budget (and evaluation weights) on every position, its search stream
    moved by stream: root moves, their values, their number and the one played (moves and
    values padded to the most root moves met)."""
    n = len(states)
    moves = np.zeros((512, WIDTH), np.int16)
    means = np.zeros(512)
    found, values = [], []
    count, best = np.zeros(n, np.int64), np.zeros(n, np.int64)
    a = np.zeros(1, dtype=STATE_DTYPE)
    for i in range(n):
        a[0] = states[i]
        digit = a[0]["mover"]
        a[0]["policy"][digit] = POLICY_ISMCTS
        a[0]["budget"][digit] = budget
        a[0]["weights"][digit] = weights
        a[0]["srng"][digit] ^= np.uint64(stream)
        count[i], best[i] = teacher(a, moves, means)
        depth = int(moves[: count[i], M_LEN].max(initial=0))
        found.append(moves[: count[i], : M_PATH + depth].copy())
        values.append(means[: count[i]].copy())
    return padded(found), padded(values), count, best


def padded(rows: list) -> np.ndarray:
    """Per-position arrays stacked, each padded with zeros to the largest on every axis."""
    shape = tuple(max(sizes) for sizes in zip(*(r.shape for r in rows), strict=True))
    return np.stack([pad_to(r, shape) for r in rows])


def pad_to(a: np.ndarray, shape: tuple) -> np.ndarray:
    """a padded with zeros at the end of every axis to shape."""
    return np.pad(a, [(0, want - have) for want, have in zip(shape, a.shape, strict=True)])


def on_both_cores(func, states: np.ndarray, *rest) -> tuple:
    """func(states part, *rest) on two processes, the even and the odd positions, put back
    in order (arrays padded with zeros to the larger part's shape)."""
    from multiprocess import Pool

    with Pool(2) as pool:
        parts = pool.starmap(func, [(states[h::2].copy(), *rest) for h in (0, 1)])
    joined = []
    for even, odd in zip(*parts, strict=True):
        tail = tuple(max(sizes) for sizes in zip(even.shape[1:], odd.shape[1:], strict=True))
        out = np.zeros((len(states), *tail), even.dtype)
        out[0::2], out[1::2] = pad_to(even, (len(even), *tail)), pad_to(odd, (len(odd), *tail))
        joined.append(out)
    return tuple(joined)


def label(args) -> None:
    from multiprocess import Pool

    from sim.players.specs import parse_player

    started = time.perf_counter()
    seeds = np.arange(args.seed, args.seed + args.games, dtype=np.uint64)
    with Pool(2) as pool:
        played = pool.map(play_positions, [seeds[0::2], seeds[1::2]])
    states = np.concatenate([p[0] for p in played]).astype(STATE_DTYPE)
    games = np.concatenate([p[1] for p in played])
    print(f"{len(states):,} positions from {args.games:,} games", flush=True)
    weights = np.asarray(parse_player("ismcts").evaluation(), float)
    moves, means, count, best = on_both_cores(search_each, states, args.budget, weights)
    np.savez(
        args.out,
        states=states,
        games=games,
        moves=moves,
        means=means,
        count=count,
        best=best,
        budget=args.budget,
    )
    print(f"labelled by ismcts({args.budget}) in {time.perf_counter() - started:.0f} s: {args.out}")


# --- score and fit -------------------------------------------------------------------------


def read_positions(path: str) -> tuple[dict, dict]:
    """The labelled positions as (fitted on, held out): every HELD_OUT-th game held out."""
    data = dict(np.load(path))
    data["states"] = data["states"].astype(STATE_DTYPE)  # the engine's layout, padding and all
    held = data["games"] % HELD_OUT == 0
    fitted, kept = (
        {k: v[keep] for k, v in data.items() if k != "budget"} for keep in (~held, held)
    )
    return fitted, kept


def choices(part: dict, weights) -> list:
    """The heuristic-family player's move row at each position (-1 where it is not listed)."""
    w = np.asarray(weights, float)
    a = np.zeros(1, dtype=STATE_DTYPE)
    move, path = np.zeros(3, np.int16), np.zeros(MAX_DEPTH, np.int8)
    rows = []
    for i in range(len(part["states"])):
        if part["count"][i] <= 1:
            rows.append(0)
            continue
        a[0] = part["states"][i]
        student(a, w, move, path)
        rows.append(matching_row(part["moves"][i], part["count"][i], move, path))
    return rows


def search_choices(part: dict, budget: int, weights) -> list:
    """An ismcts player's move row at each position, searched on another stream."""
    moves, _, count, best = on_both_cores(
        search_each, part["states"], budget, np.asarray(weights, float), OTHER_STREAM
    )
    rows = []
    for i in range(len(count)):
        chosen = moves[i, best[i]]
        path = np.zeros(MAX_DEPTH, np.int8)
        path[: chosen[M_LEN]] = chosen[M_PATH : M_PATH + chosen[M_LEN]]
        rows.append(
            matching_row(part["moves"][i], part["count"][i], chosen[:3], path)
            if count[i] > 1
            else 0
        )
    return rows


def regret(part: dict, rows: list) -> tuple[float, float]:
    """(mean regret, agreement) over the positions with a choice to make."""
    losses, same = [], []
    for i, row in enumerate(rows):
        if part["count"][i] <= 1:
            continue
        if row < 0:
            raise SystemExit(f"position {i}: the player's move is not among the teacher's")
        means, best = part["means"][i], part["best"][i]
        losses.append(means[best] - means[row])
        same.append(row == best)
    return float(np.mean(losses)), float(np.mean(same))


def player_rows(part: dict, spec: str) -> list:
    """The player's choices: a heuristic-family spec's, or an ismcts spec's searched again."""
    from sim.players.specs import parse_player

    player = parse_player(spec)
    if player.code == POLICY_ISMCTS:
        return search_choices(part, player.budget, player.evaluation())
    if player.code != POLICY_HEURISTIC:
        raise SystemExit(f"{spec}: give heuristic, a weights file (strong) or an ismcts spec")
    return choices(part, player.evaluation())


def score(args) -> None:
    _, held = read_positions(args.positions)
    print(f"{len(held['states']):,} held-out positions; regret (teacher's value lost), agreement")
    for spec in args.players:
        started = time.perf_counter()
        loss, same = regret(held, player_rows(held, spec))
        print(f"{spec:>40}  {loss:.4f}  {same:6.1%}  ({time.perf_counter() - started:.1f} s)")


def fit(args) -> None:
    import warnings

    import optuna

    from sim.tune.train import bounds, default_vary, features, start_weights, toml_text, with_values

    train, held = read_positions(args.positions)
    start = start_weights(args.start)
    vary = default_vary("base")
    ranges = {
        n: optuna.distributions.FloatDistribution(*bounds(n, start[features()[n]])) for n in vary
    }
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # experimental sampler
        sampler = optuna.samplers.CmaEsSampler(
            x0={n: round(start[features()[n]], 3) for n in vary}, sigma0=args.sigma, seed=args.seed
        )
    study = optuna.create_study(sampler=sampler)
    best = (regret(train, choices(train, start))[0], start)
    print(f"start: fitted-on {best[0]:.4f}, held out {regret(held, choices(held, start))[0]:.4f}")
    for number in range(args.trials):
        trial = study.ask(ranges)
        weights = with_values(start, trial.params)
        loss = regret(train, choices(train, weights))[0]
        study.tell(trial, loss)
        if loss < best[0]:
            best = (loss, weights)
            held_loss = regret(held, choices(held, weights))[0]
            print(f"trial {number}: fitted-on {loss:.4f}, held out {held_loss:.4f}", flush=True)
    note = f"fitted to ismcts's root values: benchmarks/teacher_regret.py fit, {args.trials} trials"
    Path(args.write).write_text(toml_text(best[1], "fitted to the teacher's regret", [note]))
    print(f"wrote {args.write}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("label", help="play positions and label them with ismcts")
    p.add_argument("--games", type=int, default=800)
    p.add_argument("--seed", type=int, default=600000)
    p.add_argument("--budget", type=int, default=3000, help="the teacher's iterations")
    p.add_argument("--out", default="runs/teacher.npz")
    p = sub.add_parser("score", help="regret and agreement of players on held-out positions")
    p.add_argument("positions")
    p.add_argument("players", nargs="+")
    p = sub.add_parser("fit", help="fit a weights file's weights to the teacher")
    p.add_argument("positions")
    p.add_argument("--start", default="strong")
    p.add_argument("--trials", type=int, default=500)
    p.add_argument("--sigma", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--write", required=True)
    args = parser.parse_args()
    {"label": label, "score": score, "fit": fit}[args.command](args)


if __name__ == "__main__":
    main()
