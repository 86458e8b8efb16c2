"""Checks every strategy must pass: legal choices only, inputs left untouched, the same
choices for the same seed, nothing learnt from hidden information, and it pickles.

Used by the test suite over every registered strategy and by `sim strategies check`, so a
designer can run the same checks on their own strategy.
"""

from __future__ import annotations

import copy
import pickle
import shlex
from collections.abc import Callable

import numpy as np

from sim.engine.state import ONGOING
from sim.engine.turn import forced_applies
from sim.model.config import Config
from sim.play.batch import play_matchup, result_buffers
from sim.play.stepped import (
    Context,
    config_ref,
    drive,
    fresh_state,
    hook,
    legal_plays,
    origin,
    play_games,
    python_turn,
    seated_game,
    seats,
)
from sim.players.interface import GameStart, Stream
from sim.players.observation import observe
from sim.players.specs import Matchup, Player, Seat
from strategies.seats import turn_for

Check = Callable[[Config, Player, int], list[str]]
RANDOM = Player("random")


def versus_random(player: Player) -> Matchup:
    """The match-up the checks play: the strategy first, random second."""
    return Matchup(player, RANDOM)


def legal_moves(config: Config, player: Player, games: int) -> list[str]:
    """Every play the strategy makes is one of the legal plays of that moment."""
    problems = []
    for seed in range(games):
        context = against_random(config, player, seed)
        arr, strategies = seated_game(
            config, *seats(config, versus_random(player), seed), 0, context
        )
        s = arr[0]
        while s.ended == ONGOING and not problems:
            digit = int(s.mover)
            legal = {(p.card, p.line, p.direction) for p in legal_plays(s, digit, _forced(s))}
            turn = next(drive(s, strategies, context))
            if turn.card is not None and (turn.card, turn.line, turn.direction) not in legal:
                problems.append(f"game seed {seed}, turn {turn.number}: illegal play {turn}")
    return problems


def against_random(config: Config, player: Player, seed: int) -> Context:
    """A game of the strategy (first) against random, as `sim show` replays it."""
    return Context(config_ref(config), seed, False, versus_random(player).text)


def _forced(s) -> bool:
    return bool(forced_applies(s, int(s.mover)))


def deterministic(config: Config, player: Player, games: int) -> list[str]:
    """The same seeds give the same games, twice over."""
    seeds = np.arange(games, dtype=np.uint64)
    first = play_matchup(config, versus_random(player), seeds)
    again = play_matchup(config, versus_random(player), seeds)
    same = all(np.array_equal(x, y) for x, y in zip(first, again, strict=True))
    return [] if same else ["the same seeds gave different games"]


def deterministic_claim(config: Config, player: Player, games: int) -> list[str]:
    """A strategy that declares itself deterministic replays a self-play game exactly, result
    and card counts, when the seats swap (the statistics count such a pair once, and the
    runner records a built-in's replay without playing it); others pass."""
    if not player.deterministic:
        return []
    seeds = np.repeat(np.arange(1, games + 1, dtype=np.uint64), 2)
    swapped = np.tile(np.array([0, 1], dtype=np.uint8), games)
    out, cards = play_matchup(config, Matchup(player, player), seeds, swapped)
    rows = (out[0::2] != out[1::2]).any(axis=1)
    differ = np.flatnonzero(rows | (cards[0::2] != cards[1::2]).reshape(games, -1).any(axis=1))
    if len(differ):
        return [f"declares itself deterministic, but game seed {int(differ[0]) + 1} differs "
                "when it plays itself with the seats swapped"]  # fmt: skip
    return []


def untouched_inputs(config: Config, player: Player, games: int) -> list[str]:
    """A Python strategy leaves the observation and decision it is given as they were."""
    seat, random = seats(config, versus_random(player), 0)
    if seat.strategy is None:
        return []  # built-ins see the state only through the compiled engine's copies
    problems: list[str] = []
    watcher = _Watcher(seat.strategy, problems)
    guarded = Seat(seat.spec, seat.code, seat.budget, watcher, seat.weights)
    seeds = np.arange(games, dtype=np.uint64)
    out, cards = result_buffers(games)
    play_games(config, guarded, random, seeds, np.zeros(games), 0, out, cards)
    return problems[:1]


class _Watcher:
    """Passes decisions through to a strategy and notes any change it makes to them."""

    def __init__(self, inner, problems: list[str]) -> None:
        self.inner, self.problems, self.spec = inner, problems, getattr(inner, "spec", "")
        self.origin = origin(inner)  # a failure's "where" is in the strategy's file

    def start_game(self, start):
        if hasattr(self.inner, "start_game"):
            self.inner.start_game(start)

    def end_game(self, end):
        if hasattr(self.inner, "end_game"):
            self.inner.end_game(end)

    def choose(self, observation, decision):
        before = copy.deepcopy((observation, decision))
        choice = self.inner.choose(observation, decision)
        if (observation, decision) != before:
            self.problems.append(f"turn {decision.turn + 1}: the strategy changed its input")
        return choice


