"""The Python strategy interface: the decisions a strategy is shown, loading by file and
entry point, the Python loop agreeing with the compiled loop, and failures that say where."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from sim.engine.cards import DIR_NONE, LEFT, RIGHT
from sim.model import config as cfg
from sim.model.notation import normalise_display, parse_display, parse_hand_card, render_display
from sim.model.position import Position, build_state, display_rows
from sim.model.rules import RuleOptions
from sim.play.batch import play_matchup
from sim.play.stepped import Context, StrategyError, fresh_state, python_turn
from sim.players.specs import PlayerError, matchup, parse_player
from sim.strategy import GameStart, Stream

HERE = Path(__file__).resolve().parents[1]  # tests/
TEST_STRATEGIES = HERE / "strategies_for_tests.py"
CANONICAL = "strategies/canonical_random.py:CanonicalRandom"
BASE = cfg.load("base")
RULES = RuleOptions()


def spec(name: str) -> str:
    return f"{TEST_STRATEGIES}:{name}"


class Scripted:
    """Answers each decision from a list of indexes and keeps what it was shown."""

    def __init__(self, answers):
        self.answers, self.seen = list(answers), []

    def choose(self, observation, decision):
        self.seen.append((observation, decision))
        return self.answers.pop(0)


def one_turn(before: str, hand: list[str], answers: list[int]):
    pos = Position(
        rules=RULES,
        rows=parse_display(before, RULES.lines),
        mover=0,
        hands=([parse_hand_card(c) for c in hand], []),
    )
    s = build_state(pos)
    strategy = Scripted(answers)
    python_turn(s, 0, strategy, fresh_state(), Context())
    return render_display(display_rows(s)), [d for _, d in strategy.seen]


def test_a_print_asks_for_the_card_then_its_direction():
    # 10 holds 2 cards, so only 10 and 20 are open; PRT and DEL point L or R, ITE has none.
    after, seen = one_turn("10: 0 1\n20: 1", ["0PRTH", "0DELH", "0ITE"], [1, 0, 0])
    assert [d.kind for d in seen] == ["play", "print", "direction"]
    plays = [(p.hand_index, p.line, p.direction) for p in seen[0].options]
    assert plays == [
        (0, 0, LEFT), (0, 0, RIGHT), (0, 1, LEFT), (0, 1, RIGHT),
        (1, 0, LEFT), (1, 0, RIGHT), (1, 1, LEFT), (1, 1, RIGHT),
        (2, 0, DIR_NONE), (2, 1, DIR_NONE),
    ]  # fmt: skip
    # PRT goes to the 10 line's first empty slot (col 2) pointing right: it prints into col 3
    assert seen[1].slot == (0, 3)
    assert [c.kind for c in seen[1].options] == [parse_hand_card(c).kind for c in ("0DELH", "0ITE")]
    assert seen[2].options == (LEFT, RIGHT)
    # the printed DEL points left at the PRT, which is deleted
    assert after == normalise_display("10: 0 1 . 0DEL<\n20: 1", RULES.lines)


def test_a_gosub_asks_for_the_line():
    # GSB into 10's first empty slot pointing left moves the 1 beside it; lines with 3+ cards
    # whose first empty slot it may enter: 10 (its own) and 20. The strategy takes 20.
    after, seen = one_turn("10: 1 1 1\n20: 0 0 0\n30: 1", ["0GSBH"], [0, 1])
    assert [d.kind for d in seen] == ["play", "gosub"]
    assert seen[1].options == (0, 1)
    assert after == normalise_display("10: 1 1 . 0GSB<\n20: 0 0 0 1\n30: 1", RULES.lines)


def test_the_observation_at_a_sub_decision_shows_the_display_of_that_moment():
    _, _ = one_turn("10: 0 1\n20: 1", ["0PRTH", "0DELH", "0ITE"], [1, 0, 0])
    strategy = Scripted([1, 0, 0])
    pos = Position(
        rules=RULES,
        rows=parse_display("10: 0 1\n20: 1", RULES.lines),
        mover=0,
        hands=([parse_hand_card(c) for c in ("0PRTH", "0DELH", "0ITE")], []),
    )
    python_turn(build_state(pos), 0, strategy, fresh_state(), Context())
    at_play, at_print = strategy.seen[0][0], strategy.seen[1][0]
    assert len(at_play.display[0]) == 2 and len(at_print.display[0]) == 3  # PRT now lies there
    assert len(at_print.hand) == 2  # and has left the hand


@pytest.mark.parametrize("other", ["random", "greedy", "cpu(level=2)"])
def test_the_python_loop_plays_the_compiled_games_with_the_canonical_random(other):
    seeds = np.arange(120, dtype=np.uint64)
    swapped = None if other.startswith("cpu") else np.arange(120) % 2
    level = 2 if other.startswith("cpu") else 0
    compiled = play_matchup(BASE, matchup("random", other), seeds, swapped, level)
    python = play_matchup(BASE, matchup(CANONICAL, other), seeds, swapped, level)
    assert np.array_equal(compiled[0], python[0])
    assert np.array_equal(compiled[1], python[1])


def test_entry_point_names_load_the_same_strategy():
    seeds = np.arange(40, dtype=np.uint64)
    by_file = play_matchup(BASE, matchup(CANONICAL, "canonical-random"), seeds)
    compiled = play_matchup(BASE, matchup("random", "random"), seeds)
    assert np.array_equal(by_file[0], compiled[0])


def test_parameters_reach_the_constructor_and_bad_ones_are_named():
    player = parse_player(spec("Weighted") + "(weight=2, label='y')").seat()
    assert (player.strategy.weight, player.strategy.label) == (2, "y")
    with pytest.raises(PlayerError, match="unexpected keyword argument 'height'"):
        parse_player(spec("Weighted") + "(height=2)")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nothing/here.py:X", "strategy file 'nothing/here.py' not found"),
        (f"{TEST_STRATEGIES}:Missing", "has no class 'Missing'; it defines"),
        ("clever", "unknown strategy 'clever'; available: canonical-random, controller, cpu"),
    ],
)
def test_strategies_that_cannot_load_say_why(text, message):
    with pytest.raises(PlayerError, match=message):
        parse_player(text)


def test_a_file_that_fails_to_import_names_the_file_and_error(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import not_a_module_anywhere\n")
    with pytest.raises(PlayerError, match=r"broken.py failed to import: ModuleNotFoundError"):
        parse_player(f"{broken}:X")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Raiser", r"raised ValueError: no idea what to do"),
        ("OutOfRange", r"returned (\d+), not an index into the \1 options"),
        ("NotAnIndex", r"returned Play\("),
    ],
)
def test_a_failing_strategy_names_itself_the_game_and_the_decision(name, problem):
    seeds = np.array([7, 8], dtype=np.uint64)
    with pytest.raises(StrategyError) as caught:
        play_matchup(BASE, matchup(spec(name), "random"), seeds, np.array([1, 1]))
    text = str(caught.value)
    assert re.search(re.escape(f"strategy {spec(name)} ") + problem, text)
    assert "config base, game seed 7 (second game of its pair, seats swapped)" in text
    assert "play decision with" in text
    assert f"sim show --config base --seed 7 --players '{spec(name)},random' --swapped" in text


def test_each_game_gets_its_own_stream_from_the_seed():
    starts = []

    class Keeper(Scripted):
        def start_game(self, start: GameStart):
            starts.append(start)

    from sim.play import stepped
    from sim.play.batch import result_buffers
    from sim.players.specs import Seat

    out, cards = result_buffers(2)
    keeper = Seat("keeper", 0, 0, Keeper([0] * 1000))
    seeds = np.array([5, 6], dtype=np.uint64)
    stepped.play_games(BASE, keeper, parse_player("random").seat(), seeds, [0, 0], 0, out, cards)
    assert [s.seed for s in starts] == [5, 6]
    draws = [[s.rng.below(1000) for _ in range(5)] for s in starts]
    assert draws[0] != draws[1]
    assert isinstance(starts[0].rng, Stream)


def test_a_run_with_a_failing_strategy_stops_with_one_clear_message(tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app

    result = CliRunner().invoke(
        app,
        ["run", "--config", "base", "--players", f"{spec('Raiser')},random", "--games", "4"]
        + ["--workers", "1", "--quiet", "--out", str(tmp_path / "run")],
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Raiser raised ValueError: no idea what to do" in errors[0]
    assert "replay it: sim show --config base --seed" in result.output


def test_show_replays_a_python_strategy_game_and_reports_its_failure():
    from typer.testing import CliRunner

    from sim.cli import app

    shown = CliRunner().invoke(app, ["show", "--players", "high-lines,greedy", "--swapped"])
    assert shown.exit_code == 0 and "first player: digit" in shown.output
    assert "(seats swapped: B first)" in shown.output and "ended:" in shown.output
    failed = CliRunner().invoke(app, ["show", "--players", f"{spec('OutOfRange')},random"])
    assert failed.exit_code == 1 and "not an index into the" in failed.output


def test_winrates_split_match_ups_only_at_the_top_level_comma():
    from types import SimpleNamespace

    from sim.play.batch import result_buffers
    from sim.store.quantities import win_counts
    from sim.store.summaries import winrates
    from sim.store.tables import result_fields
    from sim.store.tallies import count_chunk

    a, b = spec("Weighted") + "(weight=1,label='z')", "random"
    cell = SimpleNamespace(config=BASE, matchup=f"{a},{b}", a=a, b=b, swap=False)
    out, _ = result_buffers(2)
    out[:] = 0  # two games the first seat won on points
    hist, _ = count_chunk(result_fields(out), np.zeros(2, dtype=bool), False)
    table = winrates([win_counts(cell, hist, False)])
    assert table.select("a", "b").rows() == [(a, b)]
