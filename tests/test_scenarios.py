"""Every hand-derived scenario file passes (RULES.md 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim import scenario

HERE = Path(__file__).parent
FILES = sorted((HERE / "scenarios").rglob("*.json"))  # examples/ holds shared/'s three


def test_enough_scenarios_ship():
    assert len(list((HERE / "scenarios").rglob("*.json"))) >= 100


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario(path):
    outcome = scenario.run(path)
    assert outcome.passed, "\n".join(outcome.failures)


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
