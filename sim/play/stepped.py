"""Games driven turn by turn from Python, for strategies written in Python (and for watching).

Compiled seats (built-ins, the CPU card) play their turns in compiled code. A Python seat
is shown its observation and the legal options at each decision point; its choices are
then played by the same compiled rules. Sub-decisions (PRINT, PASTE, GOSUB) are found by
replaying the move on a copy that stops at the next decision (paths.DecisionPending).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from sim.engine.decide import ASK_CUT, ASK_DIR, ASK_HAND
from sim.engine.game import DRAW, R_OUTCOME, R_WINNER, lead_buffer, record, setup
from sim.engine.paths import DecisionPending
from sim.engine.score import scores
from sim.engine.state import (
    END_REASONS,
    MAX_DEPTH,
    MAX_HAND,
    MAX_LINES,
    OK,
    ONGOING,
    STATE_DTYPE,
    VISIBILITIES,
)
from sim.model.notation import Card
from sim.model.position import Plain, card_at, hand_cards, hand_of
from sim.play import calls
from sim.players import guard
from sim.players import interface as api
from sim.players.observation import Observation, observe
from sim.players.specs import Matchup, PlayerError

OUTCOMES = ("points", "tiebreak", "draw")  # engine/game.py OUTCOME_* order


class EngineError(RuntimeError):
    """The engine hit one of its fixed limits; the message names the game seed."""


class StrategyError(RuntimeError):
    """A Python strategy raised or chose something illegal; the message says where and how
    to replay the game."""


@dataclass(frozen=True)
class Turn:
    """One turn as it was played: who, their hand before, and the card, line and direction."""

    number: int
    digit: int
    hand: list[Card]
    card: Card | None  # None: a pass (or a CPU turn: see placed)
    line: int
    direction: int
    placed: tuple[tuple[Card, int], ...] = ()  # a CPU turn's cards as they lie, with lines
    cpu_card: str = ""  # the CPU card's side and step for that turn


@dataclass(frozen=True)
class Context:
    """Where a game comes from, for error messages that say how to replay it."""

    config: str = "base"
    seed: int = 0
    swapped: bool = False
    players: str = "random,random"
    command: str = ""  # the command that replays it, when `sim show` cannot

    def replay(self) -> str:
        """The command that plays this game again, with the decision timeout it had."""
        limit = guard.decision_timeout()
        timeout = "" if limit == guard.DEFAULT_TIMEOUT else f" --decision-timeout {limit:g}"
        if self.command:
            return self.command + timeout
        swap = " --swapped" if self.swapped else ""
        players = shlex.quote(self.players) if "'" in self.players else f"'{self.players}'"
        derived = " --set " in self.config  # config_ref quoted it already
        config = self.config if derived else shlex.quote(self.config)
        return f"sim show --config {config} --seed {self.seed} --players {players}{swap}{timeout}"


def fresh_state():
    """A zeroed one-record array; keep it alive while its record [0] is in use."""
    return np.zeros(1, dtype=STATE_DTYPE).view(np.recarray)


def drive(s, strategies, context: Context, records: bool = True) -> Iterator[Turn | None]:
    """Play the game in s (a state record or its one-record array) to its end, yielding
    each turn (None for each unless records); strategies[digit] is a Python strategy, or
    None where the seat's compiled policy (or the CPU card) plays."""
    arr = calls.array_of(s)
    s = arr.view(np.recarray)[0] if records else s
    scratch = calls.array_of(fresh_state())
    while True:
        ended, digit, cpu, _, policy = calls.turn_fields(arr)
        if ended != ONGOING:
            return
        if records:
            hand_ids, hand = hand_of(arr[0], digit)
        if digit == cpu:
            calls.cpu(arr)
        elif strategies[digit] is None:
            calls.seat_turn(policy)(arr)
        else:
            python_turn(arr, int(digit), strategies[digit], scratch, context)
        error = calls.tracked(arr)  # the game arc after the turn (game.track)
        if error != OK:
            raise EngineError(
                f"game seed {context.seed}: the engine hit a fixed limit (error {error})"
            )
        yield turn_record(s, int(digit), hand, hand_ids) if records else None


def turn_record(s, digit: int, hand: list[Card], hand_ids: list[int]) -> Turn:
    if digit == s.cpu:
        placed = tuple(
            (card_at(s, int(s.cpu_log[i, 0]), True), int(s.cpu_log[i, 1]))
            for i in range(int(s.cpu_log_len))
        )
        side = "WINNING" if s.cpu_side else "NOT WINNING"
        return Turn(int(s.turns), digit, [], None, -1, 0, placed, f"{side} {int(s.cpu_step)}")
    if s.passed[digit]:
        return Turn(int(s.turns), digit, hand, None, -1, 0)
    card = hand[hand_ids.index(int(s.last[0]))]
    return Turn(int(s.turns), digit, hand, card, int(s.last[1]), int(s.last[2]))


