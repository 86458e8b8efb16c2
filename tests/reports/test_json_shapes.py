"""`--json` of sprt, card-impact and solo: the documented shape, and the numbers the
terminal prints for the same run (README: JSON)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from sim.cli import app


def run(*args: str):
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def flat(text: str) -> str:
    return " ".join(text.split())


def test_sprt_json_has_the_terminal_numbers():
    args = ("sprt", "--players", "greedy,random", "--batch", "200", "--max-games", "400", "-q")
    data = json.loads(run(*args, "--json"))
    text = run(*args)
    assert data["command"] == "sprt" and data["shape"] == 1
    assert set(data) >= {"verdict", "elo", "llr", "bounds", "games", "pairs", "pentanomial"}
    assert sum(data["pentanomial"]) == data["pairs"] == data["games"] // 2
    assert f"LLR {data['llr']:+.2f}" in text
    assert f"{data['elo']['value']:+.1f} [{data['elo']['low']:+.1f}" in text
    assert f"games used: {data['games']:,}" in text


def test_card_impact_json_has_the_terminal_numbers(tmp_path):
    out = str(tmp_path / "r")  # the second command reads the run the first played
    args = ("card-impact", "--card", "PRINT", "--games", "400", "--out", out, "--workers", "1")
    data = json.loads(run(*args, "--json"))
    text = flat(run(*args))
    assert data["command"] == "card-impact" and data["card"] == "PRINT"
    assert data["pairs"] == 200 and data["games"] == 400
    for m in data["measures"]:
        d = m["change"]
        if m["kind"] == "rate":
            shown = (
                f"{100 * d['estimate']:+.1f} pts [{100 * d['low']:+.1f}, {100 * d['high']:+.1f}]"
            )
        else:
            shown = f"{d['estimate']:+.2f} [{d['low']:+.2f}, {d['high']:+.2f}]"
        assert shown in text, m["name"]
        assert m["verdict"] in text


@pytest.mark.parametrize("margin", ["1", "60"])
def test_solo_json_has_the_terminal_numbers_and_verdicts(margin):
    args = ("solo", "--games", "300", "--human", "random")
    if margin == "60":
        result = CliRunner().invoke(app, [*args, "--margin", margin])
        assert result.exit_code == 2 and "--margin" in result.output
        return
    data = json.loads(run(*args, "--json", "--margin", margin))
    text = flat(run(*args, "--margin", margin))
    assert data["command"] == "solo" and len(data["rows"]) == 4  # levels 1-4
    for row in data["rows"]:
        w = row["win_rate"]
        shown = f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}, {100 * w['high']:.1f}]"
        assert shown in text
        assert row["verdict"]["text"] in text
        assert row["verdict"]["kind"] in {"balanced", "favours", "inconclusive"}
        assert re.fullmatch(r"human|CPU", row["verdict"]["favoured"])
