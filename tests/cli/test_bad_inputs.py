"""Every bad input, one clear message: configs, plans, command-line values and strategy specs.

Each case must exit non-zero (2 for the command line's own values, 1 for a file that cannot
be used), print exactly one `error:` line and no traceback, and leave no output folder for
a later run to trust. Hypothesis adds malformed configs (field and value mutations of a
valid one, and damaged text) and malformed strategy specs.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from pathlib import Path

import pytest
from cli_failures import assert_clean_failure
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim.cli import app
from sim.model.config import load

USAGE, FAILURE = 2, 1
VALID = {
    "description": "a valid variant",
    "extends": "base",
    "rules": {"lines": 6, "run_capacity": 4, "orientation": "free"},
    "deck_extra": [
        {"kind": "CUT", "axis": "H", "count": 1},
        {"kind": "BLANK", "count": 2},
    ],
}


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim", env={"COLUMNS": "200"})


def refused(result, code: int) -> str:
    """The one error line of a clean refusal with exit code `code`."""
    line = assert_clean_failure(result)
    assert result.exit_code == code, result.output
    return line


def run_refused(out: Path, code: int, *args: str) -> str:
    """`sim run ARGS --out out` refused with `code`, and nothing written to out."""
    line = refused(invoke("run", *args, "--out", str(out), "--quiet"), code)
    assert not out.exists(), f"{out} was written by a refused run"
    return line


# --- a tiny TOML writer, so configs can be built from (mutated) tables ----------------


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_text(table: dict) -> str:
    """Top-level values first, then [tables] and [[arrays of tables]]."""

    def is_table_array(v):
        return isinstance(v, list) and v and all(isinstance(e, dict) for e in v)

    lines = [
        f"{json.dumps(k)} = {toml_value(v)}"
        for k, v in table.items()
        if not isinstance(v, dict) and not is_table_array(v)
    ]
    for key, value in table.items():
        if isinstance(value, dict):
            lines.append(f"[{json.dumps(key)}]")
            lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()]
        elif is_table_array(value):
            for entry in value:
                lines.append(f"[[{json.dumps(key)}]]")
                lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


def write(folder: Path, name: str, content: str | bytes | dict) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, dict):
        content = toml_text(content)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def test_the_valid_config_loads():
    """The starting point of every mutation below is itself valid."""
    with tempfile.TemporaryDirectory() as folder:
        result = invoke("configs", "show", str(write(Path(folder), "v.toml", VALID)))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.split("\n", 3)[3])["rules"]["lines"] == 6


# --- configs --------------------------------------------------------------------------

BAD_CONFIGS = {
    "rules-not-a-table-under-extends": ('extends = "base"\nrules = 5\n', "rules"),
    "deck-extra-not-an-array-under-extends": ('extends = "base"\ndeck_extra = 5\n', "deck_extra"),
    "deck-not-an-array": ("deck = 5\n", "deck"),
    "deck-second-not-an-array": ('extends = "base"\ndeck_second = "x"\n', "deck_second"),
    "extends-a-number": ("extends = 5\n", "extends"),
    "description-a-table": ('extends = "base"\n[description]\nx = 1\n', "description"),
    "not-utf-8": (b'extends = "base"\ndescription = "caf\xe9"\n', "UTF-8"),
    "utf-16": ('extends = "base"\n'.encode("utf-16"), "UTF-8"),
    "not-toml": ("[rules\nlines = 5\n", "TOML"),
    "unknown-field": ('extends = "base"\nspeed = 3\n', "speed"),
    "unknown-rule": ('extends = "base"\n[rules]\nlinez = 5\n', "rules.linez"),
    "rule-wrong-type": ('extends = "base"\n[rules]\nlines = "5"\n', "rules.lines"),
    "rule-a-table": ('extends = "base"\n[rules]\nlines = {a = 1}\n', "rules.lines"),
    "count-1e8-float": ('extends = "base"\n[[deck_extra]]\nkind = "BLANK"\ncount = 1e8\n', "count"),
    "count-1e8": ('extends = "base"\n[[deck_extra]]\nkind = "BLANK"\ncount = 100000000\n', "count"),
    "count-2**62": (f'[[deck]]\nkind = "BLANK"\ncount = {2**62}\n', "count"),
    "count-0": ('extends = "base"\n[[deck_extra]]\nkind = "BLANK"\ncount = 0\n', "count"),
    "count-true": ('extends = "base"\n[[deck_extra]]\nkind = "BLANK"\ncount = true\n', "count"),
    "many-entries-past-the-limit": (
        "".join('[[deck]]\nkind = "BLANK"\ncount = 40\n' for _ in range(3)),
        "deck",
    ),
    "deck-entry-not-a-table": ("deck = [1, 2]\n", "deck[0]"),
    "unknown-kind": ('extends = "base"\n[[deck_extra]]\nkind = "JUMP"\n', "kind"),
    "kind-missing": ('extends = "base"\n[[deck_extra]]\ncount = 2\n', "kind"),
    "axis-on-a-blank": ('extends = "base"\n[[deck_extra]]\nkind = "BLANK"\naxis = "H"\n', "axis"),
    "axis-missing": ('extends = "base"\n[[deck_extra]]\nkind = "PRINT"\n', "axis"),
    "no-blank": ('[[deck]]\nkind = "PRINT"\naxis = "H"\ncount = 10\n', "BLANK"),
    "too-few-cards": ('[[deck]]\nkind = "BLANK"\ncount = 3\n', "at least 4"),
    "unknown-parent": ('extends = "nowhere"\n', "nowhere"),
    "empty-file": ("", "BLANK"),
}


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_a_bad_config_is_one_error_naming_file_and_field(tmp_path, name):
    content, field = BAD_CONFIGS[name]
    path = write(tmp_path, f"{name}.toml", content)
    started = time.perf_counter()
    line = refused(invoke("configs", "show", str(path)), FAILURE)
    assert time.perf_counter() - started < 2  # refused before anything large is built
    assert str(path) in line and field in line, line


@pytest.mark.parametrize("name", ["rules-not-a-table-under-extends", "not-utf-8", "count-1e8"])
def test_a_bad_config_stops_a_run_before_anything_is_written(tmp_path, name):
    path = write(tmp_path, f"{name}.toml", BAD_CONFIGS[name][0])
    line = run_refused(tmp_path / "out", FAILURE, "--config", str(path), "--games", "10")
    assert str(path) in line


def test_a_bad_parent_is_named_through_extends(tmp_path):
    write(tmp_path, "parent.toml", b'extends = "base"\ndescription = "\xff"\n')
    child = write(tmp_path, "child.toml", 'extends = "parent"\n')
    line = refused(invoke("configs", "show", str(child)), FAILURE)
    assert "parent.toml" in line and "UTF-8" in line


# --- the same config twice, two configs of one name -----------------------------------


def test_the_same_config_twice_is_refused(tmp_path):
    line = run_refused(tmp_path / "out", USAGE, "--config", "base", "--config", "configs/base.toml")
    assert "same file" in line and "base" in line


def test_the_same_config_name_twice_is_refused(tmp_path):
    line = run_refused(tmp_path / "out", USAGE, "--config", "base", "--config", "base")
    assert "same file" in line


def test_two_files_of_one_name_are_refused_naming_both(tmp_path):
    a = write(tmp_path, "va/variant.toml", 'extends = "base"\n')
    b = write(tmp_path, "vb/variant.toml", 'extends = "base"\n[rules]\nrun_capacity = 4\n')
    line = run_refused(tmp_path / "out", USAGE, "--config", str(a), "--config", str(b))
    assert str(a) in line and str(b) in line


def test_the_same_match_up_twice_is_refused(tmp_path):
    line = run_refused(
        tmp_path / "out", USAGE, "--players", "random,greedy", "--players", "random, greedy"
    )
    assert "twice" in line


# --- plans ----------------------------------------------------------------------------

BAD_PLANS = {
    "not-utf-8": (b'configs = ["b\xe4se"]\n', "UTF-8"),
    "not-toml": ("games = \n", "TOML"),
    "unknown-field": ("speed = 3\n", "speed"),
    "configs-a-string": ('configs = "base"\n', "configs"),
    "players-numbers": ("players = [1, 2]\n", "players"),
    "games-a-string": ('games = "many"\n', "games"),
    "games-zero": ("games = 0\n", "games"),
    "games-a-float": ("games = 1e12\n", "games"),
    "games-too-many": (f"games = {10**13}\n", "games"),
    "seed-negative": ("seed = -1\n", "seed"),
    "seed-2**64": (f"seed = {2**64}\n", "seed"),
    "chunk-size-zero": ("chunk_size = 0\n", "chunk_size"),
    "swap-a-string": ('swap = "yes"\n', "swap"),
}


@pytest.mark.parametrize("name", sorted(BAD_PLANS))
def test_a_bad_plan_file_is_one_error_naming_it(tmp_path, name):
    content, field = BAD_PLANS[name]
    plan = write(tmp_path, "plan.toml", content)
    line = run_refused(tmp_path / "out", FAILURE, "--plan", str(plan))
    assert str(plan) in line and field in line, line


def test_a_missing_plan_file(tmp_path):
    line = run_refused(tmp_path / "out", FAILURE, "--plan", str(tmp_path / "none.toml"))
    assert "none.toml" in line


# --- command-line values --------------------------------------------------------------

BAD_RUN_OPTIONS = {
    "games-zero": (("--games", "0"), "--games"),
    "games-negative": (("--games", "-4"), "--games"),
    "games-odd-with-swapping": (("--games", "1001"), "even"),
    "games-2**40": (("--games", str(2**40)), "--games"),
    "games-2**38-in-small-chunks": (("--games", str(2**38), "--chunk-size", "2"), "chunks"),
    "games-beyond-any-run": (("--games", str(10**15)), "--games"),
    "games-not-a-number": (("--games", "lots"), "--games"),
    "chunk-size-zero": (("--chunk-size", "0"), "--chunk-size"),
    "chunk-size-one": (("--chunk-size", "1"), "--chunk-size"),
    "chunk-size-huge": (("--chunk-size", str(10**9)), "--chunk-size"),
    "seed-negative": (("--seed", "-1"), "--seed"),
    "seed-2**64": (("--seed", str(2**64)), "--seed"),
    "workers-zero": (("--workers", "0"), "--workers"),
    "backend-unknown": (("--backend", "pigeon"), "--backend"),
    "unknown-option": (("--gmaes", "10"), "--gmaes"),
    "flag-typo": (("--swapp",), "--swapp"),
}


@pytest.mark.parametrize("name", sorted(BAD_RUN_OPTIONS))
def test_a_bad_run_option_is_a_usage_error(tmp_path, name):
    args, says = BAD_RUN_OPTIONS[name]
    line = run_refused(tmp_path / "out", USAGE, *args)
    assert says in line, line


def test_an_odd_count_is_fine_without_swapping_or_against_the_cpu(tmp_path):
    """Refusing 1001 is about pairs: with no pairs to make, the count stands as given."""
    from sim.runner.plan import make_plan

    assert make_plan(["base"], ["random,random"], 1001, 0, swap=False).games == 1001
    assert make_plan(["base"], ["random,cpu"], 1001, 0, swap=True).games == 1001


BAD_SEEDS = [str(2**64), "-1", str(2**70)]


@pytest.mark.parametrize("seed", BAD_SEEDS)
@pytest.mark.parametrize(
    "command", [("show",), ("solo", "--games", "10"), ("sprt", "--players", "random,random")]
)
def test_one_seed_range_for_every_command(command, seed):
    line = refused(invoke(*command, "--seed", seed), USAGE)
    assert "--seed" in line


def test_the_largest_seed_is_taken_everywhere(tmp_path):
    from sim.runner.plan import make_plan

    assert make_plan(["base"], ["random,random"], 2, 2**64 - 1).seed == 2**64 - 1
    shown = invoke("show", "--seed", str(2**64 - 1), "--no-legend")
    assert shown.exit_code == 0, shown.output


# --- strategy specs -------------------------------------------------------------------

BAD_SPECS = {
    "unknown": ("nope,random", "nope"),
    "negative-budget": ("mc(rollouts=-1),random", "rollouts"),
    "budget-not-a-number": ("mc(rollouts=many),random", "rollouts"),
    "unknown-parameter": ("mc(rolouts=5),random", "rolouts"),
    "three-seats": ("random,random,random", "two strategies"),
    "one-seat": ("random", "two strategies"),
    "empty-seat": ("random,", "two strategies"),
    "cpu-first": ("cpu,random", "second"),
    "cpu-level-5": ("random,cpu(level=5)", "level"),
    "unclosed": ("mc(rollouts=5,random", "mc"),
    "missing-file": ("nowhere.py:Mine,random", "nowhere.py"),
}


@pytest.mark.parametrize("name", sorted(BAD_SPECS))
@pytest.mark.parametrize("command", ["run", "show", "bench"])
def test_a_bad_strategy_spec_is_a_usage_error(tmp_path, command, name):
    spec, says = BAD_SPECS[name]
    if command == "run":
        line = run_refused(tmp_path / "out", USAGE, "--players", spec)
    else:
        line = refused(invoke(command, "--players", spec), USAGE)
    assert says in line, line


@pytest.mark.parametrize(
    "args",
    [
        ("bench", "--games", str(10**10)),
        ("solo", "--games", str(10**10)),
        ("strategies", "check", "random", "--games", str(10**9)),
        ("bench", "--games", "0"),
    ],
    ids=" ".join,
)
def test_counts_held_in_memory_are_bounded(args):
    started = time.perf_counter()
    line = refused(invoke(*args), USAGE)
    assert "--games" in line
    assert time.perf_counter() - started < 2


def test_the_cpu_as_the_human_is_a_usage_error():
    line = refused(invoke("solo", "--human", "cpu", "--games", "10"), USAGE)
    assert "--human" in line


# --- hypothesis: mutated configs ------------------------------------------------------

ODD_VALUES = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=6),
    st.sampled_from(["BLANK", "PRT", "GOTO 10", "H", "V", "-", "random", "free", "base", ""]),
    st.lists(st.integers(-3, 70), max_size=3),
    st.dictionaries(
        st.sampled_from(["kind", "axis", "count", "x"]), st.integers(0, 70), max_size=2
    ),
)
FIELDS = st.sampled_from(
    [
        ("description",),
        ("extends",),
        ("rules",),
        ("deck_extra",),
        ("deck",),
        ("deck_second",),
        ("nonsense",),
        *((("rules", k)) for k in ("lines", "run_capacity", "orientation", "cpu_level", "oops")),
        *((("deck_extra", i, k)) for i in (0, 1) for k in ("kind", "axis", "count", "colour")),
    ]
)


def holder(table: dict, path: tuple) -> dict | None:
    """The table holding path's last key; None once a mutation removed or retyped it."""
    node = table
    for key in path[:-1]:
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return None
    return node if isinstance(node, dict) else None


