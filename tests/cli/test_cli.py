"""The `sim` command line through typer's CliRunner: exit codes and text."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from cli_failures import assert_clean_failure
from typer.testing import CliRunner

from sim.cli import app
from sim.model.config import load

REPO = Path(__file__).resolve().parents[2]
BASE_SCENARIOS = REPO / "tests" / "scenarios" / "base"
PRINT_CHAIN = REPO / "tests" / "scenarios" / "examples" / "print-chain.json"
SHIPPED = ("base", "base-60", "variants", "101", "large")
WIDE = {"COLUMNS": "200"}  # rich tables unwrapped, one row per line


def run(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env=WIDE)


def table_rows(text: str) -> list[list[str]]:
    """Body rows of a rich table as lists of stripped cells."""
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in text.splitlines()
        if line.startswith("│")
    ]


# --- help -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), ("configs", "rules", "show", "bench")),
        (("configs",), ("list", "show")),
        (("rules",), ("apply", "check")),
        (("configs", "list"), ("List the configurations",)),
        (("configs", "show"), ("Show a configuration", "Config name or path")),
        (("rules", "apply"), ("Apply a scenario",)),
        (("rules", "check"), ("Run scenario files", "--verbose")),
        (("show",), ("Play one game", "--config", "--seed", "--players")),
        (("bench",), ("Games per second", "--config", "--games")),
    ],
)
def test_help_at_every_level(args, expected):
    result = run(*args, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage: sim" in result.output
    for text in expected:
        assert text in result.output


def every_command(group=None, prefix=()):
    """(argument path, click command) of every command and sub-command of the app."""
    import typer.main

    group = group or typer.main.get_command(app)
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from every_command(command, (*prefix, name))
        else:
            yield (*prefix, name), command


COMMANDS = dict(every_command())


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_no_option_name_is_cut_at_80_columns(path):
    command = COMMANDS[path]
    result = CliRunner().invoke(app, [*path, "--help"], prog_name="sim", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    for param in command.params:
        for name in [*param.opts, *param.secondary_opts]:
            if name.startswith("-"):
                assert name in result.output, f"sim {' '.join(path)} --help cuts {name}"


def test_the_type_column_shows_no_placeholders():
    """sim.cli.application's one change to typer: no <bool> for a flag, no <list[str]>."""
    shown = CliRunner().invoke(app, ["run", "--help"], prog_name="sim", env=WIDE).output
    assert "--per-game-cards" in shown and "<bool>" not in shown
    assert "--config" in shown and "<list[" not in shown


# --- configs --------------------------------------------------------------------------


def test_configs_list_shows_every_shipped_config():
    result = run("configs", "list")
    assert result.exit_code == 0, result.output
    rows = {row[0]: row[1:4] for row in table_rows(result.output)}
    assert set(SHIPPED) <= set(rows)
    assert rows["base"] == ["5", "3", "17"]
    assert rows["large"] == ["6", "5", "26"]


def test_configs_show_base_prints_hash_and_deck():
    result = run("configs", "show", "base")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"# hash {load('base').hash}" in lines
    body = json.loads("\n".join(line for line in lines if not line.startswith("#")))
    assert body["rules"]["lines"] == 5
    assert body["rules"]["run_capacity"] == 3
    deck = Counter({(e["kind"], e["axis"]): e["count"] for e in body["deck"]})
    assert deck == Counter(
        {("BLANK", "-"): 7}
        | {
            (kind, axis): 1
            for kind in ("DELETE", "ENTER", "IF...THEN", "PRINT", "SAVE")
            for axis in "HV"
        }
    )


def test_configs_show_unknown_name():
    result = run("configs", "show", "nope")
    line = assert_clean_failure(result)
    assert "nope" in line
    assert "base" in line  # the available names are listed