def blind_to_hidden(config: Config, player: Player, games: int) -> list[str]:
    """Two games that differ only in what the mover cannot see (the opponent's hand and
    the order of the piles below their tops) get the same play from the strategy."""
    problems = []
    for seed in range(games):
        for turns in (2, 6, 10):
            pair = hidden_variants(config, seed, turns)
            if pair is None:
                continue
            plays = [one_turn(player, s, config, seed) for s in pair]
            if plays[0] != plays[1]:
                problems.append(
                    f"game seed {seed}, turn {turns + 1}: the play changed with hidden cards "
                    f"({plays[0]} vs {plays[1]})"
                )
    return problems


def hidden_variants(config: Config, seed: int, turns: int):
    """A random game's state after `turns` turns, and a copy with the opponent's hand
    swapped into their pile below its top card and the mover's pile reversed below its
    top; None if the game is over by then or nothing hidden can move."""
    arr, strategies = seated_game(config, RANDOM.seat(), RANDOM.seat(), 0, Context(seed=seed))
    s = arr[0]
    game = drive(s, strategies, Context(seed=seed))
    for _ in range(turns):
        if next(game, None) is None:
            return None
    if s.ended != ONGOING:
        return None
    other_arr = fresh_state()
    other_arr[0] = s
    t = other_arr[0]
    mover, rival = int(s.mover), 1 - int(s.mover)
    hidden = range(int(t.pile_top[rival]) + 1, int(t.pile_len[rival]))
    swaps = 0
    for i, j in zip(range(int(t.hand_len[rival])), hidden, strict=False):
        if (
            t.owner[t.hand[rival, i]] == rival
            and t.kind[t.hand[rival, i]] != t.kind[t.pile[rival, j]]
        ):
            t.hand[rival, i], t.pile[rival, j] = t.pile[rival, j], t.hand[rival, i]
            swaps += 1
    below = slice(int(t.pile_top[mover]) + 1, int(t.pile_len[mover]))
    t.pile[mover, below] = t.pile[mover, below][::-1].copy()
    if swaps == 0:
        return None
    visibility = config.rules.visibility
    assert observe(s, mover, visibility) == observe(t, mover, visibility)
    return arr, other_arr


def one_turn(player: Player, arr, config: Config, seed: int):
    """The play the strategy makes in the mover's seat of a copy of arr[0]."""
    work = fresh_state()
    work[0] = arr[0]
    s = work[0]
    digit = int(s.mover)
    seat = seats(config, versus_random(player), seed)[0]
    s.policy[digit], s.budget[digit] = seat.code, seat.budget
    s.weights[digit, :] = seat.weights
    hand = [int(s.hand[digit, i]) for i in range(int(s.hand_len[digit]))]
    if seat.strategy is None:
        s.last[0] = -1
        turn_for(seat.code)(s)
    else:
        # `sim show` cannot reach this position; the check that found it can
        rerun = f"sim strategies check {shlex.quote(player.text)} --config "
        rerun += f"{shlex.quote(config_ref(config))} --games {seed + 1}"
        context = Context(
            config_ref(config), seed, players=versus_random(player).text, command=rerun
        )
        place = "first" if digit == s.first else "second"
        start = GameStart(digit, place, config.name, seed, Stream(s.srng[digit]))
        hook(seat.strategy, "start_game", start, context)
        python_turn(s, digit, seat.strategy, fresh_state(), context)
    if s.passed[digit]:
        return None
    return hand.index(int(s.last[0])), int(s.last[1]), int(s.last[2])


def pickles(config: Config, player: Player, games: int) -> list[str]:
    """The seat (with a Python strategy's instance) survives pickling for worker processes
    and plays the same games afterwards."""
    seat = seats(config, versus_random(player), 0)[0]
    try:
        again = pickle.loads(pickle.dumps(seat))
    except Exception as exc:  # noqa: BLE001 - the message is the finding
        return [f"does not pickle: {type(exc).__name__}: {exc}"]
    return [] if type(again.strategy) is type(seat.strategy) else ["unpickled as another type"]


CHECKS: dict[str, Check] = {
    "legal moves only": legal_moves,
    "inputs left untouched": untouched_inputs,
    "deterministic for a seed": deterministic,
    "deterministic as declared": deterministic_claim,
    "blind to hidden information": blind_to_hidden,
    "pickles for workers": pickles,
}


def run_checks(config: Config, player: Player, games: int = 20) -> dict[str, list[str]]:
    """Each check's problems (empty when it passes)."""
    return {name: check(config, player, games) for name, check in CHECKS.items()}
