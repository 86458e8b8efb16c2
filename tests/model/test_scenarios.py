"""Every hand-derived scenario file passes (RULES.md 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.engine.state import MAX_CARDS, MAX_DECK, MAX_HAND
from sim.model import scenario
from sim.model.notation import Card, parse_display

HERE = Path(__file__).resolve().parents[1]  # tests/
SCENARIOS = HERE / "scenarios"
MALFORMED = SCENARIOS / "malformed"  # each file breaks RULES.md 13's format once
LARGE = SCENARIOS / "solo_corners" / "large"  # positions that may exceed the engine's state
FILES = sorted(  # examples/ holds shared/'s three
    p for p in SCENARIOS.rglob("*.json") if MALFORMED not in p.parents and LARGE not in p.parents
)


def expected_words() -> dict[str, str]:
    """malformed/EXPECTED.txt: file name -> a word its refusal must contain."""
    lines = (MALFORMED / "EXPECTED.txt").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def test_enough_scenarios_ship():
    assert len(FILES) >= 100


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario(path):
    outcome = scenario.run(path)
    assert outcome.passed, "\n".join(outcome.failures)


@pytest.mark.parametrize("path", sorted(MALFORMED.glob("*.json")), ids=lambda p: p.stem)
def test_a_malformed_file_is_refused_naming_the_fault(path):
    word = expected_words()[path.name]
    outcome = scenario.run(path)
    assert len(outcome.failures) == 1
    assert outcome.failures[0].startswith("malformed: ")
    assert word in outcome.failures[0]


def test_every_malformed_file_has_its_expected_word():
    assert set(expected_words()) == {p.name for p in MALFORMED.glob("*.json")}


def fits_the_state(data: dict) -> bool:
    """Whether a position is within the state's sizes (sim/engine/state.py), counted from
    the file itself."""
    rows = parse_display(data["before"], data.get("rules", {}).get("lines", 5))
    shown = sum(isinstance(slot, Card) for row in rows for slot in row)
    hands = [len(data.get(key, [])) for key in ("hand", "opp_hand")]
    piles = [len(data.get(key, [])) for key in ("pile", "opp_pile")]
    total = shown + sum(hands) + sum(piles) + len(data.get("cut_pile", []))
    return max(hands) <= MAX_HAND and max(piles) <= MAX_DECK and total <= MAX_CARDS


@pytest.mark.parametrize("path", sorted(LARGE.glob("*.json")), ids=lambda p: p.stem)
def test_a_large_position_is_played_by_the_rules_or_refused(path):
    """RULES.md 13: a position the engine cannot hold is refused with a message, never
    cut short; one it can hold must give the hand-derived result."""
    outcome = scenario.run(path)
    if fits_the_state(scenario.load(path)):
        assert outcome.passed, "\n".join(outcome.failures)
    else:
        assert len(outcome.failures) == 1
        assert outcome.failures[0].startswith("cannot run scenario: ")
        assert "the engine holds at most" in outcome.failures[0]


def test_rules_check_runs_the_other_files_past_a_malformed_one(tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app

    good = SCENARIOS / "examples" / "enter-into-gap.json"
    (tmp_path / "a-bad.json").write_text('{"before": "10: 0", "expct": {}}')
    (tmp_path / "b-good.json").write_text(good.read_text())
    result = CliRunner().invoke(app, ["rules", "check", str(tmp_path)])
    assert result.exit_code == 1
    assert "unknown field 'expct'" in result.output
    assert "1 passed, 1 failed" in result.output
    assert "Traceback" not in result.output


def test_a_scenario_that_is_not_utf8_is_malformed(tmp_path):
    bad = tmp_path / "latin1.json"
    bad.write_bytes('{"before": "10: 0", "why": "caf\xe9"}'.encode("latin-1"))
    outcome = scenario.run(bad)
    assert outcome.failures and outcome.failures[0].startswith("malformed: ")


def test_a_wrong_expectation_fails(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"before": "10: 0\\n20: 1", "hand": ["0"], "move": {"card": "0", "line": 10},'
        ' "after": "10: 0\\n20: 1 0"}'
    )
    outcome = scenario.run(bad)
    assert not outcome.passed
    assert "after" in outcome.failures[0]


def test_an_illegal_move_is_refused(tmp_path):
    closed = tmp_path / "closed.json"
    closed.write_text(
        '{"before": "10: 0\\n20: 1", "hand": ["0"], "move": {"card": "0", "line": 30},'
        ' "expect": {"error": "IllegalMove"}}'
    )
    assert scenario.run(closed).passed