def test_configs_show_malformed_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[rules\nlines = 5\n")
    result = run("configs", "show", str(path))
    line = assert_clean_failure(result)
    assert str(path) in line


def test_show_with_malformed_config_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('[rules]\nlines = 7\n[[deck]]\nkind = "BLANK"\ncount = 4\n')
    result = run("show", "--config", str(path))
    line = assert_clean_failure(result)
    assert str(path) in line
    assert "rules.lines" in line


# --- rules check and apply ------------------------------------------------------------


def summary(result) -> tuple[int, int]:
    found = re.findall(r"^(\d+) passed, (\d+) failed$", result.output, re.MULTILINE)
    assert len(found) == 1, result.output
    return int(found[0][0]), int(found[0][1])


def test_rules_check_base_scenarios_pass():
    result = run("rules", "check", str(BASE_SCENARIOS))
    assert result.exit_code == 0, result.output
    assert summary(result) == (len(list(BASE_SCENARIOS.rglob("*.json"))), 0)
    assert "FAIL" not in result.output


def test_rules_check_copied_scenario_passes(tmp_path):
    (tmp_path / "copy.json").write_text(PRINT_CHAIN.read_text())
    result = run("rules", "check", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert summary(result) == (1, 0)


def test_rules_check_wrong_after_fails(tmp_path):
    data = json.loads(PRINT_CHAIN.read_text())
    data["after"] = data["before"]  # the move changes the display, so this is wrong
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(data))
    result = run("rules", "check", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert summary(result) == (0, 1)
    assert f"FAIL {path}" in result.output.splitlines()


def test_rules_check_missing_path(tmp_path):
    missing = tmp_path / "not-here"
    result = run("rules", "check", str(missing))
    line = assert_clean_failure(result)
    assert str(missing) in line


def test_rules_apply_prints_the_display_after_the_move():
    data = json.loads(PRINT_CHAIN.read_text())
    result = run("rules", "apply", str(PRINT_CHAIN))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    after = data["after"].splitlines()
    assert lines[: len(after)] == after
    facts = json.loads(lines[len(after)])
    assert facts["hand"] == data["expect"]["hand"]
    assert "differs:" not in result.output


# --- show -----------------------------------------------------------------------------


def test_show_plays_one_game_to_the_end():
    result = run("show", "--config", "base", "--seed", "7")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert "seed 7" in lines[0]
    assert lines[-1].startswith("ended:")
    assert sum(line.startswith("ended:") for line in lines) == 1


def test_show_is_deterministic_for_a_seed():
    first = run("show", "--config", "base", "--seed", "7")
    second = run("show", "--config", "base", "--seed", "7")
    assert first.exit_code == second.exit_code == 0
    assert first.output == second.output


def test_show_differs_between_seeds():
    # The header names the seed; the games after it must differ too.
    games = {
        run("show", "--config", "base", "--seed", str(seed)).output.split("\n", 1)[1]
        for seed in (1, 2, 3)
    }
    assert len(games) == 3


def test_show_unknown_strategy_lists_available_ones():
    result = run("show", "--players", "random,nope")
    line = assert_clean_failure(result)
    assert "nope" in line
    expected = "canonical-random, controller, cpu, greedy, heuristic, high-lines, ismcts, mc"
    assert f"available: {expected}, random, rusher, saboteur," in line
    assert "ended:" not in result.output


# --- bench ----------------------------------------------------------------------------


def test_bench_reports_games_per_second():
    result = run("bench", "--config", "base", "--games", "2000")
    assert result.exit_code == 0, result.output
    assert "games/s" in result.output
    (row,) = [line.split() for line in result.output.splitlines() if line.startswith("base ")]
    assert row[1] == "2,000"
    assert float(row[3].replace(",", "")) > 0  # games per second


def test_bench_json_has_its_shape():
    result = run("bench", "--config", "base", "--games", "2000", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["command"], data["shape"], data["players"]) == ("bench", 1, "random,random")
    (row,) = data["configs"]
    assert row["games"] == 2000 and row["errors"] == 0
    assert 0 < row["first_wins"] < 1 and abs(sum(row["end_reasons"].values()) - 1) < 1e-9


# --- what a new user sees -------------------------------------------------------------


def test_run_says_what_it_plays_before_playing(tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(
        app, ["run", "--games", "10", "--workers", "1", "--out", str(out)], prog_name="sim"
    )
    assert result.exit_code == 0, result.output
    first = result.stderr.splitlines()[0]
    assert first == f"playing 10 games of base, random vs random, seed 0 into {out}"


def test_run_quiet_says_nothing_before_its_result(tmp_path):
    out = tmp_path / "q"
    args = ["run", "--games", "10", "--workers", "1", "--out", str(out), "--quiet"]
    result = CliRunner().invoke(app, args, prog_name="sim")
    assert result.exit_code == 0, result.output
    assert "playing" not in result.output


def test_show_prints_a_legend_of_the_deck_codes():
    lines = run("show", "--config", "101", "--seed", "3").output.splitlines()
    legend = [line for line in lines[:8] if "codes:" in line]
    assert len(legend) == 1
    for code in ("DEL DELETE", "GSB GOSUB", "NXT NEXT", "(none) BLANK"):  # 101.1 cards in 101
        assert code in legend[0]
    assert "docs/RULES.md 12" in "\n".join(lines[:8])
    bare = run("show", "--config", "101", "--seed", "3", "--no-legend").output
    assert "codes:" not in bare and bare.splitlines()[2].startswith("  10:")


@pytest.mark.parametrize("swapped", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_show_names_the_winning_strategy(seed, swapped):
    """The winner is the strategy sitting at the digit with more points (or a draw, or the
    tie-break's winner): read off the header and the final scores, not the engine."""
    args = ["show", "--seed", str(seed), "--players", "greedy,random", "--no-legend"]
    lines = run(*args, *(["--swapped"] if swapped else [])).output.splitlines()
    first_digit, first_spec = re.match(r"first player: digit (\d) \((\S+)\)", lines[1]).groups()
    seats = {int(first_digit): first_spec}
    seats[1 - int(first_digit)] = "greedy" if first_spec == "random" else "random"
    assert first_spec == ("random" if swapped else "greedy")
    found = re.search(r"score 0: (\d+)  1: (\d+); winner: (.*)$", lines[-1])
    zero, one, winner = int(found.group(1)), int(found.group(2)), found.group(3)
    if zero == one == 0:
        assert winner.startswith("draw")
        return
    digit = int(re.search(r"digit (\d)", winner).group(1))
    if zero != one:
        assert digit == (0 if zero > one else 1)
    else:
        assert "tie-break" in winner
    place = "first" if digit == int(first_digit) else "second"
    assert winner.startswith(f"{seats[digit]} (digit {digit}, the {place} seat)")


@pytest.mark.parametrize("group", [(), ("configs",), ("rules",), ("strategies",)], ids=str)
def test_a_bare_group_prints_its_help_and_no_empty_error(group):
    result = run(*group)
    assert "Usage: sim" in result.output
    assert "error:" not in result.output


def test_a_usage_error_from_typer_is_one_line_exit_2():
    result = run("show", "--sed", "3")
    line = assert_clean_failure(result)
    assert result.exit_code == 2
    assert "--sed" in line and "--seed" in line and "sim show --help" in line