def python_turn(s, digit: int, strategy, scratch, context: Context) -> None:
    """One turn of a Python strategy: the play, then each sub-decision of its chain (s: a
    state record or its array; scratch: a fresh_state() to try plays on)."""
    arr = calls.array_of(s)
    forced = bool(calls.begin(arr, digit))
    plain = Plain(arr[0])
    plays = legal_plays(arr, digit, forced, plain)
    if not plays:
        calls.finish(arr, digit, True)
        return
    visibility = VISIBILITIES[plain.visibility]
    decision = api.Decision(api.PLAY, plays, plain.turns)
    play = plays[ask(strategy, observe(plain, digit, visibility), decision, context)]
    path = sub_decisions(arr, digit, play, forced, strategy, scratch, context)
    follow(arr, digit, path)
    calls.put(arr, digit, play.hand_index, play.line, play.direction, forced)
    calls.finish(arr, digit, False)


def legal_plays(s, digit: int, forced: bool, plain: Plain | None = None) -> tuple[api.Play, ...]:
    """Every legal play, in hand order, lines top to bottom, directions L R U D (s: a state
    record or its array; plain: its fields, if already read)."""
    arr = calls.array_of(s)
    rows = np.zeros((MAX_HAND * MAX_LINES * 4, 3), dtype=np.int16)
    n = calls.plays(arr, digit, forced, rows)
    cards = hand_cards(plain or Plain(arr[0]), digit)
    return tuple(api.Play(i, cards[i], line, d) for i, line, d in rows[:n].tolist())


def follow(s, digit: int, path: list[int], ask_at: int = 0) -> None:
    """Make digit's next card follow path (and stop at decision ask_at - 1 if ask_at)."""
    calls.follow(calls.array_of(s), digit, np.array(path, dtype=np.int8), len(path), ask_at)


def sub_decisions(arr, digit, play, forced, strategy, scratch, context) -> list[int]:
    """The strategy's choices for every sub-decision the play leads to, in order: the play
    is tried on a copy in scratch, which stops at the next decision if one comes."""
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    work = calls.array_of(scratch)
    n = 0
    while n < MAX_DEPTH:
        try:
            calls.probe(
                work, arr, digit, play.hand_index, play.line, play.direction, forced, path, n
            )
        except DecisionPending:
            plain = Plain(work[0])
            decision = describe(work, plain, digit, n)
            visibility = VISIBILITIES[plain.visibility]
            path[n] = ask(strategy, observe(plain, digit, visibility), decision, context)
            n += 1
            continue
        break
    return path[:n].tolist()


def describe(work, plain: Plain, digit: int, depth: int) -> api.Decision:
    """The decision the copy work[0] (plain: its fields) stopped at, with its options in
    the engine's order."""
    what, cid, line, col = work[0]["ask"].tolist()
    turn = plain.turns
    if what == ASK_DIR:
        options = tuple(calls.directions(work, cid))
        decision = api.Decision(api.DIRECTION, options, turn, card_at(plain, cid, False))
    elif what in (ASK_HAND, ASK_CUT):
        pool = (
            plain.hand[digit][: plain.hand_len[digit]]
            if what == ASK_HAND
            else plain.cut[: plain.cut_len]
        )
        options = tuple(
            card_at(plain, c, False) for c in pool if calls.enterable(work, line, col, c)
        )
        kind = api.PRINT if what == ASK_HAND else api.PASTE
        decision = api.Decision(kind, options, turn, slot=(line, col))
    else:
        lines = tuple(x for x in range(plain.lines) if calls.gosub_ok(work, x, cid))
        decision = api.Decision(api.GOSUB, lines, turn, card_at(plain, cid, True))
    if len(decision.options) != int(work[0]["path_options"][depth]):
        raise EngineError(f"{decision.kind} options disagree with the engine's count")
    return decision


def ask(strategy, observation: Observation, decision: api.Decision, context: Context) -> int:
    """The strategy's choice, checked; any failure becomes one StrategyError."""
    try:
        choice = guard.call(origin(strategy), strategy.choose, observation, decision)
    except guard.Failure as exc:
        message = failure(strategy, exc.problem(), context, decision, exc.where)
        raise StrategyError(message) from None
    n = len(decision.options)
    if isinstance(choice, bool) or not isinstance(choice, int | np.integer) or not 0 <= choice < n:
        problem = f"returned {choice!r}, not an index into the {n} options"
        raise StrategyError(failure(strategy, problem, context, decision))
    return int(choice)


def origin(strategy) -> type:
    """The class whose file holds the strategy's own code (a wrapper names it `origin`)."""
    return getattr(strategy, "origin", type(strategy))


def failure(
    strategy, problem: str, context: Context, decision: api.Decision | None = None, where=""
) -> str:
    """The one message for a strategy's failure: what it did, in which game (and decision),
    where in its own file, and the command that replays it."""
    name = getattr(strategy, "spec", type(strategy).__name__)
    return placed(f"strategy {name} {problem}", context, decision, where)


