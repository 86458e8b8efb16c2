"""The layers (docs/engine.md): each package imports only its own layer and those below it,
at any depth (imports inside functions included), and no modules import each other in a
circle. The README's layout list names every folder of the tree."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "strategies", "reports")

# lowest first; a module belongs to the layer of its longest matching prefix
LAYERS = (
    ("sim.stats",),  # estimators on additive tallies: a leaf
    ("sim.engine",),
    ("sim.model",),
    ("sim.players", "sim.strategy", "strategies"),
    ("sim.play",),
    ("sim.store",),
    ("sim.runner",),
    ("reports",),
    ("sim.tune",),
    ("sim.cli", "sim.api", "sim", "sim.__main__"),
)


def modules() -> dict[str, Path]:
    """Every module of the product, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = modules()


def imported(source: str, module: str) -> set[str]:
    """The product modules a source imports, at any depth (relative imports resolved)."""
    is_package = MODULES.get(module, Path()).name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            root = ".".join(part for part in (base, node.module) if part)
            # `from p import m` imports p's __init__ as well as the module m
            names = [root] + [f"{root}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def layer(module: str) -> int:
    """The layer index of a module: its longest matching prefix in LAYERS."""
    best, rank = -1, None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank is not None, f"{module} is in no layer: add it to LAYERS"
    return rank


def graph() -> dict[str, set[str]]:
    """Each module's imports of other product modules."""
    edges = {}
    for name, path in MODULES.items():
        edges[name] = {m for m in imported(path.read_text(), name) if m != name}
    return edges


def upward(edges: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{a} -> {b}" for a, targets in edges.items() for b in targets if layer(b) > layer(a)
    )


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_check_sees_every_form_of_import():
    assert imported("from strategies.greedy import greedy_turn", "sim.engine.turn") == {
        "strategies.greedy"
    }
    assert imported("import strategies", "sim.engine.turn") == {"strategies"}
    assert imported("from sim.players import specs", "sim.engine.turn") == {
        "sim.players.specs",
        "sim.players",
    }
    assert imported("from .. import play", "sim.engine.turn") >= {"sim.play"}
    assert imported("def f():\n    from reports import summary\n", "sim.engine.turn") >= {
        "reports.summary"
    }
    assert imported("from sim.engine.cards import CONT", "sim.engine.turn") == {"sim.engine.cards"}
    assert imported("from strategies_extra import x", "sim.engine.turn") == set()


def test_the_check_finds_an_upward_import_and_a_circle():
    edges = {"sim.engine.turn": {"reports.summary"}, "reports.summary": {"sim.engine.turn"}}
    assert upward(edges) == ["sim.engine.turn -> reports.summary"]
    assert circles(edges) == [["reports.summary", "sim.engine.turn"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_every_module_belongs_to_a_layer():
    for name in MODULES:
        layer(name)


def test_no_module_imports_a_layer_above_its_own():
    assert upward(graph()) == []


def test_no_modules_import_each_other_in_a_circle():
    assert circles(graph()) == []


def test_at_most_six_modules_at_sim_s_root():
    root = sorted(p.name for p in (ROOT / "sim").glob("*.py"))
    assert len(root) <= 6, root


def test_the_built_in_players_live_in_strategies():
    for name in ("greedy", "heuristic", "mc", "ismcts", "search", "seats"):
        assert not (ROOT / "sim" / "engine" / f"{name}.py").exists(), name
        assert (ROOT / "strategies" / f"{name}.py").exists(), name


def layout_bullets() -> dict[str, str]:
    """The README's layout list (## Layout): each bullet by its first path."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Layout") :]
    section = section[: section.index("\n#", 1)] if "\n#" in section[1:] else section
    bullets = [b for b in section.split("\n- ")[1:]]
    return {b.split("`")[1]: " ".join(b.split()) for b in bullets}


def test_the_readme_layout_names_every_package_folder():
    named = set(layout_bullets())
    folders = {
        f"{p.parent.relative_to(ROOT).as_posix()}/"
        for p in ROOT.glob("*/**/__init__.py")
        if p.parent.relative_to(ROOT).parts[0] in PACKAGES
        and "examples" not in p.parts
        and "templates" not in p.parts
    } - {"sim/"}  # the package itself: its folders are named one by one
    assert folders - named == set()
    for path in named:
        assert (ROOT / path).exists(), path


def test_no_test_module_imports_another():
    """Shared test code lives in tests/'s helper modules (conftest.py, hand_runs.py, ...),
    never in a test module another imports: each test file stands alone."""
    tests = Path(__file__).resolve().parent
    test_modules = {p.stem for p in tests.rglob("test_*.py")}
    for path in tests.rglob("*.py"):
        used = imported(path.read_text(), path.stem) & test_modules
        assert not used, f"{path.relative_to(tests)} imports {sorted(used)}"