@st.composite
def mutated_configs(draw) -> bytes:
    """A valid config with a few fields set to odd values or removed, then maybe damaged
    as text (bytes inserted, possibly not UTF-8)."""
    table = json.loads(json.dumps(VALID))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(FIELDS)
        parent = holder(table, path)
        if parent is None:
            continue
        if draw(st.booleans()):
            parent[path[-1]] = draw(ODD_VALUES)
        else:
            parent.pop(path[-1], None)
    text = toml_text(table).encode()
    if draw(st.integers(0, 3)) == 0:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.binary(min_size=1, max_size=4)) + text[at:]
    return text


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(content=mutated_configs())
def test_a_mutated_config_loads_or_gives_one_error_naming_the_file(content):
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), "mutant.toml", content)
        result = invoke("configs", "show", str(path))
        if result.exit_code == 0:
            assert 4 <= len(load(str(path)).deck) <= 64
            return
        line = refused(result, FAILURE)
        assert str(path) in line


# --- hypothesis: malformed strategy specs on the command line -------------------------

NAMES = st.sampled_from(["random", "greedy", "heuristic", "mc", "ismcts", "cpu", "nope", ""])
KEYS = st.sampled_from(["rollouts", "iterations", "level", "x", "", "rollouts=1"])
ARG_VALUES = st.one_of(
    st.integers(-(2**65), 2**65).map(str),
    st.sampled_from(["", "abc", "1.5", "'x'", "(", ")", ",", "=", "1e9", "True"]),
)