def placed(message: str, context: Context, decision=None, where: str = "") -> str:
    """message (its first line; later lines kept after) with the game, where and replay."""
    first, *rest = message.split("\n")
    swap = " (second game of its pair, seats swapped)" if context.swapped else ""
    at = (
        f", turn {decision.turn + 1}, {decision.kind} decision with {len(decision.options)} options"
        if decision is not None
        else ""
    )
    lines = [first, f"  config {context.config}, game seed {context.seed}{swap}{at}", *rest]
    lines += [f"  where: {where}"] if where else []
    return "\n".join([*lines, f"  replay it: {context.replay()}"])


def seats(config, players: Matchup, seed: int, swapped: bool = False):
    """Seats for A and B (specs.Seat); a strategy that cannot be created fails like one that
    raises, naming the game it was created for."""
    context = Context(config_ref(config), int(seed), bool(swapped), players.text)
    try:
        return players.first.seat(), players.second.seat()
    except PlayerError as exc:
        raise StrategyError(placed(str(exc), context)) from None


def play_games(config, a, b, seeds, swapped, cpu_level: int, out, cards, leads=None) -> None:
    """Play one game per seed with seats a and b (players.Seat), A first unless swapped;
    result rows and card counts as the compiled loop writes them, and each game added to
    leads (batch.lead_buffer) when given."""
    players = f"{a.spec},{b.spec}"
    ref = config_ref(config)
    for g, seed in enumerate(seeds):
        flip = bool(swapped[g])
        context = Context(ref, int(seed), flip, players)
        first, second = (b, a) if flip else (a, b)
        play_game(config, first, second, cpu_level, context, out[g], cards[g], leads)


def config_ref(config) -> str:
    """How to name the config on a command line: its name if that finds it, else its path;
    a derived config as its base's, quoted, followed by its --set items."""
    from sim.model.config import ConfigError, find

    if config.overlay:
        sets = " ".join(f"--set {shlex.quote(item)}" for item in config.overlay)
        return f"{shlex.quote(str(config.path))} {sets}"
    try:
        return (
            config.name
            if find(config.name).resolve() == config.path.resolve()
            else str(config.path)
        )
    except ConfigError:
        return str(config.path)


def play_game(
    config, first, second, cpu_level: int, context: Context, out, cards, leads=None
) -> None:
    """One game: set up, seat both players, play it out, record it and tell the players."""
    arr, strategies = seated_game(config, first, second, cpu_level, context)
    s = arr[0]
    for _ in drive(s, strategies, context, records=False):
        pass
    finish_game(s, strategies, context, out, cards, leads)


def seated_game(config, first, second, cpu_level: int, context: Context):
    """A dealt game with both seats filled (players.Seat); (state array, Python strategies
    by digit, None where a compiled policy plays)."""
    arr = fresh_state()
    s = arr[0]  # read and set once per game: a record's fields are slow to reach, not here
    setup(s, *config.engine_args(cpu_level), np.uint64(context.seed), int(context.swapped))
    strategies = [None, None]
    for digit, seat, place in ((s.first, first, "first"), (1 - s.first, second, "second")):
        s.policy[digit], s.budget[digit] = seat.code, seat.budget
        s.weights[digit, :] = seat.weights
        if seat.strategy is not None:
            strategies[digit] = seat.strategy
            start = api.GameStart(
                int(digit), place, config.name, context.seed, api.Stream(s.srng[digit])
            )
            hook(seat.strategy, "start_game", start, context)
    return arr, strategies


def finish_game(s, strategies, context: Context, out, cards, leads=None) -> None:
    """Record the finished game (added to leads, a lead_buffer, when given) and tell each
    Python strategy how it ended."""
    record(s, out, cards, lead_buffer() if leads is None else leads)
    winner = None if out[R_WINNER] == DRAW else int(s.first) ^ int(out[R_WINNER])
    outcome = OUTCOMES[int(out[R_OUTCOME])]
    for digit, strategy in enumerate(strategies):
        if strategy is not None:
            hook(strategy, "end_game", game_end(s, digit, winner, outcome), context)


def hook(strategy, name: str, argument, context: Context) -> None:
    """Call start_game or end_game; a failure names the game like a bad choice does."""
    method = getattr(strategy, name, None)  # optional for classes not built on Strategy
    if method is None:
        return
    try:
        guard.call(origin(strategy), method, argument)
    except guard.Failure as exc:
        message = failure(strategy, exc.problem(name), context, where=exc.where)
        raise StrategyError(message) from None


def game_end(s, digit: int, winner: int | None, outcome: str) -> api.GameEnd:
    zero, one = scores(s)
    won = None if winner is None else winner == digit
    end_reason = END_REASONS[int(s.ended)]
    return api.GameEnd(digit, won, (int(zero), int(one)), outcome, end_reason, int(s.turns))
