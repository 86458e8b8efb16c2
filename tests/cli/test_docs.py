"""What a new user reads first: docs/RULES.md in the repository, the README's commands,
.ci/run, the extras, and help texts that cite the rules where they are."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from sim.cli import app

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "docs" / "RULES.md"
SHARED_RULES = REPO.parent / "shared" / "RULES.md"  # the designers' copy, beside the repo
README = (REPO / "README.md").read_text()
BARE_REFERENCE = re.compile(r"(?<![\w/])RULES\.md")  # RULES.md not written as docs/RULES.md


def run(*args: str, columns: int = 200):
    return CliRunner().invoke(app, list(args), prog_name="sim", env={"COLUMNS": str(columns)})


def command_paths(group=None, prefix=()) -> list[tuple[str, ...]]:
    """Every command and sub-command of the app, as argument tuples."""
    group = group or typer.main.get_command(app)
    paths = []
    for name, command in group.commands.items():
        paths.append((*prefix, name))
        if hasattr(command, "commands"):
            paths += command_paths(command, (*prefix, name))
    return paths


def shell_block_after(marker: str) -> str:
    """The one-line ```bash block that follows marker in the README."""
    after = README[README.index(marker) :]
    found = re.search(r"```bash\n(.+?)\n```", after)
    assert found, marker
    return found.group(1)


# --- docs/RULES.md --------------------------------------------------------------------


def test_the_rules_ship_in_the_repository():
    text = RULES.read_text(encoding="utf-8")
    assert text.startswith("# One Zero One")
    assert len(text.splitlines()) > 400
    sections = re.findall(r"^## (\d+)\. ", text, re.MULTILINE)
    assert sections == [str(n) for n in range(1, 15)]


@pytest.mark.skipif(not SHARED_RULES.is_file(), reason="no ../shared/RULES.md beside this clone")
def test_the_shipped_rules_are_an_exact_copy_of_the_shared_ones():
    assert RULES.read_bytes() == SHARED_RULES.read_bytes(), (
        f"{RULES} differs from {SHARED_RULES}: copy the new rules in (cp {SHARED_RULES} {RULES})"
    )


def test_the_readme_points_at_the_shipped_rules():
    assert "docs/RULES.md" in README
    assert "shared/RULES.md" not in README
    assert not BARE_REFERENCE.findall(README)


def test_every_cited_section_exists():
    """'docs/RULES.md 12' or '5.9' in help, README or configs names a real section."""
    text = "\n".join(
        [README, *(p.read_text() for p in (REPO / "configs").glob("*.toml"))]
        + [run(*path, "--help").output for path in command_paths()]
    )
    numbers = set(re.findall(r"docs/RULES\.md (?:section )?(\d+)", text))
    assert numbers  # the help and README do cite sections
    assert {int(n) for n in numbers} <= set(range(1, 15))


# --- help texts -----------------------------------------------------------------------


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_help_has_no_placeholders_and_no_bare_rules_reference(path):
    result = run(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "<list[" not in result.output
    assert not BARE_REFERENCE.findall(result.output)


def test_strategy_descriptions_cite_the_shipped_rules():
    result = run("strategies", "list")
    assert "docs/RULES.md 9" in result.output
    assert not BARE_REFERENCE.findall(result.output)


@pytest.mark.parametrize("group", [(), ("configs",), ("rules",), ("strategies",)], ids=str)
def test_each_command_summary_fits_one_line(group):
    """A summary wrapped by the docstring's own line break reads as a broken sentence."""
    lines = run(*group, "--help", columns=200).output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("╭─ Commands"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("╰"))
    rows = lines[start + 1 : end]
    assert rows
    continued = [row for row in rows if not re.match(r"│ \S", row)]
    assert not continued, "\n".join(rows)


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_docstring_lines_break_only_between_sentences(path):
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    paragraphs = (command.help or "").strip().split("\n\n")
    assert "\n" not in paragraphs[0], f"summary of {' '.join(path)} spans lines"
    for paragraph in paragraphs[1:]:
        for line in paragraph.strip().splitlines()[:-1]:
            assert line.rstrip()[-1] in ".:;!?", f"{' '.join(path)}: {line!r} breaks a sentence"


def test_run_help_shows_every_default():
    result = run("run", "--help")
    for default in ("base", "random,random", "10000", "runs/latest", "all cores", "100000"):
        assert f"[default: {default}" in result.output, default


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert re.fullmatch(r"sim \S+ \(source [0-9a-f]{16}\)\n", result.output)


# --- README commands, .ci/run and extras ----------------------------------------------


def test_quick_start_uses_a_venv_and_installs_without_test_extras():
    command = shell_block_after("## Quick start")
    steps = command.split(" && ")
    assert steps[0] == "python3 -m venv .venv"
    assert steps[1] == ".venv/bin/pip install -e ."
    assert steps[2].startswith(".venv/bin/sim run ")


def test_ci_runs_exactly_the_readme_test_command():
    command = shell_block_after("Run the tests with")
    assert "'.[test]'" in command and command.endswith("python -m pytest")
    lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert lines[-1] == command
    assert sum("pytest" in line for line in lines if not line.startswith("#")) == 1


def test_the_tool_installs_without_the_test_tools():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    needed = " ".join(project["dependencies"])
    for tool in ("pytest", "hypothesis", "ruff", "dask", "duckdb"):
        assert tool not in needed
    tests = " ".join(project["optional-dependencies"]["test"])
    for tool in ("pytest", "hypothesis", "ruff"):
        assert tool in tests
    assert "cluster" in project["optional-dependencies"]
    for extra in ("[cluster]", "[test]"):
        assert extra in README