@st.composite
def specs(draw) -> str:
    """One seat's spec, often malformed: odd names, parameters, values and brackets."""
    name = draw(NAMES)
    if draw(st.booleans()):
        return name + draw(st.sampled_from(["", "(", ")", "()", ",", "(=)", "!"]))
    args = ",".join(f"{draw(KEYS)}={draw(ARG_VALUES)}" for _ in range(draw(st.integers(0, 2))))
    closing = draw(st.sampled_from([")", ")", ")", "", "))"]))
    return f"{name}({args}{closing}"


@st.composite
def matchups(draw) -> str:
    seats = [draw(specs()) for _ in range(draw(st.integers(1, 3)))]
    return draw(st.sampled_from([",", ", ", ";"])).join(seats)


@settings(max_examples=200)
@given(spec=matchups())
def test_a_malformed_spec_never_starts_a_run(spec):
    """Too many chunks refuses even a valid spec, so no generated spec plays a game."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        result = invoke(
            "run", "--players", spec, "--games", str(2**38), "--chunk-size", "2",
            "--out", str(out), "--quiet",
        )  # fmt: skip
        line = refused(result, USAGE)
        assert "chunks" in line or "--games" not in line  # refused on the spec or the chunks
        assert not out.exists()


@settings(max_examples=200)
@given(spec=matchups())
def test_show_refuses_a_malformed_spec_before_playing(spec):
    """With a config that does not exist, a valid spec fails on the config (1), a bad one
    on the spec (2): either way one line, and no game."""
    result = invoke("show", "--players", spec, "--config", "no-such-config")
    line = refused(result, result.exit_code)
    assert result.exit_code in (USAGE, FAILURE)
    assert ("no-such-config" in line) == (result.exit_code == FAILURE), line


# --- input nested too deeply for Python's parsers (issue #36) -----------------------------

DEEP_JSON = "[" * 100_000
DEEP_TOML = "a = " + "[" * 100_000


def _deep(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_deeply_nested_scenario_fails_naming_the_file(tmp_path):
    path = _deep(tmp_path, "deep.json", DEEP_JSON)
    checked = invoke("rules", "check", str(path))
    assert checked.exit_code == 1 and "Traceback" not in checked.output
    assert f"FAIL {path}" in checked.stdout and "nested too deeply" in checked.stdout
    applied = assert_clean_failure(invoke("rules", "apply", str(path)))
    assert str(path) in applied and "nested too deeply" in applied


@pytest.mark.parametrize(
    "args",
    [
        ("configs", "show", "{file}"),
        ("run", "--config", "{file}", "--games", "10", "--out", "{tmp}/out"),
        ("run", "--plan", "{file}", "--out", "{tmp}/out"),
        ("tune", "{file}", "--out", "{tmp}/out", "--trials", "1"),
    ],
    ids=["config", "config in a run", "plan", "tune space"],
)
def test_deeply_nested_toml_is_one_error_naming_the_file(tmp_path, args):
    path = _deep(tmp_path, "deep.toml", DEEP_TOML)
    args = [a.format(file=path, tmp=tmp_path) for a in args]
    line = assert_clean_failure(invoke(*args))
    assert str(path) in line and "nested too deeply" in line


def test_a_deeply_nested_manifest_is_one_error_naming_it(tmp_path):
    run = tmp_path / "run"
    (run / "games").mkdir(parents=True)
    _deep(run, "manifest.json", DEEP_JSON)
    for args in (("summary", str(run)), ("report", str(run), "--out", str(tmp_path / "r.html"))):
        line = assert_clean_failure(invoke(*args))
        assert str(run / "manifest.json") in line and "nested too deeply" in line


def test_a_deeply_nested_tuning_record_is_one_error_naming_it(tmp_path):
    _deep(tmp_path, "tune.json", DEEP_JSON)
    line = assert_clean_failure(invoke("tune", str(tmp_path), "--show"))
    assert str(tmp_path) in line
