"""What a new user reads first: docs/RULES.md in the repository, a short README (the quick
start .ci/run runs, the command table, the layout), topic pages in docs/ whose links all
resolve, no dated measurements outside docs/performance.md and CHANGELOG.md, and help texts
that cite the rules where they are."""

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
    """'docs/RULES.md 12' or '5.9' in help, README, docs pages or configs names a real
    section."""
    text = "\n".join(
        [README, *(p.read_text() for p in (REPO / "configs").glob("*.toml"))]
        + [p.read_text(encoding="utf-8") for p in OURS]
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


# --- README: quick start, .ci/run and extras ------------------------------------------

QUICK_START = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/sim run --config base "
    "--players random,random --games 1000000 --out runs/quickstart"
)
TEST_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
)


def section(text: str, heading: str) -> str:
    """The body of a `## heading` section, up to the next `## ` heading."""
    start = text.index(f"\n## {heading}\n") + len(heading) + 5
    end = text.find("\n## ", start)
    return text[start : end if end >= 0 else len(text)]


def test_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_quick_start_is_exactly_two_commands():
    """One installs and runs the main job on the shipped default config, one runs the tests."""
    blocks = re.findall(r"```bash\n(.+?)\n```", section(README, "Quick start"), re.DOTALL)
    assert blocks == [QUICK_START, TEST_COMMAND]


def test_quick_start_uses_a_venv_and_installs_without_test_extras():
    steps = shell_block_after("## Quick start").split(" && ")
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


# --- README: the command table and the layout -----------------------------------------


def table_commands() -> set[tuple[str, ...]]:
    """The commands the README's table names: each `sim ...` span of its first column, as
    the words before the first option or placeholder."""
    named = set()
    for row in section(README, "Commands").splitlines():
        if not row.startswith("| `sim "):
            continue
        first_column = re.split(r"(?<!\\)\|", row)[1]
        for span in re.findall(r"`sim ([^`]+)`", first_column):
            words = []
            for word in span.split():
                if not re.fullmatch(r"[a-z][a-z-]*", word):
                    break
                words.append(word)
            named.add(tuple(words))
    return named


def leaf_commands() -> set[tuple[str, ...]]:
    groups = {path[:-1] for path in command_paths()}
    return {path for path in command_paths() if path not in groups}


def test_the_command_table_names_every_command_of_the_app():
    named = table_commands()
    assert leaf_commands() - named == set(), "commands missing from the README's table"
    assert named - leaf_commands() == set(), "the README's table names commands the app lacks"


def test_the_layout_lists_one_folder_a_bullet():
    """Bullets in the form - `folder/` text, as tests/test_layers.py reads them."""
    bullets = [line for line in section(README, "Layout").splitlines() if line.startswith("- ")]
    assert len(bullets) >= 10
    for bullet in bullets:
        assert re.match(r"- `[\w/.]+/` \S", bullet) or bullet.startswith("- `tests/`, "), bullet
    named = {bullet.split("`")[1] for bullet in bullets}
    for folder in (
        "sim/engine/",
        "strategies/",
        "reports/",
        "sim/runner/",
        "sim/tune/",
        "sim/cli/",
    ):
        assert folder in named, folder


# --- docs/: pages, links, references and measurements ---------------------------------

PAGES = sorted((REPO / "docs").glob("*.md"))
OURS = [REPO / "README.md", REPO / "CHANGELOG.md", *(p for p in PAGES if p != RULES)]
TOPICS = ("designer-guide", "strategies", "scale", "tuning", "statistics", "performance", "engine")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.MULTILINE)
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
COMMIT = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")  # hex, not a number
COMMAND_LINE = re.compile(
    r"^(?:\| `)?(?:python benchmarks/|sim |/usr/bin/time |NUMBA_CACHE_DIR=)", re.MULTILINE
)
MEASURED_AT = ("docs/performance.md", "CHANGELOG.md")  # the only homes of dated measurements
REPO_PATH = re.compile(
    r"`((?:sim|strategies|reports|tests|benchmarks|configs|docs)/[\w/.-]*|[\w-]+\.(?:md|toml))`"
)


def name(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_the_topic_pages_exist_and_the_readme_links_each():
    links = set(LINK.findall(README))
    for topic in TOPICS:
        page = REPO / "docs" / f"{topic}.md"
        assert page.is_file(), page
        assert f"docs/{topic}.md" in links, topic
    assert "CHANGELOG.md" in links


@pytest.mark.parametrize("page", OURS, ids=name)
def test_every_relative_link_points_to_an_existing_file(page):
    text = page.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.is_file(), f"{name(page)} links to {target}, which does not exist"
        if anchor and file.suffix == ".md":
            anchors = {slug(h) for h in HEADING.findall(file.read_text(encoding="utf-8"))}
            assert anchor in anchors, f"{name(page)} links to {target}: no such heading"


@pytest.mark.parametrize("page", OURS, ids=name)
def test_every_file_named_is_in_the_repository(page):
    """A path in code (`tests/test_tune.py`, `CHANGELOG.md`) names a file or folder that
    exists; sim/ paths are written in the layered layout, checked once that layout is here,
    and a reader's own files are named my-*."""
    layered = (REPO / "sim" / "model").is_dir()
    for path in REPO_PATH.findall(page.read_text(encoding="utf-8")):
        path = path.rstrip(".")
        if path.startswith("sim/") and not layered or Path(path).name.startswith("my-"):
            continue  # my-variant.toml and the like: a file of the reader's own
        places = [REPO / path, page.parent / path]
        assert any(p.exists() for p in places), f"{name(page)} names {path}, not in the repo"


@pytest.mark.parametrize("page", OURS, ids=name)
def test_no_dated_measurement_outside_performance_and_changelog(page):
    if name(page) in MEASURED_AT:
        return
    text = page.read_text(encoding="utf-8")
    assert not DATE.findall(text), f"{name(page)}: a date"
    assert not COMMIT.findall(text), f"{name(page)}: a commit hash"
    assert "load average" not in text, f"{name(page)}: a load average"


def test_every_performance_section_says_how_to_reproduce_it():
    """Each figure's section holds the command that measured it, in a block or a table."""
    text = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")
    for part in text.split("\n## ")[1:]:
        assert COMMAND_LINE.search(part), part.splitlines()[0]


def test_the_pages_point_at_the_shipped_rules():
    for page in OURS:
        text = page.read_text(encoding="utf-8")
        assert "shared/RULES.md" not in text, name(page)
        assert not BARE_REFERENCE.findall(text.replace("](RULES.md)", "")), name(page)


def test_the_changelog_keeps_the_unreleased_layout_change():
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog")
    unreleased = section(text, "[Unreleased]")
    assert "### Changed" in unreleased
    assert "layout in layers" in unreleased and "README rewritten for users" in unreleased
