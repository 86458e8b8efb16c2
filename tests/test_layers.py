"""The layers of docs/STYLE.md: the rules engine (sim/engine) imports no strategy, runner,
report or anything else built on top of it; the built-in players (strategies/) and the
compiled loop joining them with the rules sit one layer up."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "sim" / "engine"
# everything above the rules: players, the loops joining them, runs, reports, the CLI
ABOVE = (
    "strategies",
    "reports",
    "sim.runner",
    "sim.tune",
    "sim.cli",
    "sim.compiled_loop",
    "sim.game",
    "sim.python_loop",
    "sim.players",
    "sim.plugins",
    "sim.strategy",
    "sim.api",
)


def imported(source: str, package: str) -> list[str]:
    """Every module a source imports (relative imports resolved against its package)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module) if part)
            found += [module] + [f"{module}.{alias.name}" for alias in node.names]
    return found


def upward(source: str, package: str = "sim.engine") -> list[str]:
    """The imports of a source that reach a layer above the engine."""
    hits = imported(source, package)
    return sorted({m for m in hits if any(m == a or m.startswith(a + ".") for a in ABOVE)})


def test_the_check_sees_every_form_of_import():
    assert upward("from strategies.greedy import greedy_turn") == [
        "strategies.greedy",
        "strategies.greedy.greedy_turn",
    ]
    assert upward("import strategies") == ["strategies"]
    assert upward("from sim import players") == ["sim.players"]
    assert upward("from .. import compiled_loop") == ["sim.compiled_loop"]
    assert upward("def f():\n    from reports import summary\n") == ["reports", "reports.summary"]
    assert upward("from sim.engine.turn import random_turn\nfrom sim.cards import CONT") == []
    assert upward("from strategies_extra import x") == []


def test_the_engine_imports_nothing_above_it():
    modules = sorted(ENGINE.glob("*.py"))
    assert len(modules) > 5
    found = {p.name: upward(p.read_text()) for p in modules}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_built_in_players_live_in_strategies():
    for name in ("greedy", "heuristic", "mc", "ismcts", "search", "seats"):
        assert not (ENGINE / f"{name}.py").exists(), name
        assert (ROOT / "strategies" / f"{name}.py").exists(), name


def layout_bullets() -> dict[str, str]:
    """The README's layout list (How the engine is built): each bullet by its first path."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## How the engine is built") :]
    section = section[: section.index("\n\n", section.index("\n- "))]
    bullets = section[section.index("\n- ") :].split("\n- ")[1:]
    return {b.split("`")[1]: " ".join(b.split()) for b in bullets}


def test_the_readme_layout_names_every_engine_and_player_module_and_nothing_else():
    bullets = layout_bullets()
    for folder in ("sim/engine/", "strategies/"):
        named = set(re.findall(r"`([\w/]+\.py|[\w]+/)`", bullets[folder]))
        modules = {p.name for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py"}
        modules |= {p.name + "/" for p in (ROOT / folder).iterdir() if (p / "__init__.py").exists()}
        assert named - {folder} == modules, folder
    for bullet in bullets.values():
        for path in re.findall(
            r"`((?:sim|strategies|reports|tests|docs|benchmarks|configs)/[\w/.]*)`", bullet
        ):
            assert (ROOT / path).exists(), path
