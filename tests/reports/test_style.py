"""One presentation style across the report commands (reports/present.py): a rate is
`51.2% [50.5, 51.9]`, a difference of rates `+1.8 pts [+1.5, +2.1]`, a verdict uses the
same words everywhere; every command's output is held to that here."""

from __future__ import annotations

import re

import pytest
from hand_runs import manifest, planted, tiny_cards, tiny_games, write_run
from typer.testing import CliRunner

from sim.cli import app

NUMBER = r"\d{1,3}(?:,\d{3})*\.\d"
RATE = re.compile(rf"{NUMBER}% \[{NUMBER}, {NUMBER}\]")
PTS = re.compile(rf"[+-]{NUMBER} pts \[[+-]{NUMBER}, [+-]{NUMBER}\]")
OLD = [
    re.compile(r"\d% +\d[\d.]*% - "),  # solo's old '2.03%  1.84% - 2.23%'
    re.compile(r"\] pts"),  # the old '+1.9 [..] pts'
    re.compile(r"no change detectable"),
    re.compile(r"…"),  # a cut cell
]


IMPACT = ("card-impact", "--card", "PRINT", "--games", "400")


def run(*args: str, columns: int = 200) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})
    assert result.exit_code in (0, 3), result.output
    return result.stdout


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("style")
    tiny = write_run(tmp / "tiny", tiny_games(), tiny_cards())
    frames = [planted(c, "random,random", 2_000, p, 1) for c, p in (("x", 0.5), ("y", 0.53))]
    import polars as pl

    two = write_run(tmp / "two", pl.concat(frames), None, manifest(["x", "y"], 8_000))
    return {
        "summary": run("summary", str(tiny), "--detail"),
        "compare": run("compare", str(two), "--config", "x", "--config", "y"),
        "card-impact": run(*IMPACT, "--out", str(tmp / "impact"), "--workers", "1"),
        "solo": run("solo", "--games", "300", "--human", "random"),
    }


@pytest.mark.parametrize("command", ["summary", "compare", "card-impact", "solo"])
def test_one_style(outputs, command):
    text = outputs[command]
    for old in OLD:
        assert not old.search(text), (command, old.pattern)
    flat = " ".join(text.split())  # a cell wrapped over lines reads as one
    for match in re.finditer(r"\S+ pts \[[^\]]*\]", flat):
        assert PTS.fullmatch(match.group()), (command, match.group())
    for match in re.finditer(r"\S+% \[[^\]]*\]", flat):
        assert RATE.fullmatch(match.group()), (command, match.group())


def test_every_command_prints_its_rates_with_intervals(outputs):
    assert RATE.search(" ".join(outputs["summary"].split()))
    assert RATE.search(" ".join(outputs["solo"].split()))
    assert PTS.search(" ".join(outputs["compare"].split()))
    assert PTS.search(" ".join(outputs["card-impact"].split()))
