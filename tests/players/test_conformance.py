"""The conformance suite (sim/play/conformance.py) over every registered strategy and the
worked example, and proof that it catches strategies that break its rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.model import config as cfg
from sim.play import conformance
from sim.players import plugins
from sim.players.specs import BUILT_IN, parse_player
from sim.players.weights import PERSONAS

BASE = cfg.load("base")
TEST_STRATEGIES = Path(__file__).resolve().parents[1] / "strategies_for_tests.py"
SMALL_BUDGETS = {"mc": "mc(rollouts=8)", "ismcts": "ismcts(iterations=16)"}
EVERY = [
    *(SMALL_BUDGETS.get(name, name) for name in BUILT_IN if name != "cpu"),
    *plugins.entry_point_names(),
    "strategies/examples/high_lines.py:HighLines",
    *(str(p) for p in sorted(PERSONAS.glob("*.toml"))),
    "strong",
]


@pytest.mark.parametrize("spec", EVERY)
@pytest.mark.parametrize("check", sorted(conformance.CHECKS))
def test_every_strategy_conforms(spec, check):
    assert conformance.CHECKS[check](BASE, parse_player(spec), 6) == []


def test_a_strategy_reading_hidden_cards_is_caught():
    problems = conformance.blind_to_hidden(BASE, parse_player(f"{TEST_STRATEGIES}:Cheater"), 6)
    assert problems and "the play changed with hidden cards" in problems[0]


def test_a_false_claim_of_determinism_is_caught():
    problems = conformance.deterministic_claim(
        BASE, parse_player(f"{TEST_STRATEGIES}:FalselyDeterministic"), 6
    )
    assert problems and "declares itself deterministic" in problems[0]
    assert (
        conformance.deterministic_claim(BASE, parse_player(f"{TEST_STRATEGIES}:HonestFirst"), 6)
        == []
    )


def test_greedy_and_heuristic_declare_themselves_deterministic_and_random_does_not():
    def deterministic(spec: str) -> bool:
        return parse_player(spec).deterministic

    assert deterministic("greedy") and deterministic("heuristic")
    assert not deterministic("random") and not deterministic("mc(rollouts=8)")
    assert deterministic(f"{TEST_STRATEGIES}:HonestFirst")


def test_the_variants_differ_only_in_hidden_cards():
    pair = next(
        p for seed in range(20) if (p := conformance.hidden_variants(BASE, seed, 4)) is not None
    )
    s, t = pair[0][0], pair[1][0]
    rival = 1 - int(s.mover)
    assert list(s.hand[rival]) != list(t.hand[rival])  # hidden cards did move


def test_a_strategy_writing_into_its_input_is_caught():
    problems = conformance.untouched_inputs(BASE, parse_player(f"{TEST_STRATEGIES}:Mutator"), 2)
    assert problems and "changed its input" in problems[0]


def test_strategies_check_command_reports_each_check(tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app

    ok = CliRunner().invoke(app, ["strategies", "check", "high-lines", "--games", "3"])
    assert ok.exit_code == 0, ok.output
    assert ok.output.count("pass") == len(conformance.CHECKS)
    bad = CliRunner().invoke(app, ["strategies", "check", f"{TEST_STRATEGIES}:Cheater"])
    assert bad.exit_code == 1
    assert "blind to hidden information" in bad.output and "FAIL" in bad.output
